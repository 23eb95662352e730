//! One plain line per event: what cron and CI logs get, and the lines a
//! terminal's live line prints above itself.
use std::io::Write;
use std::sync::mpsc::Receiver;

use crate::exec::events::Event;
use crate::results::RepeatsStop;

/// One line per event, for logs.
pub fn plain_loop(rx: Receiver<Event>, out: &mut dyn Write) {
    for event in rx {
        if let Some(line) = plain_line(&event) {
            let _ = writeln!(out, "{line}");
        }
    }
}

/// The plain-text line of an event (`None`: not worth a line, e.g. live progress).
pub fn plain_line(event: &Event) -> Option<String> {
    Some(match event {
        Event::RunStarted {
            run_dir,
            cells_total,
            cells_least,
            cells_done,
            quick_factor,
            repeats_cap,
            ..
        } => {
            let smoke: Vec<String> = quick_factor
                .map(|f| format!("quick: durations / {f}"))
                .into_iter()
                .chain(repeats_cap.map(|n| format!("repeats: at most {n}")))
                .collect();
            let quick = if smoke.is_empty() {
                String::new()
            } else {
                format!(" ({})", smoke.join(", "))
            };
            let resumed = if *cells_done > 0 {
                format!(", {cells_done} already recorded")
            } else {
                String::new()
            };
            let cells = match cells_least {
                Some(least) if least < cells_total => {
                    format!("{least} to {cells_total} cells (adaptive)")
                }
                _ => format!("{cells_total} cells"),
            };
            format!("run {}: {cells}{resumed}{quick}", run_dir.display())
        }
        Event::BuildStarted { runtime } => format!("build {runtime} ..."),
        Event::BuildFinished {
            runtime,
            cached: true,
            ..
        } => format!("build {runtime}: unchanged, skipped"),
        Event::BuildFinished {
            runtime, seconds, ..
        } => {
            format!("build {runtime}: done in {seconds:.1}s")
        }
        Event::TrainStarted { runtime } => format!("train {runtime} ..."),
        Event::TrainFinished { runtime, seconds } => {
            format!("train {runtime}: done in {seconds:.1}s")
        }
        Event::ServiceStarted {
            runtime,
            startup_ms,
        } => {
            format!("start {runtime}: healthy after {startup_ms:.0} ms")
        }
        Event::ColdStart {
            runtime,
            index,
            of,
            healthy_ms,
        } => match healthy_ms {
            Some(ms) => format!("cold start {runtime} {index}/{of}: healthy after {ms:.1} ms"),
            None => format!("cold start {runtime} {index}/{of}: failed (see lifecycle.csv)"),
        },
        Event::RuntimeSkipped { runtime, reason } => format!("SKIP {runtime}: {reason}"),
        Event::Dependency {
            name,
            step,
            seconds,
            problem,
        } => match problem {
            None => format!("dependency {name} {} in {seconds:.1} s", step.as_str()),
            Some(p) => format!("dependency {name} {}: {p}", step.as_str()),
        },
        Event::MemoryPhase {
            runtime,
            index,
            of,
            idle_bytes,
            after_bytes,
            failed,
        } => {
            let mib = |b: &Option<u64>| {
                b.map_or("-".to_string(), |b| {
                    format!("{:.1} MiB", b as f64 / 1048576.0)
                })
            };
            match failed {
                Some(why) => format!("memory {runtime} {index}/{of}: failed: {why}"),
                None => format!(
                    "memory {runtime} {index}/{of}: idle {}, after load {} (RSS)",
                    mib(idle_bytes),
                    mib(after_bytes)
                ),
            }
        }
        Event::CellStarted { .. } | Event::CellProgress { .. } => return None,
        Event::CellFinished {
            cell_id,
            status,
            throughput_rps,
            p99_ms,
            reason,
        } => {
            let why = if reason.is_empty() {
                String::new()
            } else {
                format!(" ({reason})")
            };
            format!("cell {cell_id}: {status}, {throughput_rps:.0} req/s, p99 {p99_ms:.2} ms{why}")
        }
        Event::RepeatsStopped {
            config_id,
            stop,
            repeats,
            half_width,
            ..
        } => {
            let width = half_width.map_or("no interval".to_string(), |h| {
                format!("95% interval +-{:.1}%", h * 100.0)
            });
            let why = match stop {
                RepeatsStop::Target => "target reached",
                RepeatsStop::Max => "max reached",
                RepeatsStop::Decided => "its runtime's findings are settled",
                other => other.as_str(),
            };
            format!("repeats {config_id}: {why} after {repeats} ({width})")
        }
        Event::RunFinished {
            state,
            run_dir,
            message,
        } => {
            let msg = message
                .as_deref()
                .map_or(String::new(), |m| format!(": {m}"));
            format!("run {state}{msg}\nresults: {}", run_dir.display())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CellStatus, RunState};
    use std::sync::mpsc::channel;

    #[test]
    fn the_first_line_says_what_the_smoke_options_cut() {
        let started = |quick_factor, repeats_cap| Event::RunStarted {
            run_dir: "results/x/1".into(),
            cells_total: 24,
            cells_least: None,
            cells_done: 0,
            quick_factor,
            repeats_cap,
            estimated: std::time::Duration::from_secs(81),
        };
        let line = |e| plain_line(&e).unwrap();
        assert_eq!(line(started(None, None)), "run results/x/1: 24 cells");
        assert_eq!(
            line(started(Some(10), Some(1))),
            "run results/x/1: 24 cells (quick: durations / 10, repeats: at most 1)"
        );
        assert_eq!(
            line(started(None, Some(2))),
            "run results/x/1: 24 cells (repeats: at most 2)"
        );
    }

    #[test]
    fn plain_lines_for_cron_logs() {
        let (tx, rx) = channel();
        tx.send(Event::BuildFinished {
            runtime: "go".into(),
            cached: true,
            seconds: 0.0,
        })
        .unwrap();
        tx.send(Event::CellProgress {
            completed: 5,
            rps: 5.0,
        })
        .unwrap();
        tx.send(Event::CellFinished {
            cell_id: "go/payload=7/r1".into(),
            status: CellStatus::Suspect,
            throughput_rps: 1234.4,
            p99_ms: 1.234,
            reason: "generator saturated".into(),
        })
        .unwrap();
        tx.send(Event::RunFinished {
            state: RunState::Interrupted,
            run_dir: "results/x/1".into(),
            message: Some("interrupted by SIGINT".into()),
        })
        .unwrap();
        drop(tx);
        let mut out = Vec::new();
        plain_loop(rx, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "build go: unchanged, skipped\n\
             cell go/payload=7/r1: suspect, 1234 req/s, p99 1.23 ms (generator saturated)\n\
             run interrupted: interrupted by SIGINT\nresults: results/x/1\n"
        );
    }
}
