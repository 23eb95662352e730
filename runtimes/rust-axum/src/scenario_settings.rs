//! The environment of the microservices scenarios (../CONTRACT.md,
//! "Microservices", Environment): the database, its pool size, the three
//! downstreams and the fan-out deadline.
//!
//! As for `WORK_FACTOR`, a value that is set but invalid stops the service at
//! start; an unset database or downstream set is not an error (those
//! endpoints answer 503), because the service must start and serve the rest
//! of the contract without them.

use std::str::FromStr;
use std::time::Duration;

use axum::http::Uri;

/// `DB_POOL_SIZE` when unset.
pub const DEFAULT_POOL_SIZE: usize = 20;
/// Largest accepted `DB_POOL_SIZE` (PostgreSQL's default `max_connections` is 100).
pub const MAX_POOL_SIZE: usize = 1000;
/// `DOWNSTREAM_TIMEOUT_MS` when unset.
pub const DEFAULT_DOWNSTREAM_TIMEOUT_MS: u64 = 1000;
/// Largest accepted `DOWNSTREAM_TIMEOUT_MS` (one hour).
pub const MAX_DOWNSTREAM_TIMEOUT_MS: u64 = 3_600_000;
/// `application_name` of the pool's connections when `DATABASE_URL` names none,
/// so `pg_stat_activity` tells the service's connections apart.
pub const APPLICATION_NAME: &str = "rust-axum-service";
/// How long opening one database connection may take (unless the URL says).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The base URLs of the three downstreams of `GET /api/dashboard/{userId}`,
/// without a trailing slash (`http://127.0.0.1:9001`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownstreamUrls {
    pub profile: String,
    pub orders: String,
    pub recommendations: String,
}

/// The scenarios' settings, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioSettings {
    /// `DATABASE_URL`, parsed (`None`: the product endpoints answer 503).
    pub database: Option<tokio_postgres::Config>,
    /// `DB_POOL_SIZE`: connections in the pool, opened at start, 1..=1000.
    pub db_pool_size: usize,
    /// `PROFILE_URL`, `ORDERS_URL`, `RECOMMENDATIONS_URL` (all three or none).
    pub downstreams: Option<DownstreamUrls>,
    /// `DOWNSTREAM_TIMEOUT_MS`: the deadline of the whole fan-out.
    pub downstream_timeout: Duration,
}

impl ScenarioSettings {
    /// Reads the scenarios' variables from `get`, which already treats an
    /// empty value as unset (see `Settings::from_lookup`).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let database = get("DATABASE_URL").map(|url| database_config(&url)).transpose()?;
        let db_pool_size = match get("DB_POOL_SIZE") {
            None => DEFAULT_POOL_SIZE,
            Some(v) => match v.parse::<usize>() {
                Ok(n) if (1..=MAX_POOL_SIZE).contains(&n) => n,
                _ => return Err(format!("DB_POOL_SIZE={v:?} must be an integer between 1 and {MAX_POOL_SIZE}")),
            },
        };
        let downstream_timeout = match get("DOWNSTREAM_TIMEOUT_MS") {
            None => Duration::from_millis(DEFAULT_DOWNSTREAM_TIMEOUT_MS),
            Some(v) => match v.parse::<u64>() {
                Ok(n) if (1..=MAX_DOWNSTREAM_TIMEOUT_MS).contains(&n) => Duration::from_millis(n),
                _ => {
                    return Err(format!(
                        "DOWNSTREAM_TIMEOUT_MS={v:?} must be an integer between 1 and {MAX_DOWNSTREAM_TIMEOUT_MS}"
                    ));
                }
            },
        };
        let downstreams = downstream_urls(&get)?;
        Ok(ScenarioSettings { database, db_pool_size, downstreams, downstream_timeout })
    }
}

