//! The report's view of nmt.csv: per configuration, the JVM's Native Memory
//! Tracking committed memory beside the service's RSS (medians over its
//! repeats), and the categories that make it up. NMT counts what the JVM
//! itself allocates; it does not count memory of native libraries that
//! allocate on their own (JNI code, glibc's malloc arenas beyond what the
//! JVM asked for), and "committed" is not "resident": committed pages the
//! JVM never touched are not in RSS, while RSS counts mapped files (the
//! JDK's libraries, the jar, the CDS archive) that NMT counts only in part.
use serde::Serialize;

use crate::results::read::run_data::RunData;
use crate::results::{NmtRow, NmtStatus};
use crate::stats::spread::median;

/// The memory section's NMT table, and the rows jcmd could not give.
#[derive(Debug, Default, Serialize)]
pub struct NmtView {
    pub configurations: Vec<NmtConfiguration>,
    /// `cell_id: why` of every failed read.
    pub failed: Vec<String>,
}

/// One configuration's medians, in bytes.
#[derive(Debug, Serialize)]
pub struct NmtConfiguration {
    pub config_id: String,
    pub runtime: String,
    /// Cells read.
    pub cells: usize,
    pub committed_bytes: Option<f64>,
    pub rss_max_bytes: Option<f64>,
    /// committed / RSS max.
    pub committed_share_of_rss: Option<f64>,
    pub java_heap_bytes: Option<f64>,
    /// Class and Metaspace together (JDKs split them differently).
    pub class_metaspace_bytes: Option<f64>,
    pub thread_bytes: Option<f64>,
    pub code_bytes: Option<f64>,
    pub gc_bytes: Option<f64>,
    /// Every other category.
    pub rest_bytes: Option<f64>,
}

impl NmtView {
    pub fn of(run: &RunData) -> NmtView {
        NmtView::of_rows(&run.nmt)
    }

    /// The view of nmt.csv's `rows`.
    pub fn of_rows(rows: &[NmtRow]) -> NmtView {
        let ok: Vec<&NmtRow> = rows.iter().filter(|r| r.status == NmtStatus::Ok).collect();
        let mut ids: Vec<&str> = Vec::new();
        for r in &ok {
            if !ids.contains(&r.config_id.as_str()) {
                ids.push(&r.config_id);
            }
        }
        let configurations = ids
            .into_iter()
            .map(|id| {
                let rows: Vec<&NmtRow> = ok.iter().copied().filter(|r| r.config_id == id).collect();
                configuration(id, &rows)
            })
            .collect();
        let failed = rows
            .iter()
            .filter(|r| r.status == NmtStatus::Failed)
            .map(|r| format!("{}: {}", r.cell_id, r.reason))
            .collect();
        NmtView {
            configurations,
            failed,
        }
    }
}

fn configuration(id: &str, rows: &[&NmtRow]) -> NmtConfiguration {
    let med = |f: &dyn Fn(&NmtRow) -> Option<u64>| {
        let values: Vec<f64> = rows.iter().filter_map(|r| f(r)).map(|v| v as f64).collect();
        median(&values)
    };
    let committed = med(&|r| r.committed_bytes);
    let rss = med(&|r| r.service_rss_max_bytes);
    let named = |r: &NmtRow| {
        total(&[
            r.java_heap_committed_bytes,
            r.class_committed_bytes,
            r.metaspace_committed_bytes,
            r.thread_committed_bytes,
            r.code_committed_bytes,
            r.gc_committed_bytes,
        ])
    };
    NmtConfiguration {
        config_id: id.to_owned(),
        runtime: rows.first().map(|r| r.runtime.clone()).unwrap_or_default(),
        cells: rows.len(),
        committed_bytes: committed,
        rss_max_bytes: rss,
        committed_share_of_rss: committed
            .zip(rss)
            .filter(|(_, r)| *r > 0.0)
            .map(|(c, r)| c / r),
        java_heap_bytes: med(&|r| r.java_heap_committed_bytes),
        class_metaspace_bytes: med(&|r| {
            total(&[r.class_committed_bytes, r.metaspace_committed_bytes])
        }),
        thread_bytes: med(&|r| r.thread_committed_bytes),
        code_bytes: med(&|r| r.code_committed_bytes),
        gc_bytes: med(&|r| r.gc_committed_bytes),
        rest_bytes: med(&|r| Some(r.committed_bytes?.saturating_sub(named(r)?))),
    }
}

/// The sum of `parts`; `None` when one is missing.
fn total(parts: &[Option<u64>]) -> Option<u64> {
    parts.iter().copied().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(config: &str, repeat: u32, committed: u64, rss: u64) -> NmtRow {
        NmtRow {
            cell_id: format!("{config}/r{repeat}"),
            config_id: config.into(),
            runtime: "helidon".into(),
            repeat,
            status: NmtStatus::Ok,
            committed_bytes: Some(committed),
            service_rss_max_bytes: Some(rss),
            java_heap_committed_bytes: Some(committed / 2),
            class_committed_bytes: Some(1),
            metaspace_committed_bytes: Some(2),
            thread_committed_bytes: Some(3),
            code_committed_bytes: Some(4),
            gc_committed_bytes: Some(5),
            ..NmtRow::default()
        }
    }

    #[test]
    fn medians_per_configuration_beside_rss_and_failures_listed() {
        let rows = vec![
            row("helidon/c=1", 1, 100, 200),
            row("helidon/c=1", 2, 300, 400),
            row("helidon/c=1", 3, 200, 1000),
            NmtRow {
                cell_id: "helidon/c=4/r1".into(),
                config_id: "helidon/c=4".into(),
                reason: "jcmd failed".into(),
                ..NmtRow::default()
            },
        ];
        let view = NmtView::of_rows(&rows);
        assert_eq!(view.configurations.len(), 1);
        let c = &view.configurations[0];
        assert_eq!(
            (c.cells, c.committed_bytes, c.rss_max_bytes),
            (3, Some(200.0), Some(400.0))
        );
        assert_eq!(c.committed_share_of_rss, Some(0.5));
        assert_eq!(c.class_metaspace_bytes, Some(3.0));
        assert_eq!(c.rest_bytes, Some(200.0 - 100.0 - 15.0));
        assert_eq!(view.failed, ["helidon/c=4/r1: jcmd failed"]);
    }
}
