#!/usr/bin/env bash
# Installs the host packages Paddock's runtime layer needs (Debian 12). Idempotent and fast when
# everything is present: apt is only touched when a package is missing. runsc comes from trixie
# (bookworm's build cannot run a Debian rootfs), pinned so that nothing else is taken from trixie.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "install-system.sh must run as root" >&2
  exit 1
fi

# wrk is for `npm run bench` only (the preview benchmark's C client). clang-14 with libFuzzer and its
# sanitizer runtimes is for fuzzing the C parsers (scripts/fuzz-c.sh, test/native/fuzz.test.ts);
# binutils gives readelf/objdump, which check the C programs' hardening (test/native/hardening.test.ts).
bookworm_packages=(runc nftables iptables iproute2 debootstrap umoci skopeo e2fsprogs util-linux
  mount psmisc git curl ca-certificates tini gcc libc6-dev wrk clang-14 libfuzzer-14-dev libclang-rt-14-dev binutils)
trixie_source=/etc/apt/sources.list.d/paddock-trixie.sources
trixie_pin=/etc/apt/preferences.d/paddock-trixie-runsc

missing_packages() {
  local package
  for package in "$@"; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" != "installed" ]; then
      echo "$package"
    fi
  done
}

# Prints "URI<TAB>SIGNED_BY" of the first configured source that serves bookworm (deb822 first,
# then one-line sources.list), so the trixie source uses the same mirror and key as the host.
bookworm_source() {
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk '
      BEGIN { RS = ""; FS = "\n" }
      {
        uri = ""; suites = ""; signed = ""; types = ""
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { uri = $i; sub(/^URIs:[ \t]*/, "", uri); split(uri, u, /[ \t]+/); uri = u[1] }
          if ($i ~ /^Suites:/) { suites = " " $i " " }
          if ($i ~ /^Types:/) { types = $i }
          if ($i ~ /^Signed-By:/) { signed = $i; sub(/^Signed-By:[ \t]*/, "", signed) }
        }
        if (types ~ /deb( |$)/ && suites ~ /[ \t]bookworm[ \t]/ && uri != "") { print uri "\t" signed; exit }
      }' "$file"
  done | head -n 1 | grep . && return 0
  if [ -f /etc/apt/sources.list ]; then
    awk '$1 == "deb" {
        i = 2; signed = ""
        if ($2 ~ /^\[/) {
          while (i <= NF && $i !~ /\]$/) { if ($i ~ /signed-by=/) { signed = $i }; i++ }
          if ($i ~ /signed-by=/) { signed = $i }
          i++
        }
        sub(/.*signed-by=/, "", signed); sub(/\]$/, "", signed)
        if ($(i + 1) == "bookworm") { print $i "\t" signed; exit }
      }' /etc/apt/sources.list | grep . && return 0
  fi
  return 1
}

write_trixie_source() {
  local source uri signed_by
  source="$(bookworm_source)" || { echo "no bookworm apt source found to derive the trixie mirror from" >&2; exit 1; }
  uri="${source%%$'\t'*}"
  signed_by="${source#*$'\t'}"
  {
    echo "Types: deb"
    echo "URIs: $uri"
    echo "Suites: trixie"
    echo "Components: main"
    if [ -n "$signed_by" ]; then echo "Signed-By: $signed_by"; fi
  } >"$trixie_source"
  cat >"$trixie_pin" <<'EOF'
# Only runsc may come from trixie; everything else stays on bookworm.
Package: *
Pin: release n=trixie
Pin-Priority: -1

Package: runsc
Pin: release n=trixie
Pin-Priority: 990
EOF
}

# Bookworm's runsc (0.0~20221219) cannot stat a Debian rootfs; require a 2024 or newer build.
runsc_works() {
  local build_date
  command -v runsc >/dev/null 2>&1 || return 1
  build_date="$(runsc --version 2>/dev/null | head -n 1 | grep -o '20[0-9]\{6\}' | head -n 1)"
  [ -n "$build_date" ] && [ "$build_date" -ge 20240101 ]
}

mapfile -t missing < <(missing_packages "${bookworm_packages[@]}")
need_runsc=0
runsc_works || need_runsc=1

if [ "${#missing[@]}" -eq 0 ] && [ "$need_runsc" -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if [ "$need_runsc" -eq 1 ]; then
  write_trixie_source
fi
apt-get update -qq
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "$need_runsc" -eq 1 ]; then
  echo "installing: runsc (trixie)"
  apt-get install -y -qq --no-install-recommends -t trixie runsc
fi
runsc_works || { echo "runsc is installed but does not report a usable version" >&2; exit 1; }
echo "system packages: installed"
