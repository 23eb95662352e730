//! The two engines behind one small interface: statements written once with
//! `?` placeholders (rewritten to `$1…` for PostgreSQL), values as [`Value`],
//! rows back as values. Only what the store's own SQL needs.
use crate::store::error::StoreError;
use crate::store::url::{StoreUrl, mask};

/// A value bound to, or read from, a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Int(i64),
    Real(f64),
    Null,
}

impl Value {
    pub fn text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Text(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Text(s)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<Option<f64>> for Value {
    fn from(v: Option<f64>) -> Self {
        v.map_or(Value::Null, Value::Real)
    }
}

/// An open connection.
pub enum Db {
    Sqlite(rusqlite::Connection),
    Postgres(Box<postgres::Client>),
}

/// The password of `url`, to scrub from a driver's message before it is shown.
fn password(url: &StoreUrl) -> Option<String> {
    let StoreUrl::Postgres(raw) = url else {
        return None;
    };
    let masked = mask(raw);
    if masked == *raw {
        return None;
    }
    // The password is what `mask` replaced: the text between the common prefix and suffix.
    let prefix = raw
        .bytes()
        .zip(masked.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = raw
        .bytes()
        .rev()
        .zip(masked.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    raw.get(prefix..raw.len().saturating_sub(suffix))
        .filter(|p| !p.is_empty())
        .map(str::to_string)
}

/// A driver's message with the password (if the URL has one) taken out.
pub fn scrub(url: &StoreUrl, detail: impl std::fmt::Display) -> String {
    let detail = detail.to_string();
    match password(url) {
        Some(secret) => detail.replace(&secret, "***"),
        None => detail,
    }
}

impl Db {
    pub fn connect(url: &StoreUrl) -> Result<Db, StoreError> {
        let fail = |detail: String| StoreError::Connect {
            url: url.masked(),
            detail,
        };
        match url {
            StoreUrl::Sqlite(path) => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
                }
                let conn = rusqlite::Connection::open(path).map_err(|e| fail(e.to_string()))?;
                // Several runners may write one file (a host's parallel jobs): wait, do not fail.
                conn.busy_timeout(std::time::Duration::from_secs(30))
                    .map_err(|e| fail(e.to_string()))?;
                Ok(Db::Sqlite(conn))
            }
            StoreUrl::Postgres(raw) => {
                let mut config: postgres::Config = raw.parse().map_err(|e| fail(scrub(url, e)))?;
                if config.get_connect_timeout().is_none() {
                    config.connect_timeout(std::time::Duration::from_secs(10));
                }
                let client = config
                    .connect(postgres::NoTls)
                    .map_err(|e| fail(scrub(url, error_chain(&e))))?;
                Ok(Db::Postgres(Box::new(client)))
            }
        }
    }

    /// Several statements, no parameters (migrations).
    pub fn batch(&mut self, sql: &str) -> Result<(), String> {
        match self {
            Db::Sqlite(c) => c.execute_batch(sql).map_err(|e| e.to_string()),
            Db::Postgres(c) => c.batch_execute(sql).map_err(|e| error_chain(&e)),
        }
    }

    pub fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, String> {
        match self {
            Db::Sqlite(c) => c
                .execute(
                    sql,
                    rusqlite::params_from_iter(params.iter().map(SqliteValue)),
                )
                .map(|n| n as u64)
                .map_err(|e| e.to_string()),
            Db::Postgres(c) => {
                let boxed = pg_params(params);
                let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
                    boxed.iter().map(|b| b.as_ref()).collect();
                c.execute(numbered(sql).as_str(), &refs)
                    .map_err(|e| error_chain(&e))
            }
        }
    }

    /// Every row of a query, its columns in the order selected.
    pub fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, String> {
        match self {
            Db::Sqlite(c) => {
                let mut statement = c.prepare_cached(sql).map_err(|e| e.to_string())?;
                let width = statement.column_count();
                let rows = statement
                    .query_map(
                        rusqlite::params_from_iter(params.iter().map(SqliteValue)),
                        |row| {
                            (0..width)
                                .map(|i| {
                                    Ok(match row.get_ref(i)? {
                                        rusqlite::types::ValueRef::Null => Value::Null,
                                        rusqlite::types::ValueRef::Integer(v) => Value::Int(v),
                                        rusqlite::types::ValueRef::Real(v) => Value::Real(v),
                                        rusqlite::types::ValueRef::Text(t)
                                        | rusqlite::types::ValueRef::Blob(t) => {
                                            Value::Text(String::from_utf8_lossy(t).into_owned())
                                        }
                                    })
                                })
                                .collect::<Result<Vec<_>, _>>()
                        },
                    )
                    .map_err(|e| e.to_string())?;
                rows.collect::<Result<Vec<_>, _>>()
                    .map_err(|e| e.to_string())
            }
            Db::Postgres(c) => {
                let boxed = pg_params(params);
                let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
                    boxed.iter().map(|b| b.as_ref()).collect();
                let rows = c
                    .query(numbered(sql).as_str(), &refs)
                    .map_err(|e| error_chain(&e))?;
                Ok(rows.iter().map(pg_row).collect())
            }
        }
    }

    pub fn begin(&mut self) -> Result<(), String> {
        self.batch(match self {
            Db::Sqlite(_) => "BEGIN IMMEDIATE",
            Db::Postgres(_) => "BEGIN",
        })
    }

    pub fn commit(&mut self) -> Result<(), String> {
        self.batch("COMMIT")
    }

    pub fn rollback(&mut self) {
        // Best effort: the error that made us roll back is the one reported.
        let _ = self.batch("ROLLBACK");
    }
}

/// A driver error with its causes: tokio-postgres puts the useful part
/// ("connection refused") in the source.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

struct SqliteValue<'a>(&'a Value);

impl rusqlite::ToSql for SqliteValue<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self.0 {
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Value::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Value::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
        })
    }
}

