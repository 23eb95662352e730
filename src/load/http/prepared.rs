//! The run's requests as sent, prepared once before the clock starts:
//! HTTP/1.1 bytes (with `Connection: close` when each request has its own
//! connection, so the server closes first and keeps the TIME_WAIT, as
//! `wrk -H 'Connection: close'` does) and, for HTTP/2, the stream's head.

use crate::load::config::LoadConfig;
use crate::load::http::connection::EncodedRequest;
use crate::load::http::dynamic::DynamicRequest;
use crate::load::http::h2_request::H2Request;
use crate::load::http::wire::encode_request;
use crate::load::transport::Reuse;

/// Every request of `config`, in workload order.
pub fn encode_all(config: &LoadConfig) -> Vec<EncodedRequest> {
    let t = &config.transport;
    let scheme = if t.protocol.uses_tls() {
        "https"
    } else {
        "http"
    };
    let close = matches!(t.reuse, Reuse::NewConnection { .. }) && !t.protocol.is_h2();
    config
        .requests
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if close
                && !r
                    .headers
                    .iter()
                    .any(|(k, _)| k.eq_ignore_ascii_case("connection"))
            {
                r.headers.push(("Connection".into(), "close".into()));
            }
            EncodedRequest {
                bytes: encode_request(&r, &config.host_header),
                head: r.method.eq_ignore_ascii_case("HEAD"),
                expect_status: r.expect_status,
                dynamic: DynamicRequest::of(&r, &config.host_header),
                check: r.check.clone(),
                h2: t
                    .protocol
                    .is_h2()
                    .then(|| H2Request::of(&r, scheme, &config.host_header))
                    .flatten(),
            }
        })
        .collect()
}
