#!/bin/sh
# tracker run keeps the job's memory over time: the known answer (a job
# that touches 400 MiB in 8 steps over 3 s and frees it), the samples as
# history --run ID --timeline lists them, the pictures read back pixel by
# pixel (the PNG by a small PNG reader below, the HTML page as Chromium
# draws it), the record file and push carrying the timeline, SLURM steps
# drawn as marks (a stand-in sacct), hostile names inert, and the report
# linking the current run's timeline. All on default flags.

. "$(dirname "$0")/test-lib.sh"

command -v jq >/dev/null 2>&1 && test_set_prereq JQ
command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] && test_set_prereq CHROMIUM

MiB=1048576

# png.py FILE: "size W H", then for the colours asked (RRGGBB ...) the
# pixels of each, and per column of the plot the topmost pixel of the
# first colour ("top X Y"). A PNG reader of our own: 8-bit RGB or RGBA,
# not interlaced, as cairo and Chromium write them.
cat >png.py <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and ctype in (2, 6) and not interlace, "unsupported PNG"
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = 4 if ctype == 6 else 3
raw = zlib.decompress(idat)
stride = w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pr) & 255
    rows.append(line)
    prev = line
print("size %d %d" % (w, h))
def near(px, rgb):
    return all(abs(px[i] - rgb[i]) <= 40 for i in range(3))
want = [bytes.fromhex(c) for c in sys.argv[2:]]
count = [0] * len(want)
top = {}
for y in range(h):
    for x in range(w):
        px = rows[y][x * bpp:x * bpp + 3]
        for k, rgb in enumerate(want):
            if near(px, rgb):
                count[k] += 1
                if k == 0 and x not in top:
                    top[x] = y
for k, c in enumerate(sys.argv[2:]):
    print("colour %s %d" % (c, count[k]))
for x in sorted(top):
    print("top %d %d" % (x, top[x]))
EOF

test_expect_success JQ 'the known answer: 400 MiB in 8 steps over 3 s, freed' '
	tracker run -q --key ramp --db h.db --artifacts art -- "$WORKLOAD" ramp 400 8 3 &&
	id=$(tracker history --db h.db --key ramp --format csv | sed -n "2s/,.*//p") &&
	echo "$id" >id &&
	tracker history --db h.db --run "$id" --timeline --format json >tl.json &&
	n=$(jq ".samples | length" tl.json) &&
	test "$n" -ge 100 && test "$n" -le 2048 &&
	test "$(jq .interval_ms tl.json)" = 10 &&
	peak=$(jq ".samples | map(.rss_bytes) | max" tl.json) &&
	test "$(jq .peak.rss_bytes tl.json)" = "$peak" &&
	base=$(jq ".samples[-1].rss_bytes" tl.json) &&
	above=$(( (peak - base) / MiB )) &&
	echo "peak $peak, baseline $base: $above MiB above it" &&
	test "$above" -ge 380 && test "$above" -le 420 &&
	# the rise: from the first sample 25 MiB above the baseline to the peak
	t0=$(jq "[.samples[] | select(.rss_bytes > $base + 25 * $MiB)][0].t_ms" tl.json) &&
	t1=$(jq .peak.t_ms tl.json) &&
	rise=$(jq "[.samples[] | select(.t_ms >= $t0 and .t_ms <= $t1)] | length" tl.json) &&
	echo "$rise samples during the rise ($t0..$t1 ms)" &&
	test "$rise" -ge 20 &&
	# eight steps: eight levels the RSS stays at for 100 ms or more
	jq -r ".samples[] | \"\(.t_ms) \(.rss_bytes / $MiB | floor)\"" tl.json >points &&
	awk "{ if (\$2 == level) { if (\$1 - since >= 100 && !counted) { n++; counted = 1 } }
	       else { level = \$2; since = \$1; counted = 0 } }
	     END { print n; exit !(n >= 8) }" points
'

test_expect_success JQ 'the samples as a table and as CSV, the peak marked' '
	id=$(cat id) &&
	tracker history --db h.db --run "$id" --timeline >table &&
	head -1 table | grep -E "^ +TIME +RSS$" &&
	test $(grep -c " peak$" table) = 1 &&
	tracker history --db h.db --run "$(echo $id | cut -c1-8)" --timeline --format csv >tl.csv &&
	head -1 tl.csv | grep -x "t_ms,rss_bytes,cgroup_bytes" &&
	test $(($(wc -l <tl.csv) - 1)) = "$(jq ".samples | length" tl.json)" &&
	sed -n 2p tl.csv | grep -E "^[0-9]+,[0-9]+,$"
'

