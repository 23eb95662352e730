package microservices

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func readStubBody(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "contract", "downstream", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The stubs' bodies aggregate to the dashboard-ok vector's answer.
func TestAggregateVector(t *testing.T) {
	v, err := LoadVectors()
	if err != nil {
		t.Fatal(err)
	}
	profile, err := ParseProfile(readStubBody(t, "profile"))
	if err != nil {
		t.Fatal(err)
	}
	orders, err := ParseOrders(readStubBody(t, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseRecommendations(readStubBody(t, "recommendations"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(Aggregate(42, profile, orders, recs))
	for _, c := range v.Dashboard.Cases {
		if c.Name != "dashboard-ok" {
			continue
		}
		want, _ := json.Marshal(c.Response)
		if !sameJSON(t, got, want) {
			t.Errorf("aggregate\n %s\nwant\n %s", got, want)
		}
		return
	}
	t.Fatal("no dashboard-ok vector")
}

func TestDownstreamBodiesOfTheWrongShape(t *testing.T) {
	for _, b := range []string{``, `[]`, `"x"`, `null`, `{"name":`} {
		if _, err := ParseProfile([]byte(b)); err == nil {
			t.Errorf("profile %q: want an error", b)
		}
	}
	for _, b := range []string{``, `{}`, `{"orders":null}`, `{"orders":{}}`, `{"orders":[{"id":"O-1"}]}`, `{"orders":[{"totalCents":2.5}]}`, `{"orders":[{"totalCents":"1"}]}`} {
		if _, err := ParseOrders([]byte(b)); err == nil {
			t.Errorf("orders %q: want an error", b)
		}
	}
	for _, b := range []string{``, `{}`, `{"items":null}`, `{"items":7}`} {
		if _, err := ParseRecommendations([]byte(b)); err == nil {
			t.Errorf("recommendations %q: want an error", b)
		}
	}
	part, err := ParseOrders([]byte(`{"orders":[]}`))
	if err != nil || part.Count != 0 || part.TotalCents != 0 {
		t.Errorf("no orders: %+v %v", part, err)
	}
}
