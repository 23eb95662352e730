//! CRUD on `products` (../CONTRACT.md, "CRUD on products"): the I/O-bound
//! scenario, on a deadpool-postgres pool of tokio-postgres connections.
//!
//! Why deadpool-postgres: it is the pool the tokio-postgres ecosystem uses
//! (bb8 is the other), with a per-connection prepared-statement cache
//! (`prepare_cached`), so every request is one round trip of an already
//! prepared statement. deadpool has no minimum-idle setting; "minimum =
//! maximum" is had by [`ProductStore::open_all`], which `main` calls before
//! serving: it takes all `DB_POOL_SIZE` connections at once and hands them
//! back, and the pool keeps what it is given. Recycling is `Fast` (no test
//! query per checkout; a closed connection is dropped and replaced).
//!
//! Every request is one autocommit statement (`UPDATE ... RETURNING` for a
//! PUT, no read first). A connection not had within [`ACQUIRE_TIMEOUT`], a
//! statement not answered within [`STATEMENT_TIMEOUT`] or any database error
//! is a 503 `{"error":"database unavailable"}`, never a hang.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_postgres::{NoTls, Row};

use crate::AppState;
use crate::body_rules::{self, FieldPath, Invalid, Violations};

/// How long a request waits for a pooled connection (the contract's 5 s).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one statement may take once it has a connection.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// `limit` of the list when the query names none.
pub const DEFAULT_LIMIT: i64 = 20;

const NO_DATABASE_BODY: &str = r#"{"error":"no database configured"}"#;
const UNAVAILABLE_BODY: &str = r#"{"error":"database unavailable"}"#;
const NOT_FOUND_BODY: &str = r#"{"error":"product not found"}"#;

const SELECT_ONE: &str = "SELECT id, name, price_cents, stock FROM products WHERE id = $1";
const SELECT_PAGE: &str = "SELECT id, name, price_cents, stock FROM products ORDER BY id LIMIT $1 OFFSET $2";
const INSERT: &str =
    "INSERT INTO products (name, price_cents, stock) VALUES ($1, $2, $3) RETURNING id, name, price_cents, stock";
const UPDATE: &str =
    "UPDATE products SET name = $1, price_cents = $2, stock = $3 WHERE id = $4 RETURNING id, name, price_cents, stock";

/// A product as answered (`{"id", "name", "priceCents", "stock"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub id: i64,
    pub name: String,
    pub price_cents: i64,
    pub stock: i32,
}

impl Product {
    fn from_row(row: &Row) -> Result<Product, tokio_postgres::Error> {
        Ok(Product { id: row.try_get(0)?, name: row.try_get(1)?, price_cents: row.try_get(2)?, stock: row.try_get(3)? })
    }
}

/// The body of a POST or a PUT, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductFields<'a> {
    pub name: &'a str,
    pub price_cents: i64,
    pub stock: i32,
}

/// The contract's rules for a product body: `name` 1 to 200 characters
/// (Unicode scalar values: Rust's `chars()`), `priceCents` 0 to 10^9,
/// `stock` 0 to 10^6.
pub fn validate(body: &Value) -> Result<ProductFields<'_>, Invalid> {
    let mut violations = Violations::default();
    let root = body_rules::object(body, FieldPath::Root)?;
    let name = body_rules::required_string(
        root,
        "name",
        FieldPath::Member("name"),
        |s| (1..=200).contains(&s.chars().count()),
        "must be 1 to 200 characters",
        &mut violations,
    )?;
    let price = FieldPath::Member("priceCents");
    let price_cents = body_rules::required_integer(
        root,
        "priceCents",
        price,
        (0, 1_000_000_000),
        "must be between 0 and 1000000000",
        &mut violations,
    )?;
    let stock = FieldPath::Member("stock");
    let stock = body_rules::required_integer(
        root,
        "stock",
        stock,
        (0, 1_000_000),
        "must be between 0 and 1000000",
        &mut violations,
    )?
    .and_then(|s| i32::try_from(s).ok());
    match (name, price_cents, stock) {
        (Some(name), Some(price_cents), Some(stock)) if violations.is_empty() => {
            Ok(ProductFields { name, price_cents, stock })
        }
        _ => Err(Invalid::Values(violations)),
    }
}

/// Why a database operation gave no answer; every variant is a 503.
#[derive(Debug)]
pub enum DbError {
    /// No connection within [`ACQUIRE_TIMEOUT`].
    AcquireTimeout,
    /// The pool could not open a connection (database down, bad credentials).
    Pool(PoolError),
    /// The statement failed.
    Statement(tokio_postgres::Error),
    /// The statement took longer than [`STATEMENT_TIMEOUT`].
    StatementTimeout,
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbError::AcquireTimeout => write!(f, "no pooled connection within {} s", ACQUIRE_TIMEOUT.as_secs()),
            DbError::Pool(err) => write!(f, "cannot open a connection: {err}"),
            DbError::Statement(err) => write!(f, "statement failed: {err}"),
            DbError::StatementTimeout => write!(f, "statement took over {} s", STATEMENT_TIMEOUT.as_secs()),
        }
    }
}

