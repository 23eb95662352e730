package io.runner.spring;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** The body of POST and PUT /api/products, with the contract's rules (types as in {@link OrderRequest}). */
public record ProductBody(
        @NotNull(message = "is required")
        @Size(min = 1, max = 200, message = "must be 1 to 200 characters")
        String name,
        @NotNull(message = "is required")
        @Min(value = 0, message = "must be between 0 and 1000000000")
        @Max(value = 1_000_000_000, message = "must be between 0 and 1000000000")
        Long priceCents,
        @NotNull(message = "is required")
        @Min(value = 0, message = "must be between 0 and 1000000")
        @Max(value = 1_000_000, message = "must be between 0 and 1000000")
        Long stock) {
}
