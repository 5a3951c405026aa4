/*
 * core/model/metric: names, lists, values of a run summary, human units, and
 * alloc totals read from a real SQLite store's profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/metric.h"
#include "core/model/profile.h"
#include "core/store/profstore.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-metric.XXXXXX";

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_metric m, list[TK_METRIC_COUNT];
	struct tk_run_summary s;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_store *st;
	struct tk_run r;
	struct tk_profile p;
	const char *ids[2];
	double v, tot[2];
	uint32_t names[2];
	int i, inserted;

	for (i = 0; i < TK_METRIC_COUNT; i++)
		ok(!tk_metric_parse(tk_metric_name((enum tk_metric)i), &m) && (int)m == i,
		   "%s parses back", tk_metric_name((enum tk_metric)i));
	ok(tk_metric_parse("wall", &m) == -1, "an unknown name does not");
	is_int(tk_metric_parse_list("walltime, maxrss,walltime,cpu", list, &err), 3,
	       "a list without duplicates");
	ok(list[0] == TK_METRIC_WALLTIME && list[1] == TK_METRIC_MAXRSS && list[2] == TK_METRIC_CPU,
	   "in the order written");
	is_int(tk_metric_parse_list("walltime,rss", list, &err), TK_EUSAGE, "an unknown one");
	is_str(err.msg, "unknown metric 'rss' (expected walltime, cpu, maxrss, tree_rss, alloc, "
	       "slurm_maxrss, alloc_count, heap_peak or cpu_profile)",
	       "is named");
	ok(tk_metric_unit(TK_METRIC_CPU) == TK_METRIC_SECONDS &&
	   tk_metric_unit(TK_METRIC_ALLOC) == TK_METRIC_BYTES, "units");

	memset(&s, 0, sizeof(s));
	s.walltime_s = 12.5;
	s.user_s = 10;
	s.sys_s = 1.5;
	s.maxrss_bytes = 1 << 20;
	s.tree_rss_bytes = -1;
	ok(!tk_metric_value(&s, TK_METRIC_CPU, &v) && v == 11.5, "cpu is user + sys");
	ok(!tk_metric_value(&s, TK_METRIC_MAXRSS, &v) && v == 1048576, "maxrss");
	is_int(tk_metric_value(&s, TK_METRIC_TREE_RSS, &v), -1, "an unknown figure has none");
	is_int(tk_metric_value(&s, TK_METRIC_ALLOC, &v), -1, "a summary has no alloc total");
	s.slurm_maxrss_bytes = -1;
	is_int(tk_metric_value(&s, TK_METRIC_SLURM_MAXRSS, &v), -1, "no SLURM accounting, none");
	s.slurm_maxrss_bytes = 3 << 20;
	ok(!tk_metric_value(&s, TK_METRIC_SLURM_MAXRSS, &v) && v == 3145728,
	   "slurm_maxrss is the accounting's largest step");
	ok(tk_metric_unit(TK_METRIC_SLURM_MAXRSS) == TK_METRIC_BYTES, "in bytes");
	s.sys_s = -1;
	is_int(tk_metric_value(&s, TK_METRIC_CPU, &v), -1, "cpu without sys has none");
	tk_metric_format(&b, TK_METRIC_MAXRSS, 3.0 * 1024 * 1024 * 1024);
	is_str(b.buf, "3.00 GiB", "bytes in human units");
	tk_buf_reset(&b);
	tk_metric_format(&b, TK_METRIC_WALLTIME, 125);
	is_str(b.buf, "2m 05s", "seconds in human units");

	/* a profile's total as a metric's value */
	{
		enum tk_metric_unit u = TK_METRIC_SECONDS;

		ok(tk_metric_profile_value(TK_METRIC_CPU_PROFILE, 2.5e9, "nanoseconds", &u) == 2.5 &&
		   u == TK_METRIC_SECONDS, "a cpu profile in nanoseconds: seconds");
		ok(tk_metric_profile_value(TK_METRIC_CPU_PROFILE, 300, "samples", &u) == 300 &&
		   u == TK_METRIC_COUNT_UNIT, "in samples: a count");
		ok(tk_metric_profile_value(TK_METRIC_CPU_PROFILE, 300, "bytes", &u) == -1,
			  "in bytes: no value");
		ok(tk_metric_profile_value(TK_METRIC_ALLOC, 4096, "bytes", &u) == 4096 &&
		   u == TK_METRIC_BYTES, "alloc in bytes");
		ok(tk_metric_profile_value(TK_METRIC_ALLOC, 4096, "samples", &u) == 4096 &&
		   u == TK_METRIC_BYTES, "alloc of a folded file (samples): its numbers are bytes");
		ok(tk_metric_profile_value(TK_METRIC_HEAP_PEAK, 5, "nanoseconds", &u) == -1,
			  "a heap in nanoseconds: no value");
		ok(tk_metric_profile_value(TK_METRIC_ALLOC_COUNT, 5, "bytes", &u) == -1,
			  "a count in bytes: no value");
		ok(tk_metric_profile_value(TK_METRIC_ALLOC_COUNT, 7, "count", &u) == 7 &&
		   u == TK_METRIC_COUNT_UNIT, "a count");
		ok(tk_metric_profile_value(TK_METRIC_ALLOC, -1, "bytes", &u) == -1,
			  "no profile: no value");
		is_str(tk_metric_profile_kind(TK_METRIC_CPU_PROFILE), "cpu", "cpu_profile is cpu's");
		ok(!tk_metric_profile_kind(TK_METRIC_CPU), "cpu is the run's own figure");
		tk_buf_reset(&b);
		tk_metric_format(&b, TK_METRIC_ALLOC_COUNT, 1234567);
		is_str(b.buf, "1.23 M", "counts in human units");
	}

	if (!mkdtemp(dir))
		return 1;
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s/h.db", dir);
	if (tk_store_open(b.buf, &st, &err)) {
		diag(err.msg);
		return 1;
	}
	tk_run_init(&r);
	r.key = strdup("k");
	r.status = TK_RUN_OK;
	r.exit_code = 0;
	tk_uuid_v4(r.id, &err);
	tk_store_put_run(st, &r, &inserted, &err);
	tk_profile_init(&p, TK_UNIT_BYTES);
	names[0] = tk_profile_intern(&p, "main", 4);
	names[1] = tk_profile_intern(&p, "malloc", 6);
	tk_profile_add_stack(&p, names, 2, 4096);
	tk_profile_add_stack(&p, names, 1, 1000);
	tk_profile_finish(&p);
	ok(!tk_profstore_put(st, r.id, "alloc", NULL, &p, &err), "an alloc profile stored");
	ids[0] = r.id;
	ids[1] = "00000000-0000-4000-8000-000000000000";
	ok(!tk_profstore_alloc_totals(st, ids, 2, tot, &err), "alloc totals read");
	ok(tot[0] == 5096, "the run's total (%g)", tot[0]);
	ok(tot[1] == -1, "none for a run without a profile");
	tk_profile_release(&p);
	tk_run_release(&r);
	tk_store_close(st);
	unlink(b.buf);
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s/h.db-wal", dir);
	unlink(b.buf);
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s/h.db-shm", dir);
	unlink(b.buf);
	rmdir(dir);
	tk_buf_release(&b);
	return done_testing();
}
