//! `version:` of runtimes and dependencies: the commands that name what is
//! under test when runner did not build it (nginx, a database server), run
//! before the builds and recorded in environment.json. A changed version
//! makes two runs not comparable, like a changed toolchain.
use crate::plan::contract::version_plan::VersionPlan;
use crate::plan::{DependencyKindPlan, DependencyPlan, RuntimePlan};
use crate::spec::LoadedSpec;

/// The version commands of `loaded`'s runtimes and dependencies, in spec
/// order: each one's `version:`, and for a `postgres` kind without one, its
/// server's own `postgres --version`.
pub fn plan_versions(
    loaded: &LoadedSpec,
    runtimes: &[RuntimePlan],
    dependencies: &[DependencyPlan],
) -> Vec<VersionPlan> {
    let of_runtimes = runtimes.iter().filter_map(|rt| {
        let command = loaded.runtimes.get(&rt.name)?.version.clone()?;
        Some(VersionPlan {
            subject: format!("runtime {}", rt.name),
            dir: rt.dir.clone(),
            command,
        })
    });
    let of_dependencies = dependencies.iter().filter_map(|dep| {
        let declared = loaded
            .spec
            .dependencies
            .get(&dep.name)
            .and_then(|d| d.version.clone());
        let command = declared.or_else(|| match dep.kind {
            DependencyKindPlan::Postgres => dep
                .vars
                .get("bin")
                .map(|bin| format!("'{bin}/postgres' --version")),
            DependencyKindPlan::Command => None,
        })?;
        Some(VersionPlan {
            subject: format!("dependency {}", dep.name),
            dir: dep.dir.clone(),
            command,
        })
    });
    of_runtimes.chain(of_dependencies).collect()
}
