// Package contract exposes the contract's pure work and its test vectors to
// the other Go services under runtimes/ (go-kit), so that the work of
// runtimes/CONTRACT.md is written once for Go and two Go services differ only
// in the HTTP framework around it, which is what a framework comparison
// (the 2020 study's Go-Kit vs plain net/http) must isolate.
package contract

import (
	"runner/go-nethttp/internal/vectors"
	"runner/go-nethttp/internal/work"
)

// Result is the work's answer (see work.Result).
type Result = work.Result

// MaxSize is the largest size /api/generated/{size} accepts.
const MaxSize = work.MaxSize

// ErrSize is what ParseSize returns for a bad size.
var ErrSize = work.ErrSize

// ParseSize parses the {size} path segment (ASCII digits, 1..MaxSize).
func ParseSize(s string) (int, error) { return work.ParseSize(s) }

// Generated is the work for /api/generated/{size}.
func Generated(size, workFactor int) Result { return work.Generated(size, workFactor) }

// Strings is the work for /api/strings/{value} (valid UTF-8 input).
func Strings(input string, workFactor int) Result { return work.Strings(input, workFactor) }

// Vectors is the shared vector file runtimes/contract/vectors.json.
type Vectors = vectors.File

// LoadVectors finds and reads runtimes/contract/vectors.json (or $VECTORS).
func LoadVectors() (*Vectors, error) { return vectors.Load() }
