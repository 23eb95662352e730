//! Reading an answer for its checks ([`crate::load::http::expect`]) in the
//! lean loop, and which answers are read so.
//!
//! The decoder ([`crate::load::http::wire::ResponseDecoder`]) skips bodies;
//! it tells an [`AnswerSink`] what it sees. The measured loop passes
//! [`NoSink`], whose methods do nothing and are compiled away: its code is
//! the same as before checks existed. Only a sampled answer of a run whose
//! requests carry checks (a cell's warmup) gets a [`Capture`].
//!
//! Which answers: per connection and request, the first [`FIRST_CHECKED`]
//! answers, then every [`EVERY_CHECKED`]-th ([`Sampler`]). A server that
//! answers wrongly because of how it is set up (a missing file, a wrong
//! route, a short static page) does so from the first answer, which the
//! first answers of every connection catch at once; one that goes wrong
//! under load (a buffer cut short once busy) shows in the later sample,
//! one answer in 64 (copying a 64 KiB body for 1.5% of the warmup's answers
//! costs far less than the warmup's own reads). Reading every body would
//! copy every byte the warmup receives, and a warmup exists to bring the
//! service to the state the window measures, which the generator's CPU
//! stolen from the service would disturb.
use crate::load::http::expect::{AnswerExpect, SHOWN_BODY_BYTES, SeenAnswer};

/// Answers checked first on each connection for each request.
pub const FIRST_CHECKED: u64 = 4;
/// After those, one answer in this many is checked.
pub const EVERY_CHECKED: u64 = 64;
/// Most body bytes kept for `body_contains` (the rest is counted, not
/// kept): the text is searched in a body's first MiB.
pub const BODY_KEPT: usize = 1 << 20;

/// Told what the decoder sees of an answer. Every method does nothing by
/// default.
pub trait AnswerSink {
    /// One header of the final response (an interim one's are skipped).
    fn header(&mut self, _name: &str, _value: &[u8]) {}
    /// The next bytes of the body (chunk framing removed).
    fn body(&mut self, _bytes: &[u8]) {}
}

/// The measured loop's sink: sees nothing, costs nothing.
pub struct NoSink;

impl AnswerSink for NoSink {}

/// What a checked answer's checks need: its length, its first bytes, the
/// headers they name.
#[derive(Debug, Default)]
pub struct Capture {
    names: Vec<String>,
    keep: usize,
    body: Vec<u8>,
    body_len: u64,
    headers: Vec<(String, Vec<u8>)>,
}

impl Capture {
    /// Keeps what `expect` needs: the body's first MiB for `body_contains`,
    /// else only the bytes a wrong answer shows.
    pub fn for_check(expect: &AnswerExpect) -> Self {
        Capture {
            names: expect.headers.iter().map(|(n, _)| n.clone()).collect(),
            keep: if expect.body_contains.is_some() {
                BODY_KEPT
            } else {
                SHOWN_BODY_BYTES
            },
            ..Default::default()
        }
    }

    /// The answer seen, with `status`.
    pub fn seen(&self, status: u16) -> SeenAnswer<'_> {
        SeenAnswer {
            status,
            body_len: self.body_len,
            body: &self.body,
            headers: &self.headers,
        }
    }
}

impl AnswerSink for Capture {
    fn header(&mut self, name: &str, value: &[u8]) {
        if self.names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            self.headers.push((name.to_string(), value.to_vec()));
        }
    }

    fn body(&mut self, bytes: &[u8]) {
        self.body_len += bytes.len() as u64;
        let room = self.keep.saturating_sub(self.body.len());
        self.body.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// One connection's count of answers per request, saying which to check.
#[derive(Debug)]
pub struct Sampler {
    sent: Vec<u64>,
}

impl Sampler {
    pub fn new(requests: usize) -> Self {
        Sampler {
            sent: vec![0; requests],
        }
    }

    /// Whether the next answer to request `index` is checked.
    pub fn take(&mut self, index: usize) -> bool {
        let n = self.sent[index];
        self.sent[index] = n + 1;
        n < FIRST_CHECKED || (n - FIRST_CHECKED) % EVERY_CHECKED == EVERY_CHECKED - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_answers_then_one_in_every_64_are_checked() {
        let mut s = Sampler::new(2);
        let picked: Vec<usize> = (0..300).filter(|_| s.take(0)).collect();
        assert_eq!(picked, vec![0, 1, 2, 3, 67, 131, 195, 259]);
        // Each request counts its own answers.
        assert!(s.take(1));
    }

    #[test]
    fn a_capture_counts_every_byte_keeps_a_bounded_prefix() {
        let mut c = Capture::for_check(&AnswerExpect {
            min_bytes: Some(1),
            headers: vec![("X-Kind".into(), "a".into())],
            ..Default::default()
        });
        c.header("x-kind", b"a");
        c.header("Date", b"today");
        c.body(&[b'x'; 150]);
        c.body(&[b'y'; 150]);
        let seen = c.seen(200);
        assert_eq!(seen.body_len, 300);
        assert_eq!(seen.body.len(), SHOWN_BODY_BYTES);
        assert_eq!(seen.headers, &[("x-kind".to_string(), b"a".to_vec())]);
        let c = Capture::for_check(&AnswerExpect {
            body_contains: Some("z".into()),
            ..Default::default()
        });
        assert_eq!(c.keep, BODY_KEPT);
    }
}
