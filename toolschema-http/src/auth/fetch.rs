//! HTTPS (and loopback-only HTTP) requests to the authorization server: its metadata, its
//! JWKS, its introspection endpoint. Bounded in time and size; certificates checked against
//! the Mozilla roots (webpki-roots).

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::time::Duration;

/// The largest document read from the authorization server.
const MAX_BYTES: usize = 1 << 20;
/// How long one request to the authorization server may take, connecting included.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) struct Fetcher {
    client: Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>,
}

/// Whether `url` may be fetched: `https://`, or `http://` to a loopback host (`localhost`,
/// `127.0.0.0/8`, `[::1]`); the reason when not.
pub(crate) fn check_url(url: &str) -> Result<hyper::Uri, String> {
    let uri: hyper::Uri = url.parse().map_err(|_| format!("{url:?} is not a URL"))?;
    let host = uri
        .host()
        .ok_or_else(|| format!("{url:?} has no host"))?
        .trim_start_matches('[')
        .trim_end_matches(']');
    match uri.scheme_str() {
        Some("https") => Ok(uri),
        Some("http") if is_loopback(host) => Ok(uri),
        Some("http") => Err(format!(
            "{url:?}: plain http is allowed only to a loopback host; use https"
        )),
        _ => Err(format!("{url:?} must be an https:// URL")),
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl Fetcher {
    pub(crate) fn new() -> Result<Fetcher, String> {
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        Ok(Fetcher {
            client: Client::builder(TokioExecutor::new()).build(https),
        })
    }

    /// GETs a JSON document.
    pub(crate) async fn get_json(&self, url: &str) -> Result<(u16, serde_json::Value), String> {
        let uri = check_url(url)?;
        let req = Request::get(uri)
            .header(hyper::header::ACCEPT, "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|e| e.to_string())?;
        self.send(req, url).await
    }

    /// POSTs a form, with HTTP Basic credentials when given; the status and the JSON body.
    pub(crate) async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<&str>,
    ) -> Result<(u16, serde_json::Value), String> {
        let uri = check_url(url)?;
        let body = form
            .iter()
            .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let mut req = Request::post(uri)
            .header(hyper::header::ACCEPT, "application/json")
            .header(
                hyper::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            );
        if let Some(b) = basic {
            req = req.header(hyper::header::AUTHORIZATION, b);
        }
        let req = req
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        self.send(req, url).await
    }

    async fn send(
        &self,
        req: Request<Full<Bytes>>,
        url: &str,
    ) -> Result<(u16, serde_json::Value), String> {
        let work = async {
            let resp = self
                .client
                .request(req)
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            let status = resp.status().as_u16();
            let body = Limited::new(resp.into_body(), MAX_BYTES)
                .collect()
                .await
                .map_err(|e| format!("{url}: body: {e}"))?
                .to_bytes();
            let json = serde_json::from_slice(&body)
                .map_err(|_| format!("{url}: answered {status} with a body that is not JSON"))?;
            Ok((status, json))
        };
        tokio::time::timeout(TIMEOUT, work)
            .await
            .map_err(|_| format!("{url}: no answer within {} s", TIMEOUT.as_secs()))?
    }
}

/// `application/x-www-form-urlencoded` encoding of one name or value.
pub(crate) fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char);
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http() {
        assert!(check_url("https://as.example.com/").is_ok());
        assert!(check_url("http://127.0.0.1:9000/jwks").is_ok());
        assert!(check_url("http://localhost/x").is_ok());
        assert!(check_url("http://[::1]:8/x").is_ok());
        assert!(check_url("http://as.example.com/").is_err());
        assert!(check_url("http://10.0.0.1/").is_err());
        assert!(check_url("ftp://as.example.com/").is_err());
        assert!(check_url("not a url").is_err());
    }

    #[test]
    fn form_encoding() {
        assert_eq!(form_encode("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
    }
}
