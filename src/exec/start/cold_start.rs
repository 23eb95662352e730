//! Cold starts measured for their times alone (`startup.repeats`): each a
//! fresh process, started, timed to the port, to health and to the first
//! successful workload request, then stopped. One start gives no spread; a
//! few show whether the 12 ms against 78 ms of two runtimes is a difference
//! or noise.
use crate::exec::measure::context::CellContext;
use crate::exec::rules::verdict::one_line;
use crate::exec::start::lifecycle::{Unanswered, fresh_row, until_first_answer};
use crate::exec::start::site::{Again, Spawn, StartSite};
use crate::plan::{Cell, RuntimePlan};
use crate::results::{LifecycleRow, Phase};

/// One cold start: its lifecycle row, and how it ended (when not completed,
/// `exit_status` says what went wrong and no further cold start is tried).
#[derive(Debug, Clone)]
pub struct ColdStart {
    pub row: LifecycleRow,
    pub end: ColdStartEnd,
}

/// How a cold start ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColdStartEnd {
    Completed,
    /// It failed; the measured start tries again, and says why or skips.
    Failed,
    /// It failed as every start would ([`Again::WouldFail`]: the service
    /// listens on another port): the runtime is skipped now, one health
    /// timeout earlier.
    FailedForGood,
}

impl ColdStart {
    fn done(row: LifecycleRow) -> ColdStart {
        ColdStart {
            row,
            end: ColdStartEnd::Completed,
        }
    }
    fn failed(row: LifecycleRow, again: Again) -> ColdStart {
        let end = match again {
            Again::MightWork => ColdStartEnd::Failed,
            Again::WouldFail => ColdStartEnd::FailedForGood,
        };
        ColdStart { row, end }
    }
}

/// One cold start of `rt` at `site` (the `index`-th, from 1), timed to the
/// port, to health and to the first successful workload request, then
/// stopped.
pub(crate) fn cold_start<S: StartSite>(
    site: &mut S,
    ctx: &CellContext,
    rt: &RuntimePlan,
    index: u32,
    first_cell: &Cell,
) -> ColdStart {
    let start = (Phase::Startup, index);
    let mut row = fresh_row(rt, start);
    let (service, problem) =
        match until_first_answer(site, ctx, rt, Spawn::Bare, start, first_cell, &mut row) {
            Ok(service) => (service, None),
            Err(Unanswered {
                service: Some(service),
                why,
                ..
            }) => (service, Some(why)),
            Err(Unanswered {
                service: None,
                why,
                again,
            }) => {
                row.exit_status = one_line(&why);
                return ColdStart::failed(row, again);
            }
        };
    match (site.stop(rt, service, &mut row), problem) {
        (None, None) => ColdStart::done(row),
        // The first request's problem is the row's exit status when the
        // stop itself went through.
        (None, Some(problem)) => {
            row.exit_status = one_line(&problem);
            ColdStart::failed(row, Again::MightWork)
        }
        (Some(_), _) => ColdStart::failed(row, Again::MightWork),
    }
}
