#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and benchmarks: no TCP port, one Unix socket.
#   scripts/pg-cluster.sh start DIR   initdb into DIR (removed first), start, wait until ready;
#                                     prints the connection string (also written to DIR/conninfo)
#   scripts/pg-cluster.sh stop DIR    stop the server and remove DIR
# DIR also holds the socket, so keep its path short (a Unix socket path has ~100 bytes).
# The server runs as the calling user, or as `postgres` when called as root (initdb refuses
# root). Its superuser is `sg`, trusted on the socket alone; nothing listens on the network.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
(($# == 2)) || usage
action=$1
dir=$2
[[ $dir == /* ]] || dir="$PWD/$dir"

bindir=""
for candidate in "$(pg_config --bindir 2>/dev/null || true)" /usr/lib/postgresql/*/bin; do
  if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then bindir=$candidate; break; fi
done
if [[ -z $bindir ]]; then
  echo "pg-cluster: initdb/pg_ctl not found (Debian: apt-get install postgresql)" >&2
  exit 1
fi

# Runs a server program as the cluster's owner.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# DIR is removed by start and stop: refuse a folder that holds anything but a cluster of ours.
ours_or_empty() {
  [[ ! -e $dir ]] && return 0
  [[ -d $dir ]] || return 1
  [[ -z $(ls -A "$dir") || -f $dir/conninfo || -f $dir/data/PG_VERSION ]]
}
if ! ours_or_empty; then
  echo "pg-cluster: $dir exists and is not a cluster this script made; not touching it" >&2
  exit 1
fi

case "$action" in
  start)
    if [[ -f $dir/data/postmaster.pid ]]; then as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    : >"$dir/conninfo"  # marks the folder as ours until the server is up
    # --no-sync: the cluster is thrown away, so initdb need not wait for the disk.
    as_owner "$bindir/initdb" -D "$dir/data" -U sg --auth=trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
      cat "$dir/initdb.log" >&2; exit 1; }
    cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
max_connections = 200
shared_buffers = 32MB
logging_collector = off
# Commits still apply whole or not at all; they only stop waiting for the WAL flush, which
# a cluster thrown away after the tests does not need. A benchmark that measures the flush
# sets synchronous_commit on its own sessions (postgres_options::synchronous_commit).
synchronous_commit = off
CONF
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null || {
      cat "$dir/server.log" >&2; exit 1; }
    conninfo="host=$dir user=sg dbname=postgres"
    echo "$conninfo" >"$dir/conninfo"
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir/conninfo"; fi
    echo "$conninfo"
    ;;
  stop)
    if [[ -f $dir/data/postmaster.pid ]]; then
      # immediate: the cluster is thrown away, so it need not write a shutdown checkpoint.
      as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 60 stop >/dev/null
    fi
    rm -rf "$dir"
    ;;
  *) usage ;;
esac