test_expect_success JQ 'the record file carries the timeline, and push stores it' '
	rec=$(ls art/ramp-*.json) &&
	test "$(jq -r .run.timeline.encoding "$rec")" = tl1 &&
	test "$(jq .run.timeline.points "$rec")" = "$(jq ".samples | length" tl.json)" &&
	test "$(jq .run.timeline.peak_rss_bytes "$rec")" = "$(jq .peak.rss_bytes tl.json)" &&
	tracker push --db pushed.db "$rec" &&
	tracker history --db pushed.db --run "$(cat id)" --timeline --format json >pushed.json &&
	test_cmp tl.json pushed.json &&
	tracker push --from sqlite:h.db --db copied.db &&
	tracker history --db copied.db --run "$(cat id)" --timeline --format json >copied.json &&
	test_cmp tl.json copied.json
'

test_expect_success 'the timeline is the database'"'"'s, not part of every listed run' '
	tracker history --db h.db --format json >runs.json &&
	! grep -q "\"timeline\"" runs.json &&
	test "$(sqlite3 h.db "SELECT points FROM timelines" 2>/dev/null || echo skip)" != 0
'

test_expect_success PYTHON3 'the PNG: the rise in steps, the peak dot at its top' '
	tracker history --db h.db --run "$(cat id)" --timeline -o tl.png &&
	python3 png.py tl.png 1f77b4 d62728 >px &&
	grep -x "size 900 420" px &&
	red=$(sed -n "s/^colour d62728 //p" px) && test "$red" -ge 30 &&
	# the line climbs: its top 20% into the plot is far below its top
	# near the peak, and it passes through several levels on the way
	awk "/^top / && \$2 >= 90 && \$2 <= 860 { n++; x[n] = \$2; y[n] = \$3 }
	     END {
		min = 1e9; for (i = 1; i <= n; i++) if (y[i] < min) { min = y[i]; at = x[i] }
		for (i = 1; i <= n; i++) if (x[i] < at) { lv[int(y[i] / 6)] = 1 }
		for (k in lv) levels++
		print \"top at x \" at \", y \" min \", \" levels \" levels below it\"
		exit !(levels >= 6 && min < 100)
	     }" px
'

test_expect_success 'the SVG and PDF are drawn; a picture of no format is refused' '
	id=$(cat id) &&
	tracker history --db h.db --run "$id" --timeline -o tl.svg &&
	head -c 5 tl.svg | grep -q "<?xml" &&
	grep -c "<polyline class=\"series\"" tl.svg >n && test "$(cat n)" = 1 &&
	grep -q "<circle class=\"peak\"" tl.svg &&
	grep -q ">peak 4[01][0-9] MiB at " tl.svg &&
	tracker history --db h.db --run "$id" --timeline -o tl.pdf &&
	head -c 5 tl.pdf | grep -q "%PDF" &&
	test_expect_code 2 tracker history --db h.db --run "$id" --timeline -o tl.gif 2>err &&
	grep "cannot tell the timeline.s format from .tl.gif. (use .png, .svg, .pdf, .html or .htm)" err &&
	test_expect_code 2 tracker history --db h.db --timeline 2>err &&
	grep "needs --run ID" err &&
	test_expect_code 2 tracker history --db h.db --run "$id" -o x.png 2>err &&
	grep "goes with --timeline" err &&
	test_expect_code 2 tracker history --db h.db --run "$id" --timeline --format csv -o x.png 2>err &&
	test_expect_code 2 tracker history --db h.db --run "$id" --timeline --format yaml 2>err
'

test_expect_success CHROMIUM,PYTHON3 'the HTML page as Chromium draws it: the line and the peak' '
	tracker history --db h.db --run "$(cat id)" --timeline -o tl.html &&
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--screenshot="$PWD/shot.png" --window-size=1000,700 "file://$PWD/tl.html" \
		>/dev/null 2>&1 &&
	python3 png.py shot.png 1f77b4 d62728 >px &&
	blue=$(sed -n "s/^colour 1f77b4 //p" px) && test "$blue" -ge 500 &&
	red=$(sed -n "s/^colour d62728 //p" px) && test "$red" -ge 30
'

