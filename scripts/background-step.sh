# Sourced by the set-up scripts (prepare.sh, test.sh): set-up steps that run in the background beside
# others, each with its output kept in a log until it is waited for.

# Waits for a step that ran in the background, prints its output, and stops the run if it failed.
finish_background() {
  local pid="$1" log="$2" what="$3" code=0
  wait "$pid" || code=$?
  cat "$log"
  rm -f "$log"
  if [ "$code" -ne 0 ]; then
    echo "$what failed (exit $code)" >&2
    exit 1
  fi
}
