//! The authorization flags of `serve --http` and `proxy --listen` (OAuth 2.1 resource
//! server, `toolschema_http::auth`), flattened into each command's arguments.

use std::path::PathBuf;
use toolschema_http::HttpOptions;
use toolschema_http::auth::{AuthOptions, ToolPolicy};

/// The environment variable holding the introspection client's secret (never a flag, so
/// that it does not show in the process list).
pub const CLIENT_SECRET_ENV: &str = "TOOLSCHEMA_AUTH_CLIENT_SECRET";

/// OAuth flags (HTTP only).
#[derive(clap::Args, Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct AuthArgs {
    /// Require OAuth bearer tokens issued by this authorization server (its issuer URL:
    /// https, or http to a loopback host); tokens are JWTs checked against its JWKS
    #[arg(long, value_name = "URL", help_heading = "Authorization (HTTP)")]
    auth_issuer: Option<String>,
    /// The JWKS URL, instead of discovering it from the issuer's metadata
    #[arg(
        long,
        value_name = "URL",
        requires = "auth_issuer",
        help_heading = "Authorization (HTTP)"
    )]
    auth_jwks_url: Option<String>,
    /// Check tokens with this introspection endpoint (RFC 7662) instead of as JWTs
    #[arg(
        long,
        value_name = "URL",
        requires = "auth_issuer",
        conflicts_with = "auth_jwks_url",
        help_heading = "Authorization (HTTP)"
    )]
    auth_introspection_url: Option<String>,
    /// The client id sent to the introspection endpoint, with the secret from the
    /// TOOLSCHEMA_AUTH_CLIENT_SECRET environment variable (HTTP Basic)
    #[arg(
        long,
        value_name = "ID",
        requires = "auth_introspection_url",
        help_heading = "Authorization (HTTP)"
    )]
    auth_client_id: Option<String>,
    /// This server's canonical URI, the audience tokens must name (default
    /// http://ADDRESS/mcp of the bound address)
    #[arg(
        long,
        value_name = "URL",
        requires = "auth_issuer",
        help_heading = "Authorization (HTTP)"
    )]
    auth_resource: Option<String>,
    /// Also accept tokens with this audience (repeatable)
    #[arg(
        long,
        value_name = "AUD",
        requires = "auth_issuer",
        help_heading = "Authorization (HTTP)"
    )]
    auth_audience: Vec<String>,
    /// A scope every request's token must grant (repeatable; 403 insufficient_scope otherwise)
    #[arg(
        long,
        value_name = "SCOPE",
        requires = "auth_issuer",
        help_heading = "Authorization (HTTP)"
    )]
    auth_scope: Vec<String>,
    /// A scope listed in the resource metadata's scopes_supported (repeatable)
    #[arg(
        long,
        value_name = "SCOPE",
        requires = "auth_issuer",
        help_heading = "Authorization (HTTP)"
    )]
    auth_scopes_supported: Vec<String>,
    /// A JSON policy file setting each tool's scopes, e.g.
    /// {"tools": {"write_file": ["files:write"]}, "default": ["files:read"]}
    #[arg(
        long,
        value_name = "FILE",
        requires = "auth_issuer",
        help_heading = "Authorization (HTTP)"
    )]
    auth_policy: Option<PathBuf>,
    /// Leave out of tools/list the tools the caller's token cannot call
    #[arg(long, requires = "auth_issuer", help_heading = "Authorization (HTTP)")]
    auth_hide_tools: bool,
}

impl AuthArgs {
    /// The options these flags ask for; `None` without `--auth-issuer`.
    ///
    /// # Errors
    /// A URL that is not https (or http to a loopback host), an unreadable policy file, a
    /// client id without its secret.
    pub fn options(&self) -> Result<Option<AuthOptions>, String> {
        let Some(issuer) = &self.auth_issuer else {
            // clap checks this for flags; a --config file's keys arrive after it, and a
            // policy or scope silently dropped would leave the endpoint open.
            if self.any_but_issuer() {
                return Err("the --auth-* options need --auth-issuer".into());
            }
            return Ok(None);
        };
        let e = |e: toolschema_http::auth::AuthError| e.to_string();
        let mut o = match &self.auth_introspection_url {
            Some(url) => AuthOptions::introspection(issuer, url).map_err(e)?,
            None => AuthOptions::jwt(issuer).map_err(e)?,
        };
        if let Some(url) = &self.auth_jwks_url {
            o = o.jwks_uri(url).map_err(e)?;
        }
        if let Some(id) = &self.auth_client_id {
            let secret = std::env::var(CLIENT_SECRET_ENV)
                .map_err(|_| format!("--auth-client-id needs the secret in {CLIENT_SECRET_ENV}"))?;
            o = o.introspection_client(id, secret);
        }
        if let Some(r) = &self.auth_resource {
            o = o.resource(r).map_err(e)?;
        }
        for a in &self.auth_audience {
            o = o.audience(a);
        }
        o = o
            .required_scopes(self.auth_scope.iter().cloned())
            .scopes_supported(self.auth_scopes_supported.iter().cloned())
            .hide_unauthorized_tools(self.auth_hide_tools);
        if let Some(path) = &self.auth_policy {
            let text = std::fs::read_to_string(path)
                .map_err(|err| format!("{}: {err}", path.display()))?;
            let policy =
                ToolPolicy::from_json(&text).map_err(|err| format!("{}: {err}", path.display()))?;
            o = o.policy(policy);
        }
        Ok(Some(o))
    }

    /// The policy file, for a config file's relative path to be read from its directory.
    pub fn policy_mut(&mut self) -> &mut Option<PathBuf> {
        &mut self.auth_policy
    }

    /// The policy file given.
    pub fn policy(&self) -> Option<&std::path::Path> {
        self.auth_policy.as_deref()
    }

    /// True when any authorization flag is given (they need an HTTP listener).
    pub fn given(&self) -> bool {
        self.auth_issuer.is_some() || self.any_but_issuer()
    }

    fn any_but_issuer(&self) -> bool {
        self.auth_jwks_url.is_some()
            || self.auth_introspection_url.is_some()
            || self.auth_client_id.is_some()
            || self.auth_resource.is_some()
            || !self.auth_audience.is_empty()
            || !self.auth_scope.is_empty()
            || !self.auth_scopes_supported.is_empty()
            || self.auth_policy.is_some()
            || self.auth_hide_tools
    }

    /// `options` with the authorization these flags ask for.
    ///
    /// # Errors
    /// As [`options`](Self::options).
    pub fn apply(&self, options: HttpOptions) -> Result<HttpOptions, String> {
        Ok(match self.options()? {
            Some(auth) => options.auth(auth),
            None => options,
        })
    }
}

/// `serve`'s authorization flags: the HTTP ones, and trust of the local user.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ServeAuthArgs {
    #[command(flatten)]
    pub http: AuthArgs,
    /// Let callers without a verified token (stdio; --http without --auth-issuer) call
    /// tools whose securitySchemes need an OAuth token (refused by default)
    #[arg(long, help_heading = "Authorization (HTTP)")]
    pub trust_local_user: bool,
}
