//! `extends`: a runtime starting from another runtime's settings.
//!
//! The rule, one for every field (documented in docs/spec.md):
//! - a scalar the child sets (`dir`, `start`, `port`, ...) replaces the parent's;
//! - maps merge key by key, the child winning: `env`, `train.env`, and the
//!   sections `java`, `health`, `stop`, `train`, `lifecycle`, `limits` merge field by field;
//! - a list the child sets (`build`, `jvm_flags`, `tags`, `train.after`, ...)
//!   replaces the parent's; written `+build`, `+jvm_flags` or `+tags` it is
//!   appended instead.
//!
//! Parents may themselves extend others; an unknown parent or a cycle is an error.
use indexmap::IndexMap;

use crate::spec::model::{
    HealthSpec, JavaSpec, LifecycleSpec, LimitsSpec, RuntimeSpec, StopSpec, TrainSpec,
};

/// Why a runtime's inheritance cannot be resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum ExtendsError {
    UnknownParent {
        runtime: String,
        parent: String,
    },
    /// The runtimes of the cycle, starting and ending with the same one.
    Cycle {
        runtime: String,
        cycle: Vec<String>,
    },
}

/// The runtimes with inheritance applied, and for each one its chain of
/// ancestors (nearest first), used to find where an inherited field was written.
#[derive(Debug)]
pub struct Resolved {
    pub runtimes: IndexMap<String, RuntimeSpec>,
    pub ancestors: IndexMap<String, Vec<String>>,
}

