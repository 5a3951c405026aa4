#!/bin/sh
# The preload library's allocation profiles: exact totals at sample bytes
# 1, unbiased totals at the default rate, realloc chains, aligned variants.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

test_expect_success PRELOAD 'exact mode: every site has exactly the printed bytes and count' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" pattern >out &&
	dump_all &&
	grep "^sample_bytes 1$" dump &&
	grep "^exited 1$" dump &&
	grep "^dropped 0$" dump &&
	for f in pattern_small_blocks pattern_mib_leaf pattern_calloc_site pattern_memalign_site; do
		test "$(site_field $f 4)" = "$(printed $f 3)" &&
		test "$(site_field $f 5)" = "$(printed $f 4)" || return 1
	done
'

test_expect_success PRELOAD 'exact mode: the call paths, innermost first, the allocator not among them' '
	grep "^slot .* pattern_mib_leaf pattern_mib_mid run_pattern main " dump &&
	grep "^slot .* pattern_small_blocks run_pattern main " dump &&
	grep "^slot .* pattern_calloc_site run_pattern main " dump &&
	grep "^slot .* pattern_memalign_site run_pattern main " dump &&
	! grep -E " (malloc|calloc|posix_memalign|record_alloc|stack_slot)( |$)" dump
'

test_expect_success PRELOAD 'exact mode: peak live bytes of the MiB blocks, all live at once' '
	test "$(site_field pattern_mib_leaf 6)" = $((10 * 1048576))
'

test_expect_success PRELOAD 'the table file names its process and the maps file has snapshots' '
	pid=$(sed -n "s/^pid //p" dump) &&
	test -f prof/$pid.0.tkraw &&
	grep -q "^# snapshot$" prof/$pid.0.maps &&
	grep -q "allocpattern$" prof/$pid.0.maps &&
	grep "^exe .*/examples/allocpattern$" dump &&
	grep "^unwinder fp+libunwind$" dump
'

test_expect_success PRELOAD 'exact mode with each unwinder gives the same sites' '
	for u in fp libunwind; do
		profile TRACKER_PROFILE_SAMPLE_BYTES=1 TRACKER_PROFILE_UNWIND=$u "$ALLOCPATTERN" pattern >out &&
		dump_all &&
		grep "^unwinder $u$" dump &&
		grep "^slot .* pattern_mib_leaf pattern_mib_mid run_pattern main " dump &&
		test "$(site_field pattern_small_blocks 4)" = "$(printed pattern_small_blocks 3)" || return 1
	done
'

# Sampled: 7 GiB over three sites of 1..4 GiB; the expected relative
# standard deviation of the total is under 1%, of a site under 1.5%.
test_expect_success PRELOAD 'default rate, several seeds: total within 3%, every site within 10%' '
	for seed in 1 2 3 4; do
		profile TRACKER_PROFILE_SEED=$seed "$ALLOCPATTERN" big >out &&
		dump_all &&
		grep "^sample_bytes 524288$" dump &&
		total=$(awk "\$1 == \"slot\" { s += \$4 } END { printf \"%.0f\", s }" dump) &&
		want=$(awk "\$1 == \"total\" { print \$2 }" out) &&
		test_within $total $(($want * 97 / 100)) $(($want * 103 / 100)) &&
		for f in big_small_blocks big_medium_blocks big_large_blocks; do
			got=$(site_field $f 4 2) &&
			want=$(printed $f 3) &&
			test_within $got $(($want * 90 / 100)) $(($want * 110 / 100)) || return 1
		done || return 1
	done
'

# Sampled blocks freed must leave the live bytes: free finds them through
# the live filter. 100000 blocks of 16 bytes (1.6 MB) live at a time, 40
# times over (64 MB in all, about 125 samples): the peak is a few MB whatever the seed,
# and would climb towards 64 MB if frees of sampled blocks were missed.
test_expect_success PRELOAD 'default rate: freed samples leave the live bytes (peak stays a few MB)' '
	for seed in 1 2 3; do
		profile TRACKER_PROFILE_SEED=$seed "$ALLOCPATTERN" manylive 100000 40 >out &&
		dump_all &&
		test_within $(site_field manylive_site 4) 48000000 80000000 &&
		test_within $(site_field manylive_site 6) 1 12000000 || return 1
	done
'

test_expect_success PRELOAD 'a different seed gives a different sample' '
	profile TRACKER_PROFILE_SEED=1 "$ALLOCPATTERN" big >out && dump_all &&
	a=$(site_field big_small_blocks 4 2) &&
	profile TRACKER_PROFILE_SEED=1 "$ALLOCPATTERN" big >out && dump_all &&
	b=$(site_field big_small_blocks 4 2) &&
	profile TRACKER_PROFILE_SEED=2 "$ALLOCPATTERN" big >out && dump_all &&
	c=$(site_field big_small_blocks 4 2) &&
	test "$a" = "$b" && test "$a" != "$c"
'

test_expect_success PRELOAD 'realloc chains: every realloc is an allocation of the new size' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" realloc >out &&
	dump_all &&
	test "$(site_field realloc_chain 4)" = "$(printed realloc_chain 3)" &&
	test "$(site_field realloc_chain 5)" = "$(printed realloc_chain 4)" &&
	peak=$(awk "\$1 == \"slot\" && \$8 == \"realloc_chain\" && \$6 > m { m = \$6 } END { print m }" dump) &&
	test "$peak" = 102400
'

test_expect_success PRELOAD 'aligned variants: each at its own site with its size' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" aligned >out &&
	dump_all &&
	for f in aligned_posix_memalign aligned_aligned_alloc aligned_memalign aligned_valloc \
		 aligned_pvalloc aligned_reallocarray; do
		test "$(site_field $f 4)" = "$(printed $f 3)" &&
		test "$(site_field $f 5)" = 1 || return 1
	done
'

test_done
