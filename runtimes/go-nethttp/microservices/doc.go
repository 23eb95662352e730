// Package microservices is the pure part of runtimes/CONTRACT.md's
// "Microservices" scenarios for the Go services: the order API's validation
// and pricing, the product body's validation, canonical ids, the list's query
// parameters and the dashboard's aggregate. It holds no HTTP server, no
// database and no client (those are its subpackages store, on pgxpool, and
// downstream, the errgroup fan-out), so go-nethttp and go-gin serve the
// same rules around their own framework, and the rules are tested once
// against runtimes/contract/microservices.json.
//
// Bodies are decoded into generic JSON values (json.Decoder with UseNumber)
// and walked by hand, not bound to structs: encoding/json matches member
// names case-insensitively ("OrderId" would fill orderId), stops at the first
// type error, and cannot tell a missing member from a null or a zero, while
// the contract wants exact names, every value error collected and sorted, and
// no coercion of "2", 2.5 or 2.0 into the integer 2.
package microservices
