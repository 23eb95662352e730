//! The live line on a terminal: cells done of the planned total and the
//! share, the current cell with its live req/s, and the time left from the
//! plan's estimate corrected by the pace so far ([`Pace`]). Every plain
//! line (builds, starts, each cell's result) is printed above it, so the
//! scrollback reads like a log.
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::exec::events::Event;
use crate::exec::progress::plain::plain_line;
use crate::exec::progress::time_left::Pace;
use crate::plan::analysis::estimate::human;

/// How often the line is redrawn without an event (the time left counts down).
const REDRAW: Duration = Duration::from_millis(200);

/// What the line shows besides indicatif's position.
#[derive(Default)]
struct Line {
    pace: Option<Pace>,
    /// The current cell and when it began; the first cell's start.
    current: Option<(String, Instant)>,
    first_cell: Option<Instant>,
    rps: Option<f64>,
}

impl Line {
    fn message(&self, bar: &ProgressBar) -> String {
        let Some((cell, began)) = &self.current else {
            return String::new();
        };
        let rps = self
            .rps
            .map_or(String::new(), |r| format!(" | {r:.0} req/s"));
        let cells_left = bar.length().unwrap_or(0).saturating_sub(bar.position());
        let left = self
            .pace
            .as_ref()
            .and_then(|p| p.left(cells_left, began.elapsed()))
            .map_or(String::new(), |d| {
                format!(" | about {} left", human(Duration::from_secs(d.as_secs())))
            });
        format!("{cell}{rps}{left}")
    }

    fn update(&mut self, event: &Event, bar: &ProgressBar) {
        match event {
            Event::RunStarted {
                cells_total,
                cells_done,
                estimated,
                ..
            } => {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.set_style(style());
                bar.set_length(*cells_total);
                bar.set_position(*cells_done);
                self.pace = Some(Pace::new(*estimated, *cells_total));
            }
            Event::CellStarted { cell_id, .. } => {
                let now = Instant::now();
                self.first_cell.get_or_insert(now);
                self.current = Some((cell_id.clone(), now));
                self.rps = None;
            }
            Event::CellProgress { rps, .. } => self.rps = Some(*rps),
            Event::CellFinished { .. } => {
                bar.inc(1);
                if let (Some(pace), Some(first)) = (self.pace.as_mut(), self.first_cell) {
                    pace.cell_finished(first.elapsed());
                }
            }
            Event::RepeatsStopped { dropped, .. } => {
                bar.set_length(bar.length().unwrap_or(0).saturating_sub(*dropped))
            }
            _ => {}
        }
    }
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:24} {pos}/{len} cells ({percent}%) {wide_msg}",
    )
    .expect("a valid progress template")
}

/// Draws only from this thread (no indicatif ticker thread: the CLI's main
/// thread holds the stderr lock, which a ticker thread would wait on forever).
pub fn live_loop(rx: Receiver<Event>) {
    let bar = ProgressBar::hidden();
    let mut line = Line::default();
    loop {
        let event = match rx.recv_timeout(REDRAW) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                bar.set_message(line.message(&bar));
                bar.tick();
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        line.update(&event, &bar);
        bar.set_message(line.message(&bar));
        if let Some(text) = plain_line(&event) {
            bar.println(text);
        }
        if matches!(event, Event::RunFinished { .. }) {
            bar.finish_and_clear();
        }
    }
    bar.finish_and_clear();
}
