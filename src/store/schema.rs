//! The store's schema, one list of migrations for both engines (types both
//! accept: TEXT, BIGINT, DOUBLE PRECISION). `schema_version` holds the
//! versions applied; opening a store applies the ones it lacks, in order, each
//! in its own transaction. A migration is never edited once released: a
//! change is a new entry at the end.
use crate::store::db::{Db, Value};

/// (version, what it does, SQL).
pub const MIGRATIONS: &[(i64, &str, &str)] = &[(
    1,
    "runs, their labels, files, configurations and repeats",
    "
CREATE TABLE runs (
    run_key TEXT PRIMARY KEY,
    experiment TEXT NOT NULL,
    run_id TEXT NOT NULL,
    host_id TEXT NOT NULL,
    host_fingerprint TEXT NOT NULL,
    hostname TEXT NOT NULL,
    state TEXT NOT NULL,
    started_at TEXT NOT NULL,
    spec_hash TEXT NOT NULL,
    quick_factor BIGINT,
    runner_version TEXT NOT NULL,
    dir TEXT NOT NULL,
    indexed_at TEXT NOT NULL
);
CREATE INDEX runs_by_experiment ON runs (experiment, host_id, started_at);
CREATE TABLE run_labels (
    run_key TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_key, name)
);
CREATE TABLE run_files (
    run_key TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (run_key, name)
);
CREATE TABLE configurations (
    run_key TEXT NOT NULL,
    config_id TEXT NOT NULL,
    runtime TEXT NOT NULL,
    axes TEXT NOT NULL,
    PRIMARY KEY (run_key, config_id)
);
CREATE TABLE repeats (
    run_key TEXT NOT NULL,
    cell_id TEXT NOT NULL,
    config_id TEXT NOT NULL,
    repeat_index BIGINT NOT NULL,
    status TEXT NOT NULL,
    throughput_rps DOUBLE PRECISION,
    latency_p50_ms DOUBLE PRECISION,
    latency_p99_ms DOUBLE PRECISION,
    PRIMARY KEY (run_key, cell_id)
);
CREATE INDEX repeats_by_configuration ON repeats (config_id, run_key);
",
)];

/// The newest schema version this runner knows.
pub fn latest() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

/// The versions already applied (creating `schema_version` when absent).
pub fn applied(db: &mut Db) -> Result<i64, String> {
    db.batch(
        "CREATE TABLE IF NOT EXISTS schema_version (
            version BIGINT PRIMARY KEY,
            description TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )",
    )?;
    let rows = db.query("SELECT MAX(version) FROM schema_version", &[])?;
    Ok(match rows.first().and_then(|r| r.first()) {
        Some(Value::Int(v)) => *v,
        _ => 0,
    })
}

/// Applies every migration above `from`, each with its version row, in one
/// transaction (a migration that fails leaves the store at the version before).
pub fn migrate(db: &mut Db, from: i64, now: &str) -> Result<(), String> {
    for (version, description, sql) in MIGRATIONS.iter().filter(|m| m.0 > from) {
        db.begin()?;
        let applied = db.batch(sql).and_then(|()| {
            db.execute(
                "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                &[Value::Int(*version), (*description).into(), now.into()],
            )
        });
        match applied {
            Ok(_) => db.commit()?,
            Err(e) => {
                db.rollback();
                return Err(format!("migration {version} ({description}): {e}"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_increase_by_one_from_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.0, i as i64 + 1, "migration {}", m.1);
        }
    }
}
