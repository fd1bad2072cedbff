#!/usr/bin/env bash
# Makes the native addons load on every Node.js binary given (paths), so one node_modules serves
# Node 22 and Node 20 side by side. node-pty uses Node-API (one build loads on every version);
# better-sqlite3 is compiled against one Node ABI, so it gets one build per ABI, kept where its loader
# (`bindings`) looks for it: lib/binding/node-v<abi>-<platform>-<arch>/better_sqlite3.node. Builds
# with node-gyp from each Node's own headers (prebuilt downloads are not reachable); about a minute
# per missing ABI, nothing when all are present.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -eq 0 ]; then
  echo "usage: native-addons.sh <node binary>..." >&2
  exit 2
fi

sqlite_dir="$PWD/node_modules/better-sqlite3"
# bindings tries build/Release first and fails outright on an ABI mismatch instead of looking further.
default_build="$sqlite_dir/build/Release/better_sqlite3.node"

abi_dir_of() { "$1" -p '`node-v${process.versions.modules}-${process.platform}-${process.arch}`'; }
loads_addon() { "$1" -e 'process.dlopen({ exports: {} }, process.argv[1])' "$2" 2>/dev/null; }

# The prefix a Node binary was installed under holds its headers (include/node), which node-gyp
# needs as --nodedir; without them node-gyp would try to download them.
nodedir_of() {
  local prefix
  prefix="$(dirname "$(dirname "$(readlink -f "$1")")")"
  if [ -f "$prefix/include/node/node_version.h" ]; then echo "$prefix"; fi
}

build_sqlite_for() {
  local node="$1" nodedir
  nodedir="$(nodedir_of "$node")"
  if [ -z "$nodedir" ]; then
    echo "native-addons.sh: no Node.js headers next to $node (expected <prefix>/include/node); cannot build better-sqlite3 for it" >&2
    exit 1
  fi
  echo "building better-sqlite3 for Node $("$node" --version) (headers from $nodedir)" >&2
  local abi log scratch
  abi="$(abi_dir_of "$node")"
  log="$PWD/node_modules/.paddock-native-build-$abi.log"
  # In a copy of the package: a build in place would leave another ABI's addon in build/Release, where
  # a process starting meanwhile (the set-up runs builds beside this) would load it and fail.
  scratch="$PWD/node_modules/.paddock-native-build-$abi"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  cp -r "$sqlite_dir/package.json" "$sqlite_dir/binding.gyp" "$sqlite_dir/deps" "$sqlite_dir/src" "$scratch/"
  if ! (cd "$scratch" && PATH="$(dirname "$(readlink -f "$node")"):$PATH" npm_config_nodedir="$nodedir" npm run --silent build-release) >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "native-addons.sh: building better-sqlite3 for $node failed (whole log: $log)" >&2
    exit 1
  fi
  mkdir -p "$sqlite_dir/lib/binding/$abi"
  mv "$scratch/build/Release/better_sqlite3.node" "$sqlite_dir/lib/binding/$abi/better_sqlite3.node"
  rm -rf "$scratch"
}

# The build npm's install made (for the Node that ran npm) goes where its ABI's loader looks first.
for node in "$@"; do
  target="$sqlite_dir/lib/binding/$(abi_dir_of "$node")/better_sqlite3.node"
  if [ ! -f "$target" ] && [ -f "$default_build" ] && loads_addon "$node" "$default_build"; then
    mkdir -p "$(dirname "$target")"
    mv "$default_build" "$target"
  fi
done
rm -f "$default_build"
for node in "$@"; do
  if [ ! -f "$sqlite_dir/lib/binding/$(abi_dir_of "$node")/better_sqlite3.node" ]; then build_sqlite_for "$node"; fi
done

for node in "$@"; do
  if ! "$node" -e 'new (require("better-sqlite3"))(":memory:").close(); require("node-pty")' 2>&1; then
    echo "native-addons.sh: the native addons do not load on Node $("$node" --version) ($node)" >&2
    exit 1
  fi
done
