//! Opaque access tokens checked by token introspection (RFC 7662).

use super::fetch::Fetcher;
use super::{Grant, Refusal};
use serde_json::Value;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(crate) struct Introspector {
    pub(crate) url: String,
    /// `Basic ...` for the resource server's own client credentials, when configured.
    pub(crate) basic: Option<String>,
    /// The `iss` an answer must name when it names one.
    pub(crate) issuer: Option<String>,
}

impl Introspector {
    pub(crate) async fn verify(
        &self,
        fetcher: &Fetcher,
        token: &str,
        audiences: &[String],
        leeway: Duration,
    ) -> Result<Grant, Refusal> {
        let form = [("token", token), ("token_type_hint", "access_token")];
        let (status, answer) = fetcher
            .post_form(&self.url, &form, self.basic.as_deref())
            .await
            .map_err(|why| {
                eprintln!("toolschema auth: introspection: {why}");
                Refusal::Unavailable("the authorization server cannot be asked".into())
            })?;
        judge(
            status,
            &answer,
            audiences,
            self.issuer.as_deref(),
            leeway,
            now(),
        )
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What an introspection answer means for the request: the grant of an active token for
/// this resource, else why not.
pub(crate) fn judge(
    status: u16,
    answer: &Value,
    audiences: &[String],
    issuer: Option<&str>,
    leeway: Duration,
    now: u64,
) -> Result<Grant, Refusal> {
    let invalid = |m: &str| Err(Refusal::Invalid(m.to_string()));
    match answer.get("active") {
        Some(Value::Bool(true)) if status == 200 => {}
        // Some servers answer an inactive token with an error status and `active: false`.
        Some(Value::Bool(false)) => return invalid("the token is not active"),
        _ => {
            eprintln!("toolschema auth: introspection answered {status} without \"active\"");
            return Err(Refusal::Unavailable(
                "the authorization server's introspection failed".into(),
            ));
        }
    }
    let skew = leeway.as_secs();
    // A time or issuer of another type than RFC 7662's (a float, a string, a negative
    // number) is not skipped: a token whose expiry cannot be read is not taken.
    let time = |key: &str| match answer.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or(()),
    };
    match time("exp") {
        Err(()) => return invalid("the introspection answer's exp is not a NumericDate"),
        Ok(Some(exp)) if exp.saturating_add(skew) <= now => {
            return invalid("the token has expired");
        }
        _ => {}
    }
    match time("nbf") {
        Err(()) => return invalid("the introspection answer's nbf is not a NumericDate"),
        Ok(Some(nbf)) if nbf > now.saturating_add(skew) => {
            return invalid("the token is not valid yet");
        }
        _ => {}
    }
    match (issuer, answer.get("iss")) {
        (_, None | Some(Value::Null)) => {}
        (Some(want), Some(Value::String(iss)))
            if want.trim_end_matches('/') == iss.trim_end_matches('/') => {}
        (None, Some(Value::String(_))) => {}
        _ => return invalid("the token's issuer is not the authorization server"),
    }
    // The audience must be this resource (RFC 8707): a token without one is refused too,
    // since nothing then says it was issued for this server.
    let named: Vec<&str> = match answer.get("aud") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !named.iter().any(|a| super::audience_matches(a, audiences)) {
        return invalid("the token's audience is not this resource");
    }
    Ok(Grant::from_claims(answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn aud() -> Vec<String> {
        vec!["http://127.0.0.1:8080/mcp".into()]
    }

    #[test]
    fn judges_answers() {
        let ok = json!({"active": true, "scope": "a b", "exp": 2000, "aud": "http://127.0.0.1:8080/mcp", "sub": "u"});
        let g = judge(200, &ok, &aud(), None, Duration::from_secs(30), 1000).unwrap();
        assert_eq!(g.scopes, ["a", "b"]);
        assert_eq!(g.subject.as_deref(), Some("u"));
        let refused = |a: Value, status: u16| {
            judge(
                status,
                &a,
                &aud(),
                Some("http://as"),
                Duration::from_secs(30),
                1000,
            )
        };
        assert!(matches!(
            refused(json!({"active": false}), 401),
            Err(Refusal::Invalid(_))
        ));
        assert!(matches!(
            refused(
                json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "exp": 900}),
                200
            ),
            Err(Refusal::Invalid(_))
        ));
        // Within the skew: still good.
        assert!(
            refused(
                json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "exp": 990}),
                200
            )
            .is_ok()
        );
        assert!(matches!(
            refused(json!({"active": true, "aud": "http://other/mcp"}), 200),
            Err(Refusal::Invalid(_))
        ));
        assert!(matches!(
            refused(json!({"active": true}), 200),
            Err(Refusal::Invalid(_))
        ));
        assert!(matches!(
            refused(
                json!({"active": true, "aud": ["x", "http://127.0.0.1:8080/mcp"], "iss": "http://evil"}),
                200
            ),
            Err(Refusal::Invalid(_))
        ));
        assert!(matches!(
            refused(
                json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "nbf": 1100}),
                200
            ),
            Err(Refusal::Invalid(_))
        ));
        // Garbage in the answer's times or issuer is refused, not skipped.
        for garbage in [
            json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "exp": 900.5}),
            json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "exp": "2000"}),
            json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "exp": -1}),
            json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "nbf": "0"}),
            json!({"active": true, "aud": "http://127.0.0.1:8080/mcp", "iss": ["http://as"]}),
        ] {
            assert!(
                matches!(refused(garbage.clone(), 200), Err(Refusal::Invalid(_))),
                "{garbage}"
            );
        }
        assert!(matches!(
            refused(json!({"error": "server_error"}), 500),
            Err(Refusal::Unavailable(_))
        ));
        assert!(matches!(
            refused(json!({"active": true}), 500),
            Err(Refusal::Unavailable(_))
        ));
    }
}
