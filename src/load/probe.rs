//! `probe`: one request on a fresh connection, through hyper. `runner
//! verify` sends its requests with it (over the protocol its cells speak:
//! [`probe_answer_over`]); tests use it as the reference HTTP client the
//! lean measured loop must agree with.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::load::config::RequestSpec;
use crate::load::error::LoadError;
use crate::load::net::tls_error::TlsFailure;
use crate::load::transport::Transport;

/// A whole answer: what `runner verify` checks a workload request's
/// `expect` on.
#[derive(Debug, Clone)]
pub struct ProbeAnswer {
    pub status: u16,
    /// Every header, in the order received, values raw.
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Bytes,
}

/// Sends `request` to `addr` on a new connection and returns the status and
/// the whole body. `timeout` bounds connect and exchange separately. The
/// status is returned whatever it is: comparing it with `expect_status` is
/// the caller's decision.
pub fn probe(
    addr: SocketAddr,
    request: &RequestSpec,
    timeout: Duration,
) -> Result<(u16, Bytes), LoadError> {
    probe_answer(addr, request, timeout).map(|a| (a.status, a.body))
}

/// [`probe`] with the answer's headers.
pub fn probe_answer(
    addr: SocketAddr,
    request: &RequestSpec,
    timeout: Duration,
) -> Result<ProbeAnswer, LoadError> {
    probe_answer_over(addr, request, timeout, &Transport::default())
}

/// [`probe_answer`] over `transport`'s protocol: HTTPS/1.1, HTTP/2 over
/// TLS (ALPN `h2` required) or h2c, trusting what it trusts. Its
/// connection reuse and streams do not apply: one request, one connection.
pub fn probe_answer_over(
    addr: SocketAddr,
    request: &RequestSpec,
    timeout: Duration,
    transport: &Transport,
) -> Result<ProbeAnswer, LoadError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(LoadError::Runtime)?;
    rt.block_on(probe_answer_async(addr, request, timeout, transport))
}

/// The async form of [`probe`], for callers already inside a runtime.
pub async fn probe_async(
    addr: SocketAddr,
    request: &RequestSpec,
    timeout: Duration,
) -> Result<(u16, Bytes), LoadError> {
    (probe_answer_async(addr, request, timeout, &Transport::default()).await)
        .map(|a| (a.status, a.body))
}

async fn probe_answer_async(
    addr: SocketAddr,
    request: &RequestSpec,
    timeout: Duration,
    transport: &Transport,
) -> Result<ProbeAnswer, LoadError> {
    let io_err = |cause: io::Error| LoadError::Io { addr, cause };
    let stream = match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
        Err(_) => return Err(LoadError::ConnectTimeout { addr, timeout }),
        Ok(Err(e)) if e.kind() == io::ErrorKind::ConnectionRefused => {
            return Err(LoadError::ConnectRefused { addr });
        }
        Ok(Err(e)) => return Err(io_err(e)),
        Ok(Ok(s)) => s,
    };
    stream.set_nodelay(true).map_err(io_err)?;
    let h2 = transport.protocol.is_h2();
    let Some(tls) = crate::load::net::tls_config::tls_setup(transport, addr.ip())? else {
        return exchange(addr, request, timeout, (stream, h2, "http")).await;
    };
    let connector = tokio_rustls::TlsConnector::from(tls.config);
    let stream = match tokio::time::timeout(timeout, connector.connect(tls.name, stream)).await {
        Err(_) => return Err(LoadError::ConnectTimeout { addr, timeout }),
        Ok(Err(e)) => {
            return Err(LoadError::TlsHandshake {
                addr,
                failure: TlsFailure::of(&e),
                detail: e.to_string(),
            });
        }
        Ok(Ok(s)) => s,
    };
    let alpn = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    if h2 && alpn.as_deref() != Some(b"h2") {
        let got = crate::load::net::dial::alpn_name(alpn.as_deref());
        return Err(LoadError::AlpnRefused { addr, got });
    }
    exchange(addr, request, timeout, (stream, h2, "https")).await
}

/// One exchange on an open connection `io` (HTTP/2 when `h2`; `scheme`
/// is what HTTP/2 names in the request).
async fn exchange<IO>(
    addr: SocketAddr,
    request: &RequestSpec,
    timeout: Duration,
    (io, h2, scheme): (IO, bool, &str),
) -> Result<ProbeAnswer, LoadError>
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let hyper_err = |e: hyper::Error| {
        if e.is_parse() || e.is_parse_status() {
            LoadError::Malformed {
                addr,
                what: e.to_string(),
            }
        } else {
            let kind = if e.is_incomplete_message() {
                io::ErrorKind::UnexpectedEof
            } else {
                io::ErrorKind::Other
            };
            LoadError::Io {
                addr,
                cause: io::Error::new(kind, e),
            }
        }
    };
    let exchange = async {
        // One request: `seq` and `rand` placeholders take their first values.
        let path = crate::load::http::dynamic::resolved_once(&request.path);
        let mut builder = Request::builder().method(request.method.as_str());
        builder = match h2 {
            // HTTP/2 names the scheme and authority in the request itself.
            true => builder.uri(format!("{scheme}://{addr}{path}")),
            false => builder.uri(path),
        };
        // HTTP/2 carries the authority in the URI (a Host beside it is a
        // duplicate nginx refuses with 400).
        if !h2
            && !request
                .headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("host"))
        {
            builder = builder.header("host", addr.to_string());
        }
        for (k, v) in &request.headers {
            builder = builder.header(k.as_str(), v.as_str());
        }
        let req = builder
            .body(Full::new(
                (request.body.as_ref())
                    .map(crate::load::http::dynamic::resolved_body_once)
                    .unwrap_or_default(),
            ))
            .map_err(|e| LoadError::InvalidConfig {
                what: format!("cannot build the probe request: {e}"),
            })?;
        let resp = match h2 {
            false => {
                let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
                    .await
                    .map_err(hyper_err)?;
                tokio::spawn(conn);
                sender.send_request(req).await.map_err(hyper_err)?
            }
            true => {
                let (mut sender, conn) = hyper::client::conn::http2::handshake(
                    hyper_util::rt::TokioExecutor::new(),
                    TokioIo::new(io),
                )
                .await
                .map_err(hyper_err)?;
                tokio::spawn(conn);
                sender.send_request(req).await.map_err(hyper_err)?
            }
        };
        let status = resp.status().as_u16();
        let headers = (resp.headers().iter())
            .map(|(k, v)| (k.as_str().to_string(), v.as_bytes().to_vec()))
            .collect();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(hyper_err)?
            .to_bytes();
        Ok(ProbeAnswer {
            status,
            headers,
            body,
        })
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(result) => result,
        Err(_) => Err(LoadError::RequestTimeout { addr, timeout }),
    }
}
