#!/bin/sh
# The CI context `tracker run` records, from real-looking CI environments
# (fixtures/env/*.env) and from git checkouts laid out by hand.

. "$(dirname "$0")/test-lib.sh"

command -v jq >/dev/null 2>&1 && test_set_prereq JQ

# with_env FILE CMD...: runs CMD with the variables of FILE exported
# (KEY=VALUE lines, # comments; values may contain spaces).
with_env() {
	(
		while IFS= read -r line; do
			case $line in
			'#'* | '') continue ;;
			esac
			export "${line%%=*}=${line#*=}"
		done <"$1"
		shift
		"$@"
	)
}

# make_repo DIR BRANCH SHA: a checkout whose HEAD is BRANCH at SHA,
# written by hand (no git needed), the ref in packed-refs.
make_repo() {
	mkdir -p "$1/.git/refs/heads" &&
	echo "ref: refs/heads/$2" >"$1/.git/HEAD" &&
	printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/heads/%s\n' \
		"$3" "$2" >"$1/.git/packed-refs"
}

# field JQ-PATH: that field of the one record under art/.
field() { jq -r ".run.$1" art/*.json; }

SHA_GIT=abcabcabcabcabcabcabcabcabcabcabcabcabca

test_expect_success JQ 'buildkite: build, PR base and agent tags recorded' '
	make_repo bk main $SHA_GIT &&
	(cd bk && with_env "$FIXTURES/env/buildkite-pr.env" \
		tracker run --artifacts art -- true) &&
	cd bk &&
	test "$(field ci.provider)" = buildkite &&
	test "$(field key)" = amip &&
	test "$(field ci.branch)" = ck/faster-radiation &&
	test "$(field ci.commit)" = 9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c &&
	test "$(field ci.base_branch)" = main &&
	test "$(field ci.build_number)" = 18741 &&
	test "$(field ci.step_label)" = "AMIP (gpu)" &&
	test "$(field ci.agent_tags.queue)" = clima &&
	test "$(field ci.agent_tags.slurm_ntasks)" = 4 &&
	test "$(field ci.agent_tags.ec2)" = null
'

test_expect_success JQ 'buildkite on slurm: both, and the commit from git when BUILDKITE_COMMIT=HEAD' '
	make_repo bks feature/x $SHA_GIT &&
	(cd bks && with_env "$FIXTURES/env/buildkite-on-slurm.env" \
		tracker run --key coupled --artifacts art -- true) &&
	cd bks &&
	test "$(field ci.provider)" = buildkite &&
	test "$(field ci.branch)" = main &&
	test "$(field ci.commit)" = $SHA_GIT &&
	test "$(field ci.slurm_job_id)" = 48213377 &&
	test "$(field ci.slurm_ntasks)" = 8 &&
	test "$(field ci.slurm_cpus_per_task)" = 4 &&
	test "$(field ci.host)" = hpc-92-10
'

test_expect_success JQ 'github pull request: head commit from the event payload' '
	make_repo gh main $SHA_GIT &&
	(cd gh && with_env "$FIXTURES/env/github-pull-request.env" \
		env GITHUB_EVENT_PATH="$FIXTURES/env/github-event-pull-request.json" \
		tracker run --key bench --artifacts art -- true) &&
	cd gh &&
	test "$(field ci.provider)" = github &&
	test "$(field ci.branch)" = ck/faster-radiation &&
	test "$(field ci.commit)" = c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00 &&
	test "$(field ci.base_commit)" = ba5eba11ba5eba11ba5eba11ba5eba11ba5eba11 &&
	test "$(field ci.base_branch)" = main &&
	test "$(field ci.build_url)" = https://github.com/CliMA/ClimaAtmos.jl/actions/runs/9876549999
'

test_expect_success JQ 'github pull request: a malformed payload falls back to GITHUB_SHA' '
	make_repo ghbad main $SHA_GIT &&
	(cd ghbad && with_env "$FIXTURES/env/github-pull-request.env" \
		env GITHUB_EVENT_PATH="$FIXTURES/env/github-event-malformed.json" \
		tracker run --key bench --artifacts art -- true) &&
	cd ghbad &&
	test "$(field ci.commit)" = e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3 &&
	test "$(field ci.base_commit)" = null
'

test_expect_success JQ 'gitlab merge request: source branch and target' '
	make_repo gl main $SHA_GIT &&
	(cd gl && with_env "$FIXTURES/env/gitlab-merge-request.env" \
		tracker run --key perf --artifacts art -- true) &&
	cd gl &&
	test "$(field ci.provider)" = gitlab &&
	test "$(field ci.branch)" = feature/openacc-dycore &&
	test "$(field ci.base_branch)" = develop &&
	test "$(field ci.commit)" = 6666666666666666666666666666666666666666
'

test_expect_success JQ 'slurm alone: the allocation, and branch and commit from git' '
	make_repo sl develop $SHA_GIT &&
	(cd sl && with_env "$FIXTURES/env/slurm-srun.env" \
		tracker run --key scaling --artifacts art -- true) &&
	cd sl &&
	test "$(field ci.provider)" = slurm &&
	test "$(field ci.branch)" = develop &&
	test "$(field ci.commit)" = $SHA_GIT &&
	test "$(field ci.slurm_ntasks)" = 16 &&
	test "$(field ci.slurm_procid)" = 3 &&
	test "$(field ci.host)" = hpc-34-02
'

test_expect_success JQ 'no CI: provider local, from a worktree .git file' '
	make_repo store main $SHA_GIT &&
	mkdir -p store/.git/worktrees/wt wt &&
	echo "ref: refs/heads/topic" >store/.git/worktrees/wt/HEAD &&
	echo ../.. >store/.git/worktrees/wt/commondir &&
	echo 0123456789012345678901234567890123456789 >store/.git/refs/heads/topic &&
	echo "gitdir: ../store/.git/worktrees/wt" >wt/.git &&
	(cd wt && tracker run --key plain --artifacts art -- true) &&
	cd wt &&
	test "$(field ci.provider)" = local &&
	test "$(field ci.branch)" = topic &&
	test "$(field ci.commit)" = 0123456789012345678901234567890123456789 &&
	test "$(field ci.host)" != null
'

test_expect_success JQ 'key: --key over TRACKER_KEY over BUILDKITE_STEP_KEY' '
	make_repo key main $SHA_GIT &&
	cd key &&
	BUILDKITE=true BUILDKITE_STEP_KEY=step TRACKER_KEY=env \
		tracker run --key cli --artifacts a1 -- true &&
	BUILDKITE=true BUILDKITE_STEP_KEY=step TRACKER_KEY=env \
		tracker run --artifacts a2 -- true &&
	BUILDKITE=true BUILDKITE_STEP_KEY=step TRACKER_KEY= \
		tracker run --artifacts a3 -- true &&
	test "$(jq -r .run.key a1/*.json)" = cli &&
	test "$(jq -r .run.key a2/*.json)" = env &&
	test "$(jq -r .run.key a3/*.json)" = step
'

test_done
