#!/usr/bin/env python3
"""The reference implementation of the microservices scenarios' pure rules.

runtimes/CONTRACT.md ("Microservices") states the rules in prose; this file
states the order API's validation and pricing in code, and writes
microservices.json, the vectors every service's own tests load:

    python3 runtimes/contract/microservices.py          # rewrite microservices.json
    python3 runtimes/contract/microservices.py --check  # exit 1 if it is stale

Why a script: the prices must agree to the cent across five languages, and a
vector computed by hand is one more implementation that can be wrong. This one
uses only integers, exactly as the contract's rounding rule is written.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "microservices.json"

REGIONS = {"US": 725, "EU": 2000, "UK": 2000, "APAC": 1000}  # tax, basis points
LINE_CODES = {"SAVE10": 10, "SAVE25": 25, "BULK10": 10}  # percent off the line
ORDER_TIERS = [(100_000, 10), (50_000, 5), (10_000, 2)]  # items total >= cents -> percent
ID_RE = re.compile(r"^[A-Za-z0-9-]{1,64}$")
SKU_RE = re.compile(r"^[A-Z0-9-]{1,32}$")


def share(amount, numerator, denominator):
    """amount * numerator / denominator rounded half up, on non-negative integers."""
    return (amount * numerator + denominator // 2) // denominator


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class TypeMismatch(Exception):
    def __init__(self, field):
        self.field = field


def validate(order):
    """The sorted list of invalid field paths (empty when valid)."""
    if not isinstance(order, dict):
        raise TypeMismatch("$")
    bad = set()

    def text(obj, key, path, pattern):
        v = obj.get(key)
        if v is None:
            bad.add(path)
        elif not isinstance(v, str):
            raise TypeMismatch(path)
        elif not pattern.fullmatch(v):  # not match: its $ also matches before a final newline
            bad.add(path)

    def integer(obj, key, path, lo, hi):
        v = obj.get(key)
        if v is None:
            bad.add(path)
        elif not is_int(v):
            raise TypeMismatch(path)
        elif not lo <= v <= hi:
            bad.add(path)

    text(order, "orderId", "orderId", ID_RE)
    customer = order.get("customer")
    if customer is None:
        bad.add("customer")
    elif not isinstance(customer, dict):
        raise TypeMismatch("customer")
    else:
        text(customer, "id", "customer.id", ID_RE)
        region = customer.get("region")
        if region is None:
            bad.add("customer.region")
        elif not isinstance(region, str):
            raise TypeMismatch("customer.region")
        elif region not in REGIONS:
            bad.add("customer.region")
    items = order.get("items")
    if items is None:
        bad.add("items")
    elif not isinstance(items, list):
        raise TypeMismatch("items")
    elif not 1 <= len(items) <= 100:
        bad.add("items")
    else:
        for i, item in enumerate(items):
            p = f"items[{i}]"
            if not isinstance(item, dict):
                raise TypeMismatch(p)
            text(item, "sku", p + ".sku", SKU_RE)
            integer(item, "quantity", p + ".quantity", 1, 1000)
            integer(item, "unitPriceCents", p + ".unitPriceCents", 0, 10_000_000)
            code = item.get("discountCode")
            if code is not None:
                if not isinstance(code, str):
                    raise TypeMismatch(p + ".discountCode")
                if code not in LINE_CODES:
                    bad.add(p + ".discountCode")
    return sorted(bad)


def price(order):
    lines = []
    for item in order["items"]:
        qty, unit = item["quantity"], item["unitPriceCents"]
        code = item.get("discountCode")
        subtotal = qty * unit
        pct = LINE_CODES.get(code, 0) if code else 0
        if code == "BULK10" and qty < 10:
            pct = 0
        discount = share(subtotal, pct, 100)
        lines.append(
            {
                "sku": item["sku"],
                "quantity": qty,
                "unitPriceCents": unit,
                "subtotalCents": subtotal,
                "discountCode": code,
                "discountCents": discount,
                "totalCents": subtotal - discount,
            }
        )
    items_total = sum(line["totalCents"] for line in lines)
    order_pct = next((p for floor, p in ORDER_TIERS if items_total >= floor), 0)
    order_discount = share(items_total, order_pct, 100)
    taxable = items_total - order_discount
    rate = REGIONS[order["customer"]["region"]]
    tax = share(taxable, rate, 10_000)
    return {
        "orderId": order["orderId"],
        "customerId": order["customer"]["id"],
        "region": order["customer"]["region"],
        "lines": lines,
        "itemCount": sum(line["quantity"] for line in lines),
        "itemsTotalCents": items_total,
        "orderDiscountPercent": order_pct,
        "orderDiscountCents": order_discount,
        "taxRateBasisPoints": rate,
        "taxCents": tax,
        "totalCents": taxable + tax,
    }


def answer(body_text):
    """(status, body) for one POST /api/orders/calculate body."""
    try:
        order = json.loads(body_text)
    except ValueError:
        return 400, None
    try:
        invalid = validate(order)
    except TypeMismatch as e:
        return 422, {"invalid": [e.field]}
    if invalid:
        return 422, {"invalid": invalid}
    return 200, price(order)


def item(sku, qty, unit, code=None):
    d = {"sku": sku, "quantity": qty, "unitPriceCents": unit}
    if code is not None:
        d["discountCode"] = code
    return d


def order(items, region="EU", order_id="ORD-1001", customer="C-42"):
    return {"orderId": order_id, "customer": {"id": customer, "region": region}, "items": items}


# The order bodies: (name, body). A body is JSON text, sent as is.
ORDER_CASES = [
    ("simple-eu", order([item("BOOK-001", 2, 1999, "SAVE10"), item("PEN-002", 10, 150)])),
    ("no-discounts-us", order([item("MUG-1", 1, 1250)], region="US")),
    # 7.25% of 1 cent is 0.0725: rounds to 0; 7.25% of 7 cents is 0.5075: rounds to 1.
    ("tax-rounds-down", order([item("A", 1, 1)], region="US")),
    ("tax-rounds-up", order([item("A", 1, 7)], region="US")),
    # exact halves round up: 10% of 5 cents is 0.5 -> 1 (the line is then 4, its 20% tax 0.8 -> 1).
    ("half-cent-rounds-up", order([item("A", 1, 5, "SAVE10")], region="UK")),
    ("save25-apac", order([item("LAMP-3", 3, 3333, "SAVE25")], region="APAC")),
    ("bulk10-below-10", order([item("PEN-002", 9, 175, "BULK10")])),
    ("bulk10-at-10", order([item("PEN-002", 10, 150, "BULK10")])),
    # tier edges: 9,999 / 10,000 / 49,999 / 50,000 / 99,999 / 100,000 cents of items.
    ("tier-below-2pct", order([item("A", 1, 9999)])),
    ("tier-2pct", order([item("A", 1, 10000)])),
    ("tier-below-5pct", order([item("A", 1, 49999)])),
    ("tier-5pct", order([item("A", 1, 50000)])),
    ("tier-below-10pct", order([item("A", 1, 99999)])),
    ("tier-10pct", order([item("A", 1, 100000)])),
    # the tier is taken after line discounts: 11,000 - 10% = 9,900, below the 2% tier.
    ("tier-after-line-discount", order([item("A", 1, 11000, "SAVE10")])),
    ("free-item", order([item("GIFT-1", 1, 0), item("A", 2, 333, "SAVE25")], region="US")),
    (
        "many-lines",
        order([item(f"SKU-{i}", 1 + i % 7, 101 * i + 99, ["SAVE10", "SAVE25", "BULK10", None][i % 4]) for i in range(20)], region="US"),
    ),
    ("largest", order([item("GOLD-1", 1000, 10_000_000)] * 100, region="EU")),
    ("null-discount-code", order([{"sku": "A", "quantity": 1, "unitPriceCents": 100, "discountCode": None}])),
    ("unknown-fields-ignored", {**order([{**item("A", 1, 100), "colour": "red"}]), "note": "gift", "priority": 3}),
    # malformed JSON: 400
    ("malformed-truncated", '{"orderId": "ORD-1", "items": ['),
    ("malformed-empty", ""),
    ("malformed-trailing-comma", '{"orderId": "ORD-1",}'),
    ("malformed-garbage", "not json"),
    # invalid values: 422 naming every invalid field, sorted
    ("invalid-everything", {"orderId": "", "customer": {"id": "C 1", "region": "MARS"}, "items": [item("bad sku", 0, -1, "FREE")]}),
    ("invalid-missing-all", {}),
    ("invalid-no-items", order([])),
    ("invalid-too-many-items", order([item("A", 1, 1)] * 101)),
    ("invalid-quantity-too-big", order([item("A", 1001, 1)])),
    ("invalid-price-too-big", order([item("A", 1, 10_000_001)])),
    ("invalid-second-line", order([item("A", 1, 1), item("b", 1, 1)])),
    ("invalid-region-lowercase", order([item("A", 1, 1)], region="eu")),
    ("invalid-null-customer", {"orderId": "ORD-1", "customer": None, "items": [item("A", 1, 1)]}),
    ("invalid-order-id-too-long", order([item("A", 1, 1)], order_id="X" * 65)),
    # a final newline is not part of the pattern (Python's re.match with $ would let it through)
    ("invalid-order-id-trailing-newline", order([item("A", 1, 1)], order_id="ORD-1\n")),
    # wrong JSON types: 422 naming the field (one per case; no coercion)
    ("type-quantity-string", order([{"sku": "A", "quantity": "2", "unitPriceCents": 1}])),
    ("type-quantity-fraction", order([{"sku": "A", "quantity": 2.5, "unitPriceCents": 1}])),
    ("type-quantity-float-integral", order([{"sku": "A", "quantity": 2.0, "unitPriceCents": 1}])),
    ("type-price-bool", order([{"sku": "A", "quantity": 1, "unitPriceCents": True}])),
    ("type-items-object", {"orderId": "ORD-1", "customer": {"id": "C-1", "region": "EU"}, "items": {"sku": "A"}}),
    ("type-item-number", {"orderId": "ORD-1", "customer": {"id": "C-1", "region": "EU"}, "items": [7]}),
    ("type-customer-string", {"orderId": "ORD-1", "customer": "C-1", "items": [item("A", 1, 1)]}),
    ("type-sku-number", order([{"sku": 12, "quantity": 1, "unitPriceCents": 1}])),
    ("type-root-array", [order([item("A", 1, 1)])]),
    ("type-root-string", "an order"),
]


def order_vectors():
    out = []
    for name, body in ORDER_CASES:
        text = body if isinstance(body, str) and name.startswith("malformed") else json.dumps(body, separators=(",", ":"))
        status, expected = answer(text)
        case = {"name": name, "body": text, "status": status}
        if expected is not None:
            case["response"] = expected
        out.append(case)
    return out


def product(i):
    return {"id": i, "name": f"product-{i}", "priceCents": 100 + (i * 7919) % 100000, "stock": i % 500}


def product_steps():
    """Requests in order against a freshly seeded database (products.sql), with their answers."""
    created = {"id": 1001, "name": "widget", "priceCents": 1234, "stock": 5}
    updated = {"id": 1001, "name": "widget v2", "priceCents": 1500, "stock": 4}
    new = {"name": "widget", "priceCents": 1234, "stock": 5}
    upd = {"name": "widget v2", "priceCents": 1500, "stock": 4}
    j = lambda v: json.dumps(v, separators=(",", ":"))  # noqa: E731
    return [
        {"name": "read-first", "method": "GET", "path": "/api/products/1", "status": 200, "response": product(1)},
        {"name": "read-last-seeded", "method": "GET", "path": "/api/products/1000", "status": 200, "response": product(1000)},
        {"name": "read-absent", "method": "GET", "path": "/api/products/1001", "status": 404},
        {"name": "read-leading-zero", "method": "GET", "path": "/api/products/007", "status": 404},
        {"name": "read-zero", "method": "GET", "path": "/api/products/0", "status": 404},
        {"name": "read-letters", "method": "GET", "path": "/api/products/abc", "status": 404},
        {"name": "read-too-long", "method": "GET", "path": "/api/products/1234567890123456789", "status": 404},
        {"name": "create", "method": "POST", "path": "/api/products", "body": j(new), "status": 201, "response": created},
        {"name": "read-created", "method": "GET", "path": "/api/products/1001", "status": 200, "response": created},
        {"name": "update", "method": "PUT", "path": "/api/products/1001", "body": j(upd), "status": 200, "response": updated},
        {"name": "read-updated", "method": "GET", "path": "/api/products/1001", "status": 200, "response": updated},
        {"name": "update-absent", "method": "PUT", "path": "/api/products/5000", "body": j(upd), "status": 404},
        {"name": "update-invalid-before-absent", "method": "PUT", "path": "/api/products/5000", "body": j({"name": "", "priceCents": 1, "stock": 1}), "status": 422, "response": {"invalid": ["name"]}},
        {"name": "create-invalid", "method": "POST", "path": "/api/products", "body": j({"name": "", "priceCents": -1, "stock": 1_000_001}), "status": 422, "response": {"invalid": ["name", "priceCents", "stock"]}},
        {"name": "create-missing", "method": "POST", "path": "/api/products", "body": "{}", "status": 422, "response": {"invalid": ["name", "priceCents", "stock"]}},
        {"name": "create-name-too-long", "method": "POST", "path": "/api/products", "body": j({"name": "n" * 201, "priceCents": 1, "stock": 1}), "status": 422, "response": {"invalid": ["name"]}},
        {"name": "create-type-stock", "method": "POST", "path": "/api/products", "body": j({"name": "x", "priceCents": 1, "stock": "1"}), "status": 422, "response": {"invalid": ["stock"]}},
        {"name": "create-malformed", "method": "POST", "path": "/api/products", "body": '{"name":', "status": 400},
        {"name": "list-first-3", "method": "GET", "path": "/api/products?limit=3&offset=0", "status": 200, "response": {"items": [product(1), product(2), product(3)], "limit": 3, "offset": 0}},
        {"name": "list-across-created", "method": "GET", "path": "/api/products?limit=2&offset=999", "status": 200, "response": {"items": [product(1000), updated], "limit": 2, "offset": 999}},
        {"name": "list-past-end", "method": "GET", "path": "/api/products?limit=5&offset=2000", "status": 200, "response": {"items": [], "limit": 5, "offset": 2000}},
        {"name": "list-defaults", "method": "GET", "path": "/api/products", "status": 200, "response": {"items": [product(i) for i in range(1, 21)], "limit": 20, "offset": 0}},
        {"name": "list-limit-zero", "method": "GET", "path": "/api/products?limit=0", "status": 400},
        {"name": "list-limit-too-big", "method": "GET", "path": "/api/products?limit=101", "status": 400},
        {"name": "list-offset-negative", "method": "GET", "path": "/api/products?offset=-1", "status": 400},
        {"name": "list-limit-letters", "method": "GET", "path": "/api/products?limit=ten", "status": 400},
        {"name": "delete-not-allowed", "method": "DELETE", "path": "/api/products/1", "status": 405},
    ]


def dashboard():
    d = lambda name: json.loads((HERE / "downstream" / f"{name}.json").read_text())  # noqa: E731
    orders = d("orders")["orders"]
    ok = {
        "userId": 42,
        "profile": d("profile"),
        "recentOrders": orders,
        "orderCount": len(orders),
        "totalSpentCents": sum(o["totalCents"] for o in orders),
        "recommendations": d("recommendations")["items"],
    }
    return {
        "downstreams": {
            "profile": ["--route", "profile_slow=/profile/998:fixed(0s)::fail(100%,hang(30s))", "--route", "profile=/profile/{id}:fixed(1ms):../contract/downstream/profile.json"],
            "orders": ["--route", "orders_fail=/orders/999:fixed(0s)::fail(100%,500)", "--route", "orders=/orders/{id}:fixed(1ms):../contract/downstream/orders.json"],
            "recommendations": ["--route", "recommendations=/recommendations/{id}:fixed(1ms):../contract/downstream/recommendations.json"],
        },
        "cases": [
            {"name": "dashboard-ok", "path": "/api/dashboard/42", "status": 200, "response": ok},
            {"name": "dashboard-downstream-500", "path": "/api/dashboard/999", "status": 502, "response": {"downstream": "orders"}},
            {"name": "dashboard-downstream-timeout", "path": "/api/dashboard/998", "status": 502, "response": {"downstream": "profile"}},
            {"name": "dashboard-user-leading-zero", "path": "/api/dashboard/042", "status": 404},
            {"name": "dashboard-user-letters", "path": "/api/dashboard/abc", "status": 404},
            {"name": "dashboard-post", "method": "POST", "path": "/api/dashboard/42", "status": 405},
        ],
    }


def document():
    return {
        "description": "Vectors of runtimes/CONTRACT.md, Microservices. Written by microservices.py; do not edit by hand. "
        "orders: POST /api/orders/calculate with `body` sent as is; a 422 answer's `invalid` is compared whole, a 200's whole body. "
        "products: run in order against a database freshly seeded by products.sql. "
        "dashboard: with the three stubs started with `downstreams` (paths relative to runtimes/stub) and DOWNSTREAM_TIMEOUT_MS=1000; "
        "only the listed response fields are compared.",
        "orders": order_vectors(),
        "products": product_steps(),
        "dashboard": dashboard(),
    }


def main():
    text = json.dumps(document(), indent=2, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        if OUT.read_text() != text:
            print(f"{OUT} is stale: run python3 {Path(__file__).name}", file=sys.stderr)
            sys.exit(1)
        return
    OUT.write_text(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
