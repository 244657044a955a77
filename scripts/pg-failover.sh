#!/usr/bin/env bash
# A throwaway pg_auto_failover formation on this machine: one monitor and two Postgres nodes
# (a primary and its standby), everything under one new temporary directory, for trying what
# the engine does when its database server is lost. Needs Debian's postgresql-15-auto-failover.
#
#   scripts/pg-failover.sh up MONITOR_PORT NODE1_PORT NODE2_PORT [TIMEOUT_SECONDS]
#       creates the formation; prints `dir=<directory>` at once and, once a primary and a
#       secondary are running, `uri=<formation URI>` (as pg_autoctl gives it, without a user)
#       and `user=<the nodes' superuser>`; removes everything if it fails or times out
#   scripts/pg-failover.sh kill-primary DIR
#       kills the current primary node (its pg_autoctl and Postgres, SIGKILL); prints its port
#   scripts/pg-failover.sh state DIR
#       prints the monitor's view of the nodes
#   scripts/pg-failover.sh down DIR
#       kills every process of the formation and removes DIR
#
# Postgres refuses to run as root: as root the commands run as the `postgres` user (the
# directory is made theirs). pg_autoctl's configuration and state files go under DIR too.
set -Eeuo pipefail

bindir="${PIXGATE_PG_BINDIR:-/usr/lib/postgresql/15/bin}"
# The nodes' superuser: initdb names it after the user who runs Postgres.
superuser="postgres"
[ "$(id -u)" = "0" ] || superuser="$(id -un)"

as_owner() {
  local dir="$1"
  shift
  local env=(env "PATH=$bindir:/usr/bin:/bin" "XDG_CONFIG_HOME=$dir/config" "XDG_DATA_HOME=$dir/share"
    "XDG_RUNTIME_DIR=$dir/run" "PG_REGRESS_SOCK_DIR=$dir/run" "PGHOST=127.0.0.1")
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "${env[@]}" "$@"
  else
    "${env[@]}" "$@"
  fi
}

monitor_uri() { echo "postgres://autoctl_node@127.0.0.1:$(cat "$1/monitor.port")/pg_auto_failover?sslmode=disable"; }

# The nodes as the monitor sees them: name port reported-state goal-state, one per line.
nodes() {
  as_owner "$1" psql -X -At -F ' ' -d "$(monitor_uri "$1")" -c \
    "SELECT nodename, nodeport, reportedstate, goalstate FROM pgautofailover.node ORDER BY nodeid" 2>/dev/null
}

# A process and all its descendants (pg_autoctl renames its processes, so never by name).
tree() {
  local pid child
  for pid in "$@"; do
    echo "$pid"
    for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do tree "$child"; done
  done
}

# The processes of one node (monitor, node1 or node2): what was started for it and its postmaster.
pids_of() {
  local dir="$1" name="$2" roots=()
  [ -f "$dir/$name.pid" ] && roots+=("$(cat "$dir/$name.pid")")
  [ -f "$dir/$name/postmaster.pid" ] && roots+=("$(head -n 1 "$dir/$name/postmaster.pid")")
  [ ${#roots[@]} -gt 0 ] && tree "${roots[@]}"
  return 0
}

kill_node() {
  local pids
  for _ in 1 2 3 4 5 6; do
    pids="$(pids_of "$1" "$2")"
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null || true
    sleep 0.5
  done
}

down() {
  local dir="$1"
  case "$dir" in /tmp/pixgate-failover.* | "${TMPDIR:-/tmp}"/pixgate-failover.*) ;; *)
    echo "refusing to remove $dir (not a pixgate-failover directory)" >&2
    return 1
    ;;
  esac
  local name
  for name in node1 node2 monitor; do kill_node "$dir" "$name"; done
  rm -rf "$dir"
}

