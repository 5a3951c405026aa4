#!/bin/sh
# The SQLite store: many concurrent writers into one file, URL forms,
# directories created on demand, schema and journal mode.

. "$(dirname "$0")/test-lib.sh"

test_expect_success '50 concurrent tracker run into one database all land' '
	i=0 &&
	while [ $i -lt 50 ]; do
		tracker run -q --key k --db conc.db --artifacts art -- true 2>>err &
		i=$((i + 1))
	done &&
	wait &&
	! grep -i "could not record\|locked\|busy" err &&
	tracker history --db conc.db --format csv >out &&
	test $(wc -l <out) = 51 &&
	test $(tail -n +2 out | cut -d, -f1 | sort -u | wc -l) = 50
'

test_expect_success SQLITE3 'sqlite3 sees 50 rows, WAL mode, schema version 9, a sound file' '
	test "$(sqlite3 conc.db "SELECT count(*) FROM runs")" = 50 &&
	test "$(sqlite3 conc.db "PRAGMA journal_mode")" = wal &&
	test "$(sqlite3 conc.db "PRAGMA user_version")" = 9 &&
	test "$(sqlite3 conc.db "PRAGMA integrity_check")" = ok &&
	test "$(sqlite3 conc.db "SELECT count(*) FROM runs WHERE key = '"'"'k'"'"' AND status = '"'"'ok'"'"' AND record LIKE '"'"'{%'"'"'")" = 50
'

# The summary read of one key (query_summaries: every summary column up
# to schema version 6, as plugins/store/columns.h lists them) is served
# by the index of version 7 alone, in order.
test_expect_success SQLITE3 'one key'"'"'s summaries are read from the covering index alone' '
	sqlite3 conc.db "EXPLAIN QUERY PLAN SELECT run_id, key, branch, \"commit\",
		build_number, started_at_us, walltime_s, user_s, sys_s, maxrss_bytes,
		tree_rss_bytes, cgroup_peak_bytes, exit_code, signal, status, partial,
		provider, pipeline, build_url, host, tracker_version, rank, rank_group,
		maxrss_source, wrapper_rss_bytes, tree_samples, ntasks, machine_class,
		slurm_maxrss_bytes FROM runs WHERE key IN ('"'"'k'"'"') AND started_at_us >= 0
		ORDER BY started_at_us DESC, run_id" >plan &&
	grep "USING COVERING INDEX runs_key_started_cover" plan &&
	! grep "TEMP B-TREE" plan
'

test_expect_success 'sqlite:PATH and a bare path name the same database' '
	tracker history --db "sqlite:$PWD/conc.db" --format csv >out2 &&
	tracker history --db "$PWD/conc.db" --format csv >out3 &&
	test_cmp out2 out3 &&
	test $(wc -l <out2) = 51
'

test_expect_success 'the database directory is created when missing' '
	tracker run -q --key k --db "sqlite:deep/er/h.db" --artifacts art -- true 2>err &&
	test -f deep/er/h.db &&
	! grep "could not record" err &&
	tracker history --db deep/er/h.db --format csv >out &&
	test $(wc -l <out) = 2
'

test_expect_success 'an unknown URL scheme is a usage error' '
	test_expect_code 2 tracker history --db "mysql://host/db" 2>err &&
	grep "mysql://host/db" err
'

test_expect_success SQLITE3 'an existing database of an older schema version is migrated' '
	sqlite3 old.db "PRAGMA user_version = 0" &&
	tracker history --db old.db --format csv >out &&
	test $(wc -l <out) = 1 &&
	test "$(sqlite3 old.db "PRAGMA user_version")" = 9
'

# Schema version 3 as tracker 0.1 made it (plugins/store/sqlite.c,
# migrations 1-3), and the insert it did: every column from the record.
v3_schema="
CREATE TABLE runs (run_id TEXT PRIMARY KEY NOT NULL, key TEXT NOT NULL,
 branch TEXT, \"commit\" TEXT, build_number TEXT, started_at_us INTEGER NOT NULL,
 walltime_s REAL, user_s REAL, sys_s REAL, maxrss_bytes INTEGER,
 tree_rss_bytes INTEGER, cgroup_peak_bytes INTEGER, exit_code INTEGER,
 signal INTEGER, status TEXT NOT NULL, partial INTEGER NOT NULL DEFAULT 0,
 provider TEXT, pipeline TEXT, build_url TEXT, step_key TEXT, base_branch TEXT,
 host TEXT, slurm_job_id TEXT, tracker_version TEXT,
 stored_at_us INTEGER NOT NULL, record TEXT NOT NULL);
