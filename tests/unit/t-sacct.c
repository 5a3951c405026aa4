/*
 * core/ci/sacct: sacct's parsable output (fixtures/sacct/, real shapes of
 * Slurm 23 and of Slurm 17's KiB sizes), sizes, elapsed times, TRES
 * lists, the largest step, and when the accounting counts as settled.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/ci/sacct.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

/* Run from the top of the tree, or with $TRACKER_ROOT set. */
static const char *root(void)
{
	const char *r = getenv("TRACKER_ROOT");

	return r && *r ? r : ".";
}

static int parse_text(const char *text, struct tk_sacct *s, struct tk_err *err)
{
	return tk_sacct_parse(text, strlen(text), "sacct output", s, err);
}

static int parse_fixture(const char *name, struct tk_sacct *s)
{
	struct tk_buf path = TK_BUF_INIT, text = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	tk_buf_addf(&path, "%s/fixtures/sacct/%s", root(), name);
	ret = tk_buf_read_file(&text, path.buf, &err);
	if (!ret)
		ret = tk_sacct_parse(text.buf, text.len, name, s, &err);
	if (ret)
		printf("# %s\n", err.msg);
	tk_buf_release(&path);
	tk_buf_release(&text);
	return ret;
}

static void size_is(const char *s, long long want)
{
	int64_t v;
	int ret = tk_sacct_parse_size(s, strlen(s), &v);

	ok(!ret && v == want, "size '%s' is %lld (got %d, %lld)", s, want, ret, (long long)v);
}

static void size_bad(const char *s)
{
	int64_t v;

	is_int(tk_sacct_parse_size(s, strlen(s), &v), -1, "size '%s' is refused", s);
}

static void elapsed_is(const char *s, double want)
{
	double v;
	int ret = tk_sacct_parse_elapsed(s, strlen(s), &v);

	ok(!ret && fabs(v - want) < 1e-6, "elapsed '%s' is %g s (got %d, %g)", s, want, ret, v);
}

static void elapsed_bad(const char *s)
{
	double v;

	is_int(tk_sacct_parse_elapsed(s, strlen(s), &v), -1, "elapsed '%s' is refused", s);
}

static void bad_line(const char *text, const char *want)
{
	struct tk_sacct s;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	tk_sacct_init(&s);
	ret = parse_text(text, &s, &err);
	ok(ret == TK_EDATA && strstr(err.msg, want) && s.nr == 0,
	   "refused with '%s' (got %d, '%s')", want, ret, err.msg);
	tk_sacct_release(&s);
}

/*
 * A run launched steps 5.2 and 5.3 of its job between 11:00:10 and
 * 11:00:20; 5.0 (before it), 5.1 (a background step still running) and
 * the batch, extern and job rows are not its own.
 */
static const char job_of_two_runs[] =
	"5|job|||||00:01:00|RUNNING|0:0|2026-11-27T11:00:00|Unknown\n"
	"5.batch|batch|||||00:01:00|RUNNING|0:0|2026-11-27T11:00:00|Unknown\n"
	"5.extern|extern|||||00:01:00|RUNNING|0:0|2026-11-27T11:00:00|Unknown\n"
	"5.0|big|524288000|524288000||||COMPLETED|0:0|2026-11-27T11:00:01|2026-11-27T11:00:09\n"
	"5.1|bg|||||00:00:30|RUNNING|0:0|2026-11-27T11:00:05|Unknown\n"
	"5.2|small|52428800|52428800||||COMPLETED|0:0|2026-11-27T11:00:11|2026-11-27T11:00:15\n"
	"5.3|small|41943040|41943040|||00:00:04|OUT_OF_MEMORY|0:125|2026-11-27T11:00:15|"
	"2026-11-27T11:00:19\n";

static void own_steps(void)
{
	struct tk_sacct s;
	struct tk_err err = TK_ERR_INIT;
	int64_t from, to;

	tk_sacct_init(&s);
	ok(!tk_sacct_parse_time("2026-11-27T11:00:10", 19, &from) && from > 0,
	   "a Start time parses");
	to = from + 10;
	ok(!parse_text(job_of_two_runs, &s, &err), "a job of two runs and a background step");
	is_int(s.maxrss_bytes, 524288000, "the allocation's largest step is 5.0");
	ok(tk_sacct_settled(&s, from, to, NULL),
	   "settled though the background step 5.1 still runs: not the run's own");
	tk_sacct_keep_own(&s, from, to, NULL);
	is_int(s.nr, 2, "the run keeps its two steps");
	is_str(s.steps[0].job_id, "5.2", "the first of them");
	is_int(s.maxrss_bytes, 52428800, "its memory is its own steps' largest, not 5.0's");
	is_str(s.maxrss_step, "5.2", "named by its step");
	is_str(tk_sacct_worst_state(&s), "OUT_OF_MEMORY", "one of them ran out of memory");
	ok(!parse_text(job_of_two_runs, &s, &err), "again");
	tk_sacct_keep_own(&s, from, to, "2");
	ok(s.nr == 1 && !strcmp(s.steps[0].job_id, "5.3"), "tracker's own step is not its own");
	ok(!parse_text(job_of_two_runs, &s, &err), "again");
	tk_sacct_keep_own(&s, from - 9, from - 6, NULL);
	ok(s.nr == 1 && !strcmp(s.steps[0].job_id, "5.0") && !tk_sacct_worst_state(&s),
	   "the first run's own step, COMPLETED");
	ok(!parse_text("5.0|m|||||00:00:01|RUNNING|0:0|2026-11-27T11:00:00|Unknown\n", &s, &err) &&
	   !tk_sacct_settled(&s, from - 10, from, NULL), "a running step of the run's own is waited for");
	ok(tk_sacct_settled(&s, from + 1, to, NULL), "one that started before the run is not");
	is_int(tk_sacct_parse_time("None", 4, &from), 0, "None is a time");
	is_int(from, -1, "unknown");
	is_int(tk_sacct_parse_time("2026-11-27 11:00:00", 19, &from), -1, "a space is refused");
	bad_line("5.0|m|||||00:00:01|COMPLETED|0:0|yesterday|\n", "Start or End");
	tk_sacct_release(&s);
}

