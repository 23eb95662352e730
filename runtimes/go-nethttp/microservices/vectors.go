package microservices

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Vectors is runtimes/contract/microservices.json, written by
// microservices.py: what every service's own tests and runner verify check.
type Vectors struct {
	Orders    []OrderVector   `json:"orders"`
	Products  []ProductVector `json:"products"`
	Dashboard struct {
		Downstreams map[string][]string `json:"downstreams"`
		Cases       []DashboardVector   `json:"cases"`
	} `json:"dashboard"`
}

// OrderVector is one POST /api/orders/calculate body and its answer: the
// whole body on a 200, `invalid` on a 422, nothing on a 400.
type OrderVector struct {
	Name     string          `json:"name"`
	Body     string          `json:"body"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
}

// ProductVector is one step of the CRUD sequence, run in order on a freshly
// seeded table.
type ProductVector struct {
	Name     string          `json:"name"`
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Body     *string         `json:"body"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
}

// DashboardVector is one dashboard request; Response lists only the fields
// compared.
type DashboardVector struct {
	Name     string                     `json:"name"`
	Method   string                     `json:"method"` // empty means GET
	Path     string                     `json:"path"`
	Status   int                        `json:"status"`
	Response map[string]json.RawMessage `json:"response"`
}

// LoadVectors finds contract/microservices.json by walking up from the
// working directory (go test runs in the package's folder), or reads
// $MICROSERVICES_VECTORS if set.
func LoadVectors() (*Vectors, error) {
	path := os.Getenv("MICROSERVICES_VECTORS")
	if path == "" {
		dir, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		for {
			p := filepath.Join(dir, "contract", "microservices.json")
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil, fmt.Errorf("contract/microservices.json not found above the working directory; set MICROSERVICES_VECTORS")
			}
			dir = parent
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v Vectors
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(v.Orders) == 0 || len(v.Products) == 0 || len(v.Dashboard.Cases) == 0 {
		return nil, fmt.Errorf("%s: missing orders, products or dashboard vectors", path)
	}
	return &v, nil
}
