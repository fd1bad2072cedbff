#!/usr/bin/env bash
# A longer run of the route fuzzer than the CI one (test/core/fuzz-routes.test.ts, 2,000 requests per
# backend with a fixed seed): scripts/fuzz-routes.sh [SEED] [COUNT] [sqlite|postgres]
# SEED defaults to the current time (printed, so a failure can be replayed), COUNT to 20,000 requests
# per backend. A failure lists each misbehaving request with its number; the same SEED and COUNT
# replay it. Needs what the runtime tests need: root, PostgreSQL on 127.0.0.1 (scripts/start-postgres.sh)
# and the built templates (scripts/test.sh builds them).
set -euo pipefail
cd "$(dirname "$0")/.."

seed=${1:-$(date +%s)}
count=${2:-20000}
backend=${3:-}
echo "fuzzing every route: seed $seed, $count requests per backend${backend:+ ($backend only)}"
PADDOCK_FUZZ_SEED=$seed PADDOCK_FUZZ_RUNS=$count exec npx vitest run --project runtime test/core/fuzz-routes.test.ts ${backend:+-t "with $backend"}
