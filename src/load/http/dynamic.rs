//! Requests whose path or body hold `{{ seq }}` or `{{ rand(lo, hi) }}` (the
//! placeholders the plan leaves, see `plan::dynamic`): they are encoded once
//! into fixed byte pieces around the placeholders, and each send fills the
//! digits into the connection's own reusable buffer, so the hot path does not
//! allocate once the buffers have grown to the request's size.
//!
//! Values, per connection `c` of `n` and its `k`-th request (from 0):
//! `seq` is `base + 1 + c + k * n`, unique over the run's connections
//! without a shared counter per request, and the same everywhere in one
//! request (a create's path and body agree). `base` is the highest `seq`
//! any earlier load run of this process issued ([`seq_base`]), so the cell
//! warmup, the measurement and later cells do not send an id twice while
//! one runner process lives (a `--resume` starts again at 1); each `rand(lo, hi)` draws its own whole number in
//! `lo..=hi` from the connection's generator, seeded from the mix seed and
//! the connection index like the request mix, so a rerun with the same
//! seed sends the same values.

use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::load::config::RequestSpec;

/// One piece of a path or body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(Bytes),
    Seq,
    Rand { lo: u64, hi: u64 },
}

/// `text` split into its literal pieces and placeholders; `None` when it
/// has no placeholder (the request is then encoded once, as before).
pub fn parts(text: &[u8]) -> Option<Vec<Part>> {
    let mut out = Vec::new();
    let mut literal_start = 0;
    let mut i = 0;
    while i < text.len() {
        match placeholder(&text[i..]) {
            Some((part, len)) => {
                if literal_start < i {
                    out.push(Part::Text(Bytes::copy_from_slice(&text[literal_start..i])));
                }
                out.push(part);
                i += len;
                literal_start = i;
            }
            None => i += 1,
        }
    }
    if out.is_empty() {
        return None;
    }
    if literal_start < text.len() {
        out.push(Part::Text(Bytes::copy_from_slice(&text[literal_start..])));
    }
    Some(out)
}

/// The placeholder `text` starts with, and its length in bytes.
fn placeholder(text: &[u8]) -> Option<(Part, usize)> {
    const SEQ: &[u8] = b"{{ seq }}";
    if text.starts_with(SEQ) {
        return Some((Part::Seq, SEQ.len()));
    }
    let rest = text.strip_prefix(b"{{ rand(")?;
    let end = rest.windows(4).position(|w| w == b") }}")?;
    let args = std::str::from_utf8(&rest[..end]).ok()?;
    let (lo, hi) = args.split_once(',')?;
    let (lo, hi) = (lo.trim().parse().ok()?, hi.trim().parse().ok()?);
    (lo <= hi).then_some((Part::Rand { lo, hi }, b"{{ rand(".len() + end + 4))
}

/// A request with placeholders, as pieces around them.
#[derive(Debug, Clone)]
pub struct DynamicRequest {
    /// `METHOD ` up to the path.
    pub before_path: Bytes,
    pub path: Vec<Part>,
    /// ` HTTP/1.1\r\n`, Host and the headers, without the blank line.
    pub after_path: Bytes,
    pub body: Vec<Part>,
    /// Whether a Content-Length is added (the spec gave none and there is a body).
    pub content_length: bool,
}

impl DynamicRequest {
    /// `spec` as pieces, or `None` when neither its path nor its body has a
    /// placeholder; the pieces are those of `wire::encode_request`.
    pub fn of(spec: &RequestSpec, host_header: &str) -> Option<DynamicRequest> {
        let path = parts(spec.path.as_bytes());
        let body = spec.body.as_deref().and_then(parts);
        if path.is_none() && body.is_none() {
            return None;
        }
        let mut after = Vec::new();
        crate::load::http::wire::put_version_and_headers(&mut after, spec, host_header);
        let body = match (body, &spec.body) {
            (Some(parts), _) => parts,
            (None, Some(fixed)) => vec![Part::Text(fixed.clone())],
            (None, None) => Vec::new(),
        };
        Some(DynamicRequest {
            before_path: Bytes::from(format!("{} ", spec.method)),
            path: path.unwrap_or_else(|| vec![Part::Text(Bytes::from(spec.path.clone()))]),
            after_path: Bytes::from(after),
            content_length: spec.body.is_some()
                && !crate::load::http::wire::has_header(spec, "content-length"),
            body,
        })
    }

