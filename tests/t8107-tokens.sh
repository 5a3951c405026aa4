#!/bin/sh
# CI tokens in the environment are never logged nor stored: not in the
# record file, the database, tracker's output, nor what history prints.
# (The job's argv is stored as given: a token typed on the command line
# is the user's to keep out of it; docs/reliability.md says so.)

. "$(dirname "$0")/test-lib.sh"

tokens="bk-agent-TOKEN-5f1c bk-api-TOKEN-77aa gh-TOKEN-9c2d gl-job-TOKEN-31be"

test_expect_success 'runs under Buildkite and GitHub with tokens in the environment' '
	BUILDKITE=true BUILDKITE_STEP_KEY=amip BUILDKITE_BUILD_NUMBER=7 BUILDKITE_BRANCH=main \
	BUILDKITE_AGENT_ACCESS_TOKEN=bk-agent-TOKEN-5f1c BUILDKITE_API_TOKEN=bk-api-TOKEN-77aa \
	GITHUB_TOKEN=gh-TOKEN-9c2d CI_JOB_TOKEN=gl-job-TOKEN-31be \
		tracker run --db db.sqlite --artifacts art -- sh -c "echo job ran" >out 2>err &&
	GITHUB_ACTIONS=true GITHUB_JOB=build GITHUB_REF_NAME=main GITHUB_SHA=abc \
	GITHUB_TOKEN=gh-TOKEN-9c2d BUILDKITE_API_TOKEN=bk-api-TOKEN-77aa \
		tracker run --key gh --db db.sqlite --artifacts art -- true >>out 2>>err &&
	GITLAB_CI=true CI_JOB_NAME=test CI_COMMIT_REF_NAME=main CI_JOB_TOKEN=gl-job-TOKEN-31be \
		tracker run --key gl --db db.sqlite --artifacts art -- true >>out 2>>err &&
	tracker history --db db.sqlite --format json >>out 2>>err &&
	tracker push --db db.sqlite art >>out 2>>err &&
	grep "job ran" out &&
	test $(ls art/*.json | wc -l) = 3
'

test_expect_success 'no token anywhere' '
	for t in $tokens; do
		! grep -r "$t" out err art db.sqlite* || return 1
		! grep -a "$t" db.sqlite* || return 1
	done
'

test_expect_success 'argv is stored as given' '
	tracker run --key argv --db db.sqlite --artifacts art2 -- sh -c "true \$GITHUB_TOKEN" &&
	grep -F "true \$GITHUB_TOKEN" art2/argv-*.json
'

test_done
