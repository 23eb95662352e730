//! HTTP/1.1 on the wire for the measured loop: requests encoded once per run,
//! responses decoded incrementally with httparse without copying or allocating.
//!
//! hyper is used for [`crate::load::probe`]; the measured loop uses this lean path
//! because hyper's client dispatch costs several microseconds of CPU per
//! request (oha, built on it, reaches ~113k req per CPU-second where wrk
//! reaches ~200k), and the generator's CPU is stolen from the service.

use bytes::{BufMut, Bytes, BytesMut};

use crate::load::config::RequestSpec;
use crate::load::http::capture::{AnswerSink, NoSink};

/// Encodes `spec` as the exact bytes sent for every request.
pub fn encode_request(spec: &RequestSpec, host_header: &str) -> Bytes {
    let body_len = spec.body.as_ref().map_or(0, |b| b.len());
    let mut out = BytesMut::with_capacity(128 + body_len);
    out.put_slice(spec.method.as_bytes());
    out.put_u8(b' ');
    out.put_slice(spec.path.as_bytes());
    put_version_and_headers(&mut out, spec, host_header);
    if let Some(body) = &spec.body
        && !has_header(spec, "content-length")
    {
        out.put_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
    out.put_slice(b"\r\n");
    if let Some(body) = &spec.body {
        out.put_slice(body);
    }
    out.freeze()
}

/// Whether `spec` declares header `name` itself (case-insensitive).
pub(super) fn has_header(spec: &RequestSpec, name: &str) -> bool {
    spec.headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case(name))
}

/// What follows the request target up to the headers' end, without
/// Content-Length and the blank line: ` HTTP/1.1`, `Host` unless the spec
/// sets it, the spec's headers. Shared with `crate::load::http::dynamic`, whose requests
/// differ only in their target and body.
pub(super) fn put_version_and_headers(
    out: &mut impl BufMut,
    spec: &RequestSpec,
    host_header: &str,
) {
    out.put_slice(b" HTTP/1.1\r\n");
    if !has_header(spec, "host") {
        out.put_slice(b"Host: ");
        out.put_slice(host_header.as_bytes());
        out.put_slice(b"\r\n");
    }
    for (k, v) in &spec.headers {
        out.put_slice(k.as_bytes());
        out.put_slice(b": ");
        out.put_slice(v.as_bytes());
        out.put_slice(b"\r\n");
    }
}

/// Most headers a response may carry; more is reported as malformed.
const MAX_HEADERS: usize = 64;
/// Longest chunk-size line (with extensions) accepted before calling it malformed.
const MAX_CHUNK_LINE: usize = 4096;

/// A complete response: its status and whether the server closes the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Complete {
    pub status: u16,
    /// The connection cannot be reused (Connection: close, HTTP/1.0 or a
    /// body delimited by the end of the connection).
    pub close: bool,
}

/// Why bytes from the server are not a valid response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    Fixed(u64),
    ChunkSize,
    ChunkData(u64),
    /// Bytes of the CRLF after a chunk's data still expected (2 or 1).
    ChunkEnd(u8),
    Trailers,
    UntilEof,
    Done,
}

/// Incremental response decoder: feed it the bytes read so far, it says how
/// many it consumed and whether the response is complete. Bodies are skipped,
/// not stored.
#[derive(Debug)]
pub struct ResponseDecoder {
    state: State,
    head_request: bool,
    status: u16,
    close: bool,
}

impl ResponseDecoder {
    pub fn new() -> Self {
        ResponseDecoder {
            state: State::Done,
            head_request: false,
            status: 0,
            close: false,
        }
    }

    /// Prepares for the answer to a new request (`head_request`: no body follows).
    pub fn start(&mut self, head_request: bool) {
        self.state = State::Head;
        self.head_request = head_request;
        self.status = 0;
        self.close = false;
    }

    /// Consumes a prefix of `data`; returns the bytes consumed and the response
    /// if it is now complete. Unconsumed bytes must be offered again with more.
    pub fn feed(&mut self, data: &[u8]) -> Result<(usize, Option<Complete>), Malformed> {
        self.feed_into(data, &mut NoSink)
    }

