package io.runner.spring;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The contract's pricing rules (runtimes/CONTRACT.md, "POST /api/orders/calculate"), on 64-bit integer
 * cents. Every intermediate value fits: at most 10^12 cents of items times 2,000.
 */
public final class Pricing {
    private Pricing() {
    }

    /** One priced line, members in the contract's order. */
    @JsonPropertyOrder({"sku", "quantity", "unitPriceCents", "subtotalCents", "discountCode", "discountCents",
            "totalCents"})
    public record Line(String sku, long quantity, long unitPriceCents, long subtotalCents, String discountCode,
                       long discountCents, long totalCents) {
    }

    /** The answer, members in the contract's order. */
    @JsonPropertyOrder({"orderId", "customerId", "region", "lines", "itemCount", "itemsTotalCents",
            "orderDiscountPercent", "orderDiscountCents", "taxRateBasisPoints", "taxCents", "totalCents"})
    public record Priced(String orderId, String customerId, String region, List<Line> lines, long itemCount,
                         long itemsTotalCents, long orderDiscountPercent, long orderDiscountCents,
                         long taxRateBasisPoints, long taxCents, long totalCents) {
    }

    /** {@code a * n / d} rounded half up, on non-negative integers (every d of the rules is even). */
    static long share(long a, long n, long d) {
        return (a * n + d / 2) / d;
    }

    static long lineDiscountPercent(String code, long quantity) {
        if (code == null) {
            return 0;
        }
        return switch (code) {
            case "SAVE10" -> 10;
            case "SAVE25" -> 25;
            case "BULK10" -> quantity >= 10 ? 10 : 0;
            default -> throw new IllegalArgumentException("discount code " + code + " passed validation");
        };
    }

    static long orderDiscountPercent(long itemsTotalCents) {
        if (itemsTotalCents >= 100_000) {
            return 10;
        }
        if (itemsTotalCents >= 50_000) {
            return 5;
        }
        return itemsTotalCents >= 10_000 ? 2 : 0;
    }

    static long taxRateBasisPoints(String region) {
        return switch (region) {
            case "US" -> 725;
            case "EU", "UK" -> 2000;
            case "APAC" -> 1000;
            default -> throw new IllegalArgumentException("region " + region + " passed validation");
        };
    }

    /** Price a validated order. */
    public static Priced price(OrderRequest order) {
        List<Line> lines = new ArrayList<>(order.items().size());
        long itemsTotal = 0;
        long itemCount = 0;
        for (OrderRequest.Item item : order.items()) {
            long subtotal = item.quantity() * item.unitPriceCents();
            long discount = share(subtotal, lineDiscountPercent(item.discountCode(), item.quantity()), 100);
            long total = subtotal - discount;
            lines.add(new Line(item.sku(), item.quantity(), item.unitPriceCents(), subtotal, item.discountCode(),
                    discount, total));
            itemsTotal += total;
            itemCount += item.quantity();
        }
        long percent = orderDiscountPercent(itemsTotal);
        long orderDiscount = share(itemsTotal, percent, 100);
        long taxable = itemsTotal - orderDiscount;
        long rate = taxRateBasisPoints(order.customer().region());
        long tax = share(taxable, rate, 10_000);
        return new Priced(order.orderId(), order.customer().id(), order.customer().region(), lines, itemCount,
                itemsTotal, percent, orderDiscount, rate, tax, taxable + tax);
    }
}
