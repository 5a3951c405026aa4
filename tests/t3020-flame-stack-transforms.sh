#!/bin/sh
# Stack transforms (--focus, --ignore, --hide, --prune-from,
# --collapse-recursion) for flame, diff and stored profiles, said in the
# subtitle.

. "$(dirname "$0")/test-lib.sh"

# A Julia-like CPU profile: a GC frame under two callers and a recursion.
cat >"$TRASH_DIRECTORY/prof.folded" <<'PROF'
main;solve;walk;walk;walk;leaf 12
main;solve;walk;walk;jl_gc_collect 3
main;solve;walk 5
main;io;write 4
main;io;jl_gc_collect 1
PROF

test_expect_success 'flame --collapse-recursion folds the walk tower to one frame' '
	tracker flame --collapse-recursion prof.folded -o c.folded &&
	printf "main;io;jl_gc_collect 1\nmain;io;write 4\nmain;solve;walk 5\nmain;solve;walk;jl_gc_collect 3\nmain;solve;walk;leaf 12\n" >expect &&
	test_cmp expect c.folded
'

test_expect_success 'flame --hide gives a hidden frame'"'"'s weight to its parent' '
	tracker flame --hide "^jl_gc" prof.folded -o h.folded &&
	printf "main;io 1\nmain;io;write 4\nmain;solve;walk 5\nmain;solve;walk;walk 3\nmain;solve;walk;walk;walk;leaf 12\n" >expect &&
	test_cmp expect h.folded
'

test_expect_success 'flame --focus, --ignore and --prune-from' '
	tracker flame --focus "^io$" prof.folded -o f.folded &&
	printf "main;io;jl_gc_collect 1\nmain;io;write 4\n" >expect &&
	test_cmp expect f.folded &&
	tracker flame --ignore gc_collect prof.folded -o i.folded &&
	printf "main;io;write 4\nmain;solve;walk 5\nmain;solve;walk;walk;walk;leaf 12\n" >expect &&
	test_cmp expect i.folded &&
	tracker flame --prune-from "^solve$" prof.folded -o p.folded &&
	printf "main;io;jl_gc_collect 1\nmain;io;write 4\nmain;solve 20\n" >expect &&
	test_cmp expect p.folded
'

test_expect_success 'the subtitle names the transforms in SVG and HTML' '
	tracker flame --hide "^jl_gc" --collapse-recursion prof.folded -o t.svg &&
	grep "id=\"subtitle\"[^>]*>hide '"'"'^jl_gc'"'"', recursion collapsed<" t.svg &&
	tracker flame --subtitle "run 12" --focus walk prof.folded -o t.html &&
	grep "run 12; focus" t.html &&
	tracker flame prof.folded -o plain.svg &&
	! grep "id=\"subtitle\"" plain.svg
'

test_expect_success 'a regex in the subtitle stays text' '
	tracker flame --focus "<script>|walk" prof.folded -o x.svg &&
	! grep "<script>|walk" x.svg &&
	grep "&lt;script&gt;|walk" x.svg
'

test_expect_success 'errors: a bad regex is a usage error, nothing left is bad data' '
	test_expect_code 2 tracker flame --focus "(" prof.folded -o e.svg 2>err &&
	grep -- "--focus: invalid regular expression" err &&
	test_expect_code 65 tracker flame --focus nonesuch prof.folded -o e.svg 2>err &&
	grep "no stack is left after focus" err &&
	! test -e e.svg
'

test_expect_success 'diff applies the transforms to both sides before matching' '
	printf "main;walk;walk;leaf 10\nmain;jl_gc_collect 4\n" >base.folded &&
	printf "main;walk;walk;walk;leaf 12\nmain;jl_gc_collect 1\n" >new.folded &&
	tracker diff base.folded new.folded -o raw.folded &&
	grep "^main;walk;walk;leaf 10 0$" raw.folded &&
	tracker diff --collapse-recursion --hide gc base.folded new.folded -o d.folded &&
	printf "main 4 1\nmain;walk;leaf 10 12\n" >expect &&
	test_cmp expect d.folded &&
	tracker diff --collapse-recursion base.folded new.folded -o d.svg &&
	grep "recursion collapsed" d.svg
'

# bk_run BRANCH BUILD PROFILE-TEXT: a Buildkite-like run of key k.
bk_run() {
	printf "$3" >"prof-$2.folded" &&
	env BUILDKITE=true BUILDKITE_BRANCH="$1" BUILDKITE_BUILD_NUMBER="$2" \
		BUILDKITE_COMMIT="$(printf '%040d' "$2")" BUILDKITE_PIPELINE_SLUG=p \
		BUILDKITE_PULL_REQUEST=false \
		tracker run -q --key k --db h.db --artifacts arts \
		--profile-file "prof-$2.folded" -- true
}

test_expect_success 'stored profiles: flame --key and diff --key take the transforms' '
	bk_run main 1 "main;fib;fib;fib 6\nmain;gc 2\n" &&
	bk_run feature 2 "main;fib;fib 9\nmain;gc 1\n" &&
	tracker flame --key k --branch main --db h.db --collapse-recursion -o s.folded &&
	printf "main;fib 6\nmain;gc 2\n" >expect &&
	test_cmp expect s.folded &&
	tracker flame --key k --branch main --db h.db --collapse-recursion -o s.svg &&
	grep "id=\"subtitle\"[^>]*>[^<]*; recursion collapsed<" s.svg &&
	tracker diff --key k --db h.db --branch feature --baseline-branch main \
		--collapse-recursion --ignore "^gc$" -o sd.folded 2>err &&
	printf "main;fib 6 9\n" >expect &&
	test_cmp expect sd.folded
'

test_done
