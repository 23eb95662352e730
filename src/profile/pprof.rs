//! Go pprof profiles (gzipped `profile.proto`) to folded stacks.
//!
//! Why parse the protobuf here rather than run `go tool pprof -raw` or
//! `-traces`: the report must re-render from the run directory on any host,
//! with or without a Go toolchain, and those text outputs are meant for
//! people (their layout is not a stable interface). The message types below
//! are the subset of pprof's `profile.proto` the folding needs, with its
//! field numbers, decoded by `prost` (no build script, no protoc).
use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;
use prost::Message;

use super::error::ProfileError;

#[derive(Clone, PartialEq, Message)]
pub struct Profile {
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ValueType {
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Sample {
    /// Leaf first.
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Location {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Inlined frames first; the last line is the caller they were inlined into.
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Line {
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Function {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(int64, tag = "2")]
    pub name: i64,
}

/// Decodes a profile, gzipped (as net/http/pprof serves it) or not.
pub fn decode(bytes: &[u8], path: &Path) -> Result<Profile, ProfileError> {
    let parse = |why: String| ProfileError::Parse {
        path: path.to_path_buf(),
        why,
    };
    let mut raw = Vec::new();
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        GzDecoder::new(bytes)
            .read_to_end(&mut raw)
            .map_err(|e| parse(format!("not a gzipped pprof profile: {e}")))?;
        &raw[..]
    } else {
        bytes
    };
    Profile::decode(bytes).map_err(|e| parse(format!("not a pprof profile: {e}")))
}

/// Folded stacks (`root;...;leaf value`) of `profile`, weighted by the
/// sample value named `value_type` (`cpu`, `alloc_space`, ...); samples of
/// weight 0 are left out.
pub fn folded(
    profile: &Profile,
    value_type: &str,
    path: &Path,
) -> Result<Vec<String>, ProfileError> {
    let text = |i: i64| {
        profile
            .string_table
            .get(i as usize)
            .map(String::as_str)
            .unwrap_or("?")
    };
    let Some(index) = profile
        .sample_type
        .iter()
        .position(|t| text(t.r#type) == value_type)
    else {
        let have: Vec<&str> = profile.sample_type.iter().map(|t| text(t.r#type)).collect();
        return Err(ProfileError::Parse {
            path: path.to_path_buf(),
            why: format!(
                "no `{value_type}` values in this profile (it has: {})",
                have.join(", ")
            ),
        });
    };
    let functions: std::collections::HashMap<u64, &str> = profile
        .function
        .iter()
        .map(|f| (f.id, text(f.name)))
        .collect();
    let locations: std::collections::HashMap<u64, &Location> =
        profile.location.iter().map(|l| (l.id, l)).collect();
    let mut lines = Vec::new();
    for sample in &profile.sample {
        let weight = sample.value.get(index).copied().unwrap_or(0);
        if weight <= 0 {
            continue;
        }
        let mut frames: Vec<&str> = Vec::new();
        for id in &sample.location_id {
            match locations.get(id) {
                Some(loc) if !loc.line.is_empty() => frames.extend(
                    loc.line
                        .iter()
                        .map(|l| functions.get(&l.function_id).copied().unwrap_or("?")),
                ),
                _ => frames.push("?"),
            }
        }
        frames.reverse();
        lines.push(format!("{} {weight}", frames.join(";")));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> Profile {
        let strings = [
            "",
            "samples",
            "count",
            "cpu",
            "nanoseconds",
            "main.main",
            "main.work",
            "runtime.memmove",
            "main.inlined",
        ];
        Profile {
            sample_type: vec![
                ValueType { r#type: 1, unit: 2 },
                ValueType { r#type: 3, unit: 4 },
            ],
            sample: vec![
                Sample {
                    location_id: vec![3, 2],
                    value: vec![2, 20_000_000],
                },
                Sample {
                    location_id: vec![2],
                    value: vec![1, 10_000_000],
                },
                Sample {
                    location_id: vec![3, 2],
                    value: vec![0, 0],
                },
            ],
            location: vec![
                // main.inlined inlined into main.work, called from main.main.
                Location {
                    id: 2,
                    line: vec![
                        Line { function_id: 8 },
                        Line { function_id: 6 },
                        Line { function_id: 5 },
                    ],
                },
                Location {
                    id: 3,
                    line: vec![Line { function_id: 7 }],
                },
            ],
            function: (5..=8)
                .map(|i| Function {
                    id: i,
                    name: i as i64,
                })
                .collect(),
            string_table: strings.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn stacks_are_root_first_with_inlined_frames_and_the_named_value() {
        let bytes = profile().encode_to_vec();
        let p = decode(&bytes, Path::new("x.pb")).unwrap();
        assert_eq!(
            folded(&p, "cpu", Path::new("x.pb")).unwrap(),
            vec![
                "main.main;main.work;main.inlined;runtime.memmove 20000000",
                "main.main;main.work;main.inlined 10000000",
            ]
        );
    }

    #[test]
    fn gzipped_profiles_decode_and_a_missing_value_type_is_named() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&profile().encode_to_vec()).unwrap();
        let p = decode(&gz.finish().unwrap(), Path::new("x.pb.gz")).unwrap();
        let err = folded(&p, "alloc_space", Path::new("x.pb.gz"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no `alloc_space` values") && err.contains("samples, cpu"),
            "{err}"
        );
    }

    #[test]
    fn garbage_is_an_error_naming_the_file() {
        let err = decode(&[0x1f, 0x8b, 1, 2, 3], Path::new("p.pb.gz"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("p.pb.gz: not a gzipped pprof profile"),
            "{err}"
        );
    }
}
