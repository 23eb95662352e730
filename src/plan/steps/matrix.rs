//! The matrix: runtimes x axis values x repeats -> ordered cells.
//!
//! Axis points are the cartesian product of the axes in spec order (the
//! first axis varies slowest). `include` keeps only points matching at least
//! one rule, `exclude` drops points matching any rule, `--only` keeps points
//! whose value for each named key is one of those listed. Values match by
//! their text (`payload: "128"` matches `128`).
use indexmap::IndexMap;

use crate::plan::Order;
use crate::spec::values::AxisValue;

/// One point of the axes, in spec order.
pub type Point = Vec<(String, AxisValue)>;

/// A `--only KEY=VALUE[,VALUE]` filter.
#[derive(Debug, Clone, PartialEq)]
pub struct OnlyFilter {
    pub key: String,
    pub values: Vec<String>,
}

/// Parses `KEY=VALUE[,VALUE...]`.
pub fn parse_only(text: &str) -> Result<OnlyFilter, String> {
    let (key, values) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not KEY=VALUE[,VALUE]"))?;
    let values: Vec<String> = values
        .split(',')
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect();
    if key.trim().is_empty() || values.is_empty() {
        return Err(format!("`{text}` is not KEY=VALUE[,VALUE]"));
    }
    Ok(OnlyFilter {
        key: key.trim().to_owned(),
        values,
    })
}

/// The cartesian product of the axes (as declared), first axis slowest.
pub fn points(axes: &IndexMap<String, Vec<AxisValue>>) -> Vec<Point> {
    let mut out: Vec<Point> = vec![Vec::new()];
    for (name, values) in axes {
        out = out
            .into_iter()
            .flat_map(|point| {
                values.iter().map(move |v| {
                    let mut p = point.clone();
                    p.push((name.clone(), v.clone()));
                    p
                })
            })
            .collect();
    }
    out
}

/// Whether `rule` (key -> value, `runtime` or an axis) matches this runtime and point.
pub fn rule_matches<'a>(
    rule: impl IntoIterator<Item = (&'a String, String)>,
    runtime: &str,
    point: &Point,
) -> bool {
    rule.into_iter().all(|(key, value)| {
        if key == "runtime" {
            value == runtime
        } else {
            point
                .iter()
                .any(|(k, v)| k == key && v.to_string() == value)
        }
    })
}

/// Whether the `--only` filters keep this runtime and point.
pub fn only_keeps(filters: &[OnlyFilter], runtime: &str, point: &Point) -> bool {
    filters.iter().all(|f| {
        if f.key == "runtime" {
            f.values.iter().any(|v| v == runtime)
        } else {
            point
                .iter()
                .any(|(k, v)| *k == f.key && f.values.contains(&v.to_string()))
        }
    })
}

/// `jdk-jvm/payload=128/concurrency=12`.
pub fn config_id(runtime: &str, point: &Point) -> String {
    let mut id = runtime.to_owned();
    for (k, v) in point {
        id.push('/');
        id.push_str(k);
        id.push('=');
        id.push_str(&v.to_string());
    }
    id
}

/// (runtime index, point index, repeat) in execution order, runtime `r`
/// up to `repeats[r]` (adaptive repeats: their max, exec skips the rest).
/// Sequential: runtime by runtime, repeat by repeat inside each runtime.
/// Interleaved: repeat 1 of every runtime, then repeat 2, ...; alternating:
/// the same with every even repeat's runtimes in reverse order.
pub fn order(kept: &[Vec<usize>], repeats: &[u32], order: Order) -> Vec<(usize, usize, u32)> {
    let mut out = Vec::new();
    match order {
        Order::Sequential => {
            for (r, points) in kept.iter().enumerate() {
                for repeat in 1..=repeats[r] {
                    out.extend(points.iter().map(|&p| (r, p, repeat)));
                }
            }
        }
        Order::Interleaved | Order::Alternating => {
            let most = repeats.iter().copied().max().unwrap_or(0);
            for repeat in 1..=most {
                let mut runtimes: Vec<usize> = (0..kept.len()).collect();
                if order == Order::Alternating && repeat % 2 == 0 {
                    runtimes.reverse();
                }
                for r in runtimes {
                    if repeat <= repeats[r] {
                        out.extend(kept[r].iter().map(|&p| (r, p, repeat)));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes() -> IndexMap<String, Vec<AxisValue>> {
        IndexMap::from([
            (
                "payload".into(),
                vec![AxisValue::Int(7), AxisValue::Int(128)],
            ),
            (
                "concurrency".into(),
                vec![AxisValue::Int(1), AxisValue::Int(6), AxisValue::Int(12)],
            ),
        ])
    }

    #[test]
    fn product_keeps_spec_order_first_axis_slowest() {
        let p = points(&axes());
        assert_eq!(p.len(), 6);
        assert_eq!(config_id("go", &p[0]), "go/payload=7/concurrency=1");
        assert_eq!(config_id("go", &p[3]), "go/payload=128/concurrency=1");
        assert_eq!(points(&IndexMap::new()), vec![Vec::new()]);
    }

    #[test]
    fn rules_and_only_match_by_text() {
        let p = points(&axes());
        let key = "payload".to_owned();
        assert!(rule_matches([(&key, "128".to_owned())], "go", &p[3]));
        assert!(!rule_matches([(&key, "128".to_owned())], "go", &p[0]));
        let only = [
            parse_only("concurrency=1,12").unwrap(),
            parse_only("runtime=go").unwrap(),
        ];
        assert!(only_keeps(&only, "go", &p[0]));
        assert!(!only_keeps(&only, "go", &p[1]));
        assert!(!only_keeps(&only, "java", &p[0]));
        assert!(parse_only("payload").is_err());
        assert!(parse_only("payload=").is_err());
    }

    #[test]
    fn interleaved_runs_repeat_one_of_every_runtime_first() {
        let kept = vec![vec![0, 1], vec![0]];
        assert_eq!(
            order(&kept, &[2, 2], Order::Sequential),
            [
                (0, 0, 1),
                (0, 1, 1),
                (0, 0, 2),
                (0, 1, 2),
                (1, 0, 1),
                (1, 0, 2)
            ]
        );
        assert_eq!(
            order(&kept, &[2, 2], Order::Interleaved),
            [
                (0, 0, 1),
                (0, 1, 1),
                (1, 0, 1),
                (0, 0, 2),
                (0, 1, 2),
                (1, 0, 2)
            ]
        );
    }

    #[test]
    fn each_runtime_gets_its_own_number_of_repeats_in_either_order() {
        let kept = vec![vec![0], vec![0]];
        assert_eq!(
            order(&kept, &[1, 3], Order::Interleaved),
            [(0, 0, 1), (1, 0, 1), (1, 0, 2), (1, 0, 3)]
        );
        assert_eq!(
            order(&kept, &[2, 1], Order::Sequential),
            [(0, 0, 1), (0, 0, 2), (1, 0, 1)]
        );
    }

    #[test]
    fn alternating_rounds_reverse_the_runtimes_every_other_repeat() {
        let kept = vec![vec![0, 1], vec![0]];
        assert_eq!(
            order(&kept, &[3, 3], Order::Alternating),
            [
                (0, 0, 1),
                (0, 1, 1),
                (1, 0, 1),
                (1, 0, 2),
                (0, 0, 2),
                (0, 1, 2),
                (0, 0, 3),
                (0, 1, 3),
                (1, 0, 3)
            ]
        );
    }
}
