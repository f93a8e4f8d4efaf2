# Start a throwaway PostgreSQL cluster on 127.0.0.1:${PGPORT:-55432} and export TEST_DATABASE_URL.
# Sourced by .ci/run; also usable by hand: `source .ci/postgres.sh && start_postgres`.
start_postgres() {
  local bindir port data log
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  port=${PGPORT:-55432}
  data=${PGDATA_DIR:-/tmp/pbp-ci-pgdata}
  log=/tmp/pbp-ci-postgres.log
  if [ -z "$bindir" ]; then
    echo "PostgreSQL is not installed; the PostgreSQL tests will be skipped" >&2
    return 0
  fi
  local as=()
  if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); fi
  if ! "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port"; then
    rm -rf "$data"
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres: "$data"
    "${as[@]}" "$bindir/initdb" -D "$data" -U postgres --auth=trust >/dev/null || return 1
    "${as[@]}" "$bindir/pg_ctl" -D "$data" -l "$log" -w -o "-h 127.0.0.1 -p $port -k /tmp -c fsync=off -c max_connections=300" start >/dev/null || { cat "$log" >&2; return 1; }
  fi
  "$bindir/psql" -q -h 127.0.0.1 -p "$port" -U postgres -tc "SELECT 1 FROM pg_database WHERE datname = 'pbp_test'" | grep -q 1 \
    || "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres pbp_test
  export TEST_DATABASE_URL="postgresql+asyncpg://postgres@127.0.0.1:$port/pbp_test"
  echo "PostgreSQL ready: $TEST_DATABASE_URL"
}
