#!/bin/sh
# A PostgreSQL database that cannot be reached, seen by the commands that
# only read (history, check, diff, flame, dashboard, report): they give up
# within their bound (TK_STORE_READ_WAIT_S, 4 s, connection attempts
# included) with exit 69 naming the database, its password hidden. The
# time is not asserted here (the machine may be slow): the messages say
# the bound that was applied. No server is needed: a closed port on
# loopback, and a port that takes connections and never answers.

. "$(dirname "$0")/test-lib.sh"

if tracker version | grep -q "built without libpq"; then
	skip_all='tracker was built without libpq'
	test_done
fi
if ! [ -x /usr/bin/python3 ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
	test_done
fi

# the commands that only read, one per line: NAME ARGS...
cat >readers <<EOF
history
check --key k
diff --key k -o d.html
flame --key k -o f.svg
dashboard -o dash
report --artifacts rep
EOF

# readers URL: runs them all at once (each waits its bound), their exit
# codes in rc.NAME and stderr in err.NAME
readers() {
	pids=
	while read -r name args; do
		# shellcheck disable=SC2086
		(tracker $name $args --db "$1" >/dev/null 2>err.$name; echo $? >rc.$name) &
		pids="$pids $!"
	done <readers
	# shellcheck disable=SC2086
	wait $pids
}

test_expect_success 'a closed port: every reader exits 69, naming the database without its password' '
	port=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	readers "postgresql://ci:s3cret@127.0.0.1:$port/tracker" &&
	while read -r name args; do
		test "$(cat rc.$name)" = 69 &&
		grep "^tracker: error: gave up after [0-9]* attempts in 4 s: cannot connect to database .postgresql://ci:\*\*\*@127\.0\.0\.1:$port/tracker.: .*refused" err.$name &&
		! grep s3cret err.$name ||
		{ echo "$name: rc $(cat rc.$name)"; cat err.$name; return 1; }
	done <readers
'

test_expect_success 'a server that never answers: the attempt is cut to the bound' '
	python3 -c "
import socket, sys, time
s = socket.socket()
s.bind((\"127.0.0.1\", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
sys.stdout.close()
time.sleep(60)
" >port &
	pid=$! &&
	while ! test -s port; do sleep 0.1; done &&
	readers "postgresql://ci@127.0.0.1:$(cat port)/tracker";
	kill $pid &&
	while read -r name args; do
		test "$(cat rc.$name)" = 69 &&
		grep "^tracker: error: cannot connect to database .postgresql://ci@127\.0\.0\.1:[0-9]*/tracker.: timeout expired after 4 s$" err.$name ||
		{ echo "$name: rc $(cat rc.$name)"; cat err.$name; return 1; }
	done <readers
'

test_expect_success 'TRACKER_PG_RETRY_S may shorten a reader'"'"'s wait; writers keep theirs' '
	port=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	TRACKER_PG_RETRY_S=1 test_expect_code 69 tracker history \
		--db "postgresql://ci@127.0.0.1:$port/tracker" 2>err &&
	grep "gave up after [0-9]* attempts in 1 s: " err &&
	TRACKER_PG_RETRY_S=60 test_expect_code 69 tracker history \
		--db "postgresql://ci@127.0.0.1:$port/tracker" 2>err &&
	grep "gave up after [0-9]* attempts in 4 s: " err &&
	TRACKER_PG_RETRY_S=5 test_expect_code 69 tracker push \
		--db "postgresql://ci@127.0.0.1:$port/tracker" x.json 2>err &&
	grep "gave up after [0-9]* attempts in 5 s: " err
'

test_done