    /// Writes the next request into `out` (cleared first), its body built in
    /// `body` (a second reusable buffer, for the Content-Length).
    pub fn write(&self, values: &mut Values, out: &mut Vec<u8>, body: &mut Vec<u8>) {
        let seq = values.next_seq();
        out.clear();
        out.extend_from_slice(&self.before_path);
        fill(&self.path, seq, values, out);
        out.extend_from_slice(&self.after_path);
        body.clear();
        fill(&self.body, seq, values, body);
        if self.content_length {
            // Writing to a Vec cannot fail.
            let _ = write!(out, "Content-Length: {}\r\n", body.len());
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(body);
    }
}

fn fill(parts: &[Part], seq: u64, values: &mut Values, out: &mut Vec<u8>) {
    for part in parts {
        // Writing to a Vec cannot fail.
        let _ = match part {
            Part::Text(t) => {
                out.extend_from_slice(t);
                Ok(())
            }
            Part::Seq => write!(out, "{seq}"),
            Part::Rand { lo, hi } => write!(out, "{}", values.rng.random_range(*lo..=*hi)),
        };
    }
}

/// The highest `seq` issued by a finished connection of this process.
static SEQ_ISSUED: AtomicU64 = AtomicU64::new(0);

/// Where the next load run's `seq` values start (exclusive).
pub fn seq_base() -> u64 {
    SEQ_ISSUED.load(Ordering::Relaxed)
}

/// The placeholder values of one connection.
#[derive(Debug)]
pub struct Values {
    first: u64,
    next: u64,
    step: u64,
    rng: Xoshiro256PlusPlus,
}

impl Values {
    /// For connection `conn_index` of `connections`, its `seq` above
    /// `base`, its `rand` drawn from `seed`.
    pub fn new(seed: u64, base: u64, conn_index: usize, connections: usize) -> Self {
        // Another stream than the request mix's (mix.rs) for the same connection.
        let mixed = !seed ^ (conn_index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let first = base + 1 + conn_index as u64;
        Values {
            first,
            next: first,
            step: connections.max(1) as u64,
            rng: Xoshiro256PlusPlus::seed_from_u64(mixed),
        }
    }

    fn next_seq(&mut self) -> u64 {
        let seq = self.next;
        self.next += self.step;
        seq
    }
}

/// A connection's end (normal, or dropped with its runtime) publishes the
/// highest `seq` it issued: once per connection, never per request.
impl Drop for Values {
    fn drop(&mut self) {
        if self.next > self.first {
            SEQ_ISSUED.fetch_max(self.next - self.step, Ordering::Relaxed);
        }
    }
}

/// `text` with `seq` as 0 and each `rand` as its low bound: the one value a
/// single request (a probe, the first request of a start) sends.
pub fn resolved_once(text: &str) -> String {
    let Some(parts) = parts(text.as_bytes()) else {
        return text.to_owned();
    };
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text(t) => out.push_str(&String::from_utf8_lossy(&t)),
            Part::Seq => out.push('0'),
            Part::Rand { lo, .. } => out.push_str(&lo.to_string()),
        }
    }
    out
}

