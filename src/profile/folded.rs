//! Folded stacks (`root;...;leaf count`, one stack per line, as
//! async-profiler's `collapsed` output, inferno's perf collapser and
//! [`super::pprof::folded`] write them) and the self-contained SVG flame
//! graph drawn from them by inferno.
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use inferno::flamegraph::{self, Options, Palette, color::MultiPalette};

use super::error::ProfileError;
use crate::results::rows::profiles::MAX_ARTIFACT_BYTES;

/// Stacks with their summed counts, sorted by stack (what inferno draws
/// from, and a smaller file than the raw samples).
#[derive(Debug, Default, PartialEq)]
pub struct Folded {
    pub stacks: BTreeMap<String, u64>,
}

impl Folded {
    /// Parses folded lines; a line without a trailing count, or with a count
    /// that is not a whole number, is skipped (collapsers write none such,
    /// but a truncated last line can happen).
    pub fn parse<'a>(lines: impl IntoIterator<Item = &'a str>) -> Folded {
        let mut folded = Folded::default();
        for line in lines {
            let Some((stack, count)) = line.trim_end().rsplit_once(' ') else {
                continue;
            };
            let (Ok(count), false) = (count.parse::<u64>(), stack.is_empty()) else {
                continue;
            };
            *folded.stacks.entry(stack.to_string()).or_default() += count;
        }
        folded
    }

    /// The sum of every stack's count (samples, or bytes for allocations).
    pub fn total(&self) -> u64 {
        self.stacks.values().sum()
    }

    pub fn lines(&self) -> Vec<String> {
        self.stacks
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect()
    }

    /// Writes the folded lines to `path` (the flame graph's input, kept beside it).
    pub fn write(&self, path: &Path) -> Result<u64, ProfileError> {
        let mut text = self.lines().join("\n");
        text.push('\n');
        check_size(path, text.len() as u64)?;
        std::fs::write(path, &text).map_err(ProfileError::io(path))?;
        Ok(text.len() as u64)
    }
}

/// Which colours frames get: Java's (JIT, inlined, kernel frames told apart
/// by async-profiler's `_[j]` / `_[i]` / `_[k]` suffixes) or the classic hot palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colours {
    Java,
    Hot,
}

/// Draws `folded` as an SVG flame graph at `svg`: one file, its script and
/// styles inline, so it opens from the run directory in any browser.
pub fn flame_graph(
    folded: &Folded,
    title: &str,
    count_name: &str,
    colours: Colours,
    svg: &Path,
) -> Result<u64, ProfileError> {
    if folded.stacks.is_empty() {
        return Err(ProfileError::NoStacks {
            path: svg.to_path_buf(),
        });
    }
    let mut options = Options::default();
    options.title = title.to_string();
    options.count_name = count_name.to_string();
    options.colors = match colours {
        Colours::Java => Palette::Multi(MultiPalette::Java),
        Colours::Hot => Palette::default(),
    };
    let lines = folded.lines();
    let file = File::create(svg).map_err(ProfileError::io(svg))?;
    let mut out = BufWriter::new(file);
    flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut out).map_err(
        |e| ProfileError::FlameGraph {
            path: svg.to_path_buf(),
            why: e.to_string(),
        },
    )?;
    out.flush().map_err(ProfileError::io(svg))?;
    drop(out);
    let bytes = std::fs::metadata(svg).map_err(ProfileError::io(svg))?.len();
    check_size(svg, bytes)?;
    Ok(bytes)
}

/// Refuses (and, for a file already written, removes) an artifact above the cap.
pub fn check_size(path: &Path, bytes: u64) -> Result<(), ProfileError> {
    if bytes <= MAX_ARTIFACT_BYTES {
        return Ok(());
    }
    let _ = std::fs::remove_file(path);
    Err(ProfileError::TooLarge {
        path: path.to_path_buf(),
        bytes,
        max: MAX_ARTIFACT_BYTES,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_stacks_are_summed_and_bad_lines_skipped() {
        let f = Folded::parse([
            "main;work 3",
            "main;idle 1",
            "main;work 2",
            "truncated line without count",
            " 7",
            "main;work x",
        ]);
        assert_eq!(f.lines(), vec!["main;idle 1", "main;work 5"]);
        assert_eq!(f.total(), 6);
    }

    #[test]
    fn async_profiler_frames_keep_their_suffixes() {
        let f = Folded::parse(["java/lang/Thread.run_[j];Foo.bar_[i] 4"]);
        assert_eq!(
            f.stacks.get("java/lang/Thread.run_[j];Foo.bar_[i]"),
            Some(&4)
        );
    }

    #[test]
    fn the_flame_graph_is_one_svg_naming_the_frames() {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("cpu.svg");
        let f = Folded::parse(["main;serve;encodeJson 30", "main;serve;gc 10"]);
        let bytes = flame_graph(&f, "CPU: go r3", "samples", Colours::Hot, &svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert_eq!(bytes, text.len() as u64);
        assert!(
            text.starts_with("<?xml") && text.contains("<svg"),
            "{}",
            &text[..80]
        );
        assert!(text.contains("encodeJson") && text.contains("CPU: go r3"));
        assert!(text.contains("<script"), "interactive and self-contained");
    }

    #[test]
    fn nothing_sampled_is_an_error_not_an_empty_picture() {
        let dir = tempfile::tempdir().unwrap();
        let err = flame_graph(
            &Folded::default(),
            "t",
            "samples",
            Colours::Hot,
            &dir.path().join("x.svg"),
        );
        assert!(matches!(err, Err(ProfileError::NoStacks { .. })));
    }
}
