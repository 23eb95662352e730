//! What can be checked of the run's dependencies before anything starts:
//! the system user a server must run as (PostgreSQL as root), and the
//! programs of the `postgres` kind. A problem makes the runtimes that need
//! the dependency unavailable (skipped with the reason; the others run).
use std::collections::BTreeSet;
use std::path::Path;

use crate::plan::{DependencyKindPlan, DependencyPlan, Plan, keys::postgres};
use crate::service::scratch::system_user;

/// Why `dep` cannot start on this host, if it cannot.
pub fn dependency_problem(dep: &DependencyPlan) -> Option<String> {
    if let Some(user) = &dep.run_as
        && system_user(user).is_none()
    {
        return Some(format!(
            "dependency `{}`: {}",
            dep.name,
            postgres::missing_user_help(user)
        ));
    }
    if dep.kind == DependencyKindPlan::Postgres {
        let missing: Vec<String> = postgres::programs(dep)
            .into_iter()
            .filter(|p| !Path::new(p).is_file())
            .collect();
        if !missing.is_empty() {
            return Some(format!(
                "dependency `{}`: PostgreSQL's {} not found; install Debian's package \
                 (`apt-get install postgresql`, what .ci/run does), or set `postgres.version`/`postgres.bin`",
                dep.name,
                missing.join(", ")
            ));
        }
    }
    None
}

/// For each of `runtimes` that needs a dependency with a problem: the
/// runtime and why.
pub fn unavailable(plan: &Plan, runtimes: &BTreeSet<String>) -> Vec<(String, String)> {
    let problems: Vec<(&str, String)> = plan
        .dependencies
        .iter()
        .filter_map(|d| Some((d.name.as_str(), dependency_problem(d)?)))
        .collect();
    plan.runtimes
        .iter()
        .filter(|r| runtimes.contains(&r.name))
        .filter_map(|r| {
            let why: Vec<&str> = problems
                .iter()
                .filter(|(d, _)| r.needs.iter().any(|n| n == d))
                .map(|(_, why)| why.as_str())
                .collect();
            (!why.is_empty()).then(|| (r.name.clone(), why.join("; ")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        let loaded = crate::spec::from_text(
            "experiment: {name: t}\nruntimes: {a: {start: x, needs: [db]}, b: {start: y, needs: []}}\n\
             workload: {path: /}\nload: {connections: 1}\nmeasure: {requests: 1}\n\
             dependencies: {db: {kind: postgres, postgres: {bin: /no/such/pg}}}\n"
                .into(),
            Path::new("/t/spec.yaml"),
        )
        .unwrap();
        crate::plan::build(&loaded, &Default::default()).unwrap()
    }

    #[test]
    fn a_missing_user_or_program_makes_only_the_runtimes_that_need_it_unavailable() {
        let mut plan = plan();
        let all: BTreeSet<String> = ["a".into(), "b".into()].into();
        let out = unavailable(&plan, &all);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].0, "a");
        assert!(
            out[0].1.starts_with(
                "dependency `db`: PostgreSQL's /no/such/pg/initdb, /no/such/pg/postgres"
            ),
            "{}",
            out[0].1
        );
        plan.dependencies[0].run_as = Some("runner-no-such-user".into());
        let out = unavailable(&plan, &all);
        assert_eq!(
            out[0].1,
            "dependency `db`: PostgreSQL refuses to run as root and the system user `runner-no-such-user` \
             it runs as instead does not exist; create it once with `useradd --system --user-group \
             --no-create-home --shell /usr/sbin/nologin runner-no-such-user` (what .ci/run does), \
             or run the runner as an ordinary user"
        );
    }
}
