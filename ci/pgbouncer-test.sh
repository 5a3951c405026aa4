#!/bin/sh
# A throwaway PgBouncer in front of a ci/pg-test-server.sh server, for the
# tests (t6106) and the benchmarks:
#
#   ci/pgbouncer-test.sh start DIR URL   make DIR, start PgBouncer on a free
#                                        loopback port in front of the server
#                                        of URL, in transaction mode; prints
#                                        the URL of the same database through
#                                        the pooler (also in DIR/url)
#   ci/pgbouncer-test.sh stop DIR        stop it and remove DIR
#
# The configuration is the one docs/stores.md recommends for many agents:
# pool_mode = transaction, ignore_startup_parameters = extra_float_digits,
# options (tracker's statement and lock timeouts travel in `options`,
# which PgBouncer refuses otherwise). PGB_POOL_SIZE sets default_pool_size
# (default 5), PGB_IGNORE ignore_startup_parameters. PgBouncer refuses to
# run as root: as root it runs as the system user `postgres`, else as
# ourselves. Missing, it is installed with `ci/install-deps.sh pg` (as
# root).
#
# Exit status: 0 done, 1 PgBouncer could not be installed or started (the
# reason on standard error), 2 usage error.
set -u

usage() {
	echo "usage: ci/pgbouncer-test.sh (start DIR URL | stop DIR)" >&2
	exit 2
}
[ $# -ge 2 ] || usage
cmd=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)

as_user() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

bouncer() {
	for b in pgbouncer /usr/sbin/pgbouncer; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return
		fi
	done
}

case $cmd in
start)
	[ $# -eq 3 ] || usage
	url=$3
	bin=$(bouncer)
	if [ -z "$bin" ] && [ "$(id -u)" = 0 ]; then
		"$here/install-deps.sh" pg >&2 || exit 1
		bin=$(bouncer)
	fi
	if [ -z "$bin" ]; then
		echo "pgbouncer-test: PgBouncer is not installed (Debian: pgbouncer)" >&2
		exit 1
	fi
	if [ "$(id -u)" = 0 ] && ! getent passwd postgres >/dev/null 2>&1; then
		echo "pgbouncer-test: no user postgres to run PgBouncer as" >&2
		exit 1
	fi
	# postgresql://USER@HOST:PORT/DB, as ci/pg-test-server.sh prints it
	rest=${url#postgresql://}
	user=${rest%%@*}
	rest=${rest#*@}
	host=${rest%%:*}
	rest=${rest#*:}
	port=${rest%%/*}
	db=${rest#*/}
	mkdir "$dir" || exit 1
	[ "$(id -u)" != 0 ] || chown postgres "$dir" || exit 1
	chmod 755 "$dir"
	lport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') || exit 1
	cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$host port=$port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $lport
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
default_pool_size = ${PGB_POOL_SIZE:-5}
max_client_conn = 1000
ignore_startup_parameters = ${PGB_IGNORE-extra_float_digits,options}
logfile = $dir/log
pidfile = $dir/pid
EOF
	echo "\"$user\" \"\"" >"$dir/users.txt"
	[ "$(id -u)" != 0 ] || chown postgres "$dir/pgbouncer.ini" "$dir/users.txt"
	as_user "$bin" -d "$dir/pgbouncer.ini" >"$dir/start.log" 2>&1 || {
		echo "pgbouncer-test: PgBouncer did not start:" >&2
		cat "$dir/start.log" "$dir/log" >&2 2>/dev/null
		exit 1
	}
	# ready once it accepts connections
	i=0
	while ! python3 -c "import socket; socket.create_connection(('127.0.0.1', $lport), 1)" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge 100 ]; then
			echo "pgbouncer-test: PgBouncer does not listen on port $lport:" >&2
			cat "$dir/log" >&2 2>/dev/null
			exit 1
		fi
		sleep 0.1
	done
	echo "postgresql://$user@127.0.0.1:$lport/$db" | tee "$dir/url"
	;;
stop)
	[ -d "$dir" ] || exit 0
	if [ -s "$dir/pid" ]; then
		pid=$(cat "$dir/pid")
		kill "$pid" 2>/dev/null
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	rm -rf "$dir"
	;;
*)
	usage
	;;
esac
