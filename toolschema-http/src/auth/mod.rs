//! OAuth 2.1 resource server for the HTTP endpoint (MCP authorization, 2025-06-18 onward):
//! bearer tokens, Protected Resource Metadata (RFC 9728), audience-bound tokens (RFC 8707)
//! checked as JWTs against the authorization server's keys or by introspection (RFC 7662),
//! and per-tool scopes.
//!
//! Configured with [`AuthOptions`] on [`HttpOptions::auth`](crate::HttpOptions::auth); see
//! its documentation for what each request goes through.

mod fetch;
mod introspect;
mod jwt;
pub(crate) mod policy;

pub use policy::ToolPolicy;

use std::net::SocketAddr;
use std::time::Duration;
use toolschema::mcp::SecurityScheme;

/// The path of the Protected Resource Metadata document (RFC 9728); the path-suffixed form
/// appends the endpoint's path.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Authorization for the HTTP endpoint: every request must carry a valid bearer token
/// (`Authorization: Bearer ...`) issued for this resource.
///
/// What a request goes through:
/// - no token: 401 with `WWW-Authenticate: Bearer resource_metadata="..."` (and `scope`
///   when [`required_scopes`](Self::required_scopes) are set); a malformed `Authorization`
///   header (another scheme, two headers, an empty token): 400 `invalid_request`;
/// - a token that does not verify: 401 `error="invalid_token"` with a description (expired,
///   not yet valid, wrong audience, wrong issuer, bad signature, an algorithm other than
///   RS256/ES256/EdDSA — `none` and HMAC included — or a key whose type or `alg` does not
///   fit the token's); the token itself is never logged or echoed;
/// - the authorization server unreachable: 503;
/// - each refusal's body is a JSON-RPC error (id `null`; code `-32001`, or `-32600` for
///   400 and `-32000` for 503) whose `data` holds the OAuth `error` and
///   `error_description`, so that clients that read the body show why;
/// - a token without a [required scope](Self::required_scopes), or a `tools/call` whose
///   token does not satisfy the tool's security schemes (declared by the tool, or set by
///   a [`ToolPolicy`]): 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
///   scope="..."` naming the scopes needed;
/// - a session is bound to the subject (`sub`, else `client_id`) of the token that opened
///   it (a token naming neither: that very token): a request of that session with
///   another subject's token gets 404.
///
/// The Protected Resource Metadata document is served, without a token, at
/// `/.well-known/oauth-protected-resource` and at the path-suffixed form
/// (`/.well-known/oauth-protected-resource/mcp`).
///
/// ```
/// use toolschema_http::{HttpOptions, auth::AuthOptions};
///
/// let auth = AuthOptions::jwt("https://auth.example.com")?
///     .resource("https://mcp.example.com/mcp")?
///     .scopes_supported(["files:read", "files:write"])
///     .hide_unauthorized_tools(true);
/// let options = HttpOptions::new().allow_host("mcp.example.com").auth(auth);
/// # let _ = options;
/// # Ok::<(), toolschema_http::auth::AuthError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AuthOptions {
    issuer: String,
    verify: VerifyWith,
    resource: Option<String>,
    audiences: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    hide_unauthorized_tools: bool,
    policy: ToolPolicy,
    leeway: Duration,
    resource_name: Option<String>,
    jwks_refresh: Duration,
}

#[derive(Debug, Clone)]
enum VerifyWith {
    Jwt {
        jwks_uri: Option<String>,
    },
    Introspection {
        url: String,
        client: Option<(String, String)>,
    },
}

/// A configuration that cannot work: a URL that is not `https://` (nor `http://` to a
/// loopback host), a malformed resource, a policy file that does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError(pub(crate) String);

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AuthError {}

fn url_ok(what: &str, url: &str) -> Result<(), AuthError> {
    fetch::check_url(url)
        .map(|_| ())
        .map_err(|e| AuthError(format!("{what}: {e}")))
}