/// The products table behind a pool of `size` connections.
#[derive(Debug)]
pub struct ProductStore {
    pool: Pool,
    size: usize,
}

impl ProductStore {
    /// A pool of `size` connections to `config`; opens none yet (see [`ProductStore::open_all`]).
    pub fn new(config: tokio_postgres::Config, size: usize) -> ProductStore {
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(size)
            .wait_timeout(Some(ACQUIRE_TIMEOUT))
            .create_timeout(Some(ACQUIRE_TIMEOUT))
            .recycle_timeout(Some(ACQUIRE_TIMEOUT))
            .runtime(Runtime::Tokio1)
            .build();
        // build() refuses only timeouts without a runtime, and the runtime is set.
        let pool = pool.expect("a pool with the tokio runtime always builds");
        ProductStore { pool, size }
    }

    /// Opens every connection of the pool (minimum = maximum) and prepares
    /// the four statements on each, so the first requests pay neither.
    /// Returns how many connections are open.
    pub async fn open_all(&self) -> Result<usize, DbError> {
        let mut held = Vec::with_capacity(self.size);
        for _ in 0..self.size {
            let client = self.connection().await?;
            for sql in [SELECT_ONE, SELECT_PAGE, INSERT, UPDATE] {
                client.prepare_cached(sql).await.map_err(DbError::Statement)?;
            }
            held.push(client);
        }
        Ok(held.len())
    }

    async fn connection(&self) -> Result<Object, DbError> {
        match tokio::time::timeout(ACQUIRE_TIMEOUT, self.pool.get()).await {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(err)) => Err(DbError::Pool(err)),
            Err(_) => Err(DbError::AcquireTimeout),
        }
    }

    /// Runs `sql` with `params` on a pooled connection and returns its rows.
    async fn query(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Product>, DbError> {
        let client = self.connection().await?;
        let run = async {
            let statement = client.prepare_cached(sql).await?;
            let rows = client.query(&statement, params).await?;
            rows.iter().map(Product::from_row).collect::<Result<Vec<_>, _>>()
        };
        match tokio::time::timeout(STATEMENT_TIMEOUT, run).await {
            Ok(result) => result.map_err(DbError::Statement),
            Err(_) => Err(DbError::StatementTimeout),
        }
    }

    pub async fn read(&self, id: i64) -> Result<Option<Product>, DbError> {
        Ok(self.query(SELECT_ONE, &[&id]).await?.into_iter().next())
    }

    pub async fn create(&self, fields: &ProductFields<'_>) -> Result<Option<Product>, DbError> {
        Ok(self.query(INSERT, &[&fields.name, &fields.price_cents, &fields.stock]).await?.into_iter().next())
    }

    pub async fn update(&self, id: i64, fields: &ProductFields<'_>) -> Result<Option<Product>, DbError> {
        Ok(self.query(UPDATE, &[&fields.name, &fields.price_cents, &fields.stock, &id]).await?.into_iter().next())
    }

    pub async fn page(&self, limit: i64, offset: i64) -> Result<Vec<Product>, DbError> {
        self.query(SELECT_PAGE, &[&limit, &offset]).await
    }
}

/// The 503 of a service started without `DATABASE_URL`.
fn no_database() -> Response {
    crate::static_json(StatusCode::SERVICE_UNAVAILABLE, NO_DATABASE_BODY)
}

fn unavailable(err: &DbError) -> Response {
    // Visible with LOG_REQUESTS=true (the only time a subscriber is installed).
    tracing::warn!(error = %err, "database unavailable");
    crate::static_json(StatusCode::SERVICE_UNAVAILABLE, UNAVAILABLE_BODY)
}

fn not_found() -> Response {
    crate::static_json(StatusCode::NOT_FOUND, NOT_FOUND_BODY)
}

/// The product answer: `status` with the row, 404 without one, 503 on error.
fn product_answer(status: StatusCode, result: Result<Option<Product>, DbError>) -> Response {
    match result {
        Ok(Some(product)) => crate::serialized(status, &product),
        Ok(None) => not_found(),
        Err(err) => unavailable(&err),
    }
}

/// The id of `/api/products/{id}` when canonical (a segment that is not
/// UTF-8 once percent-decoded is not an id either).
fn product_id(id: Result<Path<String>, PathRejection>) -> Option<i64> {
    id.ok().and_then(|Path(id)| body_rules::canonical_id(&id))
}

/// `GET /api/products/{id}`.
pub async fn read(State(state): State<&'static AppState>, id: Result<Path<String>, PathRejection>) -> Response {
    let Some(store) = &state.products else { return no_database() };
    match product_id(id) {
        Some(id) => product_answer(StatusCode::OK, store.read(id).await),
        None => not_found(),
    }
}

