#!/usr/bin/env bash
# Set-up command 2: install what is missing, start the services the tests need (PostgreSQL on
# 127.0.0.1), build the templates the runtime tests use, and run the suite on each supported Node.js:
# the whole suite on the first of PADDOCK_TEST_NODES (default "22 20"), on the others the files that lean
# on what differs between Node majors (below). Arguments go to Vitest and replace both
# selections: `npm run test:all -- test/core/http.test.ts` runs that file on every listed Node.
set -euo pipefail
cd "$(dirname "$0")/.."

read -r -a test_majors <<<"${PADDOCK_TEST_NODES:-22 20}"
if [ "${#test_majors[@]}" -eq 0 ]; then
  echo "PADDOCK_TEST_NODES is empty: name at least one Node.js major version, e.g. \"22 20\"" >&2
  exit 2
fi

# shellcheck source=scripts/background-step.sh
source scripts/background-step.sh

setup_started=$SECONDS
bash scripts/prepare.sh --packages
echo "== set-up: packages, $((SECONDS - setup_started)) s"
test_nodes=()
for major in "${test_majors[@]}"; do test_nodes+=("$(bash scripts/find-node.sh "$major")"); done
# Beside each other on the two cores: the other Nodes' native addons (a compile of about a minute), the
# templates (debootstrap and apt inside their own roots, about a minute and a half alone), the builds,
# then the host packages (Chromium, PostgreSQL). Both cores stay busy, where one step after the other
# left one idle for most of it.
addons_log="$(mktemp)"
bash scripts/native-addons.sh "${test_nodes[@]}" >"$addons_log" 2>&1 &
addons_pid=$!
# The build runs on Node 22, as in prepare.sh; the templates need the server's build, not the dashboard's.
build_path="$(dirname "$(bash scripts/find-node.sh 22)"):$PATH"
PATH="$build_path" npm run --silent build:server
templates_log="$(mktemp)"
PATH="$(dirname "${test_nodes[0]}"):$PATH" PADDOCK_DATA="$PWD/.test-data" "${test_nodes[0]}" bin/paddock.js templates build >"$templates_log" 2>&1 &
templates_pid=$!
PATH="$build_path" npm run --silent build:dashboard
finish_background "$addons_pid" "$addons_log" "building the native addons"
echo "== set-up: build and addons, $((SECONDS - setup_started)) s"
# Two checks that only need the build run beside the rest of the set-up (host packages, the end of the
# templates) rather than in front of the suite; their verdicts come at the end of the run, so a badly
# formatted file or a type error fails it without hiding what the tests would have said:
# - formatting (Prettier, .prettierrc.json);
# - the types of the tests, benchmarks and their helpers (tsconfig.tests.json; the build checks src/ and
#   the dashboard).
checks_log_dir="$(mktemp -d)"
"${test_nodes[0]}" node_modules/prettier/bin/prettier.cjs --check . >"$checks_log_dir/format.log" 2>&1 &
format_pid=$!
"${test_nodes[0]}" node_modules/typescript/bin/tsc -p tsconfig.tests.json >"$checks_log_dir/typecheck.log" 2>&1 &
typecheck_pid=$!
bash scripts/install-chromium.sh
# The dependency rules (.dependency-cruiser.cjs, scripts/feature-cycles.mjs) first: a few seconds, and a
# feature reaching into another's tables or an import cycle fails the run before any test starts.
npm run --silent lint:deps
bash scripts/start-postgres.sh
finish_background "$templates_pid" "$templates_log" "building the templates"
echo "== set-up: $((SECONDS - setup_started)) s in all"

# What the other Nodes run: the files that lean on what differs between Node majors, not the whole suite
# again (that doubled the run's time for code paths Node 22 already covers). The preview relay hands
# sockets to its C process over Node's IPC handle protocol and pauses them with _handle.readStop/readStart,
# the terminal runs node-pty, the CLI runs dist/ through bin/paddock.js; HTTP parsing and keep-alive, fetch
# and undici, streams and SSE, WebSockets, crypto (AES-GCM answers, HMAC signatures, scrypt passwords),
# better-sqlite3 and pg are each exercised by one of the api files below, and the SDK's retries on the
# Node's own fetch.
other_node_files="test/sandboxes/preview-relay.test.ts test/sandboxes/terminal.test.ts test/cli/cli.test.ts
  test/core/http.test.ts test/core/idempotency.test.ts test/accounts/signup-login.test.ts test/a2a/stream.test.ts
  test/webhooks/deliveries.test.ts test/dashboard/session-cookie.test.ts test/billing/stripe-webhook.test.ts
  test/pipelines/engine.test.ts test/sessions/ingest.test.ts test/sdk/http.test.ts"

rm -rf .test-results
mkdir -p .test-results
reports=()
status=0
run_vitest() {
  local node="$1" report="$2" started=$SECONDS
  shift 2
  echo "== Node $("$node" --version): vitest run $*"
  # Tests start helpers with process.execPath; PATH covers anything that asks for `node` by name.
  PATH="$(dirname "$node"):$PATH" "$node" node_modules/vitest/vitest.mjs run \
    --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=1
  reports+=("$report")
  echo "== Node $("$node" --version): $((SECONDS - started)) s"
}

# One Vitest run in the background lane: its output to a log printed at the end, its report listed.
lane_vitest() {
  local node="$1" name="$2" project_started=$SECONDS
  shift 2
  PATH="$(dirname "$node"):$PATH" "$node" node_modules/vitest/vitest.mjs run --reporter=default --reporter=json \
    --outputFile.json=".test-results/vitest-$name.json" "$@" >".test-results/vitest-$name.log" 2>&1 || lane_status=1
  echo "== Node $("$node" --version): $name, $((SECONDS - project_started)) s" >>".test-results/vitest-$name.log"
}

