package microservices

import (
	"errors"
	"fmt"
	"net/url"
	"unicode/utf8"
)

const (
	maxNameChars    = 200
	maxPriceCents   = 1_000_000_000
	maxStock        = 1_000_000
	defaultLimit    = 20
	maxLimit        = 100
	maxOffset       = 1_000_000
	maxCanonicalLen = 18
)

// Product is a row of the products table as the API answers it.
type Product struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	PriceCents int64  `json:"priceCents"`
	Stock      int64  `json:"stock"`
}

// ProductInput is a valid body of POST /api/products and PUT
// /api/products/{id}.
type ProductInput struct {
	Name       string
	PriceCents int64
	Stock      int64
}

// ParseProduct decodes and validates a product body: a *MalformedError
// (400), a *ValidationError (422) or the input.
func ParseProduct(body []byte) (ProductInput, error) {
	v, err := decode(body)
	if err != nil {
		return ProductInput{}, err
	}
	c := collector{}
	in, err := readProduct(c, v)
	if err = finish(c, err); err != nil {
		return ProductInput{}, err
	}
	return in, nil
}

func readProduct(c collector, v any) (ProductInput, error) {
	var in ProductInput
	obj, err := object(v, "$")
	if err != nil {
		return in, err
	}
	name, ok, err := text(c, obj, "name", "name")
	if err != nil {
		return in, err
	}
	if n := utf8.RuneCountInString(name); ok && (n < 1 || n > maxNameChars) {
		c.add("name", fmt.Sprintf("must be 1 to %d characters", maxNameChars))
	}
	in.Name = name
	if in.PriceCents, _, err = integer(c, obj, "priceCents", "priceCents", 0, maxPriceCents); err != nil {
		return in, err
	}
	in.Stock, _, err = integer(c, obj, "stock", "stock", 0, maxStock)
	return in, err
}

// CanonicalID parses an id path segment (/api/products/{id},
// /api/dashboard/{userId}): ASCII digits, no sign, no leading zero, at most
// 18 digits. Anything else names nothing (a 404), so ok is false.
func CanonicalID(s string) (int64, bool) {
	n, ok := canonicalInt(s)
	return n, ok && n > 0
}

// canonicalInt is "0" or a canonical positive integer of at most 18 digits
// (which always fits an int64).
func canonicalInt(s string) (int64, bool) {
	if len(s) < 1 || len(s) > maxCanonicalLen || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, true
}

// Page is the list's LIMIT and OFFSET.
type Page struct {
	Limit  int64 `json:"limit"`
	Offset int64 `json:"offset"`
}

// ErrPage is a limit or offset that is not a canonical integer in range: a
// 400.
var ErrPage = errors.New("limit must be an integer 1 to 100 and offset an integer 0 to 1000000")

// ListPage reads GET /api/products?limit=L&offset=O (defaults 20 and 0).
// A parameter given but empty is not a canonical integer.
func ListPage(q url.Values) (Page, error) {
	p := Page{Limit: defaultLimit}
	if vs, ok := q["limit"]; ok {
		n, ok := canonicalInt(vs[0])
		if !ok || n < 1 || n > maxLimit {
			return p, ErrPage
		}
		p.Limit = n
	}
	if vs, ok := q["offset"]; ok {
		n, ok := canonicalInt(vs[0])
		if !ok || n > maxOffset {
			return p, ErrPage
		}
		p.Offset = n
	}
	return p, nil
}

// ProductList is the answer of GET /api/products.
type ProductList struct {
	Items  []Product `json:"items"`
	Limit  int64     `json:"limit"`
	Offset int64     `json:"offset"`
}