/// `POST /api/products` -> 201.
pub async fn create(State(state): State<&'static AppState>, body: Bytes) -> Response {
    let Some(store) = &state.products else { return no_database() };
    let value = match body_rules::parse(&body) {
        Ok(value) => value,
        Err(malformed) => return malformed.into_response(),
    };
    match validate(&value) {
        Ok(fields) => product_answer(StatusCode::CREATED, store.create(&fields).await),
        Err(invalid) => invalid.into_response(),
    }
}

/// `PUT /api/products/{id}`: the body is checked before the id, so an
/// invalid body is a 400/422 even for an absent id.
pub async fn update(
    State(state): State<&'static AppState>,
    id: Result<Path<String>, PathRejection>,
    body: Bytes,
) -> Response {
    let Some(store) = &state.products else { return no_database() };
    let value = match body_rules::parse(&body) {
        Ok(value) => value,
        Err(malformed) => return malformed.into_response(),
    };
    let fields = match validate(&value) {
        Ok(fields) => fields,
        Err(invalid) => return invalid.into_response(),
    };
    match product_id(id) {
        Some(id) => product_answer(StatusCode::OK, store.update(id, &fields).await),
        None => not_found(),
    }
}

/// The query of `GET /api/products`, as text: each is checked for its
/// canonical form before it is a number.
#[derive(Debug, Deserialize)]
pub struct PageQuery {
    limit: Option<String>,
    offset: Option<String>,
}

/// `limit` (1 to 100, default 20) and `offset` (0 to 10^6, default 0), or
/// why not.
pub fn page_bounds(query: &PageQuery) -> Result<(i64, i64), &'static str> {
    let limit = match &query.limit {
        None => DEFAULT_LIMIT,
        Some(s) => body_rules::canonical_integer(s)
            .filter(|n| (1..=100).contains(n))
            .ok_or("limit must be an integer between 1 and 100")?,
    };
    let offset = match &query.offset {
        None => 0,
        Some(s) => body_rules::canonical_integer(s)
            .filter(|n| (0..=1_000_000).contains(n))
            .ok_or("offset must be an integer between 0 and 1000000")?,
    };
    Ok((limit, offset))
}

/// `GET /api/products?limit=L&offset=O` -> `{"items": [...], "limit": L, "offset": O}`.
pub async fn list(State(state): State<&'static AppState>, query: Result<Query<PageQuery>, QueryRejection>) -> Response {
    #[derive(Serialize)]
    struct Page {
        items: Vec<Product>,
        limit: i64,
        offset: i64,
    }
    #[derive(Serialize)]
    struct BadQuery {
        error: String,
    }
    let Some(store) = &state.products else { return no_database() };
    let bounds = match &query {
        Ok(Query(query)) => page_bounds(query).map_err(str::to_owned),
        Err(rejection) => Err(format!("bad query: {rejection}")),
    };
    let (limit, offset) = match bounds {
        Ok(bounds) => bounds,
        Err(error) => return crate::serialized(StatusCode::BAD_REQUEST, &BadQuery { error }),
    };
    match store.page(limit, offset).await {
        Ok(items) => crate::serialized(StatusCode::OK, &Page { items, limit, offset }),
        Err(err) => unavailable(&err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn product_bodies_follow_the_rules() {
        let ok = json!({"name": "widget", "priceCents": 1234, "stock": 5});
        assert_eq!(validate(&ok).unwrap(), ProductFields { name: "widget", price_cents: 1234, stock: 5 });
        let bad = json!({"name": "", "priceCents": -1, "stock": 1_000_001});
        assert_eq!(validate(&bad).unwrap_err().paths(), ["name", "priceCents", "stock"]);
        assert_eq!(validate(&json!({})).unwrap_err().paths(), ["name", "priceCents", "stock"]);
        let typed = json!({"name": "x", "priceCents": 1, "stock": "1"});
        assert_eq!(validate(&typed).unwrap_err().paths(), ["stock"]);
        assert_eq!(validate(&json!([ok])).unwrap_err().paths(), ["$"]);
        // 200 characters, counted as chars, not bytes.
        assert!(validate(&json!({"name": "é".repeat(200), "priceCents": 0, "stock": 0})).is_ok());
    }

    #[test]
    fn page_bounds_are_canonical_and_in_range() {
        let q = |limit: Option<&str>, offset: Option<&str>| {
            page_bounds(&PageQuery { limit: limit.map(str::to_owned), offset: offset.map(str::to_owned) })
        };
        assert_eq!(q(None, None), Ok((20, 0)));
        assert_eq!(q(Some("100"), Some("1000000")), Ok((100, 1_000_000)));
        for (limit, offset) in [(Some("0"), None), (Some("101"), None), (Some("07"), None), (Some("ten"), None)] {
            assert!(q(limit, offset).is_err(), "{limit:?}");
        }
        for offset in ["-1", "1000001", "", "00"] {
            assert!(q(None, Some(offset)).is_err(), "{offset:?}");
        }
    }
}
