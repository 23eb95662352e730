#!/usr/bin/env bash
# The project's whole test suite: the runner (cargo test) and every service
# under test with its own ecosystem's runner. Used by .ci/run; run it locally
# the same way: scripts/test-all.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh

step() { printf '\n== %s\n' "$*"; }

step "runner: cargo test"
cargo test --locked

step "runtimes/contract: the microservices vectors are what microservices.py writes"
python3 runtimes/contract/microservices.py --check

# The services' products and dashboard tests run on one throwaway PostgreSQL
# and the three stubs (runtimes/contract/test-deps.sh), stopped by PID at exit
# whatever the outcome; each suite reseeds the table itself. Without them
# those tests say they were skipped.
step "runtimes/contract: PostgreSQL and the three stubs for the services' tests"
deps="$(mktemp -d)"
trap 'runtimes/contract/test-deps.sh stop "$deps"' EXIT
runtimes/contract/test-deps.sh start "$deps" >/dev/null
. "$deps/env"

step "runtimes/go-nethttp: go test"
(cd runtimes/go-nethttp && go vet ./... && go test -count=1 ./...)

step "runtimes/stub: go test"
(cd runtimes/stub && go vet ./... && go test ./...)

step "runtimes/go-kit: go test"
(cd runtimes/go-kit && go vet ./... && go test ./...)

step "runtimes/go-gin: go test"
(cd runtimes/go-gin && go vet ./... && go test -count=1 ./...)

step "runtimes/node-http: npm ci, node --test"
# prom-client (METRICS=true) comes from npm: install it from the lock file first.
(cd runtimes/node-http && npm ci --no-audit --no-fund --silent && npm test --silent)

step "runtimes/rust-axum: cargo test"
(cd runtimes/rust-axum && cargo test --locked)

step "runtimes/java-helidon: mvn test (JDK 25)"
(cd runtimes/java-helidon && mvn -B -q test)

step "runtimes/helidon-mp: mvn test (JDK 25)"
(cd runtimes/helidon-mp && mvn -B -q test)

step "runtimes/spring-boot-vt: mvn test (JDK 25)"
(cd runtimes/spring-boot-vt && mvn -B -q test)

echo
echo "all test suites passed"
