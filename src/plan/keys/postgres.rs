//! The built-in `kind: postgres` recipe: a throwaway PostgreSQL cluster from
//! Debian's `postgresql` package, written out as the plain commands of a
//! dependency (setup, start, health, seed, reset), so `runner plan` shows
//! every flag and exec runs it like any other dependency.
//!
//! - setup: `initdb` into `$RUNNER_SCRATCH/data` (exec makes a fresh
//!   scratch folder per start and removes it after the stop, or the guard
//!   does if the runner dies), superuser `user`, trust authentication (the
//!   cluster listens on 127.0.0.1 only and lives for one run).
//! - start: `postgres` with every setting of [`DEFAULT_SETTINGS`] (the
//!   spec's `settings` over them) on `-c`, the socket in the scratch folder.
//!   As root it runs as the system user [`RUN_AS_USER`] through `setpriv`,
//!   which execs in place: the server stays in the dependency's process
//!   group and cgroup.
//! - health: `pg_isready` on 127.0.0.1.
//! - seed: create the database, then the spec's SQL files in order.
//! - reset: `DROP SCHEMA public CASCADE; CREATE SCHEMA public` then the SQL
//!   files again (see docs/spec.md for why not a template database).
use std::collections::BTreeMap;
use std::path::Path;

use crate::spec::keys::dependencies::PostgresSpec;

/// The system user the server runs as when the runner is root (PostgreSQL
/// refuses to run as root); created by .ci/run and docs/spec.md's setup step.
pub const RUN_AS_USER: &str = "runner-pg";
pub const DEFAULT_VERSION: &str = "15";
pub const DEFAULT_DATABASE: &str = "bench";
pub const DEFAULT_USER: &str = "bench";

/// The recipe's settings, each stated rather than left to the server's
/// defaults (the spec's `settings` win). Durability is off: a throwaway
/// benchmark database measures the service, not the disk.
pub const DEFAULT_SETTINGS: &[(&str, &str)] = &[
    ("fsync", "off"),
    ("synchronous_commit", "off"),
    ("full_page_writes", "off"),
    ("max_connections", "100"),
    ("shared_buffers", "128MB"),
    ("work_mem", "4MB"),
    ("max_wal_size", "1GB"),
    ("autovacuum", "on"),
    ("jit", "off"),
    // mmap segments live in the data folder, removed with it; POSIX ones
    // (the default) would stay in /dev/shm after a SIGKILL.
    ("dynamic_shared_memory_type", "mmap"),
    ("logging_collector", "off"),
    ("log_min_messages", "warning"),
];

/// The commands and variables of one `kind: postgres` dependency.
#[derive(Debug, Clone)]
pub struct Recipe {
    pub setup: Vec<String>,
    pub start: String,
    pub health: String,
    pub seed: Vec<String>,
    pub reset: String,
    pub vars: BTreeMap<String, String>,
    pub run_as: Option<String>,
}

/// What to do when the runner is root and [`RUN_AS_USER`] (or `user`) is missing.
pub fn missing_user_help(user: &str) -> String {
    format!(
        "PostgreSQL refuses to run as root and the system user `{user}` it runs as instead does not exist; \
         create it once with `useradd --system --user-group --no-create-home --shell /usr/sbin/nologin {user}` \
         (what .ci/run does), or run the runner as an ordinary user"
    )
}

/// The PostgreSQL programs a `kind: postgres` dependency runs (absolute).
pub fn programs(dep: &crate::plan::DependencyPlan) -> Vec<String> {
    let bin = dep.vars.get("bin").cloned().unwrap_or_default();
    ["initdb", "postgres", "pg_isready", "psql"]
        .iter()
        .map(|p| format!("{bin}/{p}"))
        .collect()
}

