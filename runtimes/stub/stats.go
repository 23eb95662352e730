package main

import (
	"math/bits"
	"sync"
	"time"
)

// The histogram below is written here rather than taken from a module: the
// stub needs count, mean, two quantiles and the max of one route since a
// reset, and ~40 lines do that with no download. Values are microseconds;
// below 512 µs every value has its own bucket, above it each power of two
// is split into 256 buckets, so a quantile is within 0.4% of the true value
// (an HdrHistogram with 2-3 significant digits does the same).
const (
	exactBelow = 512
	subBuckets = 256
	// Covers up to 2^40 µs (12 days): nothing real is longer.
	maxShift = 31
	buckets  = exactBelow + maxShift*subBuckets
)

// Histogram records latencies of one route; the caller locks.
type Histogram struct {
	counts [buckets]uint64
	count  uint64
	sumUS  uint64
	maxUS  uint64
}

func bucketOf(us uint64) int {
	if us < exactBelow {
		return int(us)
	}
	shift := bits.Len64(us) - 9 // us>>shift is in [256, 512)
	if shift > maxShift {
		return buckets - 1
	}
	return exactBelow + (shift-1)*subBuckets + int(us>>shift) - subBuckets
}

// bucketValue is the middle of a bucket's range, in µs.
func bucketValue(i int) float64 {
	if i < exactBelow {
		return float64(i)
	}
	shift := (i-exactBelow)/subBuckets + 1
	low := uint64((i-exactBelow)%subBuckets+subBuckets) << shift
	return float64(low) + float64(uint64(1)<<shift-1)/2
}

func (h *Histogram) Record(d time.Duration) {
	us := uint64(max(d, 0) / time.Microsecond)
	h.counts[bucketOf(us)]++
	h.count++
	h.sumUS += us
	h.maxUS = max(h.maxUS, us)
}

// Quantile is the smallest recorded value (bucket middle, in µs) with at
// least q of the values at or below it; 0 when empty.
func (h *Histogram) Quantile(q float64) float64 {
	if h.count == 0 {
		return 0
	}
	rank := uint64(q*float64(h.count) + 0.999999)
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(bucketValue(i), float64(h.maxUS))
		}
	}
	return float64(h.maxUS)
}

// RouteFigures is one route's entry of GET /__stats (the interface in
// runner's docs: count, mean, p50, p99, max in milliseconds).
type RouteFigures struct {
	Count  uint64  `json:"count"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Stats holds every route's histogram since the last reset.
type Stats struct {
	mu     sync.Mutex
	routes map[string]*Histogram
}

func NewStats(routes []*Route) *Stats {
	s := &Stats{routes: map[string]*Histogram{}}
	for _, r := range routes {
		s.routes[r.Name] = &Histogram{}
	}
	return s
}

func (s *Stats) Record(route string, d time.Duration) {
	s.mu.Lock()
	s.routes[route].Record(d)
	s.mu.Unlock()
}

// Reset zeroes every route's figures.
func (s *Stats) Reset() {
	s.mu.Lock()
	for name := range s.routes {
		s.routes[name] = &Histogram{}
	}
	s.mu.Unlock()
}

// Snapshot is every declared route's figures (zeros for a route not called).
func (s *Stats) Snapshot() map[string]RouteFigures {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]RouteFigures, len(s.routes))
	for name, h := range s.routes {
		f := RouteFigures{Count: h.count}
		if h.count > 0 {
			f.MeanMS = float64(h.sumUS) / float64(h.count) / 1000
			f.P50MS = h.Quantile(0.50) / 1000
			f.P99MS = h.Quantile(0.99) / 1000
			f.MaxMS = float64(h.maxUS) / 1000
		}
		out[name] = f
	}
	return out
}
