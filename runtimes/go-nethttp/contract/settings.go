package contract

import (
	"fmt"
	"strconv"
)

// Settings is the contract's environment (runtimes/CONTRACT.md) as the Go
// services read it: one parser for go-nethttp and go-kit, so both refuse a
// bad value alike instead of running with a silent default.
type Settings struct {
	Host        string // HOST, default 127.0.0.1
	Port        int    // PORT, 0..65535 (0: any free port), default 8080
	WorkFactor  int    // WORK_FACTOR, >= 1, default 1
	LogRequests bool   // LOG_REQUESTS: one log line per request
	Metrics     bool   // METRICS: count and time every request, serve /metrics
}

// ReadSettings reads the settings through getenv (os.Getenv in main); an
// empty value counts as unset.
func ReadSettings(getenv func(string) string) (Settings, error) {
	s := Settings{Host: "127.0.0.1", Port: 8080, WorkFactor: 1}
	if v := getenv("HOST"); v != "" {
		s.Host = v
	}
	if v := getenv("PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return s, fmt.Errorf("PORT=%q: want an integer port in 0..65535", v)
		}
		s.Port = p
	}
	if v := getenv("WORK_FACTOR"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return s, fmt.Errorf("WORK_FACTOR=%q: want an integer >= 1", v)
		}
		s.WorkFactor = n
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"LOG_REQUESTS", &s.LogRequests}, {"METRICS", &s.Metrics}} {
		if v := getenv(f.name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return s, fmt.Errorf("%s=%q: want true or false", f.name, v)
			}
			*f.dst = b
		}
	}
	return s, nil
}
