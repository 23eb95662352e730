//! The results store: an index of run directories in a database, so that
//! history and compare can read every earlier run from a clean CI
//! workspace and across hosts. SQLite (`sqlite:PATH`, embedded, the
//! default) and PostgreSQL (`postgres://…`, for a team) hold one schema
//! (`schema`, migrated on open). The run directory stays the source of
//! truth: the store keeps copies of the run-level files `RunData` reads and
//! returns runs through that same reader, so the store can be rebuilt from
//! the directories (`runner store import`), and a run that could not be
//! indexed is marked in its directory and indexed on the next call that
//! opens the store (`pending`). docs/store.md is the user's version.
mod db;
pub mod error;
mod import;
mod index;
pub mod pending;
mod read;
mod schema;
mod url;

pub use error::StoreError;
pub use import::{ImportReport, find_run_dirs};
pub use index::{FINDINGS_FILE, Indexed, host_id, run_key};
pub use read::HostRuns;
pub use url::{StoreUrl, mask};

use db::Db;

/// The environment variable read when `--store` is not given.
pub const STORE_ENV: &str = "RUNNER_STORE";

/// An open store, its schema at the version this runner knows.
pub struct Store {
    url: StoreUrl,
    db: Db,
}

impl Store {
    /// Connects and applies the migrations the store lacks.
    pub fn open(url: &StoreUrl) -> Result<Store, StoreError> {
        let mut store = Store {
            url: url.clone(),
            db: Db::connect(url)?,
        };
        let found = schema::applied(&mut store.db)
            .map_err(|e| store.query_error("reading the schema version", e))?;
        if found > schema::latest() {
            return Err(StoreError::NewerSchema {
                url: url.masked(),
                found,
                known: schema::latest(),
            });
        }
        let now = crate::results::rfc3339_now();
        schema::migrate(&mut store.db, found, &now)
            .map_err(|e| store.query_error("migrating the schema", e))?;
        Ok(store)
    }

    /// The URL, for messages (its `Display` is masked).
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// The schema version now applied.
    pub fn schema_version(&mut self) -> Result<i64, StoreError> {
        schema::applied(&mut self.db).map_err(|e| self.query_error("reading the schema version", e))
    }

    fn query_error(&self, during: &str, detail: String) -> StoreError {
        StoreError::Query {
            url: self.url.masked(),
            during: during.to_string(),
            detail: db::scrub(&self.url, detail),
        }
    }

    /// Runs `body` in one transaction: all of it is written, or none.
    fn transaction<T>(
        &mut self,
        during: &str,
        body: impl FnOnce(&mut Db) -> Result<T, String>,
    ) -> Result<T, StoreError> {
        self.db.begin().map_err(|e| self.query_error(during, e))?;
        match body(&mut self.db) {
            Ok(value) => {
                self.db.commit().map_err(|e| self.query_error(during, e))?;
                Ok(value)
            }
            Err(e) => {
                self.db.rollback();
                Err(self.query_error(during, e))
            }
        }
    }
}
