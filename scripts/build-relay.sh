#!/usr/bin/env bash
# Builds the preview relay (relay/*.c), the process that carries admitted preview connections.
# Skipped when the binary is newer than every source file.
set -euo pipefail
cd "$(dirname "$0")/.."
target=build/paddock-relay
if [ -x "$target" ] && [ -z "$(find relay -newer "$target" -name '*.[ch]')" ]; then
  exit 0
fi
mkdir -p build
gcc -O2 -Wall -Wextra -Werror -o "$target.tmp" relay/*.c
mv "$target.tmp" "$target"
