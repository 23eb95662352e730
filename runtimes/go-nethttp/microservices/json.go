package microservices

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// MalformedError is a body that is not JSON at all (empty, truncated, a
// trailing comma, trailing data): a 400.
type MalformedError struct{ Err error }

func (e *MalformedError) Error() string { return "malformed JSON: " + e.Err.Error() }

func (e *MalformedError) Unwrap() error { return e.Err }

// ValidationError is JSON of the wrong shape or with invalid values: a 422
// naming the invalid fields' paths.
type ValidationError struct {
	// Invalid is every invalid path once, sorted by byte order (the
	// contract's `invalid`, compared whole by runner verify).
	Invalid []string
	// Details says why, per path (free text, not compared).
	Details map[string]string
}

func (e *ValidationError) Error() string {
	return "validation failed: " + strings.Join(e.Invalid, ", ")
}

// decode parses a whole body as one JSON value, numbers kept as their text.
func decode(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("empty body")
		}
		return nil, &MalformedError{Err: err}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &MalformedError{Err: errors.New("data after the JSON value")}
	}
	return v, nil
}

// typeMismatch is a field of the wrong JSON type: reported alone, so it
// stops the walk.
type typeMismatch struct{ path, want string }

func (e *typeMismatch) Error() string { return e.path + ": must be " + e.want }

func (e *typeMismatch) validation() *ValidationError {
	return &ValidationError{Invalid: []string{e.path}, Details: map[string]string{e.path: "must be " + e.want}}
}

// collector gathers the value errors of one body.
type collector map[string]string

func (c collector) add(path, why string) { c[path] = why }

// result is nil when nothing was invalid, else the sorted ValidationError.
func (c collector) result() error {
	if len(c) == 0 {
		return nil
	}
	paths := make([]string, 0, len(c))
	for p := range c {
		paths = append(paths, p)
	}
	sort.Strings(paths) // byte order: items[10] before items[2]
	return &ValidationError{Invalid: paths, Details: map[string]string(c)}
}

// finish turns the walk's outcome into the error the caller returns.
func finish(c collector, err error) error {
	var tm *typeMismatch
	if errors.As(err, &tm) {
		return tm.validation()
	}
	if err != nil {
		return err
	}
	return c.result()
}

// text reads obj[key] as a string: missing or null is a value error (ok
// false, no error), another JSON type a typeMismatch.
func text(c collector, obj map[string]any, key, path string) (string, bool, error) {
	switch v := obj[key].(type) {
	case nil:
		c.add(path, "is required")
		return "", false, nil
	case string:
		return v, true, nil
	default:
		return "", false, &typeMismatch{path, "a string"}
	}
}

// integer reads obj[key] as an integer in lo..hi. Only a JSON number
// written without a fraction or an exponent is an integer (2.0 is not); one
// too large for int64 is out of range, a value error like any other.
func integer(c collector, obj map[string]any, key, path string, lo, hi int64) (int64, bool, error) {
	switch v := obj[key].(type) {
	case nil:
		c.add(path, "is required")
		return 0, false, nil
	case json.Number:
		s := string(v)
		if strings.ContainsAny(s, ".eE") {
			return 0, false, &typeMismatch{path, "an integer"}
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < lo || n > hi {
			c.add(path, fmt.Sprintf("must be between %d and %d", lo, hi))
			return 0, false, nil
		}
		return n, true, nil
	default:
		return 0, false, &typeMismatch{path, "an integer"}
	}
}

// object reads v as a JSON object, else a typeMismatch at path.
func object(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &typeMismatch{path, "an object"}
	}
	return m, nil
}