static void lower_bound(void)
{
	struct tk_sacct s;
	struct tk_err err = TK_ERR_INIT;
	static const char five_s[] =
		"7.0|m|943718|943718||||COMPLETED|0:0|2026-11-27T11:00:00|2026-11-27T11:00:05\n";
	static const char long_step[] =
		"7.0|m|314572800|314572800|||00:02:00|COMPLETED|0:0|2026-11-27T11:00:00|"
		"2026-11-27T11:02:00\n";

	tk_sacct_init(&s);
	ok(!parse_text(five_s, &s, &err), "a 5 s step that touched 300 MiB, sampled at 0.9 MiB");
	s.steps[0].elapsed_s = 5;
	tk_sacct_judge(&s, -1, -1);
	is_int(s.maxrss_lower_bound, 1, "shorter than SLURM's default 30 s sampling: a lower bound");
	tk_sacct_judge(&s, -1, 1);
	is_int(s.maxrss_lower_bound, 0, "sampled every second: trusted");
	tk_sacct_judge(&s, 314572800, 1);
	is_int(s.maxrss_lower_bound, 1, "below what tracker measured: a lower bound");
	ok(!parse_text(long_step, &s, &err), "a two-minute step");
	tk_sacct_judge(&s, 1048576, -1);
	is_int(s.maxrss_lower_bound, 0, "longer than the sampling and above tracker's: trusted");
	tk_sacct_release(&s);
}

