package microservices

import (
	"testing"
	"time"
)

func TestReadSettings(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := ReadSettings(env(nil))
	if err != nil || s != (Settings{PoolSize: 20, DownstreamTimeout: time.Second}) || s.DownstreamsConfigured() {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	s, err = ReadSettings(env(map[string]string{
		"DATABASE_URL": "postgresql://bench:bench@127.0.0.1:5432/bench", "DB_POOL_SIZE": "8", "DOWNSTREAM_TIMEOUT_MS": "250",
		"PROFILE_URL": "http://127.0.0.1:9001", "ORDERS_URL": "http://127.0.0.1:9002", "RECOMMENDATIONS_URL": "http://127.0.0.1:9003",
	}))
	want := Settings{DatabaseURL: "postgresql://bench:bench@127.0.0.1:5432/bench", PoolSize: 8, DownstreamTimeout: 250 * time.Millisecond,
		ProfileURL: "http://127.0.0.1:9001", OrdersURL: "http://127.0.0.1:9002", RecommendationsURL: "http://127.0.0.1:9003"}
	if err != nil || s != want || !s.DownstreamsConfigured() {
		t.Fatalf("set: %+v %v", s, err)
	}
	for _, bad := range []map[string]string{
		{"DB_POOL_SIZE": "0"}, {"DB_POOL_SIZE": "twenty"}, {"DOWNSTREAM_TIMEOUT_MS": "0"}, {"DOWNSTREAM_TIMEOUT_MS": "1.5"},
		{"PROFILE_URL": "http://127.0.0.1:9001"}, {"PROFILE_URL": "127.0.0.1:9001", "ORDERS_URL": "http://a", "RECOMMENDATIONS_URL": "http://b"},
	} {
		if _, err := ReadSettings(env(bad)); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}
