#!/usr/bin/env bash
# The whole test suite (`make test`): builds, provides fresh scale-out stores when they are reachable (a new
# PostgreSQL database, Redis), runs every test under c8 (two test files at a time: the suite is mostly waiting on
# jobs and stores, and one file at a time took 48 minutes on two cores), and ends with one plain totals line.
set -euo pipefail
cd "$(dirname "$0")/.."

npm run --silent build

pg_host=${PGHOST_TEST:-127.0.0.1}
if [ -z "${TEST_DATABASE_URL:-}" ] && command -v psql >/dev/null && psql -h "$pg_host" -U postgres -d postgres -qtAc 'select 1' >/dev/null 2>&1; then
  db="causa_test_$(date +%s)_$$"
  psql -h "$pg_host" -U postgres -d postgres -qc "create database $db" >/dev/null
  trap 'psql -h "$pg_host" -U postgres -d postgres -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true' EXIT
  export TEST_DATABASE_URL="postgres://postgres@$pg_host:5432/$db"
fi
if [ -z "${TEST_REDIS_URL:-}" ] && command -v redis-cli >/dev/null && [ "$(redis-cli -h 127.0.0.1 ping 2>/dev/null)" = "PONG" ]; then
  export TEST_REDIS_URL="redis://127.0.0.1:6379"
fi
if [ -z "${TEST_MYSQL_URL:-}" ] && command -v mysqladmin >/dev/null && mysqladmin -h 127.0.0.1 -u root ping >/dev/null 2>&1; then
  export TEST_MYSQL_URL="mysql://root@127.0.0.1:3306/test"
fi
if [ -z "${TEST_CLICKHOUSE_SOURCE_URL:-}" ] && curl -fs 'http://127.0.0.1:8123/ping' >/dev/null 2>&1; then
  export TEST_CLICKHOUSE_SOURCE_URL="http://127.0.0.1:8123"
fi
echo "external services: TEST_DATABASE_URL=${TEST_DATABASE_URL:-<none, skipped>} TEST_REDIS_URL=${TEST_REDIS_URL:-<none, skipped>}" \
  "TEST_MYSQL_URL=${TEST_MYSQL_URL:-<none, skipped>} TEST_CLICKHOUSE_SOURCE_URL=${TEST_CLICKHOUSE_SOURCE_URL:-<none, skipped>}"

log=$(mktemp)
status=0
npx c8 --reporter=text-summary --reporter=lcov --all --src dist/src --exclude 'dist/test/**' --exclude 'dist/bench/**' \
  node --test --test-concurrency=2 --test-reporter=tap dist/test 2>&1 | tee "$log" || status=$?

pass=$(grep -E '^# pass ' "$log" | tail -1 | awk '{print $3}')
fail=$(grep -E '^# fail ' "$log" | tail -1 | awk '{print $3}')
skipped=$(grep -E '^# skipped ' "$log" | tail -1 | awk '{print $3}')
rm -f "$log"
echo "${pass:-0} passed, ${fail:-0} failed, ${skipped:-0} skipped"
if [ "${pass:-0}" = "0" ]; then status=1; fi
exit $status
