#!/bin/sh
# tracker run --profile: the built-in profiler end to end, from the job to
# the stored profiles that tracker flame and tracker diff read.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

DB="$PWD/db.sqlite"
export TRACKER_DB="$DB" TRACKER_ARTIFACTS="$PWD/art"

# folded KEY KIND: the newest KEY run's KIND profile as folded stacks,
# with everything above main cut off (libc's start-up frames vary).
folded() {
	tracker flame --key "$1" --kind "$2" -o "$1.$2.folded" &&
	sed -n "s/^\([^;]*\);.*;main;/\1;main;/p" "$1.$2.folded" | sort >"$1.$2"
}

test_expect_success PRELOAD 'exact mode: the stored alloc profile has every site and path' '
	tracker run -q --key pat --profile alloc --sample-bytes 1 -- "$ALLOCPATTERN" pattern >out &&
	folded pat alloc &&
	cat >expect <<-EOF &&
	allocpattern;main;run_pattern;pattern_calloc_site $(printed pattern_calloc_site 3)
	allocpattern;main;run_pattern;pattern_memalign_site $(printed pattern_memalign_site 3)
	allocpattern;main;run_pattern;pattern_mib_mid;pattern_mib_leaf $(printed pattern_mib_leaf 3)
	allocpattern;main;run_pattern;pattern_small_blocks $(printed pattern_small_blocks 3)
	EOF
	grep -v ";site_line;" pat.alloc >actual &&
	test_cmp expect actual
'

test_expect_success PRELOAD 'exact mode: alloc_count counts every allocation' '
	folded pat alloc_count &&
	cat >expect <<-EOF &&
	allocpattern;main;run_pattern;pattern_calloc_site 1
	allocpattern;main;run_pattern;pattern_memalign_site 1
	allocpattern;main;run_pattern;pattern_mib_mid;pattern_mib_leaf $(printed pattern_mib_leaf 4)
	allocpattern;main;run_pattern;pattern_small_blocks $(printed pattern_small_blocks 4)
	EOF
	grep -v ";site_line;" pat.alloc_count >actual &&
	test_cmp expect actual
'

test_expect_success PRELOAD '--unwind libunwind and --unwind fp find the same paths' '
	for u in libunwind fp; do
		tracker run -q --key unw-$u --profile alloc --sample-bytes 1 --unwind $u -- \
			"$ALLOCPATTERN" pattern >out &&
		folded unw-$u alloc &&
		grep -v ";site_line;" pat.alloc >expect &&
		grep -v ";site_line;" unw-$u.alloc >actual-$u &&
		test_cmp expect actual-$u || return 1
	done
'

test_expect_success PRELOAD '--profile-lines names each frame with its source line' '
	tracker run -q --key lines --profile alloc --sample-bytes 1 --profile-lines -- \
		"$ALLOCPATTERN" pattern >out &&
	tracker flame --key lines --kind alloc -o lines.folded &&
	line=$(grep -n "^SITE static void \*pattern_mib_leaf" "$TRACKER_ROOT/examples/allocpattern.c" | cut -d: -f1) &&
	grep ";pattern_mib_mid allocpattern.c:[0-9]*;pattern_mib_leaf allocpattern.c:[0-9]* " lines.folded &&
	leafline=$(sed -n "s/.*;pattern_mib_leaf allocpattern.c:\([0-9]*\) .*/\1/p" lines.folded) &&
	test "$leafline" -gt "$line"
'

test_expect_success PRELOAD 'heap_peak: the MiB blocks are all live at once' '
	folded pat heap_peak &&
	grep "^allocpattern;main;run_pattern;pattern_mib_mid;pattern_mib_leaf $((10 * 1048576))$" pat.heap_peak
'

test_expect_success PRELOAD 'the record file lists the profiles, kept beside it' '
	rec=$(ls art/pat-*.json) &&
	for k in alloc alloc_count heap_peak; do
		grep "\"$k\"" "$rec" &&
		ls art/pat-*.$k.tkprof || return 1
	done
'

test_expect_success PRELOAD 'default sampling: the total is close to exact' '
	TRACKER_PROFILE_SEED=7 tracker run -q --key big --profile alloc -- "$ALLOCPATTERN" big >out &&
	folded big alloc &&
	want=$(awk "\$1 == \"total\" { print \$2 }" out) &&
	got=$(awk "{ s += \$NF } END { printf \"%.0f\", s }" big.alloc) &&
	test_within $got $(($want * 97 / 100)) $(($want * 103 / 100))
'

