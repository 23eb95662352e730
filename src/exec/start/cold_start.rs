//! Cold starts measured for their times alone (`startup.repeats`): each a
//! fresh process, started, timed to the port, to health and to the first
//! successful workload request, then stopped. One start gives no spread; a
//! few show whether the 12 ms against 78 ms of two runtimes is a difference
//! or noise.
use crate::exec::measure::context::CellContext;
use crate::exec::rules::verdict::one_line;
use crate::exec::start::lifecycle::{Unanswered, fresh_row, until_first_answer};
use crate::exec::start::site::{Spawn, StartSite};
use crate::plan::{Cell, RuntimePlan};
use crate::results::{LifecycleRow, Phase};

/// One cold start: its lifecycle row, and whether it completed (when not,
/// `exit_status` says what went wrong and no further cold start is tried).
#[derive(Debug, Clone)]
pub struct ColdStart {
    pub row: LifecycleRow,
    pub completed: bool,
}

impl ColdStart {
    fn done(row: LifecycleRow) -> ColdStart {
        ColdStart {
            row,
            completed: true,
        }
    }
    fn failed(row: LifecycleRow) -> ColdStart {
        ColdStart {
            row,
            completed: false,
        }
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
            }) => (service, Some(why)),
            Err(Unanswered { service: None, why }) => {
                row.exit_status = one_line(&why);
                return ColdStart::failed(row);
            }
        };
    match (site.stop(rt, service, &mut row), problem) {
        (None, None) => ColdStart::done(row),
        // The first request's problem is the row's exit status when the
        // stop itself went through.
        (None, Some(problem)) => {
            row.exit_status = one_line(&problem);
            ColdStart::failed(row)
        }
        (Some(_), _) => ColdStart::failed(row),
    }
}
