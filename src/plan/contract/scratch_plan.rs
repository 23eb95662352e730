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
    /// The start serves TLS: the run's certificate, its private key and
    /// its CA are written here too ([`TLS_CERT`], [`TLS_KEY`], [`TLS_CA`]),
    /// made per run and never part of the plan (see [`crate::certs`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tls: bool,
}

/// The run's server certificate in a TLS start's scratch folder
/// (`$TLS_CERT_FILE`, `{{ tls.cert }}`).
pub const TLS_CERT: &str = "tls-cert.pem";
/// Its private key (`$TLS_KEY_FILE`, `{{ tls.key }}`), mode 0600.
pub const TLS_KEY: &str = "tls-key.pem";
/// The run's CA certificate (`$TLS_CA_FILE`, `{{ tls.ca }}`).
pub const TLS_CA: &str = "tls-ca.pem";

/// One file of `files:`, rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedFile {
    /// Its name in the scratch folder, e.g. `nginx.conf`.
    pub name: String,
    /// The template it came from (absolute).
    pub template: PathBuf,
    pub content: String,
}