impl AuthOptions {
    /// Tokens are JWTs signed by the authorization server `issuer`, whose keys (JWKS) are
    /// found through its metadata (RFC 8414 `/.well-known/oauth-authorization-server`, then
    /// OpenID Connect discovery); the metadata's `issuer` must be `issuer`. Tokens must
    /// carry `exp`, `iss` (the issuer) and `aud` (this resource); `nbf` is checked when
    /// present; 30 s of clock skew are allowed ([`leeway`](Self::leeway)).
    ///
    /// # Errors
    /// `issuer` is not `https://` (or `http://` to a loopback host).
    pub fn jwt(issuer: &str) -> Result<AuthOptions, AuthError> {
        url_ok("the issuer", issuer)?;
        Ok(AuthOptions::with(
            issuer,
            VerifyWith::Jwt { jwks_uri: None },
        ))
    }

    /// Tokens are checked by the authorization server `issuer`'s introspection endpoint
    /// `url` (RFC 7662): the answer must say `active: true` and name this resource in
    /// `aud`; `exp`, `nbf` and `iss` are checked when present.
    ///
    /// # Errors
    /// A URL that is not `https://` (or `http://` to a loopback host).
    pub fn introspection(issuer: &str, url: &str) -> Result<AuthOptions, AuthError> {
        url_ok("the issuer", issuer)?;
        url_ok("the introspection endpoint", url)?;
        Ok(AuthOptions::with(
            issuer,
            VerifyWith::Introspection {
                url: url.to_string(),
                client: None,
            },
        ))
    }

    fn with(issuer: &str, verify: VerifyWith) -> AuthOptions {
        AuthOptions {
            issuer: issuer.to_string(),
            verify,
            resource: None,
            audiences: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            hide_unauthorized_tools: false,
            policy: ToolPolicy::default(),
            leeway: Duration::from_secs(30),
            resource_name: None,
            jwks_refresh: Duration::from_secs(10),
        }
    }

    /// With [`jwt`](Self::jwt): the JWKS's URL, instead of discovering it from the issuer's
    /// metadata.
    ///
    /// # Errors
    /// A URL that is not `https://` (or `http://` to a loopback host).
    pub fn jwks_uri(mut self, url: &str) -> Result<AuthOptions, AuthError> {
        url_ok("the JWKS URL", url)?;
        if let VerifyWith::Jwt { jwks_uri } = &mut self.verify {
            *jwks_uri = Some(url.to_string());
        }
        Ok(self)
    }

    /// With [`introspection`](Self::introspection): the resource server's own client
    /// credentials, sent with HTTP Basic authentication.
    pub fn introspection_client(
        mut self,
        id: impl Into<String>,
        secret: impl Into<String>,
    ) -> AuthOptions {
        if let VerifyWith::Introspection { client, .. } = &mut self.verify {
            *client = Some((id.into(), secret.into()));
        }
        self
    }

    /// The canonical URI of this MCP server (RFC 8707; `https://mcp.example.com/mcp`): the
    /// `resource` of its metadata and the audience tokens must name. Default:
    /// `http://ADDRESS/PATH` of the bound address (for a local server).
    ///
    /// # Errors
    /// Not an absolute `http(s)://` URL, or one with a fragment.
    pub fn resource(mut self, uri: &str) -> Result<AuthOptions, AuthError> {
        let parsed: hyper::Uri = uri
            .parse()
            .map_err(|_| AuthError(format!("the resource {uri:?} is not a URL")))?;
        if !matches!(parsed.scheme_str(), Some("https" | "http"))
            || parsed.host().is_none()
            || uri.contains('#')
        {
            return Err(AuthError(format!(
                "the resource {uri:?} must be an absolute http(s) URL without a fragment"
            )));
        }
        self.resource = Some(uri.to_string());
        Ok(self)
    }

    /// Also accepts tokens whose audience is `aud` (e.g. a client id the authorization
    /// server puts in `aud`); the resource is always accepted.
    pub fn audience(mut self, aud: impl Into<String>) -> AuthOptions {
        self.audiences.push(aud.into());
        self
    }

    /// The scopes listed as `scopes_supported` in the metadata (what a client asks for when
    /// a challenge names none).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> AuthOptions {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes every request's token must grant (403 `insufficient_scope` otherwise).
    pub fn required_scopes<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> AuthOptions {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// `tools/list` leaves out the tools the caller's token cannot call (default: every tool
    /// is listed, and a call the token does not allow gets 403). Applies to requests sent
    /// alone, not inside a 2025-03-26 batch.
    pub fn hide_unauthorized_tools(mut self, yes: bool) -> AuthOptions {
        self.hide_unauthorized_tools = yes;
        self
    }

    /// Per-tool security schemes that replace what the tools declare (for a proxied server
    /// that declares nothing).
    pub fn policy(mut self, policy: ToolPolicy) -> AuthOptions {
        self.policy = policy;
        self
    }

    /// The clock skew allowed for `exp` and `nbf` (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> AuthOptions {
        self.leeway = leeway;
        self
    }

