package store

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"
)

// Reseed puts the products table back to the seed file (runtimes/contract/
// products.sql), as runner's postgres dependency does before a verify: the
// services' own tests run the products vectors on a fresh seed. The file is
// several statements, so it goes over the simple protocol.
func Reseed(ctx context.Context, databaseURL, seedFile string) error {
	seed, err := os.ReadFile(seedFile)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("reseed: %w", err)
	}
	defer conn.Close(ctx)
	if err := conn.PgConn().Exec(ctx, "DROP SCHEMA public CASCADE; CREATE SCHEMA public;\n"+string(seed)).Close(); err != nil {
		return fmt.Errorf("reseed %s: %w", seedFile, err)
	}
	return nil
}
