#!/usr/bin/env bash
# Set-up command 1: install what is missing, build the templates, and start Paddock on its embedded
# defaults (SQLite, local runtime). Prints the URL and, on first start, the first account's API key.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/prepare.sh
node bin/paddock.js templates build
exec node bin/paddock.js serve "$@"