/// Parses `DATABASE_URL` (`postgresql://user:password@host:port/database`)
/// and fills in what the service always wants: a name in `pg_stat_activity`
/// and a connect timeout, unless the URL sets them.
fn database_config(url: &str) -> Result<tokio_postgres::Config, String> {
    let mut config = tokio_postgres::Config::from_str(url).map_err(|err| {
        format!("DATABASE_URL is not a PostgreSQL URL ({err}); expected postgresql://user:password@host:port/database")
    })?;
    if config.get_hosts().is_empty() {
        return Err("DATABASE_URL names no host; expected postgresql://user:password@host:port/database".into());
    }
    if config.get_application_name().is_none() {
        config.application_name(APPLICATION_NAME);
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    Ok(config)
}

/// The three downstream URLs: all unset is "no downstreams"; some set and
/// some not is an error (a dashboard that can never answer 200 is a
/// misconfiguration, not a scenario).
fn downstream_urls(get: &impl Fn(&str) -> Option<String>) -> Result<Option<DownstreamUrls>, String> {
    const NAMES: [&str; 3] = ["PROFILE_URL", "ORDERS_URL", "RECOMMENDATIONS_URL"];
    let [profile, orders, recommendations] = NAMES.map(get);
    match (profile, orders, recommendations) {
        (None, None, None) => Ok(None),
        (Some(profile), Some(orders), Some(recommendations)) => Ok(Some(DownstreamUrls {
            profile: base_url("PROFILE_URL", &profile)?,
            orders: base_url("ORDERS_URL", &orders)?,
            recommendations: base_url("RECOMMENDATIONS_URL", &recommendations)?,
        })),
        (profile, orders, recommendations) => {
            let missing: Vec<&str> = NAMES
                .iter()
                .zip([profile, orders, recommendations])
                .filter(|(_, value)| value.is_none())
                .map(|(name, _)| *name)
                .collect();
            Err(format!("{} unset while the other downstream URLs are set: set all three or none", missing.join(", ")))
        }
    }
}

/// Checks one base URL (`http://host:port`, optionally with a path prefix)
/// and drops its trailing slash, so `{base}/profile/{id}` is a valid URI.
fn base_url(name: &str, value: &str) -> Result<String, String> {
    let base = value.trim_end_matches('/');
    let uri: Uri = format!("{base}/probe").parse().map_err(|err| format!("{name}={value:?} is not a URL ({err})"))?;
    if uri.scheme_str() != Some("http") || uri.authority().is_none() || uri.query().is_some() {
        return Err(format!("{name}={value:?} must be a plain http://host:port URL (no TLS, no query)"));
    }
    Ok(base.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(pairs: &[(&str, &str)]) -> Result<ScenarioSettings, String> {
        let map: HashMap<&str, String> = pairs.iter().map(|(k, v)| (*k, v.to_string())).collect();
        ScenarioSettings::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_leave_the_dependencies_unconfigured() {
        let s = read(&[]).unwrap();
        assert_eq!((s.database, s.db_pool_size, s.downstreams), (None, 20, None));
        assert_eq!(s.downstream_timeout, Duration::from_millis(1000));
    }

    #[test]
    fn database_url_gets_a_name_and_a_connect_timeout() {
        let s =
            read(&[("DATABASE_URL", "postgresql://bench:bench@127.0.0.1:5433/bench"), ("DB_POOL_SIZE", "7")]).unwrap();
        let db = s.database.unwrap();
        assert_eq!(db.get_user(), Some("bench"));
        assert_eq!(db.get_dbname(), Some("bench"));
        assert_eq!(db.get_ports(), [5433]);
        assert_eq!(db.get_application_name(), Some(APPLICATION_NAME));
        assert_eq!(db.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert_eq!(s.db_pool_size, 7);
        let named = read(&[("DATABASE_URL", "postgresql://u@127.0.0.1/d?application_name=mine")]).unwrap();
        assert_eq!(named.database.unwrap().get_application_name(), Some("mine"));
    }

    #[test]
    fn downstreams_are_all_or_nothing_and_lose_their_trailing_slash() {
        let all = read(&[
            ("PROFILE_URL", "http://127.0.0.1:9001/"),
            ("ORDERS_URL", "http://127.0.0.1:9002"),
            ("RECOMMENDATIONS_URL", "http://127.0.0.1:9003/prefix"),
        ])
        .unwrap()
        .downstreams
        .unwrap();
        assert_eq!(all.profile, "http://127.0.0.1:9001");
        assert_eq!(all.recommendations, "http://127.0.0.1:9003/prefix");
        let partial = read(&[("PROFILE_URL", "http://127.0.0.1:9001")]).unwrap_err();
        assert!(partial.contains("ORDERS_URL, RECOMMENDATIONS_URL unset"), "{partial}");
    }

    #[test]
    fn bad_values_stop_the_start() {
        let urls =
            |p: &'static str| [("PROFILE_URL", p), ("ORDERS_URL", "http://a:1"), ("RECOMMENDATIONS_URL", "http://a:1")];
        for bad in [
            vec![("DB_POOL_SIZE", "0")],
            vec![("DB_POOL_SIZE", "twenty")],
            vec![("DB_POOL_SIZE", "1001")],
            vec![("DOWNSTREAM_TIMEOUT_MS", "0")],
            vec![("DOWNSTREAM_TIMEOUT_MS", "1.5")],
            vec![("DATABASE_URL", "not a url")],
            urls("https://127.0.0.1:9001").to_vec(),
            urls("127.0.0.1:9001").to_vec(),
            urls("http://127.0.0.1:9001?x=1").to_vec(),
        ] {
            assert!(read(&bad).is_err(), "{bad:?} accepted");
        }
    }
}
