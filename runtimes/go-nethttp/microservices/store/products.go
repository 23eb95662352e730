// Package store is the products table on a pgx v5 connection pool
// (pgxpool), the CRUD scenario's database side.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"runner/go-nethttp/microservices"
)

// ErrNotFound is an id that names no product (a 404).
var ErrNotFound = errors.New("product not found")

// ErrUnavailable is a pool that gave no connection in time or a database
// error (a 503): the cause is wrapped for the log.
var ErrUnavailable = errors.New("database unavailable")

// acquireTimeout bounds one request's wait for a connection and its
// statement (the contract's 5 s), so a database that is down is a 503, not
// a hang.
const acquireTimeout = 5 * time.Second

// Products is the products table behind a pool of a fixed size.
type Products struct{ pool *pgxpool.Pool }

// Open makes the pool: poolSize connections, minimum = maximum, so the
// benchmark measures queries and not connection set-up. It does not wait
// for the database: pgxpool connects in the background and on demand, and a
// database that is down makes requests fail with ErrUnavailable, not the
// start.
func Open(ctx context.Context, databaseURL string, poolSize int) (*Products, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	cfg.MaxConns = int32(poolSize)
	cfg.MinConns = int32(poolSize)
	cfg.MinIdleConns = int32(poolSize)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	return &Products{pool: pool}, nil
}

// Close ends every connection.
func (p *Products) Close() { p.pool.Close() }

// Statements, parameterised; pgx prepares and caches each per connection
// (its default QueryExecModeCacheStatement).
const (
	selectOne  = `SELECT id, name, price_cents, stock FROM products WHERE id = $1`
	selectPage = `SELECT id, name, price_cents, stock FROM products ORDER BY id LIMIT $1 OFFSET $2`
	insertOne  = `INSERT INTO products (name, price_cents, stock) VALUES ($1, $2, $3) RETURNING id, name, price_cents, stock`
	updateOne  = `UPDATE products SET name = $2, price_cents = $3, stock = $4 WHERE id = $1 RETURNING id, name, price_cents, stock`
)

// Get reads one product.
func (p *Products) Get(ctx context.Context, id int64) (microservices.Product, error) {
	ctx, cancel := context.WithTimeout(ctx, acquireTimeout)
	defer cancel()
	return scanOne(p.pool.QueryRow(ctx, selectOne, id))
}

// Create inserts a product and answers it with its new id.
func (p *Products) Create(ctx context.Context, in microservices.ProductInput) (microservices.Product, error) {
	ctx, cancel := context.WithTimeout(ctx, acquireTimeout)
	defer cancel()
	return scanOne(p.pool.QueryRow(ctx, insertOne, in.Name, in.PriceCents, in.Stock))
}

// Update replaces all three fields of a product in one statement.
func (p *Products) Update(ctx context.Context, id int64, in microservices.ProductInput) (microservices.Product, error) {
	ctx, cancel := context.WithTimeout(ctx, acquireTimeout)
	defer cancel()
	return scanOne(p.pool.QueryRow(ctx, updateOne, id, in.Name, in.PriceCents, in.Stock))
}

// List reads one page in id order.
func (p *Products) List(ctx context.Context, page microservices.Page) ([]microservices.Product, error) {
	ctx, cancel := context.WithTimeout(ctx, acquireTimeout)
	defer cancel()
	rows, err := p.pool.Query(ctx, selectPage, page.Limit, page.Offset)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	items := make([]microservices.Product, 0, page.Limit)
	for rows.Next() {
		var pr microservices.Product
		if err := rows.Scan(&pr.ID, &pr.Name, &pr.PriceCents, &pr.Stock); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		items = append(items, pr)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return items, nil
}

func scanOne(row pgx.Row) (microservices.Product, error) {
	var pr microservices.Product
	err := row.Scan(&pr.ID, &pr.Name, &pr.PriceCents, &pr.Stock)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return pr, ErrNotFound
	case err != nil:
		return pr, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return pr, nil
}
