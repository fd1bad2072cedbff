#!/usr/bin/env bash
# Set-up command 1: install what is missing, build the templates, and start Paddock on its embedded
# defaults (SQLite, local runtime). Prints the URL and, on first start, the first account's API key.
# Runs on Node.js 22 (the system's when it is 22, else one installed from the npm registry);
# PADDOCK_NODE=20 picks another major.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/prepare.sh
node_binary="$(bash scripts/find-node.sh "${PADDOCK_NODE:-22}")"
bash scripts/native-addons.sh "$node_binary"
export PATH="$(dirname "$node_binary"):$PATH"
echo "Paddock runs on Node.js $(node --version) ($node_binary)"
node bin/paddock.js templates build
exec node bin/paddock.js serve "$@"
