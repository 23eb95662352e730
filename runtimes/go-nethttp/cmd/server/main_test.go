package main

import "testing"

func TestReadConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	cfg, err := readConfig(env(nil))
	if err != nil || cfg != (config{host: "127.0.0.1", port: 8080, workFactor: 1}) {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	cfg, err = readConfig(env(map[string]string{"PORT": "9000", "WORK_FACTOR": "10", "LOG_REQUESTS": "true", "HOST": "0.0.0.0", "METRICS": "true"}))
	if err != nil || cfg != (config{host: "0.0.0.0", port: 9000, workFactor: 10, logRequests: true, metrics: true}) {
		t.Fatalf("set: %+v %v", cfg, err)
	}
	for _, bad := range []map[string]string{
		{"WORK_FACTOR": "0"}, {"WORK_FACTOR": "-3"}, {"WORK_FACTOR": "ten"}, {"WORK_FACTOR": "1.5"},
		{"PORT": "http"}, {"PORT": "70000"}, {"PORT": "-1"}, {"LOG_REQUESTS": "yes"}, {"METRICS": "on"},
	} {
		if _, err := readConfig(env(bad)); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}
