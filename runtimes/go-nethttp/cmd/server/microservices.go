package main

import (
	"context"

	"runner/go-nethttp/internal/service"
	"runner/go-nethttp/microservices"
	"runner/go-nethttp/microservices/downstream"
	"runner/go-nethttp/microservices/store"
)

// withScenarios wires the microservices scenarios' dependencies into cfg
// from their settings (DATABASE_URL, DB_POOL_SIZE, the downstream URLs,
// DOWNSTREAM_TIMEOUT_MS): the pgxpool products table and the errgroup
// fan-out client, each left nil (a 503) when not configured. The returned
// func closes the pool.
func withScenarios(cfg *service.Config, ms microservices.Settings) (func(), error) {
	closeAll := func() {}
	if ms.DatabaseURL != "" {
		products, err := store.Open(context.Background(), ms.DatabaseURL, ms.PoolSize)
		if err != nil {
			return closeAll, err
		}
		cfg.Products = products
		closeAll = products.Close
	}
	if ms.DownstreamsConfigured() {
		cfg.Dashboards = downstream.New(ms.ProfileURL, ms.OrdersURL, ms.RecommendationsURL, ms.DownstreamTimeout)
	}
	return closeAll, nil
}