    /// With [`jwt`](Self::jwt): the least time between two fetches of the JWKS caused by
    /// a token naming a key id the server does not hold (default 10 s), so that tokens
    /// with made-up key ids cannot make it hammer the authorization server; a fetch that
    /// failed with no keys to fall back on is not tried again within it either (requests
    /// meanwhile get 503). (The keys are also fetched again when an hour old.)
    pub fn jwks_refresh_interval(mut self, every: Duration) -> AuthOptions {
        self.jwks_refresh = every;
        self
    }

    /// A human-readable `resource_name` for the metadata.
    pub fn resource_name(mut self, name: impl Into<String>) -> AuthOptions {
        self.resource_name = Some(name.into());
        self
    }
}

impl AuthOptions {
    /// The tools the policy names.
    pub(crate) fn policy_tools(&self) -> impl Iterator<Item = &str> {
        self.policy.tool_names()
    }
}

/// What a verified token grants.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grant {
    pub(crate) scopes: Vec<String>,
    /// `sub`, else `client_id`, else the token itself (its SHA-256): who the session is
    /// bound to. (Without the last, every token naming no one would share the sessions
    /// of every other.)
    pub(crate) subject: Option<String>,
}

impl Grant {
    /// From JWT claims or an introspection answer: `scope` (space-separated) or `scp` (an
    /// array or a string).
    fn from_claims(claims: &serde_json::Value) -> Grant {
        let mut scopes: Vec<String> = Vec::new();
        for key in ["scope", "scp"] {
            match claims.get(key) {
                Some(serde_json::Value::String(s)) => {
                    scopes.extend(s.split_ascii_whitespace().map(str::to_string));
                }
                Some(serde_json::Value::Array(a)) => {
                    scopes.extend(a.iter().filter_map(|v| v.as_str()).map(str::to_string));
                }
                _ => {}
            }
        }
        let subject = ["sub", "client_id"]
            .iter()
            .find_map(|k| claims.get(*k).and_then(|v| v.as_str()))
            .map(str::to_string);
        Grant { scopes, subject }
    }

    pub(crate) fn has(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// Why a request's token was not taken.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// No `Authorization` header: 401 without an error code.
    Missing,
    /// A malformed `Authorization` header: 400 `invalid_request`.
    Malformed(String),
    /// 401 `invalid_token`.
    Invalid(String),
    /// The authorization server cannot be reached: 503.
    Unavailable(String),
    /// 403 `insufficient_scope` naming these scopes.
    Insufficient(Vec<String>),
}

/// Whether an audience named by a token is one of ours (a trailing slash aside).
pub(crate) fn audience_matches(aud: &str, ours: &[String]) -> bool {
    ours.iter()
        .any(|o| o == aud || o.trim_end_matches('/') == aud.trim_end_matches('/'))
}

/// The running resource server: the options, the resolved resource, the key caches and
/// the HTTP client.
pub(crate) struct Guard {
    options: AuthOptions,
    resource: String,
    audiences: Vec<String>,
    metadata_url: String,
    jwt: Option<jwt::JwtVerifier>,
    introspector: Option<introspect::Introspector>,
    fetcher: fetch::Fetcher,
}

impl Guard {
    pub(crate) fn new(
        options: &AuthOptions,
        addr: SocketAddr,
        path: &str,
    ) -> Result<Guard, String> {
        let resource = options
            .resource
            .clone()
            .unwrap_or_else(|| format!("http://{addr}{path}"));
        let parsed: hyper::Uri = resource
            .parse()
            .map_err(|_| format!("the resource {resource:?} is not a URL"))?;
        let origin = format!(
            "{}://{}",
            parsed.scheme_str().unwrap_or("https"),
            parsed.authority().map(|a| a.as_str()).unwrap_or("")
        );
        let rpath = parsed.path().trim_end_matches('/');
        let metadata_url = format!("{origin}{METADATA_PATH}{rpath}");
        let mut audiences = vec![resource.clone()];
        audiences.extend(options.audiences.iter().cloned());
        let (jwt, introspector) = match &options.verify {
            VerifyWith::Jwt { jwks_uri } => (
                Some(jwt::JwtVerifier::new(
                    options.issuer.clone(),
                    jwks_uri.clone(),
                    options.jwks_refresh,
                )),
                None,
            ),
            VerifyWith::Introspection { url, client } => (
                None,
                Some(introspect::Introspector {
                    url: url.clone(),
                    basic: client.as_ref().map(|(id, secret)| {
                        use base64::Engine as _;
                        let pair =
                            format!("{}:{}", fetch::form_encode(id), fetch::form_encode(secret));
                        format!(
                            "Basic {}",
                            base64::engine::general_purpose::STANDARD.encode(pair)
                        )
                    }),
                    issuer: Some(options.issuer.clone()),
                }),
            ),
        };
        Ok(Guard {
            options: options.clone(),
            resource,
            audiences,
            metadata_url,
            jwt,
            introspector,
            fetcher: fetch::Fetcher::new()?,
        })
    }