fn pg_params(params: &[Value]) -> Vec<Box<dyn postgres::types::ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn postgres::types::ToSql + Sync> {
            match v {
                Value::Text(s) => Box::new(s.clone()),
                Value::Int(i) => Box::new(*i),
                Value::Real(r) => Box::new(*r),
                Value::Null => Box::new(PgNull),
            }
        })
        .collect()
}

/// SQL NULL for a column of any type (an `Option<String>` would be refused
/// by a BIGINT column).
#[derive(Debug)]
struct PgNull;

impl postgres::types::ToSql for PgNull {
    fn to_sql(
        &self,
        _: &postgres::types::Type,
        _: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        Ok(postgres::types::IsNull::Yes)
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

fn pg_row(row: &postgres::Row) -> Vec<Value> {
    use postgres::types::Type;
    (0..row.len())
        .map(|i| {
            let ty = row.columns()[i].type_();
            if *ty == Type::INT8 {
                row.get::<_, Option<i64>>(i).map_or(Value::Null, Value::Int)
            } else if *ty == Type::INT4 {
                row.get::<_, Option<i32>>(i)
                    .map_or(Value::Null, |v| Value::Int(i64::from(v)))
            } else if *ty == Type::FLOAT8 {
                row.get::<_, Option<f64>>(i)
                    .map_or(Value::Null, Value::Real)
            } else {
                row.get::<_, Option<String>>(i)
                    .map_or(Value::Null, Value::Text)
            }
        })
        .collect()
}

/// `?` placeholders -> `$1`, `$2`, … (the store's SQL has no `?` in literals).
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_for_postgres() {
        assert_eq!(numbered("a = ? AND b = ?"), "a = $1 AND b = $2");
    }

    #[test]
    fn a_driver_message_loses_the_password() {
        let url = StoreUrl::parse("postgres://runner:CANARY123@127.0.0.1:1/db").unwrap();
        assert_eq!(password(&url).as_deref(), Some("CANARY123"));
        assert_eq!(scrub(&url, "bad CANARY123 here"), "bad *** here");
    }
}
