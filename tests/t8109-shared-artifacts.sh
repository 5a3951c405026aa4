#!/bin/sh
# A shared artifacts directory that others may write to cannot be used
# to make tracker overwrite another file: its temporary files have names
# nobody can guess and are opened with O_EXCL|O_NOFOLLOW, so a symlink
# planted at the name tracker once used (NAME.tmp.PID) is never followed.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a file to protect, mode 600' '
	echo secret >victim &&
	chmod 600 victim &&
	mkdir -m 1777 shared
'

# The job plays the other user: once the started record is there, it
# plants symlinks to the victim at every name tracker used to write.
test_expect_success 'symlinks planted at the old temporary names are not followed' '
	tracker run -q --key shared --db db.sqlite --artifacts shared \
		--profile-file "$FIXTURES/folded/simple.folded" -- sh -c "
		n=0
		until ls shared/shared-*.json >/dev/null 2>&1; do
			n=\$((n + 1)); [ \$n -gt 400 ] && exit 1; sleep 0.05
		done
		for f in shared/shared-*.json; do
			base=\${f%.json}
			ln -s \$PWD/victim \$f.tmp.\$PPID
			ln -s \$PWD/victim \$base.cpu.tkprof.tmp.\$PPID
		done" &&
	test "$(cat victim)" = secret &&
	grep "\"status\": \"ok\"" shared/shared-*.json &&
	ls shared/*.tkprof
'

test_expect_success 'a symlink at the record name itself is replaced, not followed' '
	rm -rf shared/* &&
	tracker run -q --key shared --db db.sqlite --artifacts shared -- sh -c "
		n=0
		until ls shared/shared-*.json >/dev/null 2>&1; do
			n=\$((n + 1)); [ \$n -gt 400 ] && exit 1; sleep 0.05
		done
		for f in shared/shared-*.json; do rm \$f; ln -s \$PWD/victim \$f; done" &&
	test "$(cat victim)" = secret &&
	for f in shared/shared-*.json; do test ! -L "$f" || return 1; done &&
	grep "\"status\": \"ok\"" shared/shared-*.json
'

test_done