/// Applies `extends` to every runtime; collects every error.
pub fn resolve(raw: &IndexMap<String, RuntimeSpec>) -> Result<Resolved, Vec<ExtendsError>> {
    let mut errors = Vec::new();
    let mut ancestors = IndexMap::new();
    let mut cycles_seen: Vec<Vec<String>> = Vec::new();
    for name in raw.keys() {
        match chain(raw, name) {
            Ok(chain) => {
                ancestors.insert(name.clone(), chain);
            }
            Err(ExtendsError::Cycle { runtime, cycle }) => {
                // One report per cycle, not one per member.
                let mut members = cycle.clone();
                members.sort();
                members.dedup();
                if !cycles_seen.contains(&members) {
                    cycles_seen.push(members);
                    errors.push(ExtendsError::Cycle { runtime, cycle });
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut runtimes = IndexMap::new();
    for (name, chain) in &ancestors {
        // Apply from the farthest ancestor down to the runtime itself.
        let mut merged = RuntimeSpec::default();
        for ancestor in chain.iter().rev().chain(std::iter::once(name)) {
            merged = merge(merged, &raw[ancestor]);
        }
        merged.extends = None;
        runtimes.insert(name.clone(), merged);
    }
    Ok(Resolved {
        runtimes,
        ancestors,
    })
}

fn chain(raw: &IndexMap<String, RuntimeSpec>, name: &str) -> Result<Vec<String>, ExtendsError> {
    let mut seen = vec![name.to_owned()];
    let mut current = name;
    while let Some(parent) = raw[current].extends.as_deref() {
        if !raw.contains_key(parent) {
            return Err(ExtendsError::UnknownParent {
                runtime: current.to_owned(),
                parent: parent.to_owned(),
            });
        }
        if let Some(start) = seen.iter().position(|s| s == parent) {
            let mut cycle = seen[start..].to_vec();
            cycle.push(parent.to_owned());
            return Err(ExtendsError::Cycle {
                runtime: name.to_owned(),
                cycle,
            });
        }
        seen.push(parent.to_owned());
        current = parent;
    }
    seen.remove(0);
    Ok(seen)
}

fn merge(base: RuntimeSpec, child: &RuntimeSpec) -> RuntimeSpec {
    let child = child.clone();
    RuntimeSpec {
        extends: child.extends,
        dir: child.dir.or(base.dir),
        build: append(child.build.or(base.build), child.build_append),
        build_append: None,
        start: child.start.or(base.start),
        env: merge_map(base.env, child.env),
        pass_env: child.pass_env.or(base.pass_env),
        jvm_flags: append(child.jvm_flags.or(base.jvm_flags), child.jvm_flags_append),
        jvm_flags_append: None,
        java: merge_with(base.java, child.java, |b, c| JavaSpec {
            version: c.version.or(b.version),
            home: c.home.or(b.home),
            min: c.min.or(b.min),
            build: c.build.or(b.build),
        }),
        health: merge_with(base.health, child.health, |b, c| {
            // A check the child names replaces the base's whole: one check only.
            let own_check = c.path.is_some() || c.tcp.is_some() || c.command.is_some();
            let (path, tcp, command) = if own_check {
                (c.path, c.tcp, c.command)
            } else {
                (b.path, b.tcp, b.command)
            };
            HealthSpec {
                path,
                tcp,
                command,
                timeout: c.timeout.or(b.timeout),
                interval: c.interval.or(b.interval),
            }
        }),
        stop: merge_with(base.stop, child.stop, |b, c| StopSpec {
            signal: c.signal.or(b.signal),
            grace: c.grace.or(b.grace),
        }),
        port: child.port.or(base.port),
        files: merge_map(base.files, child.files),
        train: merge_with(base.train, child.train, |b, c| TrainSpec {
            start: c.start.or(b.start),
            env: merge_map(b.env, c.env),
            workload: c.workload.or(b.workload),
            connections: c.connections.or(b.connections),
            duration: c.duration.or(b.duration),
            after: c.after.or(b.after),
            produces: c.produces.or(b.produces),
            evidence: c.evidence.or(b.evidence),
            inputs: c.inputs.or(b.inputs),
            probe: c.probe.or(b.probe),
        }),
        tags: append(child.tags.or(base.tags), child.tags_append),
        tags_append: None,
        artifact: child.artifact.or(base.artifact),
        version: child.version.or(base.version),
        deployable: child.deployable.or(base.deployable),
        lifecycle: merge_with(base.lifecycle, child.lifecycle, |b, c| LifecycleSpec {
            restart: c.restart.or(b.restart),
        }),
        limits: merge_with(base.limits, child.limits, |b, c| LimitsSpec {
            cpus: c.cpus.or(b.cpus),
            memory: c.memory.or(b.memory),
        }),
        startup: child.startup.or(base.startup),
        repeats: child.repeats.or(base.repeats),
        needs: child.needs.or(base.needs),
        protocols: child.protocols.or(base.protocols),
        profile: child.profile.or(base.profile),
        source: child.source.or(base.source),
    }
}

fn append(list: Option<Vec<String>>, extra: Option<Vec<String>>) -> Option<Vec<String>> {
    match (list, extra) {
        (list, None) => list,
        (list, Some(extra)) => Some(list.unwrap_or_default().into_iter().chain(extra).collect()),
    }
}

fn merge_map(
    base: Option<IndexMap<String, String>>,
    child: Option<IndexMap<String, String>>,
) -> Option<IndexMap<String, String>> {
    match (base, child) {
        (Some(mut base), Some(child)) => {
            base.extend(child);
            Some(base)
        }
        (base, child) => child.or(base),
    }
}

fn merge_with<T>(base: Option<T>, child: Option<T>, f: impl FnOnce(T, T) -> T) -> Option<T> {
    match (base, child) {
        (Some(b), Some(c)) => Some(f(b, c)),
        (b, c) => c.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(extends: Option<&str>) -> RuntimeSpec {
        RuntimeSpec {
            extends: extends.map(Into::into),
            ..Default::default()
        }
    }

    #[test]
    fn child_overrides_scalars_merges_env_and_appends_plus_lists() {
        let mut parent = rt(None);
        parent.start = Some("java -jar a.jar".into());
        parent.jvm_flags = Some(vec!["-Xmx1g".into()]);
        parent.env = Some(
            [("A".to_owned(), "1".to_owned()), ("B".into(), "2".into())]
                .into_iter()
                .collect(),
        );
        let mut child = rt(Some("parent"));
        child.jvm_flags_append = Some(vec!["-XX:AOTCache=app.aot".into()]);
        child.env = Some([("B".to_owned(), "3".to_owned())].into_iter().collect());
        child.dir = Some("other".into());
        let raw: IndexMap<_, _> = [("parent".to_owned(), parent), ("child".to_owned(), child)]
            .into_iter()
            .collect();
        let resolved = resolve(&raw).unwrap();
        let c = &resolved.runtimes["child"];
        assert_eq!(c.start.as_deref(), Some("java -jar a.jar"));
        assert_eq!(
            c.jvm_flags.as_ref().unwrap(),
            &["-Xmx1g", "-XX:AOTCache=app.aot"]
        );
        let env = c.env.as_ref().unwrap();
        assert_eq!((env["A"].as_str(), env["B"].as_str()), ("1", "3"));
        assert_eq!(c.dir.as_deref(), Some("other"));
        assert_eq!(resolved.ancestors["child"], ["parent"]);
    }

    #[test]
    fn cycles_and_unknown_parents_are_errors() {
        let raw: IndexMap<_, _> = [
            ("a".to_owned(), rt(Some("b"))),
            ("b".to_owned(), rt(Some("a"))),
            ("c".to_owned(), rt(Some("nope"))),
        ]
        .into_iter()
        .collect();
        let errors = resolve(&raw).unwrap_err();
        assert_eq!(
            errors[0],
            ExtendsError::Cycle {
                runtime: "a".into(),
                cycle: vec!["a".into(), "b".into(), "a".into()]
            }
        );
        assert_eq!(errors.len(), 2);
        assert_eq!(
            errors[1],
            ExtendsError::UnknownParent {
                runtime: "c".into(),
                parent: "nope".into()
            }
        );
    }
}
