//! The run's TLS certificates (see [`crate::certs`]): issued once per
//! session when any start of the plan serves TLS, held in memory for the
//! starts (their scratch folders get the files) and the load generator
//! (which trusts that CA alone); only the CA's certificate is written into
//! the run directory ([`TLS_CA_FILE`]), for the record. A resumed run issues
//! new ones (the first session's keys are gone with it) and writes its CA
//! over the first's.
use std::path::Path;

use crate::certs::{RunCertificates, issue};
use crate::exec::ExecError;
use crate::plan::Plan;
use crate::results::{ResultsError, RunDir, TLS_CA_FILE};

/// Whether any start of `plan` serves TLS (its scratch folder gets the
/// run's certificate).
pub fn serves_tls(plan: &Plan) -> bool {
    let runtime = plan.runtimes.iter().filter_map(|rt| rt.scratch.as_ref());
    let cells = (plan.cells.iter()).filter_map(|c| c.variant.as_ref()?.scratch.as_ref());
    runtime.chain(cells).any(|s| s.tls)
}

/// The run's certificates when `plan` needs them, their CA recorded in `run`.
pub fn for_run(plan: &Plan, run: &RunDir) -> Result<Option<RunCertificates>, ExecError> {
    for_folder(plan, run.path()).map_err(|e| match e {
        CertificatesError::Issue(e) => ExecError::Certificates(e),
        CertificatesError::Record(e) => ExecError::Results(e),
    })
}

/// The certificates of a run or a `runner verify` session whose folder is
/// `folder`, when `plan` needs them; their CA recorded there
/// ([`TLS_CA_FILE`]).
pub fn for_folder(
    plan: &Plan,
    folder: &Path,
) -> Result<Option<RunCertificates>, CertificatesError> {
    if !serves_tls(plan) {
        return Ok(None);
    }
    let service_host = plan.hosts.service.address.map(|a| a.to_string());
    let certs = issue(&plan.experiment.name, service_host.as_slice())?;
    let path = folder.join(TLS_CA_FILE);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(ResultsError::write(dir))?;
    }
    std::fs::write(&path, &certs.files.ca_pem).map_err(ResultsError::write(&path))?;
    Ok(Some(certs))
}

/// Why a run's or a verify session's certificates could not be had.
#[derive(Debug, thiserror::Error)]
pub enum CertificatesError {
    #[error("{0}; nothing was started")]
    Issue(#[from] crate::certs::CertError),
    #[error(transparent)]
    Record(#[from] ResultsError),
}