# The whole suite runs in two lanes of Vitest processes at once (Vitest runs a config's projects one after
# the other). Runtime files mostly wait on runc, mounts and the network (one keeps about 0.9 of the two
# cores busy), api files on servers and PostgreSQL, so two lanes fit where one ran:
# - this lane: `runtime`, then `runtime-apart` (its own network profiles, vitest.config.ts), one file at a time;
# - the background lane: `api` on one worker, then `runtime-beside` (a few runtime-apart files, base + 40),
#   then, once `runtime` is done with the host's default sandbox network (the CLI's servers use it), the
#   other Nodes' files on network profiles of their own (base + 20).
# The host networks are removed once both lanes have finished.
run_whole_suite() {
  local node="$1" label="$2" started=$SECONDS
  shift 2
  local base="${PADDOCK_TEST_NETWORK_BASE:-0}"
  echo "== Node $("$node" --version): runtime and runtime-apart here; api, runtime-beside, then the other Nodes' files, beside them (their output follows)"
  local lane_names=("$label-api" "$label-runtime-beside")
  for other in "$@"; do lane_names+=("${other#*=}"); done
  (
    lane_status=0
    PADDOCK_TEST_BUILT=1 PADDOCK_TEST_KEEP_NETWORKS=1 PADDOCK_TEST_API_WORKERS=1 lane_vitest "$node" "$label-api" --project api
    PADDOCK_TEST_BUILT=1 PADDOCK_TEST_KEEP_NETWORKS=1 lane_vitest "$node" "$label-runtime-beside" --project runtime-beside
    while [ ! -e .test-results/runtime.done ]; do sleep 2; done
    for other in "$@"; do
      # shellcheck disable=SC2086 # a list of paths without spaces
      PADDOCK_TEST_BUILT=1 PADDOCK_TEST_KEEP_NETWORKS=1 PADDOCK_TEST_API_WORKERS=1 PADDOCK_TEST_NETWORK_BASE=$((base + 20)) \
        lane_vitest "${other%%=*}" "${other#*=}" $other_node_files
    done
    exit "$lane_status"
  ) &
  local lane_pid=$!
  PADDOCK_TEST_BUILT=1 PADDOCK_TEST_KEEP_NETWORKS=1 run_vitest "$node" ".test-results/vitest-$label.json" --project runtime
  touch .test-results/runtime.done
  PADDOCK_TEST_BUILT=1 PADDOCK_TEST_KEEP_NETWORKS=1 run_vitest "$node" ".test-results/vitest-$label-runtime-apart.json" --project runtime-apart
  wait "$lane_pid" || status=1
  bash scripts/remove-test-networks.sh
  PADDOCK_TEST_NETWORK_BASE=$((base + 20)) bash scripts/remove-test-networks.sh
  PADDOCK_TEST_NETWORK_BASE=$((base + 40)) bash scripts/remove-test-networks.sh
  for name in "${lane_names[@]}"; do
    cat ".test-results/vitest-$name.log"
    reports+=(".test-results/vitest-$name.json")
  done
  echo "== the whole suite: $((SECONDS - started)) s"
}

if [ "$#" -gt 0 ]; then
  for index in "${!test_nodes[@]}"; do run_vitest "${test_nodes[$index]}" ".test-results/vitest-node${test_majors[$index]}.json" "$@"; done
else
  # The other Nodes as node=label pairs.
  others=()
  for index in "${!test_nodes[@]}"; do
    if [ "$index" -gt 0 ]; then others+=("${test_nodes[$index]}=node${test_majors[$index]}"); fi
  done
  run_whole_suite "${test_nodes[0]}" "node${test_majors[0]}" "${others[@]}"
fi

if wait "$format_pid"; then
  echo "formatting (Prettier): ok"
else
  echo "formatting (Prettier) failed:"
  cat "$checks_log_dir/format.log"
  status=1
fi
if wait "$typecheck_pid"; then
  echo "typecheck of tests and benchmarks: ok"
else
  echo "typecheck of tests and benchmarks failed:"
  cat "$checks_log_dir/typecheck.log"
  status=1
fi
rm -rf "$checks_log_dir"

# The first run's report stays where tools look for it; the line below totals every run.
cp "${reports[0]}" .test-results/vitest.json 2>/dev/null || true
# Each failed test is named again at the end, where a truncated log still shows it.
node -e '
  let passed = 0, failed = 0, missing = 0;
  const failures = [];
  for (const file of process.argv.slice(1)) {
    try {
      const r = require(require("node:path").resolve(file));
      console.log(`${file}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
      passed += r.numPassedTests; failed += r.numFailedTests;
      for (const result of r.testResults) {
        const name = require("node:path").relative(process.cwd(), result.name);
        for (const test of result.assertionResults) {
          if (test.status !== "failed") continue;
          const message = (test.failureMessages[0] ?? "").split("\n").slice(0, 3).join(" / ").slice(0, 400);
          failures.push(`  ${name} > ${test.fullName}\n      ${message}`);
        }
        if (result.status === "failed" && !result.assertionResults.some((t) => t.status === "failed"))
          failures.push(`  ${name}: ${(result.message ?? "failed outside a test").split("\n")[0].slice(0, 400)}`);
      }
    } catch { console.log(`${file}: no report (the run did not finish)`); missing += 1; }
  }
  if (failures.length) console.log(`Failed:\n${failures.join("\n")}`);
  console.log(`Tests: ${passed} passed, ${failed} failed` + (missing ? ` (${missing} run(s) left no report)` : ""));
' "${reports[@]}" || true
exit $status
