#!/usr/bin/env bash
# Fuzzes the parsers of the C programs (relay/fuzz/*.c, agent/fuzz/*.c: one libFuzzer target each)
# under AddressSanitizer and UndefinedBehaviorSanitizer, each for SECONDS (default 300), starting from
# its checked-in corpus (relay/fuzz/corpus/<target>/), which is replayed first: every crash once found
# is kept there as a regression input. New inputs go to build/fuzz/, never into the checked-in corpus.
# A crash, leak, sanitizer report or hang fails the run and leaves the input in build/fuzz/crashes/.
#   scripts/fuzz-c.sh 3600            an hour per target
#   scripts/fuzz-c.sh 5 body          one target
# To keep what a long run covered, merge its new inputs into the checked-in corpus (only those adding
# coverage are copied): build/fuzz/relay-body -merge=1 relay/fuzz/corpus/body build/fuzz/corpus-relay-body
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-300}"
only="${2:-}"
compiler="$(command -v clang-14 || command -v clang || true)"
if [ -z "$compiler" ]; then
  echo "fuzz-c.sh: clang with libFuzzer is missing (scripts/install-system.sh installs clang-14 and libfuzzer-14-dev)" >&2
  exit 1
fi
out=build/fuzz
flags=(-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror)
mkdir -p "$out/crashes"
failed=()
for program in relay agent; do
  for harness in "$program"/fuzz/*.c; do
    [ -f "$harness" ] || continue
    target="$(basename "$harness" .c)"
    if [ -n "$only" ] && [ "$only" != "$target" ]; then continue; fi
    # Every source of the program but the one holding main() (paddock-<program>.c), compiled once and
    # again only when it or a header changed.
    objects=()
    for source in "$program"/*.c; do
      [ "$(basename "$source")" = "paddock-$program.c" ] && continue
      object="$out/obj/$program-$(basename "$source" .c).o"
      mkdir -p "$out/obj"
      if [ ! -f "$object" ] || [ -n "$(find "$source" "$program" -maxdepth 1 -newer "$object" -name '*.[ch]')" ]; then
        "$compiler" "${flags[@]}" -fsanitize=fuzzer-no-link -c -o "$object" "$source"
      fi
      objects+=("$object")
    done
    binary="$out/$program-$target"
    "$compiler" "${flags[@]}" -fsanitize=fuzzer -o "$binary" "$harness" "${objects[@]}"
    corpus="$program/fuzz/corpus/$target"
    scratch="$out/corpus-$program-$target"
    mkdir -p "$corpus" "$scratch"
    echo "fuzzing $program/$target for ${seconds}s"
    if ! UBSAN_OPTIONS=print_stacktrace=1 "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$out/crashes/$program-$target-" "$scratch" "$corpus" >"$out/$program-$target.log" 2>&1; then
      failed+=("$program/$target")
      tail -n 40 "$out/$program-$target.log" >&2
    else
      grep -E '^stat::number_of_executed_units' "$out/$program-$target.log" || true
    fi
  done
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz-c.sh: crashes in ${failed[*]}: inputs in $out/crashes/; fix the bug, then add the input to the target's corpus as a regression" >&2
  exit 1
fi
echo "fuzz-c.sh: no crash"
