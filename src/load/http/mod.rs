//! HTTP on the wire (HTTP/2's request heads in `h2_request`); HTTP/1.1: pre-encoded requests (with `seq`/`rand` filled per
//! send), which request a connection sends next, the connection's reads and
//! httparse responses; a sample of a warmup's answers read whole and
//! checked against the request's `expect` (`capture`, `expect`).
pub(crate) mod capture;
pub(crate) mod connection;
pub(crate) mod dynamic;
pub mod expect;
pub(crate) mod h2_request;
pub(crate) mod mix;
pub(crate) mod prepared;
pub(crate) mod wire;
