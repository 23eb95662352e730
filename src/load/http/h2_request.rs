//! A workload request as an HTTP/2 stream's head and body, built once per
//! run; each send copies the head (cheap: shared bytes) for `h2`.

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue};
use http::{HeaderMap, Method, Request, Uri};

use crate::load::config::RequestSpec;

/// Headers HTTP/2 forbids (RFC 9113 8.2.2) or replaces (`host` by
/// `:authority`): sent over HTTP/1.1, left out here.
const NOT_IN_H2: &[&str] = &[
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
];

/// One request of an HTTP/2 run.
#[derive(Debug, Clone)]
pub struct H2Request {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    pub body: Option<Bytes>,
}

impl H2Request {
    /// `scheme` is "https" or "http"; `authority` the URL's host[:port].
    /// None when the spec cannot be an HTTP/2 request (validated before).
    pub fn of(spec: &RequestSpec, scheme: &str, authority: &str) -> Option<H2Request> {
        let method = Method::from_bytes(spec.method.as_bytes()).ok()?;
        let uri = Uri::try_from(format!("{scheme}://{authority}{}", spec.path)).ok()?;
        let mut headers = HeaderMap::new();
        for (k, v) in &spec.headers {
            let name = HeaderName::from_bytes(k.to_ascii_lowercase().as_bytes()).ok()?;
            if NOT_IN_H2.contains(&name.as_str()) {
                continue;
            }
            headers.append(name, HeaderValue::from_str(v).ok()?);
        }
        Some(H2Request {
            method,
            uri,
            headers,
            body: spec.body.clone().filter(|b| !b.is_empty()),
        })
    }

    /// The head of one send.
    pub fn head(&self) -> Request<()> {
        let mut r = Request::new(());
        *r.method_mut() = self.method.clone();
        *r.uri_mut() = self.uri.clone();
        *r.headers_mut() = self.headers.clone();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_headers_stay_out_and_the_uri_is_absolute() {
        let mut spec = RequestSpec::get("/a?b=1");
        spec.headers.push(("Connection".into(), "close".into()));
        spec.headers.push(("X-Test".into(), "1".into()));
        let r = H2Request::of(&spec, "https", "127.0.0.1:8443")
            .unwrap()
            .head();
        assert_eq!(r.uri().to_string(), "https://127.0.0.1:8443/a?b=1");
        assert_eq!(r.headers().len(), 1);
        assert_eq!(r.headers()["x-test"], "1");
    }
}
