//! One blocking HTTP/1.1 request, for health polling and the first
//! workload request after a start (not for load: see `load`); over TLS for
//! a start that serves it. Over TLS the certificate is not verified here:
//! readiness asks whether the service answers, and whether its certificate
//! is the one the load trusts is the load's check, named in the cell.
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum HttpProbeError {
    #[error("connection refused")]
    Refused,
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("malformed response: {0}")]
    Malformed(String),
    #[error("no complete response within {0:?}")]
    Timeout(Duration),
    #[error("TLS: {0}")]
    Tls(String),
}

/// A stream an exchange is read and written on.
trait Stream: Read + Write {
    /// The socket below, whose timeouts bound each read and write.
    fn tcp(&self) -> &TcpStream;
}

impl Stream for TcpStream {
    fn tcp(&self) -> &TcpStream {
        self
    }
}

impl Stream for rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    fn tcp(&self) -> &TcpStream {
        &self.sock
    }
}

/// `tcp` wrapped in a TLS client that offers HTTP/1.1 and verifies nothing.
fn over_tls(tcp: TcpStream, addr: SocketAddr) -> Result<impl Stream, HttpProbeError> {
    use crate::load::{Protocol, Transport, Trust};
    let transport = Transport {
        protocol: Protocol::Https,
        trust: Some(Trust::Insecure),
        ..Transport::default()
    };
    let setup = crate::load::net::tls_config::tls_setup(&transport, addr.ip())
        .map_err(|e| HttpProbeError::Tls(e.to_string()))?
        .ok_or_else(|| HttpProbeError::Tls("no TLS client for https".into()))?;
    let conn = rustls::ClientConnection::new(Arc::clone(&setup.config), setup.name)
        .map_err(|e| HttpProbeError::Tls(e.to_string()))?;
    Ok(rustls::StreamOwned::new(conn, tcp))
}

/// Sends `method path` (with `headers` and `body`) to `addr` and returns
/// the response status; over TLS when `tls`. The whole exchange is
/// bounded by `timeout`.
pub fn http_status(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: Option<&[u8]>,
    (timeout, tls): (Duration, bool),
) -> Result<u16, HttpProbeError> {
    let deadline = Instant::now() + timeout;
    let tcp = TcpStream::connect_timeout(&addr, timeout).map_err(|e| {
        if e.kind() == std::io::ErrorKind::ConnectionRefused {
            HttpProbeError::Refused
        } else {
            HttpProbeError::Io(e)
        }
    })?;
    tcp.set_write_timeout(Some(timeout))?;
    let exchange = Exchange {
        addr,
        method,
        path,
        headers,
        body,
    };
    match tls {
        false => exchange.over(tcp, deadline, timeout),
        true => exchange.over(over_tls(tcp, addr)?, deadline, timeout),
    }
}

/// An I/O error of the exchange; what TLS refused (rustls' errors arrive
/// as `InvalidData`) says why in words.
fn io_error(e: std::io::Error) -> HttpProbeError {
    if e.kind() == std::io::ErrorKind::InvalidData {
        let failure = crate::load::TlsFailure::of(&e);
        return HttpProbeError::Tls(failure.explain().to_owned());
    }
    HttpProbeError::Io(e)
}

/// One request as [`http_status`] sends it.
struct Exchange<'a> {
    addr: SocketAddr,
    method: &'a str,
    path: &'a str,
    headers: &'a [(String, String)],
    body: Option<&'a [u8]>,
}

impl Exchange<'_> {
    fn over(
        &self,
        mut stream: impl Stream,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<u16, HttpProbeError> {
        let Exchange {
            addr,
            method,
            path,
            headers,
            body,
        } = *self;
        let mut request =
            format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        if let Some(b) = body {
            request.push_str(&format!("Content-Length: {}\r\n", b.len()));
        }
        request.push_str("\r\n");
        // Over TLS the handshake happens in the first write.
        stream.write_all(request.as_bytes()).map_err(io_error)?;
        if let Some(b) = body {
            stream.write_all(b).map_err(io_error)?;
        }
        let mut buf = Vec::with_capacity(1024);
        let mut chunk = [0u8; 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(HttpProbeError::Timeout(timeout));
            }
            stream.tcp().set_read_timeout(Some(left))?;
            let n = match stream.read(&mut chunk) {
                Ok(n) => n,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(HttpProbeError::Timeout(timeout));
                }
                Err(e) => return Err(io_error(e)),
            };
            buf.extend_from_slice(&chunk[..n]);
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut response = httparse::Response::new(&mut headers);
            match response.parse(&buf) {
                Ok(httparse::Status::Complete(_)) => {
                    return response
                        .code
                        .ok_or_else(|| HttpProbeError::Malformed("no status code".into()));
                }
                Ok(httparse::Status::Partial) if n == 0 => {
                    return Err(HttpProbeError::Malformed(
                        "connection closed mid-headers".into(),
                    ));
                }
                Ok(httparse::Status::Partial) => {}
                Err(e) => return Err(HttpProbeError::Malformed(e.to_string())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn reads_the_status_of_a_local_server() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; 1024];
            let n = s.read(&mut buf).unwrap();
            assert!(buf[..n].starts_with(b"POST /x HTTP/1.1\r\n"));
            s.write_all(b"HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n")
                .unwrap();
        });
        let code = http_status(
            addr,
            "POST",
            "/x",
            &[],
            Some(b"hi"),
            (Duration::from_secs(2), false),
        )
        .unwrap();
        assert_eq!(code, 503);
        server.join().unwrap();
    }

    #[test]
    fn refused_is_reported_as_such() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        let err =
            http_status(addr, "GET", "/", &[], None, (Duration::from_secs(1), false)).unwrap_err();
        assert!(matches!(err, HttpProbeError::Refused), "{err}");
    }
}
