//! The live line's "time left": the plan's estimate, corrected by how the
//! cells measured so far kept to it.
//!
//! indicatif's own ETA extrapolates the rate of its position, which here
//! is wrong twice over: builds and training come before the first cell (so
//! the early rate is far too slow), and a service start sits between some
//! cells and not others. The plan already knows what a cell costs (its
//! warmup, its window, its share of the service starts: `runner plan`'s
//! estimate); what it cannot know is the host's overheads. So the time left
//! is the plan's time for the cells still to run, scaled by the pace seen
//! so far (measured time over planned time of the finished cells), the
//! pace trusted more as more cells finish.
use std::time::Duration;

/// How many finished cells weigh as much as the plan: after this many the
/// observed pace counts half, after three times as many three quarters.
const TRUST_AFTER_CELLS: f64 = 2.0;

/// What the time left is computed from; everything is measured from this
/// process's first cell (a resumed run's earlier cells are not its pace).
#[derive(Debug, Clone, PartialEq)]
pub struct Pace {
    /// The plan's time per cell: its whole estimate over its cells (starts
    /// and cold starts spread over the cells they serve).
    planned_per_cell: Duration,
    /// Cells finished in this process, and the time from the first cell's
    /// start to the last one's end.
    finished: u64,
    spent: Duration,
}

impl Pace {
    /// A run the plan estimated at `estimated` for `cells` cells.
    pub fn new(estimated: Duration, cells: u64) -> Pace {
        Pace {
            planned_per_cell: estimated
                .checked_div(cells.max(1) as u32)
                .unwrap_or_default(),
            finished: 0,
            spent: Duration::ZERO,
        }
    }

    /// A cell ended, `since_first_cell` after the first cell of this process began.
    pub fn cell_finished(&mut self, since_first_cell: Duration) {
        self.finished += 1;
        self.spent = since_first_cell;
    }

    /// How much the host has run slower (> 1) or faster (< 1) than planned,
    /// weighted toward 1 while few cells have finished.
    fn factor(&self) -> f64 {
        if self.finished == 0 {
            return 1.0;
        }
        let planned = self.planned_per_cell.as_secs_f64() * self.finished as f64;
        if planned <= 0.0 {
            return 1.0;
        }
        let observed = self.spent.as_secs_f64() / planned;
        let trust = self.finished as f64 / (self.finished as f64 + TRUST_AFTER_CELLS);
        1.0 + trust * (observed - 1.0)
    }

    /// The time left with `cells_left` cells to run (the current one
    /// included) and `into_current` spent on the current one. `None` when
    /// nothing says: a plan whose cells have no duration (by request
    /// count) before any has finished.
    pub fn left(&self, cells_left: u64, into_current: Duration) -> Option<Duration> {
        let per_cell = if self.planned_per_cell.is_zero() {
            // Cells measured by request count: only the pace says.
            if self.finished == 0 {
                return None;
            }
            self.spent.as_secs_f64() / self.finished as f64
        } else {
            self.planned_per_cell.as_secs_f64() * self.factor()
        };
        let left = per_cell * cells_left as f64 - into_current.as_secs_f64();
        Some(Duration::from_secs_f64(left.max(0.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn before_any_cell_the_plan_says() {
        let pace = Pace::new(S(120), 12);
        assert_eq!(pace.left(12, Duration::ZERO), Some(S(120)));
        assert_eq!(pace.left(12, S(4)), Some(S(116)));
    }

    #[test]
    fn a_slow_host_stretches_the_rest_more_as_cells_finish() {
        // Planned 10 s a cell; the host takes 20 s.
        let mut pace = Pace::new(S(100), 10);
        pace.cell_finished(S(20));
        // One cell: a third of the way to the observed pace of 2x.
        let one = pace.left(9, Duration::ZERO).unwrap().as_secs_f64();
        assert!((one - 9.0 * 10.0 * (1.0 + 1.0 / 3.0)).abs() < 1e-6, "{one}");
        for n in 2..=8 {
            pace.cell_finished(S(20 * n));
        }
        // Eight cells: 80% of the way.
        let eight = pace.left(2, Duration::ZERO).unwrap().as_secs_f64();
        assert!((eight - 2.0 * 10.0 * 1.8).abs() < 1e-6, "{eight}");
    }

    #[test]
    fn a_fast_host_shortens_it() {
        let mut pace = Pace::new(S(100), 10);
        for n in 1..=4 {
            pace.cell_finished(S(5 * n));
        }
        let left = pace.left(6, Duration::ZERO).unwrap();
        assert!(left < S(60), "{left:?}");
    }

    #[test]
    fn the_time_left_never_goes_negative() {
        let pace = Pace::new(S(10), 1);
        assert_eq!(pace.left(1, S(30)), Some(Duration::ZERO));
    }

    #[test]
    fn cells_without_a_duration_wait_for_the_pace() {
        let mut pace = Pace::new(Duration::ZERO, 4);
        assert_eq!(pace.left(4, Duration::ZERO), None);
        pace.cell_finished(S(3));
        assert_eq!(pace.left(3, Duration::ZERO), Some(S(9)));
    }
}
