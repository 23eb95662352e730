//! After a Java cell's measured window: its JVM's Native Memory Tracking
//! (when the JVM was started with `-XX:NativeMemoryTracking=summary` or
//! `detail`) read with the cell's own JDK's `jcmd` and appended to nmt.csv
//! beside the window's largest RSS. A jcmd that fails is a `failed` row
//! saying why; the cell is not touched.
use crate::exec::measure::context::CellContext;
use crate::plan::{Cell, RuntimePlan};
use crate::profile::nmt::{NmtSummary, enabled_in, read};
use crate::results::{CsvAppender, MeasurementRow, NMT_FILE, NmtRow, NmtStatus, ResultsError};
use crate::service::Service;

/// The categories with columns of their own in nmt.csv (the rest is `other`).
const NAMED: [&str; 10] = [
    "Java Heap",
    "Class",
    "Metaspace",
    "Thread",
    "Code",
    "GC",
    "Compiler",
    "Internal",
    "Symbol",
    "Shared class space",
];

/// Whether `rt` (as its cell starts it) runs a JVM that tracks native
/// memory: the flag in its `jvm_flags`, its start command or the JVM option
/// variables the `java` launcher reads.
pub fn wanted(rt: &RuntimePlan) -> bool {
    if rt.java.is_none() {
        return false;
    }
    let mut text = rt.jvm_flags.join(" ");
    text.push(' ');
    text.push_str(&rt.start);
    for var in ["JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS"] {
        if let Some(v) = rt.env.get(var) {
            text.push(' ');
            text.push_str(v);
        }
    }
    enabled_in(&text)
}

/// Reads and records the NMT summary of `cell`'s JVM, when it tracks it.
pub fn record(
    ctx: &CellContext,
    service: &Service,
    cell: &Cell,
    measured: &MeasurementRow,
) -> Result<(), ResultsError> {
    let Some(rt) = ctx.plan.runtimes.iter().find(|r| r.name == cell.runtime) else {
        return Ok(());
    };
    let rt = rt.for_cell(cell);
    if !wanted(&rt) {
        return Ok(());
    }
    let home = rt.java.as_ref().and_then(|j| j.home.as_deref());
    let jcmd = crate::profile::jvm::jcmd_program(home);
    let mut row = NmtRow {
        cell_id: cell.id.clone(),
        config_id: cell.config_id.clone(),
        runtime: cell.runtime.clone(),
        repeat: cell.repeat,
        service_rss_max_bytes: measured.service_rss_max_bytes,
        ..NmtRow::default()
    };
    match read(&jcmd, &rt.name, service.sid()) {
        Ok(summary) => fill(&mut row, &summary),
        Err(e) => {
            row.status = NmtStatus::Failed;
            row.reason = crate::exec::rules::verdict::one_line(&e.to_string());
        }
    }
    CsvAppender::open(&ctx.run.file(NMT_FILE))?.append(&row)
}

/// `row` with the figures of `summary`.
pub fn fill(row: &mut NmtRow, summary: &NmtSummary) {
    let c = |name: &str| Some(summary.committed(name));
    row.status = NmtStatus::Ok;
    row.reserved_bytes = Some(summary.reserved_bytes);
    row.committed_bytes = Some(summary.committed_bytes);
    row.java_heap_committed_bytes = c("Java Heap");
    row.class_committed_bytes = c("Class");
    row.metaspace_committed_bytes = c("Metaspace");
    row.thread_committed_bytes = c("Thread");
    row.code_committed_bytes = c("Code");
    row.gc_committed_bytes = c("GC");
    row.compiler_committed_bytes = c("Compiler");
    row.internal_committed_bytes = c("Internal");
    row.symbol_committed_bytes = c("Symbol");
    row.shared_class_space_committed_bytes = c("Shared class space");
    row.other_committed_bytes = Some(
        summary
            .categories
            .iter()
            .filter(|c| !NAMED.contains(&c.name.as_str()))
            .map(|c| c.committed_bytes)
            .sum(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::nmt::parse;

    #[test]
    fn the_named_columns_and_other_add_up_to_the_categories() {
        let summary = parse(include_str!(
            "../../../tests/fixtures/nmt/jdk25-summary.txt"
        ))
        .unwrap();
        let mut row = NmtRow::default();
        fill(&mut row, &summary);
        let columns = [
            row.java_heap_committed_bytes,
            row.class_committed_bytes,
            row.metaspace_committed_bytes,
            row.thread_committed_bytes,
            row.code_committed_bytes,
            row.gc_committed_bytes,
            row.compiler_committed_bytes,
            row.internal_committed_bytes,
            row.symbol_committed_bytes,
            row.shared_class_space_committed_bytes,
            row.other_committed_bytes,
        ];
        let sum: u64 = columns.iter().map(|c| c.unwrap()).sum();
        let categories: u64 = summary.categories.iter().map(|c| c.committed_bytes).sum();
        assert_eq!(sum, categories);
        assert_eq!(row.java_heap_committed_bytes, Some(393_216 * 1024));
        assert_eq!(row.status, NmtStatus::Ok);
    }
}
