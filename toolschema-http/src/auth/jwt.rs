//! JWT access tokens checked against the authorization server's JWKS: discovered from its
//! metadata (RFC 8414, then OpenID Connect discovery), cached, fetched again when a token
//! names a key it does not hold (at most once per refresh interval, 10 s by default).

use super::fetch::Fetcher;
use super::{Grant, Refusal};
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use std::time::{Duration, Instant};

/// Keys older than this are fetched again at the next token (rotation without a new `kid`).
const MAX_AGE: Duration = Duration::from_secs(3600);

/// The algorithms accepted: RS256, ES256, EdDSA (Ed25519). Anything else, `none` and the
/// HMAC family included, is refused.
const ALGORITHMS: [Algorithm; 3] = [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA];

#[derive(Default)]
struct Keys {
    jwks_uri: Option<String>,
    /// The issuer as the metadata spells it (what `iss` must equal).
    issuer: Option<String>,
    keys: Vec<Jwk>,
    fetched: Option<Instant>,
    /// The last fetch failed (and there were no keys to keep).
    failed: bool,
}

pub(crate) struct JwtVerifier {
    issuer: String,
    configured_jwks: Option<String>,
    /// The least time between two JWKS fetches caused by unknown key ids.
    refresh_every: Duration,
    state: tokio::sync::Mutex<Keys>,
}

impl JwtVerifier {
    pub(crate) fn new(
        issuer: String,
        jwks_uri: Option<String>,
        refresh_every: Duration,
    ) -> JwtVerifier {
        JwtVerifier {
            issuer,
            configured_jwks: jwks_uri,
            refresh_every,
            state: tokio::sync::Mutex::new(Keys::default()),
        }
    }

    pub(crate) async fn verify(
        &self,
        fetcher: &Fetcher,
        token: &str,
        audiences: &[String],
        leeway: Duration,
    ) -> Result<Grant, Refusal> {
        let invalid = |m: &str| Refusal::Invalid(m.to_string());
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("the token is not a signed JWT with a supported algorithm"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(invalid(
                "the token's algorithm is not accepted (RS256, ES256 or EdDSA)",
            ));
        }
        let (key, issuer) = self.key_for(fetcher, &header).await?;
        let decoding = DecodingKey::from_jwk(&key)
            .map_err(|_| invalid("the token's signing key cannot be used"))?;
        let mut v = Validation::new(header.alg);
        v.leeway = leeway.as_secs();
        v.validate_nbf = true;
        v.set_issuer(&[issuer]);
        v.set_audience(audiences);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<Value>(token, &decoding, &v).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind as K;
            invalid(match e.kind() {
                K::ExpiredSignature => "the token has expired",
                K::ImmatureSignature => "the token is not valid yet",
                K::InvalidAudience => "the token's audience is not this resource",
                K::InvalidIssuer => "the token's issuer is not the authorization server",
                K::InvalidSignature => "the token's signature does not verify",
                K::MissingRequiredClaim(_) => "the token lacks exp, iss or aud",
                K::InvalidAlgorithm => "the token's algorithm does not fit its key",
                _ => "the token is malformed",
            })
        })?;
        Ok(Grant::from_claims(&data.claims))
    }

    /// The key that signed a token with this header, and the issuer its `iss` must name.
    async fn key_for(
        &self,
        fetcher: &Fetcher,
        header: &jsonwebtoken::Header,
    ) -> Result<(Jwk, String), Refusal> {
        let mut state = self.state.lock().await;
        // After a failed fetch with no keys to fall back on, the requests that waited for
        // it (and those that follow within the refresh interval) are answered at once,
        // rather than each fetching again: a dead or hanging authorization server is asked
        // once per interval, whatever the number of tokens.
        let since = state.fetched.map(|t| t.elapsed());
        if state.failed && since.is_some_and(|t| t < self.refresh_every) {
            return Err(unavailable());
        }
        let stale = state.failed || since.is_none_or(|t| t >= MAX_AGE);
        if stale {
            self.refresh(fetcher, &mut state).await?;
        }
        let issuer = || state.issuer.clone().unwrap_or_else(|| self.issuer.clone());
        match pick(&state.keys, header) {
            Pick::Found(k) => return Ok((*k, issuer())),
            Pick::Unfit => {
                return Err(Refusal::Invalid(
                    "the token's algorithm does not fit its key".into(),
                ));
            }
            Pick::None => {}
        }
        let recent = state
            .fetched
            .is_some_and(|t| t.elapsed() < self.refresh_every);
        if !stale && !recent {
            self.refresh(fetcher, &mut state).await?;
            let issuer = state.issuer.clone().unwrap_or_else(|| self.issuer.clone());
            match pick(&state.keys, header) {
                Pick::Found(k) => return Ok((*k, issuer)),
                Pick::Unfit => {
                    return Err(Refusal::Invalid(
                        "the token's algorithm does not fit its key".into(),
                    ));
                }
                Pick::None => {}
            }
        }
        Err(Refusal::Invalid(
            "the token's signing key is not one of the authorization server's".into(),
        ))
    }

    async fn refresh(&self, fetcher: &Fetcher, state: &mut Keys) -> Result<(), Refusal> {
        // Counted as a fetch even when it fails: a dead authorization server is not asked
        // again for every token.
        let had_keys = !state.keys.is_empty();
        state.fetched = Some(Instant::now());
        let result = self.fetch(fetcher, state).await;
        // The interval counts from the answer (or the timeout), not from the question.
        state.fetched = Some(Instant::now());
        state.failed = false;
        match result {
            Ok(keys) => {
                state.keys = keys;
                Ok(())
            }
            Err(why) => {
                eprintln!("toolschema auth: {why}");
                if had_keys {
                    Ok(())
                } else {
                    state.failed = true;
                    Err(unavailable())
                }
            }
        }
    }

    async fn fetch(&self, fetcher: &Fetcher, state: &mut Keys) -> Result<Vec<Jwk>, String> {
        if state.jwks_uri.is_none() {
            match &self.configured_jwks {
                Some(uri) => state.jwks_uri = Some(uri.clone()),
                None => {
                    let meta = discover(fetcher, &self.issuer).await?;
                    let uri = meta
                        .get("jwks_uri")
                        .and_then(Value::as_str)
                        .ok_or("the authorization server's metadata has no jwks_uri")?;
                    state.issuer = meta
                        .get("issuer")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    state.jwks_uri = Some(uri.to_string());
                }
            }
        }
        let uri = state.jwks_uri.clone().unwrap_or_default();
        let (status, doc) = fetcher.get_json(&uri).await?;
        if status != 200 {
            return Err(format!("{uri}: answered {status}"));
        }
        let keys = doc
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{uri}: not a JWK set"))?;
        // Keys this server cannot use (encryption keys, other curves) are skipped, not fatal.
        Ok(keys
            .iter()
            .filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok())
            .filter(|k| {
                !matches!(
                    k.common.public_key_use,
                    Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
                )
            })
            .collect())
    }
}

