package service

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"runner/go-nethttp/internal/users"
	"runner/go-nethttp/internal/vectors"
)

type userAnswer struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Error string `json:"error"`
}

func userRequest(t *testing.T, method, url, body string) (int, userAnswer) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %s: Content-Type %q", method, url, ct)
	}
	var a userAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s %s: body %q is not JSON: %v", method, url, raw, err)
	}
	if res.StatusCode >= 400 && a.Error == "" {
		t.Fatalf("%s %s: %d without an error field: %s", method, url, res.StatusCode, raw)
	}
	return res.StatusCode, a
}

func TestUsersVectors(t *testing.T) {
	v, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	if v.Users.Seeded != users.SeedCount || v.Users.MaxBodyBytes != users.MaxBodyBytes {
		t.Fatalf("vectors say seeded=%d max_body_bytes=%d, the store %d and %d", v.Users.Seeded, v.Users.MaxBodyBytes, users.SeedCount, users.MaxBodyBytes)
	}
	srv := httptest.NewServer(New(Config{WorkFactor: 1}))
	defer srv.Close()
	for _, g := range v.Users.Get {
		method := g.Method
		if method == "" {
			method = http.MethodGet
		}
		status, a := userRequest(t, method, srv.URL+g.Path, "")
		if status != g.Status {
			t.Errorf("%s %s: status %d, want %d", method, g.Path, status, g.Status)
		}
		if g.User != nil && (a.ID != g.User.ID || a.Name != g.User.Name || a.Email != g.User.Email) {
			t.Errorf("%s: got %+v, want %+v", g.Path, a, *g.User)
		}
	}
	next := int64(v.Users.Seeded) + 1
	for _, p := range v.Users.Post {
		status, a := userRequest(t, http.MethodPost, srv.URL+"/users", p.Body)
		if status != p.Status {
			t.Errorf("POST %s: status %d, want %d", p.Name, status, p.Status)
			continue
		}
		if p.User == nil {
			continue
		}
		if a.ID != next || a.Name != p.User.Name || a.Email != p.User.Email {
			t.Errorf("POST %s: got %+v, want id %d and %+v", p.Name, a, next, *p.User)
		}
		// A read after the write sees it (one process, one store).
		if s, got := userRequest(t, http.MethodGet, srv.URL+"/users/"+strconv.FormatInt(next, 10), ""); s != 200 || got.Name != p.User.Name {
			t.Errorf("GET of created %d: %d %+v", next, s, got)
		}
		next++
	}
	big := `{"name":"` + strings.Repeat("x", v.Users.MaxBodyBytes) + `","email":"a@b"}`
	if status, _ := userRequest(t, http.MethodPost, srv.URL+"/users", big); status != http.StatusRequestEntityTooLarge {
		t.Errorf("POST of %d bytes: status %d, want 413", len(big), status)
	}
}