/// `text` as one shell word. Written here (one line) rather than taken from
/// a crate: single quotes, with `'` closed, escaped and reopened.
pub fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The recipe for `pg` on `port`; `schema` holds the SQL files made
/// absolute; `as_root` says whether the server must switch user.
pub fn recipe(pg: &PostgresSpec, port: u16, schema: &[&Path], as_root: bool) -> Recipe {
    let bin = pg.bin.clone().unwrap_or_else(|| {
        format!(
            "/usr/lib/postgresql/{}/bin",
            pg.version.as_deref().unwrap_or(DEFAULT_VERSION)
        )
    });
    let tool = |name: &str| sh_quote(&format!("{bin}/{name}"));
    let database = pg.database.as_deref().unwrap_or(DEFAULT_DATABASE);
    let user = pg.user.as_deref().unwrap_or(DEFAULT_USER);
    let run_as = as_root.then(|| RUN_AS_USER.to_owned());
    let switch = run_as.as_ref().map_or(String::new(), |u| {
        format!("setpriv --reuid={u} --regid={u} --clear-groups -- ")
    });
    let mut settings: Vec<(String, String)> = DEFAULT_SETTINGS
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for (key, value) in &pg.settings {
        let value = value.to_string();
        match settings.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => settings.push((key.clone(), value)),
        }
    }
    let mut flags = vec![
        "-c listen_addresses=127.0.0.1".to_owned(),
        format!("-c port={port}"),
        "-c unix_socket_directories=\"$RUNNER_SCRATCH\"".to_owned(),
    ];
    flags.extend(
        settings
            .iter()
            .map(|(k, v)| format!("-c {}", sh_quote(&format!("{k}={v}")))),
    );
    let psql = |db: &str| {
        format!(
            "{} -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p {port} -U {user} -d {db}",
            tool("psql")
        )
    };
    let files: String = schema
        .iter()
        .map(|f| format!(" -f {}", sh_quote(&f.display().to_string())))
        .collect();
    let mut seed = vec![format!(
        "{} -c \"ALTER ROLE {user} PASSWORD '{user}'\" -c 'CREATE DATABASE {database}'",
        psql("postgres")
    )];
    if !files.is_empty() {
        seed.push(format!("{}{files}", psql(database)));
    }
    let mut vars = BTreeMap::new();
    vars.insert("host".into(), "127.0.0.1".into());
    vars.insert("port".into(), port.to_string());
    vars.insert("user".into(), user.into());
    vars.insert("password".into(), user.into());
    vars.insert("database".into(), database.into());
    vars.insert("bin".into(), bin.clone());
    vars.insert(
        "url".into(),
        format!("postgresql://{user}:{user}@127.0.0.1:{port}/{database}"),
    );
    Recipe {
        setup: vec![format!(
            "{switch}{} -D \"$RUNNER_SCRATCH/data\" -U {user} --auth=trust --no-locale --encoding=UTF8 --no-sync",
            tool("initdb")
        )],
        start: format!(
            "exec {switch}{} -D \"$RUNNER_SCRATCH/data\" {}",
            tool("postgres"),
            flags.join(" ")
        ),
        health: format!(
            "{} -q -h 127.0.0.1 -p {port} -U {user} -d postgres",
            tool("pg_isready")
        ),
        seed,
        reset: format!(
            "{} -c 'DROP SCHEMA public CASCADE' -c 'CREATE SCHEMA public'{files}",
            psql(database)
        ),
        vars,
        run_as,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::values::AxisValue;

    #[test]
    fn states_every_setting_and_lets_the_spec_override_them() {
        let mut pg = PostgresSpec::default();
        pg.settings
            .insert("max_connections".into(), AxisValue::Int(20));
        pg.settings
            .insert("random_page_cost".into(), AxisValue::Float(1.1));
        let schema = Path::new("/s/schema.sql");
        let r = recipe(&pg, 25432, &[schema], true);
        assert!(r.start.contains("-c 'max_connections=20'"), "{}", r.start);
        assert!(!r.start.contains("max_connections=100"));
        assert!(r.start.contains("-c 'random_page_cost=1.1'"));
        assert!(r.start.contains("-c 'fsync=off'"));
        assert!(
            r.start
                .contains("-c listen_addresses=127.0.0.1 -c port=25432")
        );
        assert!(r.start.starts_with(
            "exec setpriv --reuid=runner-pg --regid=runner-pg --clear-groups -- '/usr/lib/postgresql/15/bin/postgres'"
        ));
        assert!(r.setup[0].contains("--auth=trust"));
        assert!(r.seed[1].ends_with("-d bench -f '/s/schema.sql'"));
        assert!(r.reset.contains("DROP SCHEMA public CASCADE"));
        assert_eq!(
            r.vars["url"],
            "postgresql://bench:bench@127.0.0.1:25432/bench"
        );
        assert_eq!(r.run_as.as_deref(), Some("runner-pg"));
        let not_root = recipe(&pg, 25432, &[], false);
        assert!(
            not_root
                .start
                .starts_with("exec '/usr/lib/postgresql/15/bin/postgres'")
        );
        assert_eq!(not_root.seed.len(), 1);
    }

    #[test]
    fn quotes_shell_words() {
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }
}
