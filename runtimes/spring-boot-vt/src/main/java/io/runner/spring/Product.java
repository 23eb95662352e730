package io.runner.spring;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A row of runtimes/contract/products.sql. The id is the BIGSERIAL column's (IDENTITY: Hibernate inserts
 * without an id and reads back the generated one).
 */
@Entity
@Table(name = "products")
public class Product {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false)
    private String name;

    @Column(name = "price_cents", nullable = false)
    private long priceCents;

    @Column(nullable = false)
    private int stock;

    protected Product() {
        // for Hibernate
    }

    Product(ProductBody body) {
        replace(body);
    }

    /** Replace all three fields (PUT replaces, it does not merge). */
    final void replace(ProductBody body) {
        this.name = body.name();
        this.priceCents = body.priceCents();
        this.stock = body.stock().intValue();
    }

    /** The product as the contract answers it. */
    ProductView view() {
        return new ProductView(id, name, priceCents, stock);
    }
}
