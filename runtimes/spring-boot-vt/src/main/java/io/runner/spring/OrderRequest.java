package io.runner.spring;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The body of POST /api/orders/calculate, with the contract's rules as Bean Validation constraints.
 * Every field is a reference type so that a missing or null field reaches validation (and is reported with
 * the others) instead of failing in Jackson. Numbers are {@code Long}: any JSON integer up to 2^63 is
 * bound and then range-checked, as the reference does; a fraction, string or boolean fails in Jackson
 * (coercion off, see {@link JsonConfig}) and is reported alone. A {@code null} line is not an object, so a
 * type error as in the reference ({@code contentNulls = FAIL}), reported alone as {@code items[i]}.
 */
public record OrderRequest(
        @NotNull(message = "is required")
        @Pattern(regexp = "[A-Za-z0-9-]{1,64}", message = "must match ^[A-Za-z0-9-]{1,64}$")
        String orderId,
        @NotNull(message = "is required") @Valid Customer customer,
        @NotNull(message = "is required")
        @Size(min = 1, max = 100, message = "must hold 1 to 100 items")
        @JsonSetter(contentNulls = Nulls.FAIL)
        List<@Valid Item> items) {

    public record Customer(
            @NotNull(message = "is required")
            @Pattern(regexp = "[A-Za-z0-9-]{1,64}", message = "must match ^[A-Za-z0-9-]{1,64}$")
            String id,
            @NotNull(message = "is required")
            @Pattern(regexp = "US|EU|UK|APAC", message = "must be one of US, EU, UK, APAC")
            String region) {
    }

    public record Item(
            @NotNull(message = "is required")
            @Pattern(regexp = "[A-Z0-9-]{1,32}", message = "must match ^[A-Z0-9-]{1,32}$")
            String sku,
            @NotNull(message = "is required")
            @Min(value = 1, message = "must be between 1 and 1000")
            @Max(value = 1000, message = "must be between 1 and 1000")
            Long quantity,
            @NotNull(message = "is required")
            @Min(value = 0, message = "must be between 0 and 10000000")
            @Max(value = 10_000_000, message = "must be between 0 and 10000000")
            Long unitPriceCents,
            @Pattern(regexp = "SAVE10|SAVE25|BULK10", message = "must be one of SAVE10, SAVE25, BULK10")
            String discountCode) {
    }
}
