//! Why the results store could not be used; every message names the store
//! by its masked URL (never the password) and says what to do.
use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum StoreError {
    #[error(
        "store URL `{url}`: {why}; use `sqlite:PATH` (a file) or \
         `postgres://user:password@host:port/database`"
    )]
    BadUrl { url: String, why: String },

    #[error(
        "store {url}: cannot connect: {detail}; check that the server is running and \
         reachable, and the URL (--store or RUNNER_STORE)"
    )]
    Connect { url: String, detail: String },

    #[error("store {url}: {during}: {detail}; check the database's permissions and free space")]
    Query {
        url: String,
        during: String,
        detail: String,
    },

    #[error(
        "store {url}: its schema is version {found}, newer than this runner knows ({known}); \
         use a newer runner with this store"
    )]
    NewerSchema { url: String, found: i64, known: i64 },

    #[error(
        "{path}: cannot read the run to index it: {detail}; fix the run directory or leave it out"
    )]
    Run { path: PathBuf, detail: String },

    #[error("{path}: cannot list it: {source}; check that it exists and is readable")]
    List {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "store {url}: run {run_id} of `{experiment}`: {detail}; re-import it from its \
         directory (`runner store import`)"
    )]
    StoredRun {
        url: String,
        experiment: String,
        run_id: String,
        detail: String,
    },
}
