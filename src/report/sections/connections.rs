//! What a report says about many connections (issue 13 part 6): per
//! configuration that held at least [`MANY`] connections, the service's
//! idle RSS, its largest RSS with the connections open and the memory per
//! connection (measurements.csv `service_rss_per_connection_bytes`), beside
//! the generator's own RSS and the connect pacing achieved. Empty when no
//! configuration held that many, so ordinary reports are unchanged.
use serde::Serialize;

use crate::results::CellStatus;
use crate::results::model::MeasurementRow;
use crate::results::read::run_data::RunData;
use crate::stats::spread::median_of_some;

/// From this many connections a configuration is shown (the study measures
/// memory at 1,000 and 10,000).
pub const MANY: u64 = 1000;

/// The template variable `connections` (docs/templates.md).
#[derive(Debug, Clone, Serialize, Default)]
pub struct ConnectionsView {
    pub configurations: Vec<ConnectionFigures>,
}

/// One configuration's figures: medians over its repeats (failed ones left out).
#[derive(Debug, Clone, Serialize)]
pub struct ConnectionFigures {
    pub config_id: String,
    pub runtime: String,
    pub connections: Option<f64>,
    pub service_idle_rss_bytes: Option<f64>,
    pub service_rss_max_bytes: Option<f64>,
    pub service_rss_per_connection_bytes: Option<f64>,
    pub gen_rss_bytes: Option<f64>,
    /// (gen_rss_bytes - gen_rss_before_bytes) / connections_opened.
    pub gen_rss_per_connection_bytes: Option<f64>,
    pub connect_rate_achieved: Option<f64>,
}

impl ConnectionsView {
    /// The report context `ctx` with this view as its `connections`.
    pub fn of(run: &RunData) -> Self {
        let mut configurations: Vec<(String, Vec<&MeasurementRow>)> = Vec::new();
        for m in run.measurements.iter().filter(|m| {
            m.status != CellStatus::Failed && m.connections_opened.is_some_and(|c| c >= MANY)
        }) {
            match configurations.iter_mut().find(|(id, _)| *id == m.config_id) {
                Some((_, rows)) => rows.push(m),
                None => configurations.push((m.config_id.clone(), vec![m])),
            }
        }
        ConnectionsView {
            configurations: configurations
                .into_iter()
                .map(|(config_id, rows)| figures(config_id, &rows))
                .collect(),
        }
    }
}

fn figures(config_id: String, rows: &[&MeasurementRow]) -> ConnectionFigures {
    let of = |f: &dyn Fn(&MeasurementRow) -> Option<f64>| median_of_some(rows.iter().map(|m| f(m)));
    ConnectionFigures {
        runtime: rows[0].runtime.clone(),
        config_id,
        connections: of(&|m| m.connections_opened.map(|c| c as f64)),
        service_idle_rss_bytes: of(&|m| m.service_idle_rss_bytes.map(|b| b as f64)),
        service_rss_max_bytes: of(&|m| m.service_rss_max_bytes.map(|b| b as f64)),
        service_rss_per_connection_bytes: of(&|m| m.service_rss_per_connection_bytes),
        gen_rss_bytes: of(&|m| m.gen_rss_bytes.map(|b| b as f64)),
        gen_rss_per_connection_bytes: of(&|m| {
            let opened = m.connections_opened.filter(|c| *c > 0)?;
            Some(m.gen_rss_bytes?.saturating_sub(m.gen_rss_before_bytes?) as f64 / opened as f64)
        }),
        connect_rate_achieved: of(&|m| m.connect_rate_achieved),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(config: &str, connections: u64, per_connection: f64) -> MeasurementRow {
        MeasurementRow {
            config_id: config.into(),
            runtime: "go".into(),
            connections_opened: Some(connections),
            service_rss_per_connection_bytes: Some(per_connection),
            gen_rss_before_bytes: Some(10 << 20),
            gen_rss_bytes: Some((10 << 20) + connections * 20_000),
            ..Default::default()
        }
    }

    #[test]
    fn only_configurations_with_many_connections_are_shown_as_medians() {
        let rows = [
            row("go/c=100", 100, 9.0),
            row("go/c=10000", 10_000, 20_000.0),
            row("go/c=10000", 10_000, 22_000.0),
            row("go/c=10000", 10_000, 30_000.0),
        ];
        let refs: Vec<&MeasurementRow> = rows[1..].iter().collect();
        let f = figures("go/c=10000".into(), &refs);
        assert_eq!(f.service_rss_per_connection_bytes, Some(22_000.0));
        assert_eq!(f.gen_rss_per_connection_bytes, Some(20_000.0));
        assert_eq!(f.connections, Some(10_000.0));
    }
}
