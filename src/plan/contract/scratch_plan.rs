//! A start's scratch folder and the files rendered into it (`files:`), part
//! of the Plan contract: the plan renders the templates (so a template
//! error is found before anything runs, and plan.json holds what was
//! measured), [`crate::service`] writes them into a fresh folder before each
//! spawn and removes it after the stop, here or on a service host.
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where a runtime's starts keep their own files, and what goes there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScratchPlan {
    /// `{{ scratch }}` and `$RUNNER_SCRATCH`: one folder per runtime under
    /// the temp dir (`runner-<experiment>-<runtime>-<port>`), made afresh
    /// for each start, so every start finds only what was rendered for it.
    /// Known at plan time so that `start`, `env` and `health` can name it.
    pub path: PathBuf,
    /// The rendered `files:`, in spec order.
    pub files: Vec<RenderedFile>,
}

/// One file of `files:`, rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedFile {
    /// Its name in the scratch folder, e.g. `nginx.conf`.
    pub name: String,
    /// The template it came from (absolute).
    pub template: PathBuf,
    pub content: String,
}
