//! One verify request over HTTP/1.1 with hyper, answer status and body.
//!
//! `service::http_status` only reads a status line (enough for health
//! polling); verify needs the whole body to compare JSON fields, so it uses
//! the hyper client the crate already depends on rather than a second
//! hand-written HTTP parser. Each request gets its own connection: an error
//! answer may legitimately close a keep-alive connection, and a fresh
//! connection keeps one request's fate out of the next one's.
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;

/// Bodies larger than this are refused (the largest contract answer, 1 MiB
/// of input in four fields plus JSON, is about 4 MiB).
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Why a request produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("`{method} {path}` is not a valid HTTP request line: {reason}")]
    BadRequest {
        method: String,
        path: String,
        reason: String,
    },
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("HTTP error: {0}")]
    Http(#[from] hyper::Error),
    #[error("reading the body failed (or it exceeded {MAX_BODY_BYTES} bytes): {0}")]
    Body(String),
    #[error("no complete answer within {0:?}")]
    Timeout(Duration),
    #[error("cannot create the I/O runtime of the HTTP client: {0}")]
    Runtime(#[source] std::io::Error),
}

/// A complete HTTP answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: Bytes,
}

/// A small blocking HTTP client: a single-threaded tokio runtime driving
/// hyper's HTTP/1 connection API.
pub struct Client {
    runtime: tokio::runtime::Runtime,
    timeout: Duration,
}

impl Client {
    /// `timeout` bounds each whole exchange (connect, send, read the body).
    pub fn new(timeout: Duration) -> Result<Client, FetchError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(FetchError::Runtime)?;
        Ok(Client { runtime, timeout })
    }

    /// Sends `method path` (no body) to `addr` and reads the whole answer.
    pub fn fetch(&self, addr: SocketAddr, method: &str, path: &str) -> Result<Reply, FetchError> {
        let bad = |reason: String| FetchError::BadRequest {
            method: method.to_string(),
            path: path.to_string(),
            reason,
        };
        let method_value =
            hyper::Method::from_bytes(method.as_bytes()).map_err(|e| bad(e.to_string()))?;
        let request = hyper::Request::builder()
            .method(method_value)
            .uri(path)
            .header(hyper::header::HOST, addr.to_string())
            .body(Empty::<Bytes>::new())
            .map_err(|e| bad(e.to_string()))?;
        self.runtime.block_on(async {
            tokio::time::timeout(self.timeout, exchange(addr, request))
                .await
                .unwrap_or(Err(FetchError::Timeout(self.timeout)))
        })
    }
}

async fn exchange(
    addr: SocketAddr,
    request: hyper::Request<Empty<Bytes>>,
) -> Result<Reply, FetchError> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|source| FetchError::Connect { addr, source })?;
    let _ = stream.set_nodelay(true);
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    // The connection future does the socket I/O; it ends when the answer is
    // read and `sender` is dropped.
    let driver = tokio::spawn(connection);
    let response = sender.send_request(request).await?;
    let status = response.status().as_u16();
    let body = Limited::new(response.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|e| FetchError::Body(e.to_string()))?
        .to_bytes();
    drop(sender);
    driver.abort();
    Ok(Reply { status, body })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    #[test]
    fn reads_status_and_whole_body_of_a_local_server() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 1024];
            let n = s.read(&mut buf).unwrap();
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            s.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 13\r\n\r\n{\"error\":\"x\"}")
                .unwrap();
            head
        });
        let client = Client::new(Duration::from_secs(5)).unwrap();
        let reply = client.fetch(addr, "GET", "/api/generated/%20%207").unwrap();
        assert_eq!(reply.status, 400);
        assert_eq!(&reply.body[..], b"{\"error\":\"x\"}");
        let head = server.join().unwrap();
        assert!(
            head.starts_with("GET /api/generated/%20%207 HTTP/1.1\r\n"),
            "{head}"
        );
    }

    #[test]
    fn a_silent_server_times_out() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let client = Client::new(Duration::from_millis(300)).unwrap();
        let err = client.fetch(addr, "GET", "/").unwrap_err();
        assert!(matches!(err, FetchError::Timeout(_)), "{err}");
        drop(listener);
    }

    #[test]
    fn an_invalid_path_is_reported_before_connecting() {
        let client = Client::new(Duration::from_secs(1)).unwrap();
        let addr: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let err = client.fetch(addr, "GET", "/a b").unwrap_err();
        assert!(matches!(err, FetchError::BadRequest { .. }), "{err}");
    }
}
