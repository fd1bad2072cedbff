#!/usr/bin/env bash
# Installs whatever is missing (Debian packages, Node.js 22, npm packages) and builds dist/. Idempotent
# and quick when nothing changed. Used by both set-up commands (up.sh, test.sh); `--packages` stops
# before the build and the other Nodes' addons (test.sh runs those beside the templates). npm and the
# build run on Node 22 (installed from the npm registry when the system's Node is another version); the
# native addons are built for Node 22 and for the system's Node, so `node bin/paddock.js` works with
# either.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system.sh

system_node="$(command -v node || true)"
node22="$(bash scripts/find-node.sh 22)"
export PATH="$(dirname "$node22"):$PATH"
echo "Node.js: $(node --version) at $node22"

# npm ci only when package-lock.json changed since the last install (native addons take a minute).
lock_digest=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.paddock-lock-digest
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_digest" ]; then
  echo "installing npm packages"
  npm_config_nodedir="$(dirname "$(dirname "$node22")")" npm ci --no-audit --no-fund
  echo "$lock_digest" >"$stamp"
fi

# Node 22's addon comes with npm ci; another Node's is a compile of about a minute on one core, which
# runs beside the build (`--packages` leaves it to the caller, which may have more to run beside it).
other_nodes=()
if [ -n "$system_node" ] && [ "$(readlink -f "$system_node")" != "$node22" ] \
  && "$system_node" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  other_nodes+=("$(readlink -f "$system_node")")
fi
bash scripts/native-addons.sh "$node22"
if [ "${1:-}" = "--packages" ]; then exit 0; fi

# shellcheck source=scripts/background-step.sh
source scripts/background-step.sh
addons_log="$(mktemp)"
bash scripts/native-addons.sh "$node22" "${other_nodes[@]}" >"$addons_log" 2>&1 &
addons_pid=$!
npm run --silent build
finish_background "$addons_pid" "$addons_log" "building the native addons"
