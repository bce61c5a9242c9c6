#!/usr/bin/env bash
# A ClickHouse server on loopback for the ClickHouse connector tests: Debian's clickhouse-server package (bookworm
# ships 18.16.1), run without systemd. Idempotent: installs the package when it is missing, starts the server
# unless it already answers, waits until its HTTP interface answers, and prints that URL.
set -euo pipefail

url="http://127.0.0.1:8123"
config=/etc/clickhouse-server/config.xml
pidfile=/var/lib/clickhouse/causa-test-server.pid

answers() {
  node -e "fetch(process.argv[1] + '/?query=SELECT%201', { signal: AbortSignal.timeout(2000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$url"
}

if answers; then
  echo "$url"
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "clickhouse-server.sh: no ClickHouse answers at $url, and starting one needs root (apt-get, the clickhouse user)" >&2
  exit 1
fi

if ! command -v clickhouse-server >/dev/null 2>&1; then
  started=$(date +%s)
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq clickhouse-server clickhouse-client >/dev/null \
    || { apt-get update -qq && apt-get install -y -qq clickhouse-server clickhouse-client >/dev/null; }
  echo "clickhouse-server.sh: installed clickhouse-server in $(($(date +%s) - started)) s" >&2
fi

# The packaged config listens on ::1 and 127.0.0.1; listen_try keeps the server up where IPv6 is unavailable.
mkdir -p /etc/clickhouse-server/config.d
if [ ! -f /etc/clickhouse-server/config.d/causa-test.xml ]; then
  printf '<yandex>\n    <listen_try>1</listen_try>\n</yandex>\n' >/etc/clickhouse-server/config.d/causa-test.xml
fi

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }
if ! running; then
  install -d -o clickhouse -g clickhouse /var/lib/clickhouse /var/log/clickhouse-server
  rm -f "$pidfile"
  # The server refuses to run on data owned by another user, so it runs as the package's clickhouse user.
  (cd /var/lib/clickhouse && runuser -u clickhouse -- clickhouse-server --config-file="$config" --pid-file="$pidfile" --daemon)
fi

for _ in $(seq 60); do
  if answers; then
    echo "$url"
    exit 0
  fi
  sleep 0.5
done
echo "clickhouse-server.sh: ClickHouse did not answer at $url within 30 s; the end of its error log:" >&2
tail -n 20 /var/log/clickhouse-server/clickhouse-server.err.log >&2 || true
exit 1
