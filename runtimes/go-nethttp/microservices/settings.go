package microservices

import (
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// Settings is the scenarios' environment (runtimes/CONTRACT.md,
// "Microservices", Environment), read once at start.
type Settings struct {
	DatabaseURL string // DATABASE_URL; empty: the product endpoints answer 503
	PoolSize    int    // DB_POOL_SIZE, >= 1, default 20: minimum = maximum
	// Downstreams are PROFILE_URL, ORDERS_URL and RECOMMENDATIONS_URL (all
	// three or none; none: the dashboard answers 503).
	ProfileURL, OrdersURL, RecommendationsURL string
	DownstreamTimeout                         time.Duration // DOWNSTREAM_TIMEOUT_MS, >= 1, default 1000
}

// DefaultPoolSize and DefaultDownstreamTimeout are the contract's defaults.
const (
	DefaultPoolSize          = 20
	DefaultDownstreamTimeout = 1000 * time.Millisecond
)

// DownstreamsConfigured says whether the dashboard has its three URLs.
func (s Settings) DownstreamsConfigured() bool { return s.ProfileURL != "" }

// ReadSettings reads the settings through getenv (os.Getenv in main); an
// empty value counts as unset. A bad value is an error naming the variable,
// so the service stops at start instead of running with a silent default;
// so is a partial set of downstream URLs.
func ReadSettings(getenv func(string) string) (Settings, error) {
	s := Settings{DatabaseURL: getenv("DATABASE_URL"), PoolSize: DefaultPoolSize, DownstreamTimeout: DefaultDownstreamTimeout}
	if v := getenv("DB_POOL_SIZE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return s, fmt.Errorf("DB_POOL_SIZE=%q: want an integer >= 1", v)
		}
		s.PoolSize = n
	}
	if v := getenv("DOWNSTREAM_TIMEOUT_MS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return s, fmt.Errorf("DOWNSTREAM_TIMEOUT_MS=%q: want an integer >= 1 (milliseconds)", v)
		}
		s.DownstreamTimeout = time.Duration(n) * time.Millisecond
	}
	urls := []struct {
		name string
		dst  *string
	}{{"PROFILE_URL", &s.ProfileURL}, {"ORDERS_URL", &s.OrdersURL}, {"RECOMMENDATIONS_URL", &s.RecommendationsURL}}
	set := 0
	for _, u := range urls {
		v := getenv(u.name)
		if v == "" {
			continue
		}
		parsed, err := url.Parse(v)
		if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
			return s, fmt.Errorf("%s=%q: want a base URL such as http://127.0.0.1:9001", u.name, v)
		}
		*u.dst = v
		set++
	}
	if set != 0 && set != len(urls) {
		return s, fmt.Errorf("PROFILE_URL, ORDERS_URL and RECOMMENDATIONS_URL: %d of 3 set; set all three or none", set)
	}
	return s, nil
}
