//! What the runtime step starts from besides the spec: the defaults of the
//! runtime settings, the host it plans for, and the context its templates
//! are rendered with. Below the steps that read them (runtime, draft,
//! variant, cell, dependencies), so that none imports another back.
use std::path::Path;
use std::time::Duration;

use crate::plan::Restart;
use crate::plan::templating::template::{Hints, Vars};

/// Defaults of the runtime settings (documented in docs/spec.md).
pub const DEFAULT_HEALTH_PATH: &str = "/health";
pub const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(10);
pub const DEFAULT_TRAIN_CONNECTIONS: u32 = 4;
pub const DEFAULT_TRAIN_DURATION: Duration = Duration::from_secs(30);
/// A fresh service start per repeat: the repeat is the unit of analysis
/// (docs/compare.md), so each one samples startup, JIT and memory layout anew.
pub const DEFAULT_RESTART: Restart = Restart::Repeat;

/// What a runtime's templates are rendered with; cells add the axes to it.
pub struct RuntimeContext {
    pub vars: Vars,
    pub hints: Hints,
}

/// Everything the runtime stage needs from outside the spec.
pub struct Host<'a> {
    pub cpus: usize,
    /// The user the runner runs as (`{{ host.user }}`): a server config
    /// that drops privileges can keep this user (nginx `user`), so that its
    /// workers read what the runner's user can.
    pub user: String,
    pub java_home: Option<&'a Path>,
    pub jvm_root: &'a Path,
    /// The CPUs the runner may use (sched_getaffinity), for the default pinning.
    pub allowed_cpus: Vec<usize>,
}

impl Host<'_> {
    /// `{{ host.cpus }}` and `{{ host.user }}`, for a runtime's and a
    /// dependency's templates alike.
    pub fn set_vars(&self, vars: &mut Vars) {
        vars.set_map(
            "host",
            &[
                ("cpus", minijinja::Value::from(self.cpus)),
                ("user", minijinja::Value::from(self.user.as_str())),
            ],
        );
    }
}
