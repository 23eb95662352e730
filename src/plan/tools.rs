//! Which programs a runtime needs on PATH, for exec's preflight.
//!
//! The program of a shell command is its first word, after leading
//! `VAR=value` assignments and `exec`/`env`/`nohup`. Shell builtins and
//! paths (`./build/server`, `target/x`) are skipped: builtins always exist
//! and paths are produced by the build. An absolute path (the resolved
//! `{{ java }}`) is kept: preflight checks that it exists.
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
}
