//! A cell's warmup: a fixed duration, a request count (`{ requests: N }`,
//! at the cell's load shape), or `auto` — load until the throughput of
//! consecutive windows stops trending ([`warmup_state`]), within the
//! warmup's `max`. Either way the length used is returned, for the cell's
//! row (`warmup_s`, `warmup_end`). A cell warmup also checks a sample of
//! its answers against the requests' `expect` (see
//! [`crate::load::http::capture`]): the first wrong one ends it and fails
//! the cell, its reason showing that answer.
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::exec::handle::{ServiceHandle, died_row};
use crate::exec::measure::context::{CellContext, CellEnd, guarded_run};
use crate::exec::measure::load_config::{checked, warmup_config, warmup_requests_config};
use crate::exec::measure::row::base_row;
use crate::exec::rules::verdict::one_line;
use crate::exec::rules::warmup_rule::{WarmupState, warmup_state};
use crate::load::http::expect::WrongAnswer;
use crate::load::{LoadConfig, LoadControl, LoadError, LoadReport};
use crate::plan::{AutoWarmup, Cell, CellWarmup};
use crate::results::{CellStatus, WarmupEnd};
use crate::service::Service;

/// How a cell's warmup went.
#[derive(Debug, Clone, PartialEq)]
pub enum Warmup {
    /// Done (or there was none): how long it ran and why it ended.
    Done { seconds: f64, end: WarmupEnd },
    /// The service died (or its process tree vanished) during it.
    ServiceDied,
    /// The runner was interrupted during it.
    Interrupted,
    /// A sampled answer failed its request's `expect` (the first one).
    WrongAnswer(Box<WrongAnswer>),
}

/// What one warmup load run left.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WarmupRun {
    /// The service died meanwhile.
    pub died: bool,
    /// The first sampled answer that failed its checks.
    pub wrong_answer: Option<WrongAnswer>,
}

impl WarmupRun {
    /// The run of `result`, whose service died meanwhile or not.
    pub fn of(result: Result<LoadReport, LoadError>, died: bool) -> Self {
        WarmupRun {
            died,
            wrong_answer: result.ok().and_then(|r| r.wrong_answer),
        }
    }
}

/// How often the auto warmup's monitor looks at the interrupt flag and the
/// service between window ends.
const POLL: Duration = Duration::from_millis(50);

/// What a warmup needs of a service, wherever it runs: a load run watched
/// for its death, and a cheap probe of it for the automatic warmup's
/// monitor. Here: this host's /proc; on a service host: a call on its
/// session, asked at most every `ALIVE_EVERY`.
pub trait WarmupTarget: ServiceHandle {
    /// One load run of `config` against the service: whether it died
    /// meanwhile, and the first wrong answer if `config` checks answers.
    fn warmup_run(&mut self, ctx: &CellContext, config: &LoadConfig) -> WarmupRun;
    /// One load run of `config` against the service; whether it died meanwhile.
    fn guarded_warmup(&mut self, ctx: &CellContext, config: &LoadConfig) -> bool {
        self.warmup_run(ctx, config).died
    }
    /// The automatic warmup of `cell` (see [`auto`]); how it ended and
    /// what its load run left.
    fn auto_warmup(
        &mut self,
        ctx: &CellContext,
        cell: &Cell,
        rule: AutoWarmup,
        load_cpus: Option<Vec<usize>>,
    ) -> (WarmupEnd, WarmupRun);
}

impl WarmupTarget for Service {
    fn warmup_run(&mut self, ctx: &CellContext, config: &LoadConfig) -> WarmupRun {
        let (result, died) = guarded_run(ctx, self, config, None);
        WarmupRun::of(result, died)
    }

    fn auto_warmup(
        &mut self,
        ctx: &CellContext,
        cell: &Cell,
        rule: AutoWarmup,
        load_cpus: Option<Vec<usize>>,
    ) -> (WarmupEnd, WarmupRun) {
        let sid = self.sid();
        let dead = || !crate::sample::procfs::leader_live(sid);
        auto(ctx, self.addr(), cell, rule, load_cpus, &dead)
    }
}

