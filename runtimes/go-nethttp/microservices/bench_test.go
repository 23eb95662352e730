package microservices

import (
	"encoding/json"
	"testing"
)

// benchOrder times the order API's pure work on one vector's body: decode,
// validate, price and encode (the CPU-bound scenario without HTTP).
func benchOrder(b *testing.B, name string) {
	v, err := LoadVectors()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range v.Orders {
		if c.Name != name {
			continue
		}
		body := []byte(c.Body)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			p, err := CalculateOrder(body)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.Fatalf("no order vector %q", name)
}

// go test -run '^$' -bench Order ./microservices
func BenchmarkOrderSimple(b *testing.B)  { benchOrder(b, "simple-eu") }
func BenchmarkOrderMany(b *testing.B)    { benchOrder(b, "many-lines") }
func BenchmarkOrderLargest(b *testing.B) { benchOrder(b, "largest") }
