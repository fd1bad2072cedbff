#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages if missing, starts it on 127.0.0.1:5432, and makes sure the
# role the tests use exists (paddock/paddock, allowed to create databases). Idempotent.
set -euo pipefail

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  echo "installing PostgreSQL"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi

version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -q "^${version} main$"; then
  pg_createcluster "$version" main >/dev/null
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $4}' | grep -q online; then
  pg_ctlcluster "$version" main start
fi

for _ in $(seq 1 50); do
  pg_isready -q -h 127.0.0.1 -p 5432 && break
  sleep 0.2
done
pg_isready -h 127.0.0.1 -p 5432

su postgres -c "psql -qtAc \"select 1 from pg_roles where rolname='paddock'\"" | grep -q 1 ||
  su postgres -c "psql -qc \"create role paddock login createdb password 'paddock'\""
