//! A dependency's own latency figures (`stats:`, docs/spec.md): `GET
//! <stats>` answers `{"routes": {"<name>": {"count", "mean_ms", "p50_ms",
//! "p99_ms", "max_ms"}}}`, read right after each measured window (the runner
//! zeroed them with `POST <stats>/reset` at its start).
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use serde::Deserialize;

use crate::load::RequestSpec;
use crate::results::{DependencyStatsRow, MeasurementRow};

/// How long the stats request may take.
const STATS_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Deserialize)]
struct Stats {
    routes: BTreeMap<String, RouteStats>,
}

#[derive(Debug, Deserialize)]
struct RouteStats {
    count: u64,
    mean_ms: f64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

/// Parses a stats answer into rows for `row`'s cell; `Err` says what is wrong.
pub fn parse(
    body: &[u8],
    row: &MeasurementRow,
    dependency: &str,
) -> Result<Vec<DependencyStatsRow>, String> {
    let stats: Stats = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    Ok(stats
        .routes
        .into_iter()
        .map(|(route, s)| DependencyStatsRow {
            cell_id: row.cell_id.clone(),
            repeat: row.repeat,
            dependency: dependency.to_owned(),
            route,
            count: s.count,
            mean_ms: s.mean_ms,
            p50_ms: s.p50_ms,
            p99_ms: s.p99_ms,
            max_ms: s.max_ms,
        })
        .collect())
}

/// GETs the stats of the dependency at `addr`: the answer's body, or why
/// not (read right after the window, where the dependency runs).
pub fn fetch(addr: SocketAddr, path: &str) -> Result<String, String> {
    match crate::load::probe(addr, &RequestSpec::get(path), STATS_TIMEOUT) {
        Ok((200, body)) => Ok(String::from_utf8_lossy(&body).into_owned()),
        Ok((status, _)) => Err(format!("status {status}")),
        Err(e) => Err(e.to_string()),
    }
}

/// The rows of a [`fetch`]ed answer for `row`'s cell; a failed or malformed
/// answer gives no rows and a warning on stderr (the cell itself stands).
pub fn rows_of(
    answer: Result<String, String>,
    path: &str,
    row: &MeasurementRow,
    dependency: &str,
) -> Vec<DependencyStatsRow> {
    answer
        .and_then(|body| parse(body.as_bytes(), row, dependency))
        .unwrap_or_else(|why| {
            eprintln!(
                "warning: dependency `{dependency}`: GET {path} after cell {} gave no stats: {why}",
                row.cell_id
            );
            Vec::new()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_route_of_the_interface() {
        let row = MeasurementRow {
            cell_id: "svc/r1".into(),
            repeat: 1,
            ..Default::default()
        };
        let body = br#"{"routes": {"users": {"count": 1234, "mean_ms": 12.41, "p50_ms": 12.10, "p99_ms": 19.80, "max_ms": 20.93}}}"#;
        let rows = parse(body, &row, "users_stub").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].route, "users");
        assert_eq!(rows[0].count, 1234);
        assert_eq!(rows[0].p99_ms, 19.80);
        assert!(parse(b"{}", &row, "x").unwrap_err().contains("routes"));
    }
}
