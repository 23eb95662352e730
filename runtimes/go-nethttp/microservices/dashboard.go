package microservices

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The three downstreams of GET /api/dashboard/{userId}, as the 502 names
// them.
const (
	Profile         = "profile"
	Orders          = "orders"
	Recommendations = "recommendations"
)

// DownstreamError is a downstream that failed: the dashboard's 502.
type DownstreamError struct {
	Downstream string // Profile, Orders or Recommendations
	Reason     string // free text: "status 500", "timeout after 1000 ms", ...
}

func (e *DownstreamError) Error() string { return e.Downstream + ": " + e.Reason }

// Dashboard is the answer of GET /api/dashboard/{userId}: the downstreams'
// parts as received, and the orders' count and sum.
type Dashboard struct {
	UserID          int64           `json:"userId"`
	Profile         json.RawMessage `json:"profile"`
	RecentOrders    json.RawMessage `json:"recentOrders"`
	OrderCount      int             `json:"orderCount"`
	TotalSpentCents int64           `json:"totalSpentCents"`
	Recommendations json.RawMessage `json:"recommendations"`
}

// OrdersPart is what the dashboard takes from the orders answer.
type OrdersPart struct {
	Recent     json.RawMessage // the `orders` array as received
	Count      int
	TotalCents int64
}

// errShape is a downstream body that is not the JSON expected of it.
var errShape = errors.New("unexpected body")

// ParseProfile checks the profile answer is a JSON object and keeps it as
// received.
func ParseProfile(body []byte) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%w: want a JSON object", errShape)
	}
	return json.RawMessage(bytes.TrimSpace(body)), nil
}

// ParseOrders reads the orders answer {"orders": [{"totalCents": N, ...}]}:
// every order must carry an integer totalCents.
func ParseOrders(body []byte) (OrdersPart, error) {
	var doc struct {
		Orders json.RawMessage `json:"orders"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return OrdersPart{}, fmt.Errorf("%w: %v", errShape, err)
	}
	var orders []struct {
		TotalCents *int64 `json:"totalCents"`
	}
	if err := json.Unmarshal(doc.Orders, &orders); err != nil || orders == nil {
		return OrdersPart{}, fmt.Errorf("%w: want an `orders` array of objects with an integer totalCents", errShape)
	}
	part := OrdersPart{Recent: doc.Orders, Count: len(orders)}
	for i, o := range orders {
		if o.TotalCents == nil {
			return OrdersPart{}, fmt.Errorf("%w: orders[%d] has no totalCents", errShape, i)
		}
		part.TotalCents += *o.TotalCents
	}
	return part, nil
}

// ParseRecommendations reads the recommendations answer {"items": [...]}
// and keeps the array as received.
func ParseRecommendations(body []byte) (json.RawMessage, error) {
	var doc struct {
		Items json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", errShape, err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(doc.Items, &items); err != nil || items == nil {
		return nil, fmt.Errorf("%w: want an `items` array", errShape)
	}
	return doc.Items, nil
}

// Aggregate builds the dashboard from the three parsed parts.
func Aggregate(userID int64, profile json.RawMessage, orders OrdersPart, recommendations json.RawMessage) Dashboard {
	return Dashboard{
		UserID:          userID,
		Profile:         profile,
		RecentOrders:    orders.Recent,
		OrderCount:      orders.Count,
		TotalSpentCents: orders.TotalCents,
		Recommendations: recommendations,
	}
}
