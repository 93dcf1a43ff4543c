#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs a command against a PostgreSQL server of its own: a fresh cluster (Debian's postgresql
# binaries) in a temporary directory, listening on a free loopback port, removed afterwards.
# The command gets CUZK_PG_DSN (and CUZK_PG_CTL: "bash with-postgres.sh-ctl stop|start" restarts
# the server for tests that need the database to go away and come back; "freeze" stops every
# process of the server with SIGSTOP, as a hung database host, and "thaw" resumes them).
#   bash tests/pg/with-postgres.sh COMMAND [ARGS...]
# Exits 77 (skipped) when no PostgreSQL server binaries are installed.
set -uo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  echo "with-postgres: no PostgreSQL server binaries (apt-get install postgresql): skipped"
  exit 77
fi
dir=$(mktemp -d /tmp/cuzk-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The server refuses to run as root: then it runs as the postgres user.
as_pg=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as_pg=(runuser -u postgres --)
fi
ctl() {
  "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on" "$@" > /dev/null
}
cleanup() {
  ctl -m immediate stop 2> /dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
if ! "${as_pg[@]}" "$PGBIN/initdb" -D "$dir/data" -A trust -U cuzk --no-instructions > "$dir/initdb.log" 2>&1; then
  cat "$dir/initdb.log"
  exit 1
fi
ctl start || { cat "$dir/server.log"; exit 1; }
# A helper the command can call to stop and start the server (same data, same port).
cat > "$dir/ctl.sh" <<CTL
#!/usr/bin/env bash
case "\$1" in
  stop) ${as_pg[*]} "$PGBIN/pg_ctl" -D "$dir/data" -w -m fast stop > /dev/null ;;
  kill) ${as_pg[*]} "$PGBIN/pg_ctl" -D "$dir/data" -w -m immediate stop > /dev/null ;;
  start) ${as_pg[*]} "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 -o "-c listen_addresses=127.0.0.1 -p $port -k $dir" start > /dev/null ;;
  freeze | thaw)
    pm=\$(head -n 1 "$dir/data/postmaster.pid" 2> /dev/null) || exit 0
    sig=STOP; [ "\$1" = thaw ] && sig=CONT
    kill -\$sig \$pm \$(ps -o pid= --ppid \$pm) 2> /dev/null ;;
esac
CTL
chmod +x "$dir/ctl.sh"
export CUZK_PG_DSN="host=127.0.0.1 port=$port user=cuzk dbname=postgres connect_timeout=5"
export CUZK_PG_CTL="$dir/ctl.sh"
"$@"
rc=$?
[ $rc = 0 ] || tail -n 20 "$dir/server.log"
exit $rc
