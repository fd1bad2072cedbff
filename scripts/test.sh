#!/usr/bin/env bash
# Set-up command 2: install what is missing, start the services the tests need (PostgreSQL on
# 127.0.0.1), build the templates the runtime tests use, and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/prepare.sh
bash scripts/start-postgres.sh
PADDOCK_DATA="$PWD/.test-data" node bin/paddock.js templates build

mkdir -p .test-results
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json=.test-results/vitest.json "$@"
status=$?
set -e
node -e '
  const r = require("./.test-results/vitest.json");
  console.log(`Tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' || true
exit $status