int main(void)
{
	struct tk_sacct s;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf v = TK_BUF_INIT;
	enum tk_sacct_kind k;

	size_is("0", 0);
	size_is("2147483648", 2147483648LL);
	size_is("10452K", 10452LL * 1024);
	size_is("1.50M", 1572864);
	size_is("12G", 12LL << 30);
	size_is("", -1);
	size_bad("12k");
	size_bad("K");
	size_bad("1.2.3");
	size_bad("-5");
	size_bad("99999999999E");

	elapsed_is("00:01:05", 65);
	elapsed_is("1-02:03:04", 93784);
	elapsed_is("02:03.250", 123.25);
	elapsed_is("", -1);
	elapsed_is("INVALID", -1);
	elapsed_bad("1-02:03");
	elapsed_bad("12");
	elapsed_bad("01:02:03:04");
	elapsed_bad("aa:bb:cc");
	elapsed_bad("00:00:01.");

	ok(tk_sacct_tres_get("cpu=00:00:02,energy=0,mem=5678K", "mem", &v) &&
	   !strcmp(v.buf, "5678K"), "the mem of a TRES list");
	tk_buf_reset(&v);
	ok(!tk_sacct_tres_get("cpu=1,vmem=3", "mem", &v) && v.len == 0,
	   "vmem is not mem");
	ok(!tk_sacct_kind_parse("extern", &k) && k == TK_SACCT_EXTERN &&
	   tk_sacct_kind_parse("nope", &k) == -1, "kind names read back");

	tk_sacct_init(&s);
	ok(!parse_fixture("finished-job.txt", &s), "a finished job parses");
	is_int(s.nr, 4, "four rows");
	is_str(s.steps[0].job_id, "4471", "the job's row");
	is_int(s.steps[0].kind, TK_SACCT_JOB, "is the job");
	is_int(s.steps[1].kind, TK_SACCT_BATCH, ".batch is the batch step");
	is_int(s.steps[2].kind, TK_SACCT_EXTERN, ".extern is extern");
	is_int(s.steps[3].kind, TK_SACCT_STEP, ".0 is an srun step");
	is_str(s.steps[3].name, "climate.x", "the step's name");
	is_int(s.steps[3].maxrss_bytes, 12869238784LL, "the srun step's MaxRSS in bytes");
	is_int(s.steps[3].averss_bytes, 3217309696LL, "its AveRSS");
	ok(fabs(s.steps[3].elapsed_s - 93779) < 1e-9, "its Elapsed with days");
	is_str(s.steps[3].state, "COMPLETED", "its state");
	is_str(s.steps[3].exit_code, "0:0", "its exit code");
	ok(s.steps[3].tres_in_tot && strstr(s.steps[3].tres_in_tot, "mem=51476955136"),
	   "TRESUsageInTot kept as printed");
	ok(s.steps[3].tres_in_max && strstr(s.steps[3].tres_in_max, "mem=12869238784"),
	   "TRESUsageInMax kept as printed");
	is_int(s.maxrss_bytes, 12869238784LL, "the job's memory is the srun step's");
	is_str(s.maxrss_step, "4471.0", "named by its step");
	ok(tk_sacct_settled(&s, 0, INT64_MAX, NULL), "a finished job is settled");

	ok(!parse_fixture("srun-running-batch.txt", &s), "a job still in its batch step parses");
	is_int(s.nr, 4, "four rows again (the old ones released)");
	is_int(s.steps[1].maxrss_bytes, -1, "a running batch step has no MaxRSS");
	is_str(s.maxrss_step, "812345.0", "the srun step is the largest");
	ok(tk_sacct_settled(&s, 0, INT64_MAX, NULL), "settled: the srun step has ended");

	ok(!parse_fixture("old-slurm-kib.txt", &s), "KiB sizes of older Slurm parse");
	is_int(s.maxrss_bytes, 5266672LL * 1024, "MaxRSS in KiB becomes bytes");

	/* extern alone never counts; a larger extern does not win */
	ok(!parse_text("9.extern|extern|999999|1||||COMPLETED|0:0||\n"
		       "9.batch|batch|1000|1||||COMPLETED|0:0||\n", &s, &err),
	   "an extern larger than the batch step");
	is_int(s.maxrss_bytes, 1000, "the largest step ignores .extern");
	ok(!parse_text("9.extern|extern|999999|1||||COMPLETED|0:0||\n", &s, &err),
	   "only .extern");
	ok(s.maxrss_bytes == -1 && !s.maxrss_step, "no step memory from .extern alone");

	ok(!parse_text("9.0|a|b|c|||||00:00:01|COMPLETED|0:0||\r\n", &s, &err) &&
	   s.nr == 1 && !strcmp(s.steps[0].name, "a|b|c"),
	   "a job name with '|' (and a CRLF line)");
	ok(!parse_text("", &s, &err) && s.nr == 0 && !tk_sacct_settled(&s, 0, INT64_MAX, NULL),
	   "no output: no rows, not settled");
	ok(!parse_text("5.0|m|||||00:00:01|RUNNING|0:0|2026-11-27T11:00:00|Unknown\n", &s, &err) &&
	   !tk_sacct_settled(&s, 0, INT64_MAX, NULL), "a running srun step is not settled");
	ok(tk_sacct_settled(&s, 0, INT64_MAX, "0"), "unless it is tracker's own step");
	ok(!parse_text("5.0|m|||||00:00:01|COMPLETED|0:0|2026-11-27T11:00:00|2026-11-27T11:00:01\n",
		       &s, &err) &&
	   !tk_sacct_settled(&s, 0, INT64_MAX, NULL), "an ended step without MaxRSS is not settled");
	own_steps();
	lower_bound();

	bad_line("JobID|JobName|MaxRSS\n", "line 1: fewer than 11");
	bad_line("5.0|m|||||00:00:01|COMPLETED|0:0||\nabc|m|||||00:00:01|COMPLETED|0:0||\n",
		 "line 2: the JobID");
	bad_line("5.0|m|12x|||||COMPLETED|0:0||\n", "MaxRSS is not a size");
	bad_line("5.0|m||3Q||||COMPLETED|0:0||\n", "AveRSS");
	bad_line("5.0|m|||cpu||1:00:00|COMPLETED|0:0||\n", "TRES list");
	bad_line("5.0|m|||cpu=1,||1:00:00|COMPLETED|0:0||\n", "TRES list");
	bad_line("5.0|m|||||yesterday|COMPLETED|0:0||\n", "Elapsed");
	bad_line("5.0|m|||||00:00:01|completed|0:0||\n", "State");
	bad_line("5.0|m|||||00:00:01|COMPLETED|0||\n", "ExitCode");
	bad_line("5.0|m|||||00:00:01|COMPLETED|0:0||\n5.1|m|\0|||00:00:01", "fewer than 11");
	{
		struct tk_buf big = TK_BUF_INIT;

		tk_buf_adds(&big, "5.0|");
		while (big.len <= TK_SACCT_LINE_MAX)
			tk_buf_adds(&big, "xxxxxxxxxxxxxxxx");
		tk_buf_adds(&big, "|||||00:00:01|COMPLETED|0:0||\n");
		bad_line(big.buf, "line 1: line too long");
		tk_buf_reset(&big);
		while (big.len < (TK_SACCT_STEPS_MAX + 1) * 40)
			tk_buf_addf(&big, "5.%zu|m|1|1||||COMPLETED|0:0||\n", big.len);
		bad_line(big.buf, "more than 4096 steps");
		tk_buf_release(&big);
	}
	tk_sacct_release(&s);
	tk_buf_release(&v);
	return done_testing();
}