/// Runs `cell`'s warmup against `service`, here or on a service host.
pub fn warm_up(
    ctx: &CellContext,
    service: &mut impl WarmupTarget,
    cell: &Cell,
    load_cpus: Option<Vec<usize>>,
) -> Warmup {
    let started = Instant::now();
    let (end, run) = match cell.warmup {
        CellWarmup::Fixed { duration } if duration.is_zero() => {
            return Warmup::Done {
                seconds: 0.0,
                end: WarmupEnd::None,
            };
        }
        CellWarmup::Fixed { duration } => {
            let config = checked(
                cell,
                warmup_config(
                    cell,
                    &crate::exec::measure::load_config::Aim::of(ctx, service.addr()),
                    load_cpus,
                    duration,
                ),
            );
            (WarmupEnd::Fixed, service.warmup_run(ctx, &config))
        }
        CellWarmup::Requests { count } => {
            let config = warmup_requests_config(
                cell,
                &crate::exec::measure::load_config::Aim::of(ctx, service.addr()),
                load_cpus,
                count,
            );
            (
                WarmupEnd::Requests,
                service.warmup_run(ctx, &checked(cell, config)),
            )
        }
        CellWarmup::Auto(rule) => service.auto_warmup(ctx, cell, rule, load_cpus),
    };
    if ctx.interrupt.is_set() {
        return Warmup::Interrupted;
    }
    if run.died || !service.is_alive() {
        return Warmup::ServiceDied;
    }
    if let Some(wrong) = run.wrong_answer {
        return Warmup::WrongAnswer(Box::new(wrong));
    }
    Warmup::Done {
        seconds: started.elapsed().as_secs_f64(),
        end,
    }
}

/// [`warm_up`] as a cell needs it: the warmup's seconds and end, or how the
/// cell ended instead (interrupted, or the service's failed row).
pub fn warm_up_cell(
    ctx: &CellContext,
    service: &mut impl WarmupTarget,
    cell: &Cell,
    load_cpus: Option<Vec<usize>>,
    started_at: &str,
) -> Result<(f64, WarmupEnd), CellEnd> {
    match warm_up(ctx, service, cell, load_cpus) {
        Warmup::Done { seconds, end } => Ok((seconds, end)),
        Warmup::Interrupted => Err(CellEnd::Interrupted),
        Warmup::ServiceDied => Err(CellEnd::ServiceDied(Box::new(died_row(
            service,
            base_row(cell, started_at),
            "warmup",
        )))),
        Warmup::WrongAnswer(wrong) => {
            let mut row = base_row(cell, started_at);
            row.status = CellStatus::Failed;
            row.reason = wrong_answer_reason(&wrong);
            Err(CellEnd::Recorded(Box::new(row)))
        }
    }
}

/// A failed cell's reason for the warmup's first wrong answer: the answer,
/// then what to do.
pub fn wrong_answer_reason(wrong: &WrongAnswer) -> String {
    one_line(&format!(
        "wrong answer in the warmup: {wrong}; the service must answer this request in full \
         (send it by hand, e.g. with curl, and compare), or the request's `expect` must say \
         what a correct answer is"
    ))
}

/// The auto warmup against the service at `addr` (here or on a service
/// host): one load run of up to `rule.max`, a monitor counting successful
/// answers per window and cancelling the run once the rule says stable or
/// `dead()` says the service is gone (asked every 50 ms: make it cheap).
/// Returns how it ended and what its load run left.
pub fn auto(
    ctx: &CellContext,
    addr: SocketAddr,
    cell: &Cell,
    rule: AutoWarmup,
    load_cpus: Option<Vec<usize>>,
    dead: &(dyn Fn() -> bool + Sync),
) -> (WarmupEnd, WarmupRun) {
    let config = checked(
        cell,
        warmup_config(
            cell,
            &crate::exec::measure::load_config::Aim::of(ctx, addr),
            load_cpus,
            rule.max,
        ),
    );
    let control = LoadControl::new();
    let done = AtomicBool::new(false);
    let died = AtomicBool::new(false);
    let stable = AtomicBool::new(false);
    let window = rule.window.max(Duration::from_millis(1));
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            let t0 = Instant::now();
            let mut rates = Vec::new();
            let mut last_count = 0u64;
            let mut next_end = t0 + window;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(POLL.min(next_end.saturating_duration_since(Instant::now())));
                if ctx.interrupt.is_set() {
                    control.cancel();
                }
                if dead() {
                    died.store(true, Ordering::Relaxed);
                    control.cancel();
                }
                if Instant::now() < next_end {
                    continue;
                }
                let count = control.completed();
                rates.push((count - last_count) as f64 / window.as_secs_f64());
                last_count = count;
                next_end += window;
                let state = warmup_state(&rates, rule.windows as usize, rule.flat_within);
                if state == WarmupState::Stable {
                    stable.store(true, Ordering::Relaxed);
                    control.cancel();
                }
            }
        });
        let result = crate::exec::measure::remote_load::run(ctx.plan, &config, &control);
        crate::exec::measure::remote_load::stop_if_host_lost(ctx.interrupt, &result);
        done.store(true, Ordering::Relaxed);
        result
    });
    let end = if stable.load(Ordering::Relaxed) {
        WarmupEnd::Stable
    } else {
        WarmupEnd::Max
    };
    (end, WarmupRun::of(result, died.load(Ordering::Relaxed)))
}
