//! How a `start` command is run: directly, split into argv as a shell would
//! split it, when it needs nothing of a shell; else by `sh -c`. Run
//! directly, the measured process tree is the server's own: no shell's
//! memory in its RSS, and the stop signal reaches the server itself first.
//! `exec prog args` is the same as `prog args` (what the shell would do).
//! Anything a shell would interpret (`$VAR`, pipes, `;`, `&&`,
//! redirections, globs, `VAR=value prog`, builtins such as `cd`) keeps
//! the shell, and the service log's start line says which it was
//! ([`Launch::words`]); the report names a shell's share of the memory.

/// How a command is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// `argv[0]` looked up on the command's PATH (or a path relative to its dir).
    Direct(Vec<String>),
    /// `sh -c <command>`.
    Shell(String),
}

/// Characters a shell would interpret outside quotes: any of them keeps the shell.
const SHELL_CHARS: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '*', '?', '[', ']', '#', '~', '{', '}', '!',
    '\n',
];

/// Words that are shell builtins or keywords, not programs.
const SHELL_WORDS: &[&str] = &[
    ".", ":", "cd", "export", "set", "unset", "ulimit", "umask", "source", "eval", "trap", "wait",
    "if", "for", "while", "case", "until", "alias", "read", "shift", "exit", "test", "[",
];

/// How `command` is started.
pub fn launch(command: &str) -> Launch {
    let shell = || Launch::Shell(command.to_owned());
    if interpreted(command) {
        return shell();
    }
    let Some(mut words) = shlex::split(command) else {
        return shell();
    };
    if words.first().is_some_and(|w| w == "exec") {
        words.remove(0);
    }
    match words.first() {
        None => shell(),
        Some(first) if first.contains('=') || SHELL_WORDS.contains(&first.as_str()) => shell(),
        Some(_) => Launch::Direct(words),
    }
}

/// Whether a shell would interpret part of `command`: a [`SHELL_CHARS`]
/// character outside quotes, or `$`, a backquote or a backslash inside
/// double quotes (single quotes keep everything literal).
fn interpreted(command: &str) -> bool {
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if SHELL_CHARS.contains(&c) => return true,
            (Some('"'), '$' | '`' | '\\') => return true,
            _ => {}
        }
    }
    false
}

impl Launch {
    /// The words of the service log's start line: `directly` or `through sh -c`.
    pub fn words(&self) -> &'static str {
        match self {
            Launch::Direct(_) => "directly",
            Launch::Shell(_) => "through sh -c (the shell is part of the measured process tree)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct(words: &[&str]) -> Launch {
        Launch::Direct(words.iter().map(|w| (*w).to_owned()).collect())
    }

    #[test]
    fn a_plain_command_runs_directly_with_its_quotes_split_as_a_shell_would() {
        assert_eq!(
            launch("nginx -c /tmp/x/nginx.conf -g 'daemon off;'"),
            direct(&["nginx", "-c", "/tmp/x/nginx.conf", "-g", "daemon off;"])
        );
        assert_eq!(
            launch("exec ./server --port 8080"),
            direct(&["./server", "--port", "8080"])
        );
        assert_eq!(
            launch("/usr/lib/jvm/jdk-25/bin/java -Xmx512m -jar target/app.jar"),
            direct(&[
                "/usr/lib/jvm/jdk-25/bin/java",
                "-Xmx512m",
                "-jar",
                "target/app.jar"
            ])
        );
        // Single quotes keep `$` literal, as in a shell.
        assert_eq!(
            launch("printf '%s' '$HOME'"),
            direct(&["printf", "%s", "$HOME"])
        );
    }

    #[test]
    fn anything_a_shell_would_interpret_keeps_the_shell() {
        for command in [
            "java -jar app.jar --port=$PORT",
            "sed s/a/b/ x > y && exec nginx",
            "node server.js | tee log",
            "cd build; ./server",
            "GOMAXPROCS=2 ./server",
            "cd build",
            "./server *.conf",
            "exec",
            "",
            "echo 'unterminated",
            "nginx -c ~/nginx.conf",
            "echo \"$HOME\"",
        ] {
            assert_eq!(launch(command), Launch::Shell(command.into()), "{command}");
        }
    }
}
