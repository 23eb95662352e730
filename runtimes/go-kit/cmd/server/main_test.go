package main

import "testing"

func TestReadConfig(t *testing.T) {
	env := map[string]string{"PORT": "9001", "WORK_FACTOR": "10", "LOG_REQUESTS": "true", "METRICS": "true"}
	cfg, err := readConfig(func(k string) string { return env[k] })
	if err != nil || cfg.port != 9001 || cfg.workFactor != 10 || !cfg.logRequests || !cfg.metrics {
		t.Fatalf("%+v %v", cfg, err)
	}
	for _, bad := range []map[string]string{{"PORT": "x"}, {"WORK_FACTOR": "0"}, {"LOG_REQUESTS": "yes please"}, {"METRICS": "2"}} {
		if _, err := readConfig(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}
