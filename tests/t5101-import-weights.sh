#!/bin/sh
# Weights that are not numbers a profile can hold are refused, the same
# way by every importer: exit 65 with the file and the line or byte
# offset, no output written. Before, a 400-digit count became infinity
# and the SVG said width="-nan", nsys overflowed a signed subtraction,
# pprof summed negative samples and named a function whose string index
# was past the table "[unknown]". The inputs are generated here.

. "$(dirname "$0")/test-lib.sh"

command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3
command -v sqlite3 >/dev/null 2>&1 && test_set_prereq SQLITE3

digits=$(printf '9%.0s' $(seq 400))

# refused FILE PATTERN: exit 65, the message matches, nothing written.
refused() {
	test_expect_code 65 tracker flame "$1" -o out.svg 2>err &&
	cat err && grep "$2" err && ! test -e out.svg
}

test_expect_success 'folded: a 400-digit count is refused, naming the line' '
	printf "main;a 3\nmain;b %s\n" "$digits" >huge.folded &&
	refused huge.folded "huge.folded. line 2: the count .* is too large"
'

test_expect_success 'folded: counts that add up past the limit are refused' '
	big=4$(printf "0%.0s" $(seq 299)) &&
	printf "a %s\nb %s\nc %s\n" "$big" "$big" "$big" >sum.folded &&
	refused sum.folded "sum.folded. line 3: the count 4e+299 makes the total too large"
'

test_expect_success 'folded: ordinary counts, default flags: the known total' '
	printf "main;a 3\nmain;b 2.5\nmain 1\n" >ok.folded &&
	tracker flame ok.folded -o ok.txt &&
	grep "^Profile — 6.5 samples$" ok.txt &&
	grep "^3 frames" ok.txt &&
	tracker flame ok.folded -o ok.svg &&
	! grep "=\"-\{0,1\}nan\"\|=\"-\{0,1\}inf\"" ok.svg &&
	grep -c "<rect" ok.svg
'

test_expect_success 'dtrace: a 400-digit count is refused, naming the line' '
	printf "\n              app\`main+0x9\n              %s\n" "$digits" >huge.dtrace &&
	tracker flame --format dtrace huge.dtrace -o out.svg 2>err; test $? = 65 &&
	grep "huge.dtrace. line 3: the count .* is too large" err
'

test_expect_success 'speedscope: a negative weight and an infinite one are refused' '
	printf "%s" "{\"shared\":{\"frames\":[{\"name\":\"f\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0],[0]],\"weights\":[1,-2]}]}" >neg.speedscope.json &&
	refused neg.speedscope.json "profiles\[0\].weights\[1\] is negative" &&
	printf "%s" "{\"shared\":{\"frames\":[{\"name\":\"f\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"seconds\",\"samples\":[[0]],\"weights\":[1e300]}]}" >inf.speedscope.json &&
	refused inf.speedscope.json "profiles\[0\].weights\[0\] is too large"
'

test_expect_success 'cpuprofile: hit counts that add up past the limit are refused' '
	printf "%s" "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\"},\"hitCount\":1e300},{\"id\":2,\"callFrame\":{\"functionName\":\"b\"},\"hitCount\":1e300}]}" >sum.cpuprofile &&
	refused sum.cpuprofile "nodes\[1\].hitCount .* makes the total too large"
'

# A pprof Profile by hand: one sample of value VALUE at a location whose
# function is named by string NAME_INDEX (4 strings in the table).
pprof() {
	python3 - "$@" <<-'PY'
	import sys
	def varint(v):
	    v &= (1 << 64) - 1
	    out = b""
	    while True:
	        b = v & 0x7f
	        v >>= 7
	        if v:
	            out += bytes([b | 0x80])
	        else:
	            return out + bytes([b])
	def field(n, wt, payload):
	    key = varint(n << 3 | wt)
	    if wt == 0:
	        return key + varint(payload)
	    return key + varint(len(payload)) + payload
	value, name, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
	vt = field(1, 0, 1) + field(2, 0, 2)
	sample = field(1, 2, varint(1)) + field(2, 2, varint(value))
	loc = field(1, 0, 1) + field(4, 2, field(1, 0, 1))
	fn = field(1, 0, 1) + field(2, 0, name)
	strings = b"".join(field(6, 2, s) for s in [b"", b"samples", b"count", b"main"])
	data = field(1, 2, vt) + field(2, 2, sample) + field(4, 2, loc) + field(5, 2, fn) + strings
	open(path, "wb").write(data)
	PY
}

test_expect_success PYTHON3 'pprof: the generator makes a profile that imports (known answer)' '
	pprof 5 3 good.pb &&
	tracker flame --format pprof good.pb -o good.folded &&
	echo "main 5" >expect && test_cmp expect good.folded
'

test_expect_success PYTHON3 'pprof: a negative sample value is refused, naming the byte' '
	pprof -5 3 neg.pb &&
	tracker flame --format pprof neg.pb -o out.svg 2>err; test $? = 65 &&
	grep "neg.pb. at byte [0-9]*: sample value -5 is negative" err
'

test_expect_success PYTHON3 'pprof: a function naming a string past the table is refused' '
	pprof 5 99 badname.pb &&
	tracker flame --format pprof badname.pb -o out.svg 2>err; test $? = 65 &&
	grep "badname.pb. at byte [0-9]*: function 1 names string 99 of 4" err
'

test_expect_success SQLITE3 'nsys: a kernel whose duration overflows is refused' '
	sqlite3 k.sqlite "
		CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
		CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, \"end\" INT NOT NULL,
			correlationId INT, globalPid INT, demangledName INT NOT NULL,
			shortName INT NOT NULL);
		INSERT INTO StringIds VALUES (1, '"'"'k'"'"');
		INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
			(100, 250, 1, 0, 1, 1),
			(-9223372036854775808, 9223372036854775807, 2, 0, 1, 1);" &&
	tracker flame k.sqlite -o out.svg 2>err; test $? = 65 &&
	grep "k.sqlite.: a kernel.s duration (end 9223372036854775807 - start -9223372036854775808) overflows" err
'

test_expect_success SQLITE3 'nsys: ordinary kernels, default flags: the known total' '
	sqlite3 k.sqlite "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 2" &&
	tracker flame k.sqlite -o k.folded &&
	echo "k 150" >expect && test_cmp expect k.folded
'

test_done
