-- The CRUD scenario's table and seed (runtimes/CONTRACT.md, "CRUD on products").
-- Run by runner's `kind: postgres` dependency after its first start and after every reset,
-- and by each service's own database tests. Rows are inserted without ids so that the
-- sequence stands at 1000 afterwards: the first product created gets id 1001.
CREATE TABLE products (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT    NOT NULL,
    price_cents BIGINT  NOT NULL CHECK (price_cents >= 0),
    stock       INTEGER NOT NULL CHECK (stock >= 0)
);
INSERT INTO products (name, price_cents, stock)
SELECT 'product-' || i, 100 + (i * 7919) % 100000, i % 500
FROM generate_series(1, 1000) AS i
ORDER BY i;