fn unavailable() -> Refusal {
    Refusal::Unavailable("the authorization server's keys cannot be fetched".into())
}

/// The authorization server's metadata: RFC 8414 (`/.well-known/oauth-authorization-server`
/// inserted before the issuer's path), then OpenID Connect discovery (inserted, then
/// appended), the first that answers 200 with the issuer's own `issuer`.
pub(crate) async fn discover(fetcher: &Fetcher, issuer: &str) -> Result<Value, String> {
    let uri: hyper::Uri = super::fetch::check_url(issuer)?;
    let origin = format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("https"),
        uri.authority().map(|a| a.as_str()).unwrap_or("")
    );
    let path = uri.path().trim_end_matches('/');
    let candidates = [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ];
    let mut last = String::new();
    for url in &candidates {
        match fetcher.get_json(url).await {
            Ok((200, meta)) => {
                let named = meta.get("issuer").and_then(Value::as_str).unwrap_or("");
                if named.trim_end_matches('/') != issuer.trim_end_matches('/') {
                    return Err(format!(
                        "{url}: the metadata names issuer {named:?}, not {issuer:?}"
                    ));
                }
                return Ok(meta);
            }
            Ok((status, _)) => last = format!("{url}: answered {status}"),
            Err(e) => last = e,
        }
    }
    Err(format!(
        "no authorization server metadata for {issuer}: {last}"
    ))
}

enum Pick {
    Found(Box<Jwk>),
    /// The key named fits another algorithm.
    Unfit,
    None,
}

/// The key a token's header names: by `kid`, else the one key that fits the algorithm.
/// A key whose own `alg` differs from the token's, or whose type does not fit it, is unfit.
fn pick(keys: &[Jwk], header: &jsonwebtoken::Header) -> Pick {
    let chosen: Vec<&Jwk> = match &header.kid {
        Some(kid) => keys
            .iter()
            .filter(|k| k.common.key_id.as_deref() == Some(kid.as_str()))
            .collect(),
        None => keys.iter().filter(|k| fits(k, header.alg)).collect(),
    };
    match chosen.as_slice() {
        [] => Pick::None,
        [one] if fits(one, header.alg) => Pick::Found(Box::new((*one).clone())),
        [_] => Pick::Unfit,
        // Several keys under one kid, or no kid and several candidates: ambiguous.
        _ => Pick::Unfit,
    }
}

fn fits(key: &Jwk, alg: Algorithm) -> bool {
    let declared_ok = match key.common.key_algorithm {
        None => true,
        Some(KeyAlgorithm::RS256) => alg == Algorithm::RS256,
        Some(KeyAlgorithm::ES256) => alg == Algorithm::ES256,
        Some(KeyAlgorithm::EdDSA) => alg == Algorithm::EdDSA,
        Some(_) => false,
    };
    let type_ok = match (&key.algorithm, alg) {
        (AlgorithmParameters::RSA(_), Algorithm::RS256) => true,
        (AlgorithmParameters::EllipticCurve(p), Algorithm::ES256) => p.curve == EllipticCurve::P256,
        (AlgorithmParameters::OctetKeyPair(p), Algorithm::EdDSA) => {
            p.curve == EllipticCurve::Ed25519
        }
        _ => false,
    };
    declared_ok && type_ok
}
