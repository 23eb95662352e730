//! GC pauses of a measured window, whatever their source (JVM GC log, Go
//! runtime statistics), and whether the window's tail coincides with them.

/// One stop-the-world pause: when it ended (Unix ms) and how long it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pause {
    pub end_unix_ms: f64,
    pub millis: f64,
}

/// The pauses of one window, summarised for measurements.csv.
#[derive(Debug, Clone, PartialEq)]
pub struct PauseFacts {
    pub count: u64,
    pub total_ms: f64,
    pub max_ms: f64,
    /// Nearest-rank p99 of the pause durations (0 without pauses).
    pub p99_ms: f64,
    /// Of the window's slowest seconds (per-second p99 among the top
    /// tenth, at least one second), the share that held (part of) a pause.
    pub slow_seconds_paused: Option<f64>,
    /// Of all the window's seconds, the share that held (part of) a pause.
    pub seconds_paused: Option<f64>,
}

/// The pauses overlapping `[start_unix_ms, end_unix_ms]`, summarised;
/// `second_p99_ms[i]` is the p99 of second `i` of the window (its timeline).
/// `count` may exceed the pauses given (Go keeps the last 256): it is then
/// passed as `counted`, and the other figures are over the pauses given.
pub fn summarise(
    pauses: &[Pause],
    start_unix_ms: f64,
    end_unix_ms: f64,
    second_p99_ms: &[f64],
    counted: Option<u64>,
) -> PauseFacts {
    let inside: Vec<Pause> = pauses
        .iter()
        .copied()
        .filter(|p| p.end_unix_ms >= start_unix_ms && p.end_unix_ms - p.millis <= end_unix_ms)
        .collect();
    let mut durations: Vec<f64> = inside.iter().map(|p| p.millis).collect();
    durations.sort_by(f64::total_cmp);
    let p99_ms = match durations.len() {
        0 => 0.0,
        n => durations[((n as f64 * 0.99).ceil() as usize).clamp(1, n) - 1],
    };
    let paused: Vec<bool> = (0..second_p99_ms.len())
        .map(|s| {
            let (lo, hi) = (
                start_unix_ms + s as f64 * 1000.0,
                start_unix_ms + (s + 1) as f64 * 1000.0,
            );
            inside
                .iter()
                .any(|p| p.end_unix_ms >= lo && p.end_unix_ms - p.millis < hi)
        })
        .collect();
    let share = |seconds: &[usize]| {
        (!seconds.is_empty())
            .then(|| seconds.iter().filter(|&&s| paused[s]).count() as f64 / seconds.len() as f64)
    };
    let all: Vec<usize> = (0..second_p99_ms.len()).collect();
    PauseFacts {
        count: counted.unwrap_or(inside.len() as u64),
        total_ms: durations.iter().fold(0.0, |a, b| a + b), // not `sum`: -0.0 when empty
        max_ms: durations.last().copied().unwrap_or(0.0),
        p99_ms,
        slow_seconds_paused: share(&slowest_tenth(second_p99_ms)),
        seconds_paused: share(&all),
    }
}

/// Indices of the seconds whose p99 is among the slowest tenth (at least one).
fn slowest_tenth(second_p99_ms: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..second_p99_ms.len()).collect();
    order.sort_by(|&a, &b| second_p99_ms[b].total_cmp(&second_p99_ms[a]));
    let keep = second_p99_ms.len().div_ceil(10);
    order.truncate(keep);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(end: f64, ms: f64) -> Pause {
        Pause {
            end_unix_ms: end,
            millis: ms,
        }
    }

    #[test]
    fn only_pauses_overlapping_the_window_count() {
        let pauses = [
            pause(900.0, 5.0),
            pause(1500.0, 2.0),
            pause(2500.0, 8.0),
            pause(4100.0, 50.0),
        ];
        let f = summarise(&pauses, 1000.0, 4000.0, &[1.0, 1.0, 1.0], None);
        assert_eq!(f.count, 2);
        assert_eq!(f.total_ms, 10.0);
        assert_eq!(f.max_ms, 8.0);
        assert_eq!(f.p99_ms, 8.0);
    }

    #[test]
    fn the_slow_second_is_the_paused_one() {
        // 20 seconds; second 7 is the slowest and holds the only pause.
        let mut p99 = vec![2.0; 20];
        p99[7] = 40.0;
        p99[3] = 30.0;
        let f = summarise(&[pause(7600.0, 30.0)], 0.0, 20_000.0, &p99, None);
        assert_eq!(f.slow_seconds_paused, Some(0.5)); // slowest two: 7 (paused), 3 (not)
        assert_eq!(f.seconds_paused, Some(1.0 / 20.0));
    }

    #[test]
    fn a_pause_spanning_a_second_boundary_marks_both() {
        let f = summarise(&[pause(2010.0, 30.0)], 0.0, 3000.0, &[1.0, 1.0, 1.0], None);
        assert_eq!(f.seconds_paused, Some(2.0 / 3.0));
    }

    #[test]
    fn a_count_beyond_the_pauses_given_is_kept() {
        let f = summarise(&[pause(10.0, 1.0)], 0.0, 100.0, &[], Some(300));
        assert_eq!(f.count, 300);
        let none = summarise(&[], 0.0, 100.0, &[], None);
        assert!(
            none.total_ms == 0.0 && none.total_ms.is_sign_positive(),
            "no `-0.000 ms`"
        );
        assert_eq!(f.seconds_paused, None);
    }
}
