//! One blocking HTTP/1.1 request, for health polling and the first
//! workload request after a start (not for load: see `load`).
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
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
}

/// Sends `method path` (with `headers` and `body`) to `addr` and returns
/// the response status. The whole exchange is bounded by `timeout`.
pub fn http_status(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: Option<&[u8]>,
    timeout: Duration,
) -> Result<u16, HttpProbeError> {
    let deadline = Instant::now() + timeout;
    let mut stream = TcpStream::connect_timeout(&addr, timeout).map_err(|e| {
        if e.kind() == std::io::ErrorKind::ConnectionRefused {
            HttpProbeError::Refused
        } else {
            HttpProbeError::Io(e)
        }
    })?;
    stream.set_write_timeout(Some(timeout))?;
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        request.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes())?;
    if let Some(b) = body {
        stream.write_all(b)?;
    }
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HttpProbeError::Timeout(timeout));
        }
        stream.set_read_timeout(Some(left))?;
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
            Err(e) => return Err(e.into()),
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
        let code =
            http_status(addr, "POST", "/x", &[], Some(b"hi"), Duration::from_secs(2)).unwrap();
        assert_eq!(code, 503);
        server.join().unwrap();
    }

    #[test]
    fn refused_is_reported_as_such() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        let err = http_status(addr, "GET", "/", &[], None, Duration::from_secs(1)).unwrap_err();
        assert!(matches!(err, HttpProbeError::Refused), "{err}");
    }
}
