//! The CPU pinning of a run: the spec's `affinity`, or, when it is left out,
//! disjoint CPUs for the service and the load generator on hosts with at
//! least [`MIN_CPUS_TO_PIN`].
//!
//! Why pin by default: on a shared host each load generator leaves the
//! service a different share of the CPUs, and the same two services gave
//! throughput ratios 1.1x to 2.35x apart under two generators. Disjoint CPUs
//! make that share fixed and visible. Below four CPUs there is no split that
//! leaves both sides enough (on 2 CPUs, one each halves the service), so a
//! small host stays unpinned and the report states the generator's share.
use crate::plan::{Affinity, AffinitySource, Cell};
use crate::spec::keys::affinity::AffinitySetting;

/// Hosts with at least this many usable CPUs are pinned by default.
pub const MIN_CPUS_TO_PIN: usize = 4;

/// The pinning of a run on a host whose usable CPUs are `allowed`
/// (sched_getaffinity order). The default gives the load generator the
/// highest quarter of the CPUs (at least one) and the service the rest.
pub fn resolve(setting: Option<&AffinitySetting>, allowed: &[usize]) -> Option<Affinity> {
    match setting {
        Some(AffinitySetting::None) => None,
        Some(AffinitySetting::Cpus(cpus)) => Some(Affinity {
            service: cpus.service.clone(),
            load: cpus.load.clone(),
            source: AffinitySource::Spec,
        }),
        None if allowed.len() >= MIN_CPUS_TO_PIN => {
            let mut cpus = allowed.to_vec();
            cpus.sort_unstable();
            cpus.dedup();
            let load_count = (cpus.len() / 4).max(1);
            let load = cpus.split_off(cpus.len() - load_count);
            Some(Affinity {
                service: cpus,
                load,
                source: AffinitySource::Default,
            })
        }
        None => None,
    }
}

/// With a default pinning, cells whose spec left `load.threads` out get one
/// generator thread per load CPU (what a written `affinity` gives them too).
pub fn default_threads(cells: &mut [Cell], affinity: Option<&Affinity>, threads_written: bool) {
    let Some(a) = affinity.filter(|a| a.source == AffinitySource::Default) else {
        return;
    };
    if threads_written {
        return;
    }
    for cell in cells {
        cell.load.threads = a.load.len().max(1) as u32;
    }
}

/// `service on CPUs 0-5, load generator on 6-7 (default for hosts with >= 4 CPUs)`.
pub fn describe(a: &Affinity) -> String {
    let why = match a.source {
        AffinitySource::Spec => "from the spec's `affinity`".to_string(),
        AffinitySource::Default => format!(
            "default for hosts with >= {MIN_CPUS_TO_PIN} CPUs; `affinity: none` turns it off"
        ),
    };
    format!(
        "service on CPUs {}, load generator on {} ({why})",
        list(&a.service),
        list(&a.load)
    )
}

fn list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::AffinitySpec;

    #[test]
    fn small_hosts_stay_unpinned_and_larger_ones_are_split() {
        assert!(resolve(None, &[0, 1]).is_none(), "2 CPUs: unpinned");
        assert!(resolve(None, &[0, 1, 2]).is_none());
        let four = resolve(None, &[0, 1, 2, 3]).unwrap();
        assert_eq!(
            (four.service, four.load, four.source),
            (vec![0, 1, 2], vec![3], AffinitySource::Default)
        );
        let sixteen: Vec<usize> = (0..16).collect();
        let a = resolve(None, &sixteen).unwrap();
        assert_eq!(
            (a.service.len(), a.load, a.source),
            (12, vec![12, 13, 14, 15], AffinitySource::Default)
        );
        // A taskset-restricted runner: only the CPUs it may use, disjoint.
        let a = resolve(None, &[9, 3, 5, 7]).unwrap();
        assert_eq!((a.service, a.load), (vec![3, 5, 7], vec![9]));
    }

    #[test]
    fn none_turns_the_default_off_and_a_written_affinity_wins() {
        assert!(resolve(Some(&AffinitySetting::None), &[0, 1, 2, 3, 4, 5]).is_none());
        let written = AffinitySetting::Cpus(AffinitySpec {
            service: vec![1],
            load: vec![0],
        });
        let a = resolve(Some(&written), &[0, 1]).unwrap();
        assert_eq!(
            (&a.service, &a.load, a.source),
            (&vec![1], &vec![0], AffinitySource::Spec)
        );
        assert_eq!(
            describe(&a),
            "service on CPUs 1, load generator on 0 (from the spec's `affinity`)"
        );
    }
}