    /// [`Self::feed`], telling `sink` the final response's headers and its
    /// body's bytes (with [`NoSink`] this is `feed`, compiled the same).
    pub fn feed_into<S: AnswerSink>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> Result<(usize, Option<Complete>), Malformed> {
        let mut pos = 0;
        loop {
            let rest = &data[pos..];
            match self.state {
                State::Done => return Ok((pos, Some(self.complete()))),
                State::Head => match self.parse_head(rest, sink)? {
                    Some(n) => pos += n,
                    None => return Ok((pos, None)),
                },
                State::Fixed(left) => {
                    let n = left.min(rest.len() as u64);
                    sink.body(&rest[..n as usize]);
                    pos += n as usize;
                    self.state = if n == left {
                        State::Done
                    } else {
                        State::Fixed(left - n)
                    };
                    if n < left {
                        return Ok((pos, None));
                    }
                }
                State::ChunkSize => match httparse::parse_chunk_size(rest) {
                    Ok(httparse::Status::Complete((n, size))) => {
                        pos += n;
                        self.state = if size == 0 {
                            State::Trailers
                        } else {
                            State::ChunkData(size)
                        };
                    }
                    Ok(httparse::Status::Partial) if rest.len() > MAX_CHUNK_LINE => {
                        return Err(Malformed("chunk-size line too long".into()));
                    }
                    Ok(httparse::Status::Partial) => return Ok((pos, None)),
                    Err(_) => return Err(Malformed("invalid chunk size".into())),
                },
                State::ChunkData(left) => {
                    let n = left.min(rest.len() as u64);
                    sink.body(&rest[..n as usize]);
                    pos += n as usize;
                    if n < left {
                        self.state = State::ChunkData(left - n);
                        return Ok((pos, None));
                    }
                    self.state = State::ChunkEnd(2);
                }
                State::ChunkEnd(need) => {
                    let Some(&b) = rest.first() else {
                        return Ok((pos, None));
                    };
                    let expected = if need == 2 { b'\r' } else { b'\n' };
                    if b != expected {
                        return Err(Malformed("chunk data not followed by CRLF".into()));
                    }
                    pos += 1;
                    self.state = if need == 2 {
                        State::ChunkEnd(1)
                    } else {
                        State::ChunkSize
                    };
                }
                State::Trailers => {
                    let Some(lf) = rest.iter().position(|&b| b == b'\n') else {
                        if rest.len() > MAX_CHUNK_LINE {
                            return Err(Malformed("trailer line too long".into()));
                        }
                        return Ok((pos, None));
                    };
                    let empty = lf == 0 || (lf == 1 && rest[0] == b'\r');
                    pos += lf + 1;
                    if empty {
                        self.state = State::Done;
                    }
                }
                State::UntilEof => {
                    sink.body(rest);
                    return Ok((data.len(), None));
                }
            }
        }
    }

    /// The server closed the connection: completes a close-delimited body,
    /// otherwise the response was cut short (None).
    pub fn eof(&mut self) -> Option<Complete> {
        match self.state {
            State::UntilEof | State::Done => {
                self.state = State::Done;
                Some(self.complete())
            }
            _ => None,
        }
    }

    fn complete(&self) -> Complete {
        Complete {
            status: self.status,
            close: self.close,
        }
    }

