package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Route is one named route: a path pattern, a delay distribution, a fixed
// JSON body and an optional injected failure.
type Route struct {
	Name     string
	Pattern  string
	segments []string
	// param[i]: segment i is a {param}, matching any one non-empty segment.
	param []bool
	Delay Distribution
	Body  []byte
	Fail  *Failure

	// mu orders the draws: the n-th request to arrive on this route (the
	// n-th to take mu) gets the n-th delay and the n-th failure draw.
	mu     sync.Mutex
	delays *rand.Rand
	fails  *rand.Rand
}

// FailureKind is what an injected failure does.
type FailureKind int

const (
	// Fail500 answers 500 after the drawn delay.
	Fail500 FailureKind = iota
	// FailHang holds the request for Hang (meant to be past the caller's
	// timeout) before answering, or until the client goes away.
	FailHang
)

// Failure is `fail(SHARE,500)` or `fail(SHARE,hang(DUR))`: that share of the
// route's requests, drawn from the route's own seeded stream.
type Failure struct {
	Share float64
	Kind  FailureKind
	Hang  time.Duration
}

// Draw is what one request gets: its delay and whether it fails.
type Draw struct {
	Delay time.Duration
	Fail  *Failure
}

var routeName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ParseRoute reads NAME=PATH[:DELAY[:BODY[:FAIL]]], e.g.
// users=/users/{id}:uniform(5ms,20ms):fixtures/user.json:fail(1%,500).
// BODY is relative to dir; without it the body is {"route":"NAME"}.
func ParseRoute(text, dir string, seed uint64) (*Route, error) {
	name, rest, ok := strings.Cut(text, "=")
	if !ok || !routeName.MatchString(name) {
		return nil, fmt.Errorf("--route %q: expected NAME=PATH[:DELAY[:BODY[:FAIL]]] with NAME like users_stub ([a-z][a-z0-9_]*)", text)
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 4 {
		return nil, fmt.Errorf("--route %q: too many ':' parts (PATH:DELAY:BODY:FAIL at most)", text)
	}
	for len(parts) < 4 {
		parts = append(parts, "")
	}
	r := &Route{Name: name, Pattern: parts[0]}
	if !strings.HasPrefix(r.Pattern, "/") {
		return nil, fmt.Errorf("--route %q: path %q must start with /", text, r.Pattern)
	}
	for _, seg := range strings.Split(strings.TrimPrefix(r.Pattern, "/"), "/") {
		r.segments = append(r.segments, seg)
		r.param = append(r.param, len(seg) > 2 && strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"))
	}
	var err error
	if r.Delay, err = ParseDistribution(parts[1]); err != nil {
		return nil, fmt.Errorf("--route %s: %w", name, err)
	}
	if parts[2] == "" {
		r.Body = []byte(fmt.Sprintf(`{"route":%q}`, name))
	} else {
		file := parts[2]
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if r.Body, err = os.ReadFile(file); err != nil {
			return nil, fmt.Errorf("--route %s: cannot read its body: %w", name, err)
		}
		if !json.Valid(r.Body) {
			return nil, fmt.Errorf("--route %s: body %s is not valid JSON", name, file)
		}
	}
	if parts[3] != "" {
		if r.Fail, err = parseFailure(parts[3]); err != nil {
			return nil, fmt.Errorf("--route %s: %w", name, err)
		}
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	stream := h.Sum64()
	// Two streams per route, so declaring a failure does not change the delays.
	r.delays = rand.New(rand.NewPCG(seed, stream))
	r.fails = rand.New(rand.NewPCG(seed, stream^0x9e3779b97f4a7c15))
	return r, nil
}

func parseFailure(text string) (*Failure, error) {
	bad := fmt.Errorf("failure %q: expected fail(SHARE,500) or fail(SHARE,hang(DURATION)), e.g. fail(1%%,500)", text)
	inner, ok := strings.CutPrefix(text, "fail(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return nil, bad
	}
	shareText, kind, ok := strings.Cut(strings.TrimSuffix(inner, ")"), ",")
	if !ok {
		return nil, bad
	}
	share, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(shareText), "%"), 64)
	if err != nil || share < 0 || share > 100 {
		return nil, fmt.Errorf("failure %q: share %q is not a percentage between 0%% and 100%%", text, shareText)
	}
	f := &Failure{Share: share / 100}
	kind = strings.TrimSpace(kind)
	switch {
	case kind == "500":
		f.Kind = Fail500
	case strings.HasPrefix(kind, "hang(") && strings.HasSuffix(kind, ")"):
		f.Kind = FailHang
		f.Hang, err = time.ParseDuration(strings.TrimSuffix(strings.TrimPrefix(kind, "hang("), ")"))
		if err != nil || f.Hang <= 0 {
			return nil, fmt.Errorf("failure %q: hang needs a duration > 0 such as hang(10s)", text)
		}
	default:
		return nil, bad
	}
	return f, nil
}

// Matches reports whether path (no query) is this route's pattern.
func (r *Route) Matches(path string) bool {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) != len(r.segments) {
		return false
	}
	for i, want := range r.segments {
		if r.param[i] && segs[i] == "" || !r.param[i] && want != segs[i] {
			return false
		}
	}
	return true
}

// Next draws the next arriving request's delay and failure.
func (r *Route) Next() Draw {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := Draw{Delay: r.Delay.Draw(r.delays)}
	if r.Fail != nil && r.fails.Float64() < r.Fail.Share {
		d.Fail = r.Fail
	}
	return d
}
