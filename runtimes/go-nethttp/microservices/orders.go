package microservices

import "fmt"

// taxBasisPoints is the tax rate per region (725 = 7.25%).
var taxBasisPoints = map[string]int64{"US": 725, "EU": 2000, "UK": 2000, "APAC": 1000}

// lineDiscountPercent is the percent off a line per discount code (BULK10
// only from 10 pieces: see lineDiscount).
var lineDiscountPercent = map[string]int64{"SAVE10": 10, "SAVE25": 25, "BULK10": 10}

// orderTiers is the tiered order discount: from MinCents of items (after
// line discounts), Percent off; the first tier that applies wins.
var orderTiers = []struct{ MinCents, Percent int64 }{{100_000, 10}, {50_000, 5}, {10_000, 2}}

const (
	maxItems     = 100
	maxQuantity  = 1000
	maxUnitCents = 10_000_000
)

// Order is a valid order of POST /api/orders/calculate.
type Order struct {
	OrderID    string
	CustomerID string
	Region     string
	Items      []Item
}

// Item is one line of an Order; DiscountCode is nil without a code.
type Item struct {
	SKU            string
	Quantity       int64
	UnitPriceCents int64
	DiscountCode   *string
}

// PricedOrder is the answer of POST /api/orders/calculate, members in the
// contract's order.
type PricedOrder struct {
	OrderID              string       `json:"orderId"`
	CustomerID           string       `json:"customerId"`
	Region               string       `json:"region"`
	Lines                []PricedLine `json:"lines"`
	ItemCount            int64        `json:"itemCount"`
	ItemsTotalCents      int64        `json:"itemsTotalCents"`
	OrderDiscountPercent int64        `json:"orderDiscountPercent"`
	OrderDiscountCents   int64        `json:"orderDiscountCents"`
	TaxRateBasisPoints   int64        `json:"taxRateBasisPoints"`
	TaxCents             int64        `json:"taxCents"`
	TotalCents           int64        `json:"totalCents"`
}

// PricedLine is one priced line; DiscountCode encodes as null without one.
type PricedLine struct {
	SKU            string  `json:"sku"`
	Quantity       int64   `json:"quantity"`
	UnitPriceCents int64   `json:"unitPriceCents"`
	SubtotalCents  int64   `json:"subtotalCents"`
	DiscountCode   *string `json:"discountCode"`
	DiscountCents  int64   `json:"discountCents"`
	TotalCents     int64   `json:"totalCents"`
}

// CalculateOrder is the whole order API on one body: a *MalformedError
// (400), a *ValidationError (422) or the priced order (200).
func CalculateOrder(body []byte) (*PricedOrder, error) {
	order, err := ParseOrder(body)
	if err != nil {
		return nil, err
	}
	return Price(order), nil
}

// ParseOrder decodes and validates an order body.
func ParseOrder(body []byte) (*Order, error) {
	v, err := decode(body)
	if err != nil {
		return nil, err
	}
	c := collector{}
	order, err := readOrder(c, v)
	if err = finish(c, err); err != nil {
		return nil, err
	}
	return order, nil
}

// readOrder walks the body in the reference's order (microservices.py
// validate), collecting value errors in c.
func readOrder(c collector, v any) (*Order, error) {
	root, err := object(v, "$")
	if err != nil {
		return nil, err
	}
	o := &Order{}
	if o.OrderID, err = identifier(c, root, "orderId", "orderId"); err != nil {
		return nil, err
	}
	switch cust := root["customer"].(type) {
	case nil:
		c.add("customer", "is required")
	case map[string]any:
		if o.CustomerID, err = identifier(c, cust, "id", "customer.id"); err != nil {
			return nil, err
		}
		region, ok, err := text(c, cust, "region", "customer.region")
		if err != nil {
			return nil, err
		}
		if _, known := taxBasisPoints[region]; ok && !known {
			c.add("customer.region", "must be one of US, EU, UK, APAC")
		}
		o.Region = region
	default:
		return nil, &typeMismatch{"customer", "an object"}
	}
	switch items := root["items"].(type) {
	case nil:
		c.add("items", "is required")
	case []any:
		if len(items) < 1 || len(items) > maxItems {
			c.add("items", fmt.Sprintf("must hold 1 to %d items", maxItems))
			break
		}
		o.Items = make([]Item, len(items))
		for i, raw := range items {
			if err := readItem(c, raw, fmt.Sprintf("items[%d]", i), &o.Items[i]); err != nil {
				return nil, err
			}
		}
	default:
		return nil, &typeMismatch{"items", "an array"}
	}
	return o, nil
}

