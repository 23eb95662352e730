//! Which programs a runtime needs on PATH, for exec's preflight.
//!
//! The program of a shell command is its first word, after leading
//! `VAR=value` assignments and `exec`/`env`/`nohup`. Shell builtins and
//! paths (`./build/server`, `target/x`) are skipped: builtins always exist
//! and paths are produced by the build. An absolute path (the resolved
//! `{{ java }}`, `/srv/bench/server`) is kept: it is checked to exist.
//!
//! When they are checked: the programs of the build commands before
//! anything runs (preflight: no build step can produce the build's own
//! tools); the other programs of a runtime with a build only after its
//! build, which may be what writes them (`go build -o /srv/bench/server`,
//! `start: /srv/bench/server`). Without build commands, all before.
use crate::plan::RuntimePlan;

const BUILTINS: &[&str] = &[
    "cd", "export", "set", "unset", "echo", "true", "false", "test", "[", "exit", "source", ".",
    ":", "printf", "read", "if", "then", "else", "fi", "for", "do", "done", "while", "case",
    "esac", "eval", "ulimit", "umask", "mkdir", "rm", "cp", "mv", "ln", "cat", "touch", "ls", "sh",
    "bash",
];
const PREFIXES: &[&str] = &["exec", "env", "nohup", "command", "time"];

/// The program `command` runs, if it is one preflight should look for.
pub fn program(command: &str) -> Option<String> {
    let mut words = command.split_whitespace().skip_while(|w| {
        let is_assignment = w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        is_assignment || PREFIXES.contains(w)
    });
    let first = words
        .next()?
        .trim_matches(|c| c == '(' || c == '"' || c == '\'');
    if first.is_empty()
        || BUILTINS.contains(&first)
        || (first.contains('/') && !first.starts_with('/'))
    {
        return None;
    }
    Some(first.to_owned())
}

/// The programs of all `commands`, first-seen order, without repeats.
/// Commands chained with `&&`, `||` or `;` each count.
pub fn programs<'a>(commands: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for command in commands {
        for part in command
            .split("&&")
            .flat_map(|p| p.split("||"))
            .flat_map(|p| p.split(';'))
        {
            if let Some(p) = program(part)
                && !out.contains(&p)
            {
                out.push(p);
            }
        }
    }
    out
}

/// The tools of `rt` that preflight checks: those its build commands run,
/// or all of them when it has none.
pub fn needed_before_build(rt: &RuntimePlan) -> Vec<&str> {
    split_at_build(rt).0
}

/// The tools of `rt` checked once its build finished (run or cached): those
/// of its start and training commands that the build does not run itself.
pub fn needed_after_build(rt: &RuntimePlan) -> Vec<&str> {
    split_at_build(rt).1
}

/// `rt.tools` split into (before the build, after it), each in order.
fn split_at_build(rt: &RuntimePlan) -> (Vec<&str>, Vec<&str>) {
    let all = rt.tools.iter().map(String::as_str);
    if rt.build.is_empty() {
        return (all.collect(), Vec::new());
    }
    let of_build = programs(rt.build.iter().map(String::as_str));
    all.partition(|tool| of_build.iter().any(|b| b == tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_program_of_each_command() {
        assert_eq!(
            program("go build -o build/server ./cmd/server"),
            Some("go".into())
        );
        assert_eq!(program("GOFLAGS=-mod=mod exec go run ."), Some("go".into()));
        assert_eq!(program("./build/server"), None);
        assert_eq!(program("cd x"), None);
        assert_eq!(
            program("/usr/lib/jvm/t25/bin/java -jar a.jar"),
            Some("/usr/lib/jvm/t25/bin/java".into())
        );
        assert_eq!(
            programs(["mkdir -p b && mvn -q package", "mvn x; node y"]),
            ["mvn", "node"]
        );
    }

    #[test]
    fn a_start_program_is_checked_after_the_build_that_may_write_it() {
        let mut rt = RuntimePlan {
            name: "go".into(),
            dir: "/srv/src".into(),
            build: vec!["go build -o /srv/bench/server ./cmd/server".into()],
            start: "/srv/bench/server".into(),
            env: Default::default(),
            pass_env: vec![],
            jvm_flags: vec![],
            java: None,
            port: 8080,
            scratch: None,
            restart: crate::plan::Restart::Repeat,
            repeats: crate::plan::RepeatPolicy::Fixed { repeats: 1 },
            health: crate::plan::HealthPlan::http(
                "/health",
                std::time::Duration::from_secs(1),
                std::time::Duration::from_secs(1),
            ),
            stop: crate::plan::StopPlan {
                signal: 15,
                signal_name: "TERM".into(),
                grace: std::time::Duration::from_secs(1),
            },
            train: None,
            tags: vec![],
            artifact: None,
            deployable: Vec::new(),
            tools: vec!["go".into(), "/srv/bench/server".into()],
            startup_repeats: 0,
            log_cap_bytes: crate::plan::contract::gates::DEFAULT_LOG_CAP,
            needs: vec![],
            protocols: vec![crate::plan::Protocol::Http1],
            profile: None,
            first_requests: 0,
            source: None,
        };
        assert_eq!(needed_before_build(&rt), ["go"]);
        assert_eq!(needed_after_build(&rt), ["/srv/bench/server"]);
        // Without a build, nothing can produce it: preflight checks it.
        rt.build.clear();
        assert_eq!(needed_before_build(&rt), ["go", "/srv/bench/server"]);
        assert!(needed_after_build(&rt).is_empty());
    }
}