CREATE INDEX runs_key_branch_started ON runs (key, branch, started_at_us DESC);
CREATE INDEX runs_started ON runs (started_at_us DESC);
CREATE TABLE profiles (run_id TEXT NOT NULL REFERENCES runs (run_id),
 kind TEXT NOT NULL, unit TEXT NOT NULL, source_format TEXT,
 nodes INTEGER NOT NULL, total REAL NOT NULL, encoding TEXT NOT NULL,
 data BLOB NOT NULL, stored_at_us INTEGER NOT NULL, PRIMARY KEY (run_id, kind));
ALTER TABLE runs ADD COLUMN rank INTEGER;
ALTER TABLE runs ADD COLUMN rank_group TEXT;
CREATE INDEX runs_key_rank_group ON runs (key, rank_group) WHERE rank_group IS NOT NULL;
PRAGMA user_version = 3;"
v3_insert() { # v3_insert DB RECORD.json
	sqlite3 "$1" "INSERT INTO runs (run_id, key, branch, \"commit\", build_number,
	 started_at_us, walltime_s, user_s, sys_s, maxrss_bytes, tree_rss_bytes,
	 cgroup_peak_bytes, exit_code, signal, status, partial, provider, pipeline,
	 build_url, step_key, base_branch, host, slurm_job_id, tracker_version,
	 stored_at_us, record)
	 SELECT json_extract(j, '\$.run.id'), json_extract(j, '\$.run.key'),
	 json_extract(j, '\$.run.ci.branch'), json_extract(j, '\$.run.ci.commit'),
	 json_extract(j, '\$.run.ci.build_number'), json_extract(j, '\$.run.started_at_us'),
	 json_extract(j, '\$.run.walltime_s'), json_extract(j, '\$.run.user_s'),
	 json_extract(j, '\$.run.sys_s'), json_extract(j, '\$.run.maxrss_bytes'),
	 json_extract(j, '\$.run.tree_rss_bytes'), json_extract(j, '\$.run.cgroup_peak_bytes'),
	 json_extract(j, '\$.run.exit_code'), json_extract(j, '\$.run.signal'),
	 json_extract(j, '\$.run.status'), json_extract(j, '\$.run.partial'),
	 json_extract(j, '\$.run.ci.provider'), json_extract(j, '\$.run.ci.pipeline'),
	 json_extract(j, '\$.run.ci.build_url'), json_extract(j, '\$.run.ci.step_key'),
	 json_extract(j, '\$.run.ci.base_branch'), json_extract(j, '\$.run.ci.host'),
	 json_extract(j, '\$.run.ci.slurm_job_id'), json_extract(j, '\$.run.tracker_version'),
	 1, j FROM (SELECT CAST(readfile('$2') AS TEXT) AS j)"
}

test_expect_success SQLITE3 'a schema-3 database: stored runs and runs an older tracker adds later list as if pushed now' '
	tracker push --db new.db "$FIXTURES/records" 2>err &&
	tracker history --db new.db --format csv >want &&
	sqlite3 v3.db "$v3_schema" &&
	v3_insert v3.db "$FIXTURES/records/amip-staging-101.json" &&
	v3_insert v3.db "$FIXTURES/records/amip-staging-102.json" &&
	tracker history --db v3.db --format csv >/dev/null &&
	test "$(sqlite3 v3.db "PRAGMA user_version")" = 9 &&
	test "$(sqlite3 v3.db "SELECT count(*) FROM runs WHERE tree_samples IS NULL")" = 0 &&
	for f in amip-feature-103 ocean-release-104 ocean-staging-101; do
		v3_insert v3.db "$FIXTURES/records/$f.json" || return 1
	done &&
	tracker history --db v3.db --format csv >got &&
	test $(wc -l <got) = 6 &&
	test_cmp want got &&
	grep ",wait4," got
'

# A database this user cannot write (a shared one on a read-only mount):
# root writes anything, so as root the reader runs as nobody.
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1 &&
		test_set_prereq UNWRITABLE &&
		as_reader() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
else
	test_set_prereq UNWRITABLE
	as_reader() { "$@"; }
fi

test_expect_success SQLITE3,UNWRITABLE 'a schema-3 database that cannot be migrated is still listed' '
	ro=$(mktemp -d "${TMPDIR:-/tmp}/t6001-ro.XXXXXX") &&
	sqlite3 "$ro/h.db" "$v3_schema" &&
	for f in amip-staging-101 amip-staging-102 amip-feature-103 ocean-release-104 ocean-staging-101; do
		v3_insert "$ro/h.db" "$FIXTURES/records/$f.json" || return 1
	done &&
	chmod 444 "$ro/h.db" && chmod 555 "$ro" &&
	as_reader "$TRACKER_ROOT/tracker" history --db "$ro/h.db" --format csv >got 2>err;
	ret=$?; chmod 755 "$ro"; rm -rf "$ro";
	test $ret = 0 &&
	test_cmp want got &&
	! grep migrate err
'

test_done