    /// Parses the status line and headers; Some(consumed) once complete.
    fn parse_head<S: AnswerSink>(
        &mut self,
        data: &[u8],
        sink: &mut S,
    ) -> Result<Option<usize>, Malformed> {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut resp = httparse::Response::new(&mut headers);
        let n = match resp.parse(data) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(e) => return Err(Malformed(format!("invalid response head: {e}"))),
        };
        let status = resp.code.unwrap_or(0);
        if (100..200).contains(&status) && status != 101 {
            // Interim response (100 Continue, 103 Early Hints): the real one follows.
            return Ok(Some(n));
        }
        let mut close = resp.version == Some(0);
        let mut length: Option<u64> = None;
        let mut chunked = false;
        for h in resp.headers.iter() {
            sink.header(h.name, h.value);
            if h.name.eq_ignore_ascii_case("content-length") {
                let v = std::str::from_utf8(h.value)
                    .ok()
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .ok_or_else(|| Malformed("invalid Content-Length".into()))?;
                if length.is_some_and(|l| l != v) {
                    return Err(Malformed("conflicting Content-Length headers".into()));
                }
                length = Some(v);
            } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = last_token_is(h.value, b"chunked");
            } else if h.name.eq_ignore_ascii_case("connection") {
                if has_token(h.value, b"close") {
                    close = true;
                } else if has_token(h.value, b"keep-alive") {
                    close = false;
                }
            }
        }
        self.status = status;
        self.close = close;
        self.state = if self.head_request || status == 204 || status == 304 {
            State::Done
        } else if chunked {
            State::ChunkSize
        } else if let Some(len) = length {
            State::Fixed(len)
        } else {
            self.close = true;
            State::UntilEof
        };
        if self.state == State::Fixed(0) {
            self.state = State::Done;
        }
        Ok(Some(n))
    }
}

impl Default for ResponseDecoder {
    fn default() -> Self {
        Self::new()
    }
}

fn tokens(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value.split(|&b| b == b',').map(|t| t.trim_ascii())
}

fn has_token(value: &[u8], token: &[u8]) -> bool {
    tokens(value).any(|t| t.eq_ignore_ascii_case(token))
}

