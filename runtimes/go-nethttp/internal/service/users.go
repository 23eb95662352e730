package service

// The users API of runtimes/CONTRACT.md ("Users"): GET /users/{id} and
// POST /users over the mutex-guarded store of package users, answers
// encoded with json.NewEncoder (the study's choice) into pooled buffers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"runner/go-nethttp/internal/users"
)

var (
	userNotFoundBody = errorBody("user not found")
	tooLargeBody     = errorBody("body larger than 65536 bytes")
	allowPost        = []string{"POST"}
)

// userEncoder is a pooled buffer with its encoder for user answers.
type userEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var userEncoders = sync.Pool{New: func() any {
	e := &userEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// registerUsers adds the users routes to m, with a store seeded afresh.
func (s *Service) registerUsers(m *http.ServeMux) {
	s.users = users.NewSeeded(users.SeedCount)
	m.HandleFunc("GET /users/{id}", s.getUser)
	m.HandleFunc("POST /users", s.createUser)
	m.HandleFunc("/users/{id}", s.methodNotAllowed)
	m.HandleFunc("/users", s.usersMethodNotAllowed)
}

func (s *Service) getUser(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	id, ok := users.ParseID(r.PathValue("id"))
	var u users.User
	if ok {
		u, ok = s.users.Get(id)
	}
	if !ok {
		writeJSON(w, http.StatusNotFound, userNotFoundBody)
		s.logRequest(r, http.StatusNotFound, 0, start)
		return
	}
	s.writeUser(w, http.StatusOK, &u)
	s.logRequest(r, http.StatusOK, 0, start)
}

func (s *Service) createUser(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, users.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeJSON(w, http.StatusRequestEntityTooLarge, tooLargeBody)
		s.logRequest(r, http.StatusRequestEntityTooLarge, len(body), start)
		return
	case err != nil:
		return // the client went away mid-body
	}
	name, email, err := users.ParseNew(body)
	if err != nil {
		status := http.StatusUnprocessableEntity
		if errors.Is(err, users.ErrSyntax) {
			status = http.StatusBadRequest
		}
		writeJSON(w, status, errorBody(err.Error()))
		s.logRequest(r, status, len(body), start)
		return
	}
	u := s.users.Insert(name, email)
	s.writeUser(w, http.StatusCreated, &u)
	s.logRequest(r, http.StatusCreated, len(body), start)
}

func (s *Service) writeUser(w http.ResponseWriter, status int, u *users.User) {
	e := userEncoders.Get().(*userEncoder)
	_ = e.enc.Encode(u) // cannot fail: an integer and two strings
	b := e.buf.Bytes()
	writeJSON(w, status, b[:len(b)-1]) // without the Encoder's newline
	e.buf.Reset()
	userEncoders.Put(e)
}

func (s *Service) usersMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	w.Header()["Allow"] = allowPost
	writeJSON(w, http.StatusMethodNotAllowed, notAllowedBody)
	s.logRequest(r, http.StatusMethodNotAllowed, 0, start)
}
