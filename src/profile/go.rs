//! The Go service's collectors, over its pprof listener on 127.0.0.1
//! (`PPROF_PORT`, see runtimes/go-nethttp/cmd/server/pprof.go): CPU and
//! heap-delta profiles for a window, and its recent GC pauses.
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use serde::Deserialize;

use super::error::ProfileError;
use super::pauses::Pause;
use crate::load::RequestSpec;

/// GETs `path` from the pprof listener; the whole body, or why not.
pub fn get(
    runtime: &str,
    port: u16,
    path: &str,
    timeout: Duration,
) -> Result<Vec<u8>, ProfileError> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let request = RequestSpec {
        method: "GET".into(),
        path: path.into(),
        headers: Vec::new(),
        body: None,
        expect_status: 200,
        weight: None,
        check: None,
    };
    let http = |why: String| ProfileError::Http {
        runtime: runtime.to_string(),
        port,
        path: path.to_string(),
        why,
    };
    match crate::load::probe(addr, &request, timeout) {
        Ok((200, body)) => Ok(body.to_vec()),
        Ok((status, body)) => Err(http(format!(
            "status {status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        ))),
        Err(e) => Err(http(e.to_string())),
    }
}

/// `/debug/runner/gc`: GC cycles so far and the last (up to 256) pauses.
#[derive(Debug, Deserialize)]
struct GcStats {
    num_gc: u64,
    pauses: Vec<GoPause>,
}

#[derive(Debug, Deserialize)]
struct GoPause {
    end_unix_ns: i64,
    pause_ns: u64,
}

/// The GC cycle count and recent pauses of the service.
pub fn gc_pauses(runtime: &str, port: u16) -> Result<(u64, Vec<Pause>), ProfileError> {
    let body = get(runtime, port, "/debug/runner/gc", Duration::from_secs(5))?;
    parse_gc(&body).map_err(|why| ProfileError::Http {
        runtime: runtime.to_string(),
        port,
        path: "/debug/runner/gc".into(),
        why,
    })
}

fn parse_gc(body: &[u8]) -> Result<(u64, Vec<Pause>), String> {
    let stats: GcStats =
        serde_json::from_slice(body).map_err(|e| format!("not the runner's GC JSON: {e}"))?;
    let pauses = stats
        .pauses
        .iter()
        .map(|p| Pause {
            end_unix_ms: p.end_unix_ns as f64 / 1e6,
            millis: p.pause_ns as f64 / 1e6,
        })
        .collect();
    Ok((stats.num_gc, pauses))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_go_gc_json_becomes_pauses_in_ms() {
        let body = br#"{"num_gc":7,"pauses":[{"end_unix_ns":1796138336081000000,"pause_ns":250000}],"now_unix_ns":1796138336091000000}"#;
        let (n, pauses) = parse_gc(body).unwrap();
        assert_eq!(n, 7);
        assert_eq!(
            pauses,
            vec![Pause {
                end_unix_ms: 1796138336081.0,
                millis: 0.25
            }]
        );
        assert!(
            parse_gc(b"<html>")
                .unwrap_err()
                .contains("not the runner's GC JSON")
        );
    }
}