    /// Whether `path` is one of the metadata document's paths.
    pub(crate) fn is_metadata_path(&self, path: &str, endpoint: &str) -> bool {
        path == METADATA_PATH || path.strip_prefix(METADATA_PATH) == Some(endpoint)
    }

    /// The Protected Resource Metadata document (RFC 9728).
    pub(crate) fn metadata(&self) -> String {
        let mut doc = serde_json::Map::new();
        doc.insert("resource".into(), self.resource.clone().into());
        doc.insert(
            "authorization_servers".into(),
            serde_json::json!([self.options.issuer]),
        );
        let mut supported = self.options.scopes_supported.clone();
        for s in &self.options.required_scopes {
            if !supported.contains(s) {
                supported.push(s.clone());
            }
        }
        if !supported.is_empty() {
            doc.insert("scopes_supported".into(), supported.into());
        }
        doc.insert(
            "bearer_methods_supported".into(),
            serde_json::json!(["header"]),
        );
        if matches!(self.options.verify, VerifyWith::Jwt { .. }) {
            doc.insert(
                "resource_signing_alg_values_supported".into(),
                serde_json::json!(["RS256", "ES256", "EdDSA"]),
            );
        }
        if let Some(name) = &self.options.resource_name {
            doc.insert("resource_name".into(), name.clone().into());
        }
        serde_json::Value::Object(doc).to_string()
    }

    /// The request's grant, or why there is none (required scopes included).
    pub(crate) async fn admit(&self, headers: &hyper::HeaderMap) -> Result<Grant, Refusal> {
        let token = bearer(headers)?;
        let grant = match (&self.jwt, &self.introspector) {
            (Some(j), _) => {
                j.verify(&self.fetcher, token, &self.audiences, self.options.leeway)
                    .await?
            }
            (None, Some(i)) => {
                i.verify(&self.fetcher, token, &self.audiences, self.options.leeway)
                    .await?
            }
            (None, None) => return Err(Refusal::Unavailable("no verifier".into())),
        };
        let mut grant = grant;
        if grant.subject.is_none() {
            use sha2::Digest as _;
            let hash = sha2::Sha256::digest(token.as_bytes());
            let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
            grant.subject = Some(format!("token:{hex}"));
        }
        let missing: Vec<String> = self
            .options
            .required_scopes
            .iter()
            .filter(|s| !grant.has(s))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(Refusal::Insufficient(self.options.required_scopes.clone()));
        }
        Ok(grant)
    }

    /// The security schemes that govern `tool`: the policy's entry for it, else what the
    /// tool declares, else the policy's default.
    pub(crate) fn schemes(
        &self,
        tool: &str,
        declared: impl FnOnce() -> Option<Vec<SecurityScheme>>,
    ) -> Vec<SecurityScheme> {
        if let Some(s) = self.options.policy.schemes_for(tool) {
            return s.to_vec();
        }
        match declared() {
            Some(d) if !d.is_empty() => d,
            _ => self
                .options
                .policy
                .default_schemes()
                .map(<[SecurityScheme]>::to_vec)
                .unwrap_or_default(),
        }
    }

