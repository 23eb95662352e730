//! The rendered `files:` of every runtime and dependency, written into the
//! run directory when it is created (`files/<runtime>/<name>`; a runtime
//! whose files differ per cell gets `files/<runtime>/<axes>/<name>` for
//! each distinct rendering; a dependency's are in
//! `files/dependency-<name>/`): a server's config is part of what was
//! measured, and plan.json's escaped JSON string is no way to read an
//! nginx.conf.
use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::plan::{Plan, ScratchPlan};
use crate::results::{ResultsError, RunDir};

/// The folder of the run's rendered files.
pub const FILES_DIR: &str = "files";

/// Writes every runtime's rendered files under `run`'s [`FILES_DIR`].
pub fn write_rendered_files(run: &RunDir, plan: &Plan) -> Result<(), ResultsError> {
    let mut written: BTreeSet<PathBuf> = BTreeSet::new();
    for rt in &plan.runtimes {
        let per_cell: Vec<(String, &ScratchPlan)> = plan
            .cells
            .iter()
            .filter(|c| c.runtime == rt.name)
            .filter_map(|c| {
                let scratch = c.variant.as_ref()?.scratch.as_ref()?;
                let axes: Vec<String> = c.axes.iter().map(|(k, v)| format!("{k}={v}")).collect();
                Some((axes.join(","), scratch))
            })
            .collect();
        let folder = run.file(FILES_DIR).join(&rt.name);
        match (&rt.scratch, per_cell.is_empty()) {
            (Some(scratch), true) => write_one(&folder, scratch, &mut written)?,
            (_, false) => {
                for (axes, scratch) in per_cell {
                    write_one(&folder.join(axes), scratch, &mut written)?;
                }
            }
            (None, true) => {}
        }
    }
    for dep in &plan.dependencies {
        let folder = run.file(FILES_DIR).join(format!("dependency-{}", dep.name));
        write_one(&folder, &dep.scratch, &mut written)?;
    }
    Ok(())
}

fn write_one(
    folder: &std::path::Path,
    scratch: &ScratchPlan,
    written: &mut BTreeSet<PathBuf>,
) -> Result<(), ResultsError> {
    for file in &scratch.files {
        let path = folder.join(&file.name);
        if !written.insert(path.clone()) {
            continue;
        }
        std::fs::create_dir_all(folder).map_err(ResultsError::write(folder))?;
        std::fs::write(&path, &file.content).map_err(ResultsError::write(&path))?;
    }
    Ok(())
}