test_expect_success 'a run kept with --no-timeline has none, and says so' '
	tracker run -q --no-timeline --key bare --db h.db --artifacts art2 -- true &&
	id=$(tracker history --db h.db --key bare --format csv | sed -n "2s/,.*//p") &&
	test_expect_code 65 tracker history --db h.db --run "$id" --timeline 2>err &&
	grep "has no memory timeline" err &&
	! grep -q "\"timeline\"" art2/*.json
'

# sacct: a stand-in that prints the job's steps; one hostile step name.
# The run keeps the srun steps it launched (4471.0), not the batch step
mkdir bin
# (Start and End now: a step the run launched starts within the run)
cat >bin/sacct <<'EOF'
#!/bin/sh
now=$(date +%Y-%m-%dT%H:%M:%S)
printf '%s\n' \
	"4471|climate|||||00:00:05|COMPLETED|0:0|$now|$now" \
	"4471.batch|batch|10702848|10702848|cpu=00:00:01,mem=10702848|cpu=00:00:01,mem=10702848|00:00:05|COMPLETED|0:0|$now|$now" \
	"4471.extern|extern|86016|86016|cpu=00:00:00,mem=86016|cpu=00:00:00,mem=86016|00:00:05|COMPLETED|0:0|$now|$now" \
	"4471.0|<script>alert(1)</script>&\"x|440401920|320000000|cpu=00:00:02,mem=440401920|cpu=00:00:02,mem=440401920|00:00:03|COMPLETED|0:0|$now|$now"
EOF
chmod +x bin/sacct

test_expect_success JQ 'with --sacct, each step'"'"'s MaxRSS until its Elapsed is a mark' '
	env PATH="$PWD/bin:$PATH" SLURM_JOB_ID=4471 SLURM_JOB_NAME=climate SLURM_NTASKS=1 \
		TRACKER_SACCT_WAIT=5 \
		tracker run -q --sacct --key slurmjob --db h.db --artifacts art3 -- \
		"$WORKLOAD" ramp 100 4 1 0.2 &&
	id=$(tracker history --db h.db --key slurmjob --format csv | sed -n "2s/,.*//p") &&
	tracker history --db h.db --run "$id" --timeline --format json >s.json &&
	test "$(jq -r "[.sacct_marks[].job_id] | join(\",\")" s.json)" = "4471.0" &&
	test "$(jq ".sacct_marks[0].maxrss_bytes" s.json)" = 440401920 &&
	test "$(jq ".sacct_marks[0].elapsed_s" s.json)" = 3 &&
	test "$(jq -r ".sacct_marks[0].name" s.json)" = "<script>alert(1)</script>&\"x" &&
	tracker history --db h.db --run "$id" --timeline -o s.svg &&
	test $(grep -c "stroke-dasharray" s.svg) = 2 &&
	grep -q ">step 4471.0 (&lt;script&gt;alert(1)&lt;/script&gt;&amp;\"x): MaxRSS 420 MiB, elapsed 3.00 s<" s.svg &&
	! grep -q "<script" s.svg &&
	tracker history --db h.db --run "$id" --timeline -o s.html &&
	! grep -q "<script" s.html &&
	grep -q "<td class=\"n\">&lt;script&gt;alert(1)&lt;/script&gt;&amp;\"x</td>" s.html &&
	tracker history --db h.db --run "$id" --timeline -o s.png
'

test_expect_success CHROMIUM 'a hostile key stays text in the page Chromium reads' '
	key="<img src=x onerror=alert(1)>\"&x" &&
	tracker run -q --key "$key" --db h.db --artifacts art4 -- "$WORKLOAD" touch 20 0.3 &&
	id=$(tracker history --db h.db --key "$key" --format csv | sed -n "2s/,.*//p") &&
	tracker history --db h.db --run "$id" --timeline -o k.html &&
	tracker history --db h.db --run "$id" --timeline -o k.svg &&
	tracker history --db h.db --run "$id" --timeline --format json >k.json &&
	! grep -q "<img" k.html k.svg &&
	grep -q "memory of &lt;img src=x onerror=alert(1)&gt;\"&amp;x, run" k.html &&
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --dump-dom "file://$PWD/k.html" \
		>dom 2>/dev/null &&
	! grep -q "<img" dom &&
	grep -q "memory of &lt;img src=x onerror=alert(1)&gt;\"&amp;x, run" dom
'

test_expect_success JQ 'the hostile key in JSON is a string, nothing more' '
	test "$(jq -r .key k.json)" = "<img src=x onerror=alert(1)>\"&x" &&
	! grep -q "<img" k.json
'

test_expect_success 'the report draws the timeline of each key'"'"'s current run' '
	tracker report --db h.db --artifacts rep >out 2>err &&
	ls rep | grep -- "-memory.png$" >png &&
	ls rep | grep -- "-memory.html$" >html &&
	test $(wc -l <png) -ge 2 &&
	grep -q "memory\](ramp-[0-9a-f]*-memory.html)" rep/summary.md &&
	grep -q "<img src=\"ramp-[0-9a-f]*-memory.png\" alt=\"memory of ramp\">" rep/index.html &&
	! grep -q "<img src=x" rep/index.html &&
	grep -q -- "-memory.png$" rep/.tracker-files
'

test_done
