//! A dependency's readings over a measured window: its process tree and
//! cgroup sampled with [`crate::sample`] apart from the service, and its
//! own `stats` (zeroed at the window's start, read right after its end).
use std::time::{Duration, Instant};

use super::Dependencies;
use crate::plan::DependencyPlan;
use crate::sample::{Sampler, SamplerOutput};

/// A cell's window: the dependencies its runtime needs, sampled.
pub struct Window {
    watched: Vec<Watched>,
}

struct Watched {
    name: String,
    /// Where its `stats` answer, if it has them.
    stats: Option<(std::net::SocketAddr, String)>,
    sampler: Option<Sampler>,
    samples: Option<SamplerOutput>,
}

/// One dependency's readings of a closed window: its samples and its
/// `stats` answer read right after it (where it runs: a service host over
/// SSH sends these back).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DependencyReading {
    pub name: String,
    pub samples: SamplerOutput,
    /// The `stats` path and what `GET` on it answered (body, or why not).
    pub stats: Option<(String, Result<String, String>)>,
}

impl Window {
    /// The closed window's readings, each dependency's stats read now.
    pub fn readings(self) -> Vec<DependencyReading> {
        (self.watched.into_iter())
            .filter_map(|w| {
                let samples = w.samples?;
                let stats = (w.stats).map(|(addr, path)| {
                    let answer = super::stats::fetch(addr, &path);
                    (path, answer)
                });
                Some(DependencyReading {
                    name: w.name,
                    samples,
                    stats,
                })
            })
            .collect()
    }
}

/// How long a stats reset may take.
const STATS_TIMEOUT: Duration = Duration::from_secs(2);

impl Dependencies {
    /// At the start of a measured window: zeroes the `stats` of each of
    /// `deps` that is up, then starts sampling it every `interval`.
    pub fn open_window_of<'p>(
        &mut self,
        deps: impl IntoIterator<Item = &'p DependencyPlan>,
        interval: Duration,
    ) -> Window {
        let mut watched = Vec::new();
        for dep in deps {
            let Some(up) = self.up.get(&dep.name) else {
                continue;
            };
            if let Some(stats) = &dep.stats {
                let reset = format!("{stats}/reset");
                let _ = crate::service::http_status(
                    up.service.addr(),
                    "POST",
                    &reset,
                    &[],
                    None,
                    (STATS_TIMEOUT, false),
                );
            }
            let sampler = Sampler::start_with_cgroup(
                up.service.sid(),
                up.service.cgroup().map(|c| c.usage_files()),
                interval,
                Instant::now(),
                Box::new(|| {}),
            );
            watched.push(Watched {
                name: dep.name.clone(),
                stats: dep.stats.clone().map(|path| (up.service.addr(), path)),
                sampler: Some(sampler),
                samples: None,
            });
        }
        Window { watched }
    }

    /// At the end of the window: the samplers stopped.
    pub fn close_window(&mut self, window: &mut Window) {
        for w in &mut window.watched {
            w.samples = w.sampler.take().map(Sampler::finish);
        }
    }
}
