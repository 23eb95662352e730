package io.runner.spring;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** A product as answered: {@code {"id", "name", "priceCents", "stock"}}. */
@JsonPropertyOrder({"id", "name", "priceCents", "stock"})
public record ProductView(long id, String name, long priceCents, long stock) {

    /** The answer of the paginated list. */
    @JsonPropertyOrder({"items", "limit", "offset"})
    public record Page(List<ProductView> items, long limit, long offset) {
    }
}