# tkprof_dispersion FILE: the sampling dispersion a stored profile
# carries in its trailer (core/model/profcodec.h), or "none" for one without.
# The stream itself stays version 1, for trackers before the trailer.
tkprof_dispersion() {
	python3 -c '
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
d = zlib.decompressobj()
raw = d.decompress(data[8:])
t = d.unused_data
assert raw[:5] == b"TKPF\x01", raw[:5]
print(struct.unpack("<d", t[4:12])[0] if t[:4] == b"TKD1" else "none")' "$1"
}

test_expect_success PRELOAD 'sampled profiles carry their sampling noise, exact ones none' '
	rec=$(ls -t art/big-*.json | head -n 1) &&
	prefix=${rec%.json} &&
	d=$(tkprof_dispersion $prefix.alloc.tkprof) &&
	echo "alloc dispersion $d" &&
	awk -v d="$d" "BEGIN { exit !(d > 0 && d <= 524288) }" &&
	test "$(tkprof_dispersion $prefix.heap_peak.tkprof)" = "$d" &&
	c=$(tkprof_dispersion $prefix.alloc_count.tkprof) &&
	awk -v c="$c" "BEGIN { exit !(c > 0) }" &&
	for f in art/pat-*.tkprof; do
		test "$(tkprof_dispersion $f)" = none || return 1
	done
'

test_expect_success PRELOAD 'threads: every thread'\''s allocations are counted' '
	tracker run -q --key thr --profile alloc --sample-bytes 1 -- "$ALLOCPATTERN" threads 4 >out &&
	tracker flame --key thr --kind alloc -o thr.folded &&
	want=$(awk "\$1 == \"total\" { s += \$2 } END { print s }" out) &&
	got=$(grep ";thread_worker " thr.folded | awk "{ s += \$NF } END { printf \"%.0f\", s }") &&
	test "$got" = "$want"
'

test_expect_success PRELOAD 'fork, then exec in the child: both processes are profiled' '
	tracker run -q --key fe --profile alloc --sample-bytes 1 -- "$ALLOCPATTERN" forkexec >out &&
	tracker flame --key fe --kind alloc -o fe.folded &&
	grep "^allocpattern;.*;run_fork;fork_parent_site $(printed fork_parent_site 3)$" fe.folded &&
	grep "^allocpattern;.*;run_pattern;pattern_mib_mid;pattern_mib_leaf $(printed pattern_mib_leaf 3)$" fe.folded
'

test_expect_success PRELOAD 'a shell and the program it starts are separate root frames' '
	shell=$(basename "$(readlink -f /bin/sh)") &&
	tracker run -q --key sh --profile alloc --sample-bytes 1 -- \
		sh -c "\"$ALLOCPATTERN\" pattern; exit 0" >out &&
	tracker flame --key sh --kind alloc -o sh.folded &&
	grep "^allocpattern;.*;pattern_mib_leaf " sh.folded &&
	grep "^$shell;" sh.folded
'

test_expect_success PRELOAD 'a job killed by a signal keeps its profile up to then' '
	test_expect_code 137 tracker run -q --key kill --profile alloc --sample-bytes 1 -- \
		"$ALLOCPATTERN" killself KILL >out &&
	tracker history --key kill --format csv >hist &&
	grep ",signaled," hist &&
	tracker flame --key kill --kind alloc -o kill.folded &&
	test -s kill.folded
'

test_expect_success PRELOAD 'a static program: a warning, the job runs, no alloc profile' '
	tracker run --key static --profile alloc -- "$ALLOCPATTERN-static" pattern >out 2>err &&
	grep "statically linked" err &&
	grep "^total " out &&
	tracker history --key static --format csv >hist &&
	test $(wc -l <hist) = 2 &&
	test_must_fail tracker flame --key static --kind alloc -o static.svg
'

test_expect_success PRELOAD 'the job'\''s exit status is kept' '
	test_expect_code 3 tracker run -q --key exit3 --profile alloc -- sh -c "exit 3"
'

test_expect_success PRELOAD 'cpu with the timer sampler: the spinning functions' '
	tracker run -q --key spin --profile cpu --cpu-sampler timer --cpu-hz 499 -- "$ALLOCPATTERN" spin 1 >out &&
	folded spin cpu &&
	grep "^allocpattern;main;run_spin;spin_outer;spin_middle;spin_inner " spin.cpu
'

test_expect_success PRELOAD 'cpu with perf_event_open when the kernel allows it' '
	if tracker run -q --key spinp --profile cpu --cpu-sampler perf -- "$ALLOCPATTERN" spin 1 >out 2>err &&
	   ! grep "without a CPU profile" err
	then
		tracker flame --key spinp --kind cpu -o spinp.folded &&
		grep "^allocpattern;.*spin_outer;.*spin_inner " spinp.folded
	else
		say "# perf_event_open refused here: $(cat err)"
	fi
'

