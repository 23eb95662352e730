package contract

import "testing"

func TestReadSettings(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	s, err := ReadSettings(env(nil))
	if err != nil || s != (Settings{Host: "127.0.0.1", Port: 8080, WorkFactor: 1}) {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	s, err = ReadSettings(env(map[string]string{"PORT": "9000", "WORK_FACTOR": "10", "LOG_REQUESTS": "true", "HOST": "0.0.0.0", "METRICS": "true"}))
	if err != nil || s != (Settings{Host: "0.0.0.0", Port: 9000, WorkFactor: 10, LogRequests: true, Metrics: true}) {
		t.Fatalf("set: %+v %v", s, err)
	}
	for _, bad := range []map[string]string{
		{"WORK_FACTOR": "0"}, {"WORK_FACTOR": "-3"}, {"WORK_FACTOR": "ten"}, {"WORK_FACTOR": "1.5"},
		{"PORT": "http"}, {"PORT": "70000"}, {"PORT": "-1"}, {"LOG_REQUESTS": "yes"}, {"METRICS": "on"},
	} {
		if _, err := ReadSettings(env(bad)); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}
