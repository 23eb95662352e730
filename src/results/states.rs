//! Every state a run directory records, as enums. They are written in lower
//! case (`ok`, `skipped`, `graceful`, ...), so the files read exactly as when
//! these were strings; `as_str` and `Display` give the same text, for
//! progress lines and messages.
use serde::{Deserialize, Serialize};

/// Defines a state enum: serde writes each variant in lower case, and
/// `as_str` / `Display` return the text given for it (a test checks that the
/// two agree for every variant in `ALL`).
macro_rules! state_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident => $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum $name {
            $( $(#[$variant_meta])* $variant, )+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The text written in the run directory.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

state_enum! {
    /// status.json `state`: where a run stands.
    pub enum RunState {
        Running => "running",
        Complete => "complete",
        Interrupted => "interrupted",
        /// The run could not go on (e.g. the disk is full).
        Failed => "failed",
    }
}

state_enum! {
    /// measurements.csv `status`: whether a measured cell can be trusted.
    #[derive(Default)]
    pub enum CellStatus {
        /// Measured and nothing to distrust: used in the statistics.
        Ok => "ok",
        /// Measured, but something may have limited the result (the reason
        /// says what): kept in the statistics and flagged.
        Suspect => "suspect",
        /// Nothing usable was measured: never averaged in. The default, so
        /// that a row no verdict was given for is not trusted.
        #[default]
        Failed => "failed",
    }
}

state_enum! {
    /// measurements.csv `mode`: how the load was applied.
    #[derive(Default)]
    pub enum LoopMode {
        /// Each connection sends its next request when the previous answer is read.
        #[default]
        Closed => "closed",
        /// Requests are sent at a fixed rate, whatever the answers do.
        Open => "open",
        /// The highest open-loop rate that held the SLO, found by stepping (search/<cell>.csv).
        Search => "search",
    }
}

state_enum! {
    /// configurations.csv `status`: what became of a runtime. Nothing else
    /// is written: a runtime whose every cell failed still `ran`.
    #[derive(Default)]
    pub enum ConfigurationStatus {
        /// Not decided yet: nothing recorded for it so far (the state an
        /// interrupted run leaves its unreached runtimes in).
        #[default]
        Pending => "pending",
        /// At least one of its cells was recorded.
        Ran => "ran",
        /// Left out, with the reason (preflight, build, start, ...).
        Skipped => "skipped",
    }
}

state_enum! {
    /// lifecycle.csv `phase`: why a service was started.
    #[derive(Default)]
    pub enum Phase {
        /// The training run of a runtime that declares `train`.
        Train => "train",
        /// A start whose cells are measured.
        #[default]
        Measure => "measure",
        /// A cold start measured for its times alone (`startup.repeats`):
        /// start, port, health, first workload request, stop.
        Startup => "startup",
    }
}

state_enum! {
    /// lifecycle.csv `stop`: how a service ended (empty in the file when it
    /// was never spawned).
    pub enum StopOutcome {
        /// Exited within the grace period after the stop signal.
        Graceful => "graceful",
        /// Still running after the grace period (SIGKILLed), or it could not
        /// be stopped cleanly.
        Killed => "killed",
        /// Had already exited before it was asked to stop.
        Died => "died",
        /// A training run that did not complete.
        Failed => "failed",
    }
}

state_enum! {
    /// repeats.csv `stop`: why a configuration got no more repeats.
    pub enum RepeatsStop {
        /// `repeats: N`: all N planned repeats were measured.
        Fixed => "fixed",
        /// Adaptive: the 95% interval of its throughput reached `target_ci`.
        Target => "target",
        /// Adaptive: `max` repeats were measured without reaching the target.
        Max => "max",
        /// `until: decided`: every finding of its runtime was settled.
        Decided => "decided",
        /// The run was interrupted (or is still running) before either;
        /// `--resume` continues it.
        Interrupted => "interrupted",
        /// Its runtime was skipped (build, start, too many deaths) first.
        Skipped => "skipped",
    }
}

state_enum! {
    /// repeats.csv `until`: what an adaptive design without `target_ci` went on until.
    pub enum RepeatsUntil {
        /// Its runtime's findings were all settled (`until: decided`).
        Decided => "decided",
    }
}

state_enum! {
    /// measurements.csv `warmup_end`: how the cell's warmup ended.
    #[derive(Default)]
    pub enum WarmupEnd {
        /// No cell warmup (or a row from before the column existed).
        #[default]
        None => "none",
        /// A fixed `warmup.cell` duration ran out.
        Fixed => "fixed",
        /// `auto`: the throughput windows stopped trending.
        Stable => "stable",
        /// `auto`: `warmup.max` was reached while still trending.
        Max => "max",
        /// `{ requests: N }`: the N requests were sent.
        Requests => "requests",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde's name of each variant (what the files hold) and `as_str`
    /// (what messages show) must be the same text.
    fn agree<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug + Copy>(
        all: &[T],
        text: fn(T) -> &'static str,
    ) {
        for &state in all {
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(json, format!("\"{}\"", text(state)), "{state:?}");
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), state);
        }
    }

    #[test]
    fn written_text_and_display_agree() {
        agree(RunState::ALL, RunState::as_str);
        agree(CellStatus::ALL, CellStatus::as_str);
        agree(LoopMode::ALL, LoopMode::as_str);
        agree(ConfigurationStatus::ALL, ConfigurationStatus::as_str);
        agree(Phase::ALL, Phase::as_str);
        agree(StopOutcome::ALL, StopOutcome::as_str);
        agree(RepeatsStop::ALL, RepeatsStop::as_str);
        agree(RepeatsUntil::ALL, RepeatsUntil::as_str);
        agree(WarmupEnd::ALL, WarmupEnd::as_str);
    }

    #[test]
    fn a_service_never_spawned_has_an_empty_stop_column() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Row {
            runtime: String,
            stop: Option<StopOutcome>,
        }
        let rows = [
            Row {
                runtime: "go".into(),
                stop: None,
            },
            Row {
                runtime: "java".into(),
                stop: Some(StopOutcome::Graceful),
            },
        ];
        let mut writer = csv::Writer::from_writer(Vec::new());
        for row in &rows {
            writer.serialize(row).unwrap();
        }
        let text = String::from_utf8(writer.into_inner().unwrap()).unwrap();
        assert_eq!(text, "runtime,stop\ngo,\njava,graceful\n");
        let read: Vec<Row> = csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .map(Result::unwrap)
            .collect();
        assert_eq!(read, rows);
    }
}
