#!/usr/bin/env bash
# Builds the in-sandbox exec agent as one static binary (it runs in every template, whatever its libc).
# Skipped when the binary is newer than its source.
set -euo pipefail
cd "$(dirname "$0")/.."
source=agent/paddock-agent.c
target=build/paddock-agent
if [ -x "$target" ] && [ "$target" -nt "$source" ]; then
  exit 0
fi
mkdir -p build
gcc -static -O2 -Wall -Wextra -Werror -o "$target.tmp" "$source"
mv "$target.tmp" "$target"
