//! Where the results store is: `sqlite:PATH` (a file, the embedded
//! default) or `postgres://user:password@host:port/db` (a team's server).
//! The URL may carry a password, so it is never shown as given: every
//! message and every file uses [`StoreUrl::masked`].
use std::path::PathBuf;

use crate::store::error::StoreError;

/// A parsed `--store` / `RUNNER_STORE` value.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// An SQLite file, created when absent.
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL, passed to the driver as is.
    Postgres(String),
}

impl StoreUrl {
    /// `sqlite:PATH`, `sqlite://PATH` or `postgres://…` / `postgresql://…`.
    pub fn parse(text: &str) -> Result<Self, StoreError> {
        let text = text.trim();
        if let Some(path) = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"))
        {
            if path.is_empty() {
                return Err(StoreError::BadUrl {
                    url: mask(text),
                    why: "the SQLite file's path is empty".into(),
                });
            }
            return Ok(StoreUrl::Sqlite(PathBuf::from(path)));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(StoreUrl::Postgres(text.to_string()));
        }
        Err(StoreError::BadUrl {
            url: mask(text),
            why: "it starts with neither `sqlite:` nor `postgres://`".into(),
        })
    }

    /// The URL with any password replaced by `***`: the only form written out.
    pub fn masked(&self) -> String {
        match self {
            StoreUrl::Sqlite(path) => format!("sqlite:{}", path.display()),
            StoreUrl::Postgres(url) => mask(url),
        }
    }
}

/// Debug shows the masked form too, so no `{:?}` can leak the password.
impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoreUrl({})", self.masked())
    }
}

impl std::fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.masked())
    }
}

/// `scheme://user:secret@host/db` -> `scheme://user:***@host/db`; also a
/// `password=` query parameter. Text without either is returned as is.
pub fn mask(url: &str) -> String {
    let mut out = url.to_string();
    if let Some(scheme_end) = out.find("://") {
        let rest_start = scheme_end + 3;
        let authority_end = out[rest_start..]
            .find(['/', '?'])
            .map_or(out.len(), |i| rest_start + i);
        if let Some(at) = out[rest_start..authority_end].rfind('@') {
            let userinfo = &out[rest_start..rest_start + at];
            if let Some(colon) = userinfo.find(':') {
                let from = rest_start + colon + 1;
                out.replace_range(from..rest_start + at, "***");
            }
        }
    }
    if let Some(i) = out.find("password=") {
        let from = i + "password=".len();
        let to = out[from..].find('&').map_or(out.len(), |j| from + j);
        out.replace_range(from..to, "***");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_masked_wherever_it_is() {
        assert_eq!(
            mask("postgres://runner:CANARY123@127.0.0.1:5432/db"),
            "postgres://runner:***@127.0.0.1:5432/db"
        );
        assert_eq!(
            mask("postgres://127.0.0.1/db?user=r&password=CANARY123&sslmode=disable"),
            "postgres://127.0.0.1/db?user=r&password=***&sslmode=disable"
        );
        assert_eq!(mask("postgres://runner@h/db"), "postgres://runner@h/db");
        let url = StoreUrl::parse("postgres://u:CANARY123@h/db").unwrap();
        assert!(!format!("{url} {url:?}").contains("CANARY123"));
    }

    #[test]
    fn sqlite_and_postgres_urls_parse_and_others_are_refused() {
        assert_eq!(
            StoreUrl::parse("sqlite:/tmp/r.db").unwrap(),
            StoreUrl::Sqlite("/tmp/r.db".into())
        );
        assert_eq!(
            StoreUrl::parse("sqlite://rel/r.db").unwrap(),
            StoreUrl::Sqlite("rel/r.db".into())
        );
        let err = StoreUrl::parse("mysql://u:CANARY123@h/db")
            .unwrap_err()
            .to_string();
        assert!(err.contains("mysql://u:***@h/db"), "{err}");
        assert!(StoreUrl::parse("sqlite:").is_err());
    }
}
