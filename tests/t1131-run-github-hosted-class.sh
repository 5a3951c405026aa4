#!/bin/sh
# GitHub-hosted runners are fresh VMs with a host name of their own each
# job (fv-az123-456): their runs still form one machine class, so check
# has a baseline. With RUNNER_ENVIRONMENT=github-hosted the class is the
# runner's image and arch; without it (a self-hosted runner, an older
# runner), the host group drops every trailing number of the host name.
# check's verdict on these runs of `true` is noise: only its baseline is
# asserted (exit 0 or 1).

. "$(dirname "$0")/test-lib.sh"

# gh HOST BUILD CMD...: a GitHub Actions job of a push to main; HOST
# (when the machine lets us set it) is the host name the job sees
gh() {
	_h=$1 _n=$2
	shift 2
	env GITHUB_ACTIONS=true GITHUB_REF_NAME=main GITHUB_REF_TYPE=branch \
		GITHUB_RUN_NUMBER="$_n" GITHUB_JOB=bench GITHUB_REPOSITORY=o/r \
		GITHUB_EVENT_NAME=push GITHUB_SHA="$(printf '%040x' "$_n")" \
		RUNNER_OS=Linux RUNNER_ARCH=X64 \
		${HOSTED:+RUNNER_ENVIRONMENT=github-hosted ImageOS=ubuntu22} \
		${_h:+unshare -u sh -c 'hostname "$0" && exec "$@"' "$_h"} "$@"
}

unshare -u sh -c 'hostname fv-az100-1' 2>/dev/null && test_set_prereq HOSTNAME

test_expect_success 'github-hosted: one class from the image and arch, and a baseline' '
	for n in 1 2 3 4 5 6; do
		HOSTED=1 gh "" $n tracker run -q --db h.db --key bench -- true || return 1
	done &&
	tracker history --db h.db --format csv >h.csv &&
	test "$(cut -d, -f26 h.csv | sort -u)" = "$(printf "github-hosted-ubuntu22-x64\nmachine_class")" &&
	{ HOSTED=1 gh "" 6 tracker check --db h.db --key bench --baseline-branch main >out
	  test $? -le 1; } &&
	grep "against 5 runs of main, machine class github-hosted-ubuntu22-x64" out
'

test_expect_success HOSTNAME 'no RUNNER_ENVIRONMENT: a new VM each job is still one host group' '
	for n in 1 2 3 4 5 6 7 8 9 10 11; do
		gh fv-az$((100 + 37 * n))-$((13 * n)) $n \
			tracker run -q --db v.db --key bench -- true || return 1
	done &&
	tracker history --db v.db --format csv >v.csv &&
	test "$(cut -d, -f26 v.csv | sort -u)" = "$(printf "fv-az\nmachine_class")" &&
	{ gh fv-az507-143 11 tracker check --db v.db --key bench --baseline-branch main >out
	  test $? -le 1; } &&
	grep "against 10 runs of main, machine class fv-az" out
'

test_done