test_expect_success PRELOAD 'alloc,cpu together, and diff compares alloc profiles' '
	for i in 1 2; do
		tracker run -q --key both --profile alloc,cpu --sample-bytes 1 -- \
			sh -c "\"$ALLOCPATTERN\" pattern && \"$ALLOCPATTERN\" spin 0.3" >out || return 1
	done &&
	tracker flame --key both --kind cpu -o both-cpu.folded &&
	branch=$(tracker history --key both --format csv | sed -n "2s/^[^,]*,[^,]*,\([^,]*\),.*/\1/p") &&
	tracker diff --key both --kind alloc --baseline-branch "$branch" -o both-diff.folded &&
	grep "pattern_mib_leaf" both-diff.folded
'

# A filesystem that fills up under the table must cost the profile, not the
# job (the table is a sparse file: a new page that cannot be had is a
# SIGBUS in the job). Needs a small tmpfs, so root.
tiny=
if [ "$(id -u)" = 0 ] && mkdir tiny && mount -t tmpfs -o size=2m tmpfs tiny 2>/dev/null; then
	tiny=$PWD/tiny
	test_set_prereq TINYFS
	trap 'umount "$tiny" 2>/dev/null' EXIT
fi

test_expect_success PRELOAD,TINYFS 'a full filesystem under the table: the job goes on' '
	dd if=/dev/zero of=tiny/fill bs=1k count=1900 2>/dev/null &&
	TMPDIR=$PWD/tiny tracker run -q --key tiny --profile alloc --sample-bytes 1 -- \
		"$ALLOCPATTERN" threads 4 >out &&
	grep "^total " out
'
[ -z "$tiny" ] || umount "$tiny"

test_expect_success PRELOAD 'a job that never calls malloc: one warning, its status, no profile' '
	test_expect_code 3 tracker run --key nomalloc --profile alloc -- \
		"$ALLOCPATTERN" nomalloc 3 >out 2>err &&
	grep "^nomalloc " out &&
	grep "warning" err >warnings &&
	echo "tracker: warning: --profile alloc saw no malloc calls in '\''$ALLOCPATTERN'\'' (static binary, custom allocator?); no allocation profile stored" >expect &&
	test_cmp expect warnings &&
	tracker history --key nomalloc --format csv >hist &&
	test $(wc -l <hist) = 2 &&
	test_must_fail tracker flame --key nomalloc --kind alloc -o nomalloc.svg
'

test_expect_success PRELOAD 'a job allocating from its own pool: the same warning' '
	tracker run -q --key pool --profile alloc -- "$ALLOCPATTERN" pool 100000 >out 2>err &&
	grep "^pool_objects 100000" out &&
	test $(grep -c "" err) = 1 &&
	grep "saw no malloc calls in .*allocpattern" err &&
	test_must_fail tracker flame --key pool --kind alloc_count -o pool.svg
'

test_expect_success PRELOAD 'a few bytes allocated, none sampled: said, not silent' '
	tracker run -q --key few --profile alloc -- "$ALLOCPATTERN" tiny 3 >out 2>err &&
	test $(grep -c "" err) = 1 &&
	grep "sampled none of the allocations of .*allocpattern.* (fewer bytes than --sample-bytes 524288" err &&
	test_must_fail tracker flame --key few --kind alloc -o few.svg &&
	tracker run -q --key few1 --profile alloc --sample-bytes 1 -- "$ALLOCPATTERN" tiny 3 >out 2>err &&
	! test -s err &&
	tracker flame --key few1 --kind alloc_count -o few1.folded &&
	grep ";tiny_site 3$" few1.folded
'

# --cpu-hz 1: one sample a second of CPU time, so that the job surely
# takes none whatever the machine's speed.
test_expect_success PRELOAD 'a job too short for a CPU sample: one note, no cpu profile' '
	tracker run -q --key short --profile cpu --cpu-hz 1 -- "$ALLOCPATTERN" nomalloc >out 2>err &&
	grep "^nomalloc " out &&
	grep -v "without a CPU profile" err >notes &&
	test $(grep -c "" notes) = 1 &&
	grep "cpu took no sample of .*allocpattern.* (too short: under one period, 1/1 s of CPU time); no CPU profile stored" notes &&
	test_must_fail tracker flame --key short --kind cpu -o short.svg
'

test_expect_success 'bad --profile values are usage errors' '
	test_expect_code 2 tracker run --key x --profile heap -- true &&
	test_expect_code 2 tracker run --key x --sample-bytes 0 -- true &&
	test_expect_code 2 tracker run --key x --sample-bytes 12parsecs -- true &&
	test_expect_code 2 tracker run --key x --cpu-hz 0 -- true &&
	test_expect_code 2 tracker run --key x --cpu-sampler magic -- true &&
	test_expect_code 2 tracker run --key x --unwind dwarf -- true
'

test_done