    /// Whether `grant` may call a tool governed by `schemes`; the scopes to ask for if not.
    pub(crate) fn check_call(
        &self,
        schemes: &[SecurityScheme],
        grant: &Grant,
    ) -> Result<(), Refusal> {
        if SecurityScheme::allows_any(schemes, Some(&grant.scopes)) {
            return Ok(());
        }
        let mut scopes: Vec<String> = SecurityScheme::challenge_scopes(schemes).to_vec();
        for s in &self.options.required_scopes {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        Err(Refusal::Insufficient(scopes))
    }

    pub(crate) fn hides_tools(&self) -> bool {
        self.options.hide_unauthorized_tools
    }

    /// The `WWW-Authenticate` value and the status for a refusal.
    pub(crate) fn challenge(&self, refusal: &Refusal) -> (u16, Option<String>, String) {
        let meta = format!("resource_metadata=\"{}\"", self.metadata_url);
        let scope_of = |scopes: &[String]| {
            let s: Vec<&str> = scopes
                .iter()
                .map(String::as_str)
                .filter(|s| toolschema::mcp::security::valid_scope(s))
                .collect();
            (!s.is_empty()).then(|| format!(", scope=\"{}\"", s.join(" ")))
        };
        // A JSON-RPC error, as the endpoint's other HTTP errors are (clients surface its
        // message), whose `data` holds the OAuth error code and description.
        let body = |error: &str, description: &str| {
            use toolschema::mcp::jsonrpc;
            let code = match error {
                "temporarily_unavailable" => jsonrpc::SERVER_BUSY,
                "invalid_request" => jsonrpc::INVALID_REQUEST,
                _ => jsonrpc::UNAUTHORIZED,
            };
            let label = match error {
                "insufficient_scope" => "forbidden",
                "temporarily_unavailable" => "authorization server unavailable",
                "invalid_request" => "bad request",
                _ => "unauthorized",
            };
            jsonrpc::error_line(
                &jsonrpc::Id::null(),
                code,
                &format!("{label}: {description}"),
                Some(&serde_json::json!({"error": error, "error_description": description})),
            )
        };
        match refusal {
            Refusal::Missing => (
                401,
                Some(format!(
                    "Bearer {meta}{}",
                    scope_of(&self.options.required_scopes).unwrap_or_default()
                )),
                body("invalid_token", "an access token is required"),
            ),
            Refusal::Malformed(why) => (
                400,
                Some(format!(
                    "Bearer error=\"invalid_request\", error_description=\"{}\", {meta}",
                    quoted(why)
                )),
                body("invalid_request", why),
            ),
            Refusal::Invalid(why) => (
                401,
                Some(format!(
                    "Bearer error=\"invalid_token\", error_description=\"{}\", {meta}",
                    quoted(why)
                )),
                body("invalid_token", why),
            ),
            Refusal::Unavailable(why) => (503, None, body("temporarily_unavailable", why)),
            Refusal::Insufficient(scopes) => (
                403,
                Some(format!(
                    "Bearer error=\"insufficient_scope\"{}, {meta}, error_description=\"the token lacks a scope this request needs\"",
                    scope_of(scopes).unwrap_or_default()
                )),
                body(
                    "insufficient_scope",
                    &format!(
                        "the token lacks a scope this request needs: {}",
                        scopes.join(" ")
                    ),
                ),
            ),
        }
    }
}

/// Text fit for a quoted-string: our own messages only (never the token), without quotes
/// or backslashes.
fn quoted(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '"' && *c != '\\' && (' '..='~').contains(c))
        .collect()
}

/// The bearer token of a request: exactly one `Authorization` header, scheme `Bearer`
/// (any case), a token of RFC 6750 `b64token` characters.
fn bearer(headers: &hyper::HeaderMap) -> Result<&str, Refusal> {
    let mut all = headers.get_all(hyper::header::AUTHORIZATION).iter();
    let Some(value) = all.next() else {
        return Err(Refusal::Missing);
    };
    if all.next().is_some() {
        return Err(Refusal::Malformed(
            "the Authorization header is sent more than once".into(),
        ));
    }
    let malformed = || Refusal::Malformed("the Authorization header is not Bearer TOKEN".into());
    let value = value.to_str().map_err(|_| malformed())?;
    let (scheme, token) = value.trim().split_once(' ').ok_or_else(malformed)?;
    let token = token.trim_start();
    let b64token = |c: char| c.is_ascii_alphanumeric() || "-._~+/".contains(c);
    let body = token.trim_end_matches('=');
    if !scheme.eq_ignore_ascii_case("bearer") || body.is_empty() || !body.chars().all(b64token) {
        return Err(malformed());
    }
    Ok(token)
}