up() {
  local monitor_port="$1" port1="$2" port2="$3" timeout="${4:-150}"
  local dir
  dir="$(mktemp -d "/tmp/pixgate-failover.XXXXXX")"
  mkdir -p "$dir/config" "$dir/share" "$dir/run" "$dir/log"
  chmod 0755 "$dir"
  if [ "$(id -u)" = "0" ]; then chown -R postgres: "$dir"; fi
  echo "$monitor_port" >"$dir/monitor.port"
  echo "dir=$dir"
  trap 'down "$dir"; exit 1' ERR INT TERM

  local common=(--pgctl "$bindir/pg_ctl" --hostname 127.0.0.1 --auth trust --no-ssl --ssl-mode disable --run)
  as_owner "$dir" pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$monitor_port" \
    "${common[@]}" >"$dir/log/monitor.log" 2>&1 &
  echo $! >"$dir/monitor.pid"
  local deadline=$((SECONDS + timeout))
  until as_owner "$dir" psql -X -At -d "$(monitor_uri "$dir")" -c "SELECT 1 FROM pgautofailover.node LIMIT 0" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "the monitor did not start within ${timeout}s" >&2
      tail -n 30 "$dir/log/monitor.log" >&2 || true
      false
    fi
    sleep 0.5
  done
  # Notice a lost node in a few seconds rather than the default 20 s or so, and promote the
  # standby 5 s (not 30 s) after asking a lost primary to demote. For a throwaway test formation
  # only: in production the monitor must wait longer than a partitioned primary takes to demote
  # itself (the keepers' timeout.network_partition_timeout, 20 s by default).
  as_owner "$dir" psql -X -q -d "postgres://$superuser@127.0.0.1:$monitor_port/postgres?sslmode=disable" -c "ALTER SYSTEM SET pgautofailover.health_check_period = 1000" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500" \
    -c "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 4000" \
    -c "ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000" \
    -c "SELECT pg_reload_conf()" >/dev/null

  local name port
  for name in node1 node2; do
    port="$port1"
    [ "$name" = node2 ] && port="$port2"
    as_owner "$dir" pg_autoctl create postgres --pgdata "$dir/$name" --pgport "$port" --name "$name" \
      --dbname pixgate --monitor "$(monitor_uri "$dir")" "${common[@]}" >"$dir/log/$name.log" 2>&1 &
    echo $! >"$dir/$name.pid"
    # The second node must find the first one's primary running to clone it.
    until nodes "$dir" | grep -q "^$name .* \(single\|primary\|secondary\) \(single\|primary\|secondary\)$"; do
      # pg_basebackup waits for a spread checkpoint on the primary (a minute or more): ask for it now.
      [ "$name" = node2 ] && as_owner "$dir" psql -X -q -d "postgres://$superuser@127.0.0.1:$port1/postgres" \
        -c CHECKPOINT >/dev/null 2>&1
      if [ $SECONDS -ge $deadline ]; then
        echo "$name did not start within ${timeout}s" >&2
        tail -n 30 "$dir/log/$name.log" >&2 || true
        nodes "$dir" >&2 || true
        false
      fi
      sleep 1
    done
  done
  until [ "$(nodes "$dir" | grep -c ' primary primary$\| secondary secondary$')" = 2 ]; do
    if [ $SECONDS -ge $deadline ]; then
      echo "no primary and secondary within ${timeout}s" >&2
      nodes "$dir" >&2 || true
      false
    fi
    sleep 0.5
  done
  trap - ERR INT TERM
  echo "uri=$(as_owner "$dir" pg_autoctl show uri --formation default --pgdata "$dir/monitor")"
  echo "user=$superuser"
}

kill_primary() {
  local dir="$1" line name port
  line="$(nodes "$dir" | grep ' primary primary$' | head -n 1)"
  if [ -z "$line" ]; then
    echo "no primary" >&2
    return 1
  fi
  name="${line%% *}"
  port="$(echo "$line" | cut -d ' ' -f 2)"
  kill_node "$dir" "$name"
  echo "$port"
}

case "${1:-}" in
  up) up "${2:?monitor port}" "${3:?node1 port}" "${4:?node2 port}" "${5:-150}" ;;
  down) down "${2:?directory}" ;;
  state) nodes "${2:?directory}" ;;
  kill-primary) kill_primary "${2:?directory}" ;;
  *)
    echo "usage: $0 up MONITOR_PORT NODE1_PORT NODE2_PORT [TIMEOUT] | kill-primary DIR | state DIR | down DIR" >&2
    exit 2
    ;;
esac