func readItem(c collector, raw any, path string, it *Item) error {
	item, err := object(raw, path)
	if err != nil {
		return err
	}
	sku, ok, err := text(c, item, "sku", path+".sku")
	if err != nil {
		return err
	}
	if ok && !isSKU(sku) {
		c.add(path+".sku", "must match ^[A-Z0-9-]{1,32}$")
	}
	it.SKU = sku
	if it.Quantity, _, err = integer(c, item, "quantity", path+".quantity", 1, maxQuantity); err != nil {
		return err
	}
	if it.UnitPriceCents, _, err = integer(c, item, "unitPriceCents", path+".unitPriceCents", 0, maxUnitCents); err != nil {
		return err
	}
	switch code := item["discountCode"].(type) {
	case nil: // optional: absent or null
	case string:
		if _, known := lineDiscountPercent[code]; !known {
			c.add(path+".discountCode", "must be one of SAVE10, SAVE25, BULK10")
		}
		it.DiscountCode = &code
	default:
		return &typeMismatch{path + ".discountCode", "a string"}
	}
	return nil
}

// identifier reads a required string matching ^[A-Za-z0-9-]{1,64}$.
func identifier(c collector, obj map[string]any, key, path string) (string, error) {
	s, ok, err := text(c, obj, key, path)
	if ok && !isIdentifier(s) {
		c.add(path, "must match ^[A-Za-z0-9-]{1,64}$")
	}
	return s, err
}

// isIdentifier is ^[A-Za-z0-9-]{1,64}$ on the whole string, written out
// rather than as a regexp: the order API is the CPU-bound scenario and a
// character class costs a loop here, a regexp machine there.
func isIdentifier(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-') {
			return false
		}
	}
	return true
}

// isSKU is ^[A-Z0-9-]{1,32}$ on the whole string.
func isSKU(s string) bool {
	if len(s) < 1 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-') {
			return false
		}
	}
	return true
}

// share is a*n/d rounded half up on non-negative integers (every d is even).
func share(a, n, d int64) int64 { return (a*n + d/2) / d }

// lineDiscount is the percent a line's code gives (BULK10 nothing below 10).
func lineDiscount(it Item) int64 {
	if it.DiscountCode == nil {
		return 0
	}
	if *it.DiscountCode == "BULK10" && it.Quantity < 10 {
		return 0
	}
	return lineDiscountPercent[*it.DiscountCode]
}

// Price applies the contract's pricing rules to a valid order.
func Price(o *Order) *PricedOrder {
	p := &PricedOrder{OrderID: o.OrderID, CustomerID: o.CustomerID, Region: o.Region, Lines: make([]PricedLine, len(o.Items))}
	for i, it := range o.Items {
		subtotal := it.Quantity * it.UnitPriceCents
		discount := share(subtotal, lineDiscount(it), 100)
		p.Lines[i] = PricedLine{
			SKU: it.SKU, Quantity: it.Quantity, UnitPriceCents: it.UnitPriceCents,
			SubtotalCents: subtotal, DiscountCode: it.DiscountCode,
			DiscountCents: discount, TotalCents: subtotal - discount,
		}
		p.ItemsTotalCents += subtotal - discount
		p.ItemCount += it.Quantity
	}
	for _, t := range orderTiers {
		if p.ItemsTotalCents >= t.MinCents {
			p.OrderDiscountPercent = t.Percent
			break
		}
	}
	p.OrderDiscountCents = share(p.ItemsTotalCents, p.OrderDiscountPercent, 100)
	taxable := p.ItemsTotalCents - p.OrderDiscountCents
	p.TaxRateBasisPoints = taxBasisPoints[o.Region]
	p.TaxCents = share(taxable, p.TaxRateBasisPoints, 10_000)
	p.TotalCents = taxable + p.TaxCents
	return p
}