/// The filter a `tools/list` answer goes through when tools are hidden: keeps the tools
/// `grant` may call.
pub(crate) fn filter_listing(line: String, keep: &dyn Fn(&str) -> bool) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&line) else {
        return line;
    };
    // (A batch's answer is an array: every `tools/list` answer in it is filtered; only
    // that method's result has a `tools` member.)
    let answers = match &mut v {
        serde_json::Value::Array(items) => items.iter_mut().collect(),
        one => vec![one],
    };
    let mut changed = false;
    for answer in answers {
        if let Some(tools) = answer
            .get_mut("result")
            .and_then(|r| r.get_mut("tools"))
            .and_then(|t| t.as_array_mut())
        {
            tools.retain(|t| t.get("name").and_then(|n| n.as_str()).is_some_and(keep));
            changed = true;
        }
    }
    if changed { v.to_string() } else { line }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::HeaderMap;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(hyper::header::AUTHORIZATION, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn bearer_header() {
        assert_eq!(
            bearer(&headers(&["Bearer abc.def-_~+/=="])).unwrap(),
            "abc.def-_~+/=="
        );
        assert_eq!(bearer(&headers(&["bearer  tok"])).unwrap(), "tok");
        assert!(matches!(bearer(&headers(&[])), Err(Refusal::Missing)));
        for bad in [
            &["Basic dXNlcjpwdw=="][..],
            &["Bearer"],
            &["Bearer "],
            &["Bearer a b"],
            &["Bearer a\"b"],
            &["Bearer x", "Bearer y"],
        ] {
            assert!(
                matches!(bearer(&headers(bad)), Err(Refusal::Malformed(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn grants_read_scope_and_scp() {
        let g = Grant::from_claims(
            &serde_json::json!({"scope": "a  b", "scp": ["c"], "client_id": "x"}),
        );
        assert_eq!(g.scopes, ["a", "b", "c"]);
        assert_eq!(g.subject.as_deref(), Some("x"));
    }

    #[test]
    fn challenges_and_metadata() {
        let opts = AuthOptions::jwt("https://as.example.com")
            .unwrap()
            .required_scopes(["mcp"])
            .scopes_supported(["files:read"]);
        let g = Guard::new(&opts, "127.0.0.1:8080".parse().unwrap(), "/mcp").unwrap();
        let (status, www, _) = g.challenge(&Refusal::Missing);
        assert_eq!(status, 401);
        assert_eq!(
            www.unwrap(),
            "Bearer resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\""
        );
        let (status, www, _) = g.challenge(&Refusal::Insufficient(vec!["files:write".into()]));
        assert_eq!(status, 403);
        assert!(www.unwrap().starts_with(
            "Bearer error=\"insufficient_scope\", scope=\"files:write\", resource_metadata="
        ));
        let doc: serde_json::Value = serde_json::from_str(&g.metadata()).unwrap();
        assert_eq!(doc["resource"], "http://127.0.0.1:8080/mcp");
        assert_eq!(doc["authorization_servers"][0], "https://as.example.com");
        assert_eq!(
            doc["scopes_supported"],
            serde_json::json!(["files:read", "mcp"])
        );
        assert!(g.is_metadata_path("/.well-known/oauth-protected-resource", "/mcp"));
        assert!(g.is_metadata_path("/.well-known/oauth-protected-resource/mcp", "/mcp"));
        assert!(!g.is_metadata_path("/.well-known/oauth-protected-resource/x", "/mcp"));
        assert!(AuthOptions::jwt("http://as.example.com").is_err());
        assert!(AuthOptions::jwt("http://127.0.0.1:9/").is_ok());
        assert!(
            AuthOptions::jwt("https://a")
                .unwrap()
                .resource("mcp.example.com")
                .is_err()
        );
        assert!(
            AuthOptions::jwt("https://a")
                .unwrap()
                .resource("https://m/mcp#x")
                .is_err()
        );
    }
}
