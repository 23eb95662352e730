//! HTTP/1.1 on the wire: pre-encoded requests (with `seq`/`rand` filled per
//! send), which request a connection sends next, the connection's reads and
//! httparse responses.
pub(crate) mod connection;
pub(crate) mod dynamic;
pub(crate) mod mix;
pub(crate) mod wire;