fn last_token_is(value: &[u8], token: &[u8]) -> bool {
    tokens(value)
        .last()
        .is_some_and(|t| t.eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` in pieces of `step` bytes, like reads from a socket would.
    fn decode(
        input: &[u8],
        step: usize,
        eof: bool,
    ) -> Result<Option<(Complete, usize)>, Malformed> {
        let mut d = ResponseDecoder::new();
        d.start(false);
        let mut buf: Vec<u8> = Vec::new();
        let mut consumed_total = 0;
        for piece in input.chunks(step) {
            buf.extend_from_slice(piece);
            let (n, done) = d.feed(&buf)?;
            buf.drain(..n);
            consumed_total += n;
            if let Some(c) = done {
                return Ok(Some((c, consumed_total)));
            }
        }
        Ok(if eof {
            d.eof().map(|c| (c, consumed_total))
        } else {
            None
        })
    }

    #[test]
    fn content_length_any_split() {
        let r = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA";
        for step in 1..r.len() {
            let (c, n) = decode(r, step, false).unwrap().unwrap();
            assert_eq!(
                c,
                Complete {
                    status: 200,
                    close: false
                }
            );
            assert_eq!(n, r.len() - 5, "step {step}");
        }
    }

    #[test]
    fn chunked_with_extensions_and_trailers_any_split() {
        let r = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1\r\n!\r\n0\r\nX-T: 1\r\n\r\n";
        for step in 1..r.len() {
            let (c, n) = decode(r, step, false).unwrap().unwrap();
            assert_eq!(c.status, 200);
            assert_eq!(n, r.len(), "step {step}");
        }
    }

    #[test]
    fn close_delimited_body_completes_at_eof_only() {
        let r = b"HTTP/1.1 200 OK\r\n\r\nbody until close";
        assert_eq!(decode(r, 7, false).unwrap(), None);
        let (c, _) = decode(r, 7, true).unwrap().unwrap();
        assert_eq!(
            c,
            Complete {
                status: 200,
                close: true
            }
        );
    }

    #[test]
    fn truncated_body_is_not_complete() {
        let r = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort";
        assert_eq!(decode(r, 3, true).unwrap(), None);
    }

    #[test]
    fn connection_close_and_http10() {
        let r = b"HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(
            decode(r, 100, false).unwrap().unwrap().0,
            Complete {
                status: 500,
                close: true
            }
        );
        let r = b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
        assert!(decode(r, 100, false).unwrap().unwrap().0.close);
        let r = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n";
        assert!(!decode(r, 100, false).unwrap().unwrap().0.close);
    }

    #[test]
    fn interim_responses_are_skipped() {
        let r = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
        assert_eq!(decode(r, 4, false).unwrap().unwrap().0.status, 204);
    }

    #[test]
    fn garbage_is_malformed() {
        assert!(decode(b"SSH-2.0-OpenSSH\r\n\r\n", 100, false).is_err());
        let bad_chunk = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        assert!(decode(bad_chunk, 100, false).is_err());
        let bad_len = b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n";
        assert!(decode(bad_len, 100, false).is_err());
    }

    #[test]
    fn encodes_host_body_and_length_once() {
        let spec = RequestSpec {
            method: "POST".into(),
            path: "/p?q=1".into(),
            headers: vec![("X-A".into(), "b".into())],
            body: Some(Bytes::from_static(b"hi")),
            expect_status: 200,
            weight: None,
            check: None,
        };
        let got = encode_request(&spec, "127.0.0.1:80");
        assert_eq!(
            &got[..],
            b"POST /p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:80\r\nX-A: b\r\nContent-Length: 2\r\n\r\nhi"
        );
    }

    /// What a checked answer's sink is told, whatever the framing and
    /// however the socket splits it: the final response's headers, the
    /// body without chunk framing, nothing of the next response.
    #[test]
    fn a_sink_sees_the_body_and_headers_of_any_framing() {
        use crate::load::http::capture::AnswerSink;
        #[derive(Default)]
        struct Seen {
            headers: Vec<String>,
            body: Vec<u8>,
        }
        impl AnswerSink for Seen {
            fn header(&mut self, name: &str, _value: &[u8]) {
                self.headers.push(name.to_string());
            }
            fn body(&mut self, bytes: &[u8]) {
                self.body.extend_from_slice(bytes);
            }
        }
        let framings: [(&[u8], bool); 3] = [
            (b"HTTP/1.1 100 Continue\r\nX-I: 1\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-K: a\r\n\r\nhello worldHTTP/1.1", false),
            (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-K: a\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", false),
            (b"HTTP/1.1 200 OK\r\nX-K: a\r\n\r\nhello world", true),
        ];
        for (input, eof) in framings {
            for step in 1..input.len() {
                let mut d = ResponseDecoder::new();
                d.start(false);
                let mut seen = Seen::default();
                let mut buf: Vec<u8> = Vec::new();
                let mut done = None;
                for piece in input.chunks(step) {
                    buf.extend_from_slice(piece);
                    let (n, complete) = d.feed_into(&buf, &mut seen).unwrap();
                    buf.drain(..n);
                    if complete.is_some() {
                        done = complete;
                        break;
                    }
                }
                if eof {
                    done = d.eof();
                }
                assert_eq!(done.map(|c| c.status), Some(200), "step {step}");
                assert_eq!(seen.body, b"hello world", "step {step}");
                assert!(seen.headers.contains(&"X-K".to_string()));
                assert!(!seen.headers.contains(&"X-I".to_string()));
            }
        }
    }

    proptest::proptest! {
        /// Any body framing, split anywhere by the socket, decodes to the same
        /// end: the exact length of the response, never more, never less.
        #[test]
        fn any_framing_any_split(
            chunks in proptest::collection::vec(1usize..300, 0..6),
            chunked: bool,
            step in 1usize..64,
        ) {
            let body_len: usize = chunks.iter().sum();
            let mut r = Vec::new();
            if chunked {
                r.extend_from_slice(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                for c in &chunks {
                    r.extend_from_slice(format!("{c:x}\r\n").as_bytes());
                    r.extend(std::iter::repeat_n(b'x', *c));
                    r.extend_from_slice(b"\r\n");
                }
                r.extend_from_slice(b"0\r\n\r\n");
            } else {
                r.extend_from_slice(format!("HTTP/1.1 200 OK\r\nContent-Length: {body_len}\r\n\r\n").as_bytes());
                r.extend(std::iter::repeat_n(b'x', body_len));
            }
            let response_len = r.len();
            r.extend_from_slice(b"HTTP/1.1 200 OK\r\n"); // the next response must stay unread
            let (c, consumed) = decode(&r, step, false).unwrap().unwrap();
            proptest::prop_assert_eq!(c.status, 200);
            proptest::prop_assert_eq!(consumed, response_len);
        }
    }
}
