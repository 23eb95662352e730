//! One keep-alive connection of the measured loop: send pre-encoded bytes,
//! read and decode the whole response, classify every failure. Generic
//! over the stream (TCP or TLS, see [`crate::load::net::dial`]), so each
//! kind gets its own compiled loop and plain TCP's is what it always was.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::load::error::ErrorClass;
use crate::load::http::capture::AnswerSink;
use crate::load::http::expect::RequestCheck;
use crate::load::http::wire::{Complete, ResponseDecoder};
use crate::load::net::dial::Connector;

/// Read buffer per connection. Bodies stream through it; a response head
/// must fit. Small on purpose: 200 connections cost 3 MB.
const READ_BUFFER: usize = 16 * 1024;

/// A request as sent on the wire, prepared once per run.
#[derive(Debug, Clone)]
pub struct EncodedRequest {
    pub bytes: bytes::Bytes,
    pub head: bool,
    pub expect_status: u16,
    /// Set when the path or body has `seq`/`rand` placeholders: the bytes
    /// are then written per send from these pieces, not taken from `bytes`.
    pub dynamic: Option<crate::load::http::dynamic::DynamicRequest>,
    /// Set on a warmup's requests that declare content checks: a sample of
    /// their answers is read whole and checked (see [`crate::load::http::capture`]).
    pub check: Option<RequestCheck>,
    /// HTTP/2 runs: the request as a stream's head and body, built once.
    pub h2: Option<crate::load::http::h2_request::H2Request>,
}

/// An open connection and its read state.
pub struct Connection<S = TcpStream> {
    stream: S,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    decoder: ResponseDecoder,
    /// Responses already read on this connection (0: fresh).
    served: u64,
}

/// How an exchange failed, and whether a fresh connection may retry it.
enum Failure {
    /// The server closed a reused keep-alive connection before answering
    /// anything: the request never reached it; retry once on a new connection.
    StaleConnection,
    Class(ErrorClass),
}

/// A new connection made by `connector`, with its read buffer.
pub async fn connect<C: Connector>(connector: &C) -> Result<Connection<C::Stream>, ErrorClass> {
    let stream = connector.connect().await?;
    Ok(Connection {
        stream,
        buf: vec![0u8; READ_BUFFER].into_boxed_slice(),
        start: 0,
        end: 0,
        decoder: ResponseDecoder::new(),
        served: 0,
    })
}

/// Sends `req` on `slot` (connecting first if empty) and reads the whole
/// response. Leaves `slot` empty when the connection cannot be reused.
/// Returns the response status; the caller compares it with the expected one.
/// `sink` is told the answer's headers and body (the measured loop's
/// [`crate::load::http::capture::NoSink`] is told nothing, at no cost).
pub async fn exchange<C: Connector, S: AnswerSink>(
    slot: &mut Option<Connection<C::Stream>>,
    connector: &C,
    req: &EncodedRequest,
    wire: &[u8],
    sink: &mut S,
) -> Result<u16, ErrorClass> {
    for _attempt in 0..2 {
        if slot.is_none() {
            *slot = Some(connect(connector).await?);
        }
        let conn = slot.as_mut().expect("connected above");
        match conn.round_trip(req, wire, sink).await {
            Ok(done) => {
                if done.close {
                    *slot = None;
                }
                return Ok(done.status);
            }
            Err(Failure::StaleConnection) => *slot = None,
            Err(Failure::Class(class)) => {
                *slot = None;
                return Err(class);
            }
        }
    }
    Err(ErrorClass::Reset)
}

fn io_class(e: &io::Error) -> ErrorClass {
    match e.kind() {
        io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::BrokenPipe
        | io::ErrorKind::UnexpectedEof => ErrorClass::Reset,
        _ => ErrorClass::Other,
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> Connection<T> {
    /// Sends `wire` (the bytes of `req` for this send) and reads the answer.
    async fn round_trip<S: AnswerSink>(
        &mut self,
        req: &EncodedRequest,
        wire: &[u8],
        sink: &mut S,
    ) -> Result<Complete, Failure> {
        let reused = self.served > 0;
        let stale_or = |class: ErrorClass, got_bytes: bool| {
            if reused && !got_bytes && class == ErrorClass::Reset {
                Failure::StaleConnection
            } else {
                Failure::Class(class)
            }
        };
        if let Err(e) = self.stream.write_all(wire).await {
            return Err(stale_or(io_class(&e), false));
        }
        self.decoder.start(req.head);
        let mut got_bytes = self.end > self.start;
        loop {
            if self.end > self.start {
                let (n, done) = self
                    .decoder
                    .feed_into(&self.buf[self.start..self.end], sink)
                    .map_err(|_| Failure::Class(ErrorClass::Malformed))?;
                self.start += n;
                if let Some(done) = done {
                    self.served += 1;
                    return Ok(done);
                }
            }
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
            } else if self.end == self.buf.len() {
                if self.start == 0 {
                    // A response head (or chunk line) larger than the whole buffer.
                    return Err(Failure::Class(ErrorClass::Malformed));
                }
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            match self.stream.read(&mut self.buf[self.end..]).await {
                Ok(0) => {
                    return match self.decoder.eof() {
                        Some(done) => {
                            self.served += 1;
                            Ok(Complete {
                                close: true,
                                ..done
                            })
                        }
                        None => Err(stale_or(ErrorClass::Reset, got_bytes)),
                    };
                }
                Ok(n) => {
                    self.end += n;
                    got_bytes = true;
                }
                Err(e) => return Err(stale_or(io_class(&e), got_bytes)),
            }
        }
    }
}