/// [`resolved_once`] of a body.
pub fn resolved_body_once(body: &Bytes) -> Bytes {
    match parts(body) {
        None => body.clone(),
        Some(_) => Bytes::from(resolved_once(&String::from_utf8_lossy(body))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(path: &str, body: &str) -> RequestSpec {
        RequestSpec {
            method: "POST".into(),
            path: path.into(),
            headers: vec![("X-A".into(), "b".into())],
            body: Some(Bytes::from(body.to_owned())),
            expect_status: 201,
            weight: None,
            check: None,
        }
    }

    #[test]
    fn plain_text_has_no_parts() {
        assert_eq!(parts(b"/items/{{ other }}"), None);
        assert_eq!(parts(b"/items/{{ rand(5, 1) }}"), None, "low above high");
    }

    #[test]
    fn seq_is_unique_over_connections_and_shared_within_a_request() {
        let req =
            DynamicRequest::of(&post("/items/{{ seq }}", "{\"id\": {{ seq }}}"), "h:1").unwrap();
        let (mut out, mut body) = (Vec::new(), Vec::new());
        let mut seen = Vec::new();
        for conn in 0..3 {
            let mut values = Values::new(1, 0, conn, 3);
            for _ in 0..2 {
                req.write(&mut values, &mut out, &mut body);
                let text = String::from_utf8(out.clone()).unwrap();
                let seq = text["POST /items/".len()..]
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_owned();
                assert!(text.ends_with(&format!("{{\"id\": {seq}}}")), "{text}");
                let length = format!("Content-Length: {}\r\n", body.len());
                assert!(text.contains(&length), "{text}");
                seen.push(seq.parse::<u64>().unwrap());
            }
        }
        seen.sort();
        assert_eq!(seen, [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn rand_stays_in_bounds_and_repeats_per_seed() {
        let req = DynamicRequest::of(&post("/items/{{ rand(3, 7) }}", ""), "h:1").unwrap();
        let draw = |seed| {
            let mut values = Values::new(seed, 0, 0, 1);
            let (mut out, mut body) = (Vec::new(), Vec::new());
            (0..200)
                .map(|_| {
                    req.write(&mut values, &mut out, &mut body);
                    let text = String::from_utf8(out.clone()).unwrap();
                    text["POST /items/".len()..]
                        .split(' ')
                        .next()
                        .unwrap()
                        .parse::<u64>()
                        .unwrap()
                })
                .collect::<Vec<_>>()
        };
        let a = draw(9);
        assert!(a.iter().all(|v| (3..=7).contains(v)), "{a:?}");
        assert!((3..=7).all(|v| a.contains(&v)), "every value drawn: {a:?}");
        assert_eq!(a, draw(9));
        assert_ne!(a, draw(10));
    }

    #[test]
    fn the_fixed_parts_match_the_one_time_encoding() {
        let spec = post("/items/{{ seq }}", "hi");
        let req = DynamicRequest::of(&spec, "127.0.0.1:80").unwrap();
        let (mut out, mut body) = (Vec::new(), Vec::new());
        req.write(&mut Values::new(1, 0, 0, 1), &mut out, &mut body);
        let fixed = super::super::wire::encode_request(&post("/items/1", "hi"), "127.0.0.1:80");
        assert_eq!(out, fixed.to_vec());
    }

    #[test]
    fn a_later_run_starts_above_every_seq_issued() {
        let req = DynamicRequest::of(&post("/items/{{ seq }}", ""), "h:1").unwrap();
        let (mut out, mut body) = (Vec::new(), Vec::new());
        let mut values = Values::new(1, 1_000_000, 0, 2);
        for _ in 0..3 {
            req.write(&mut values, &mut out, &mut body);
        }
        assert!(out.starts_with(b"POST /items/1000005 "), "{out:?}");
        drop(values);
        // Other tests may raise it further, never lower it.
        assert!(seq_base() >= 1_000_005);
    }

    #[test]
    fn a_single_request_uses_zero_and_the_low_bound() {
        assert_eq!(resolved_once("/i/{{ seq }}/{{ rand(4, 9) }}"), "/i/0/4");
        assert_eq!(resolved_once("/plain"), "/plain");
    }
}
