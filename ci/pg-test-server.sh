#!/bin/sh
# A throwaway PostgreSQL server for the tests and the benchmarks:
#
#   ci/pg-test-server.sh start DIR    make DIR, initdb in it, start the
#                                     server on a free loopback port, create
#                                     the database tracker_test; prints the
#                                     URL (also in DIR/url)
#   ci/pg-test-server.sh stop DIR     stop the server and remove DIR
#   ci/pg-test-server.sh down DIR     stop the server, keep its data
#   ci/pg-test-server.sh up DIR       start it again, same port and data
#
# PostgreSQL refuses to run as root: as root, the server runs as the
# system user `postgres` (Debian's package makes it), else `tracker-test`
# (made here when missing); DIR belongs to that user. Missing server
# binaries are installed with `ci/install-deps.sh pg` (as root). The
# server listens on 127.0.0.1 only, no Unix socket, trust authentication
# for the user `tracker`; max_connections 300. PG_TEST_SERVER_OPTS adds
# postgres -c options ("-c fsync=off ...").
#
# Exit status: 0 done, 1 the server could not be installed or started
# (the reason on standard error), 2 usage error.
set -u

usage() {
	echo "usage: ci/pg-test-server.sh (start | stop | down | up) DIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)

bindir() {
	if [ -n "${PG_BINDIR:-}" ]; then
		echo "$PG_BINDIR"
		return
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
			return
		fi
	done
}

# as_user CMD...: CMD as the server's user (ourselves when not root)
as_user() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$user" -- "$@"
	else
		"$@"
	fi
}

pick_user() {
	user=$(id -un)
	[ "$(id -u)" = 0 ] || return 0
	if getent passwd postgres >/dev/null 2>&1; then
		user=postgres
		return 0
	fi
	user=tracker-test
	getent passwd "$user" >/dev/null 2>&1 ||
		useradd --system --no-create-home --shell /usr/sbin/nologin "$user" ||
		{ echo "pg-test-server: cannot create the user $user" >&2; exit 1; }
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

server_up() {
	# shellcheck disable=SC2086 # options are words
	as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 -s \
		-o "-c listen_addresses=127.0.0.1 -p $(cat "$dir/port") -c unix_socket_directories= -c max_connections=300 ${PG_TEST_SERVER_OPTS:-}" \
		start >/dev/null || {
		echo "pg-test-server: the server did not start; its log:" >&2
		tail -20 "$dir/log" >&2
		return 1
	}
}

server_down() {
	[ -f "$dir/data/postmaster.pid" ] || return 0
	as_user "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 -s stop >/dev/null
}

pick_user
bin=$(bindir)
if [ -z "$bin" ]; then
	if [ "$(id -u)" = 0 ]; then
		"$here/install-deps.sh" pg >&2 || exit 1
		bin=$(bindir)
	fi
	if [ -z "$bin" ]; then
		echo "pg-test-server: PostgreSQL's server is not installed (Debian: postgresql)" >&2
		exit 1
	fi
fi

case $cmd in
start)
	mkdir "$dir" || exit 1
	[ "$(id -u)" != 0 ] || chown "$user" "$dir" || exit 1
	chmod 700 "$dir"
	as_user "$bin/initdb" -D "$dir/data" -U tracker --auth=trust -E UTF8 --no-locale -N \
		>"$dir/initdb.log" 2>&1 || {
		echo "pg-test-server: initdb failed:" >&2
		cat "$dir/initdb.log" >&2
		exit 1
	}
	port=$(free_port) || exit 1
	echo "$port" >"$dir/port"
	server_up || exit 1
	as_user "$bin/createdb" -h 127.0.0.1 -p "$port" -U tracker tracker_test || exit 1
	url="postgresql://tracker@127.0.0.1:$port/tracker_test"
	echo "$url" >"$dir/url"
	echo "$url"
	;;
down)
	server_down
	;;
up)
	server_up
	;;
stop)
	[ -d "$dir" ] || exit 0
	server_down
	rm -rf "$dir"
	;;
*)
	usage
	;;
esac
