# mkrec DIR N KEY BRANCH BUILD WALLTIME_S MAXRSS_BYTES [CLASS] [STATUS]
# writes one tracker-run record, DIR/KEY-N.json: run id from N, started N
# minutes after 2026-01-01, commit BUILD followed by abcdef... (40
# characters: build 125 is 125abcdefabcdef...); CLASS "-" leaves the run
# without a machine class (as runs recorded before classes existed).
mkrec() {
	_class=${8:--}
	_status=${9:-ok}
	if [ "$_class" = - ]; then _mc=''; else _mc="\"machine_class\": \"$_class\","; fi
	_commit=$(printf '%s%s' "$5" abcdefabcdefabcdefabcdefabcdefabcdefabcd | cut -c1-40)
	_exit=0
	[ "$_status" = ok ] || _exit=1
	printf '{"format": "tracker-run", "version": 1, "run": {
  "id": "00000000-0000-4000-8000-%012d", "key": "%s", "status": "%s",
  "partial": false, "started_at_us": %d, "walltime_s": %s, "user_s": %s,
  "sys_s": 0.5, "maxrss_bytes": %s, "tree_rss_bytes": %s, "exit_code": %d,
  "signal": 0, %s
  "ci": {"provider": "buildkite", "branch": "%s", "commit": "%s",
   "build_number": "%s", "default_branch": "main"}}}\n' \
		"$2" "$3" "$_status" $((1767225600000000 + $2 * 60000000)) "$6" "$6" "$7" "$7" \
		"$_exit" "$_mc" "$4" "$_commit" "$5" >"$1/$3-$2.json"
}
