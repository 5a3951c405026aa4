# browser-lib.sh: what the headless-browser tests share. Source it after
# test-lib.sh.
#
#   reason=$(browser_missing)   why the browser cannot run here, or ""
#   result 'SCENARIO PAGE'      a check's verdict from browser.out
#   csp_hash_matches PAGE       the page's CSP names its script's hash

BROWSER_DIR="$TEST_DIRECTORY/browser"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM

command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3

# Needs node (>= 18), chromium (CHROMIUM=path overrides /usr/bin/chromium)
# and tests/browser's locked dependencies, which are installed before the
# tests start (ci/install-deps.sh test, or make check, runs `npm ci` in
# tests/browser), never by a test: under prove -j2 two tests would race.
browser_missing() {
	node_major=$(node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null)
	if [ -z "$node_major" ]; then
		echo 'node is not installed (ci/install-deps.sh test installs nodejs)'
	elif [ "$node_major" -lt 18 ]; then
		echo "node $node_major is too old (the browser tests need node >= 18)"
	elif ! [ -x "$CHROMIUM" ]; then
		echo "no chromium at $CHROMIUM (ci/install-deps.sh test installs it; CHROMIUM=path picks another)"
	elif ! [ -f "$BROWSER_DIR/node_modules/playwright-core/index.js" ]; then
		echo 'tests/browser/node_modules is missing (ci/install-deps.sh test or make browser-deps runs npm ci there)'
	fi
}

# result 'SCENARIO PAGE...': passes when the browser run printed
# "ok - SCENARIO PAGE..."; otherwise shows what it printed about it.
result() {
	grep -qxF "ok - $1" browser.out && return 0
	awk -v job="$1" 'index($0, "not ok - " job ":") == 1 { p = 1; print; next }
		p && /^#/ { print; next } { p = 0 }' browser.out
	return 1
}

# csp_hash_matches PAGE: the sha256 in the page's Content-Security-Policy
# is the hash of its script, so the browser runs it (and nothing else).
csp_hash_matches() {
	python3 - "$1" <<-\EOF
	import base64, hashlib, re, sys
	page = open(sys.argv[1], "rb").read()
	want = re.search(rb"script-src .sha256-([A-Za-z0-9+/=]+).", page).group(1)
	code = re.search(rb"<script>(.*?)</script>", page, re.S).group(1)
	got = base64.b64encode(hashlib.sha256(code).digest())
	sys.exit(0 if got == want else "csp hash %s, script hash %s" % (want, got))
	EOF
}
