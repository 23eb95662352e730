// Package users is the in-memory store of the contract's users API
// (runtimes/CONTRACT.md, "Users"): a map guarded by one mutex, as in the
// "Node.js vs Go for a JSON API" study, seeded at start.
package users

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// SeedCount is how many users a fresh store holds: user i is
// {i, "user<i>", "user<i>@example.com"}.
const SeedCount = 10_000

// MaxBodyBytes bounds a POST body; a larger one is a 413.
const MaxBodyBytes = 64 << 10

// User is one stored user, in the contract's field order.
type User struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Store is the users map; safe for concurrent use.
type Store struct {
	mu     sync.RWMutex
	byID   map[int64]User
	lastID int64
}

// NewSeeded returns a store holding users 1..n.
func NewSeeded(n int) *Store {
	s := &Store{byID: make(map[int64]User, n)}
	for i := int64(1); i <= int64(n); i++ {
		id := strconv.FormatInt(i, 10)
		s.byID[i] = User{ID: i, Name: "user" + id, Email: "user" + id + "@example.com"}
	}
	s.lastID = int64(n)
	return s
}

// Get returns the user with that id.
func (s *Store) Get(id int64) (User, bool) {
	s.mu.RLock()
	u, ok := s.byID[id]
	s.mu.RUnlock()
	return u, ok
}

// Insert stores a new user under the next id and returns it.
func (s *Store) Insert(name, email string) User {
	s.mu.Lock()
	s.lastID++
	u := User{ID: s.lastID, Name: name, Email: email}
	s.byID[u.ID] = u
	s.mu.Unlock()
	return u
}

// ParseID reads the {id} path segment: canonical decimal digits (no sign,
// no leading zero), at most 18 of them so that it fits an int64. Anything
// else names no user.
func ParseID(segment string) (int64, bool) {
	if len(segment) == 0 || len(segment) > 18 || segment[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(segment); i++ {
		if segment[i] < '0' || segment[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(segment, 10, 64)
	return id, err == nil
}

// Why a POST body was refused: ErrSyntax is a 400, the others a 422.
var (
	ErrSyntax    = errors.New("body is not valid JSON")
	ErrNotObject = errors.New("body must be a JSON object")
	ErrName      = errors.New("name must be a non-empty string")
	ErrEmail     = errors.New("email must be a string containing '@'")
)

// ParseNew validates a POST /users body. Keys match exactly ("Name" is not
// "name"), which is why it decodes into a map and not a struct: Go's
// struct decoding matches keys case-insensitively, Node's JSON.parse does not.
func ParseNew(body []byte) (name, email string, err error) {
	if !json.Valid(body) {
		return "", "", ErrSyntax
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || fields == nil {
		return "", "", ErrNotObject
	}
	if raw, ok := fields["name"]; !ok || json.Unmarshal(raw, &name) != nil || name == "" || raw[0] != '"' {
		return "", "", ErrName
	}
	if raw, ok := fields["email"]; !ok || json.Unmarshal(raw, &email) != nil || raw[0] != '"' || !strings.Contains(email, "@") {
		return "", "", ErrEmail
	}
	return name, email, nil
}
