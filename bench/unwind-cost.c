/*
 * unwind-cost: what `tracker run --profile cpu` costs with the default
 * sampler (core/measure/perfrec + core/measure/unwind), on one command.
 *
 *   unwind-cost [-n RUNS] [-z HZ] [-s STACK] -- CMD [ARG...]
 *
 * Runs CMD RUNS times (default 3) in each of three ways, interleaved:
 * unprofiled, sampled with frame-pointer chains only (no stack copies,
 * what perfrec did before unwinding with CFI), and sampled with stack
 * copies of STACK bytes (default: perfrec's own choice at HZ, default
 * 199) unwound with CFI. Prints the medians of the job's CPU time (user +
 * sys, from wait4) and of the recorder's CPU time in this process (drains
 * and unwinding), the unwinding time per sample, how the samples were
 * unwound, and how much stack the complete walks needed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/measure/job.h"
#include "core/measure/perfrec.h"

#define MAX_RUNS 64

struct hooks {
	struct tk_perfrec_opts o;
	struct tk_perfrec *rec;
	int rc;
	struct tk_err err;
};

static int before_exec(pid_t child, void *data)
{
	struct hooks *h = data;

	h->rc = tk_perfrec_open_opts(&h->rec, child, &h->o, &h->err);
	return h->rc;
}

static void tick(void *data)
{
	struct hooks *h = data;

	if (h->rec)
		tk_perfrec_drain(h->rec);
}

static double self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* mode 0: unprofiled; 1: fp chains; 2: stack copies. Returns 0. */
static int run(char **argv, int mode, unsigned hz, long stack, double *job_cpu,
	       double *rec_cpu, struct tk_perfrec_stats *st)
{
	struct tk_job_opts o;
	struct tk_job_result res;
	struct tk_err err = TK_ERR_INIT;
	struct hooks h;
	struct tk_rawset set;
	double c0;
	int xerr, rc, saved, devnull;

	memset(&o, 0, sizeof(o));
	memset(&h, 0, sizeof(h));
	memset(st, 0, sizeof(*st));
	o.argv = argv;
	o.grace_s = 1;
	o.orphan_wait_s = 1;
	if (mode) {
		h.o.hz = hz;
		h.o.stack_bytes = mode == 1 ? -1 : stack;
		o.before_exec = before_exec;
		o.tick = tick;
		o.hook_data = &h;
	}
	c0 = self_cpu();
	/* the job's output is not ours */
	fflush(stdout);
	saved = dup(1);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && devnull >= 0)
		dup2(devnull, 1);
	rc = tk_job_run(&o, &res, &xerr, &err);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	if (devnull >= 0)
		close(devnull);
	if (rc || res.exit_code != 0) {
		fprintf(stderr, "unwind-cost: %s failed: %s\n", argv[0], err.msg);
		tk_perfrec_free(h.rec);
		return -1;
	}
	if (mode && !h.rec) {
		fprintf(stderr, "unwind-cost: perf_event_open: %s\n", h.err.msg);
		return -1;
	}
	if (mode) {
		tk_rawset_init(&set);
		tk_perfrec_finish(h.rec, &set, &err);
		tk_perfrec_stats(h.rec, st);
		tk_perfrec_free(h.rec);
		tk_rawset_release(&set);
	}
	*rec_cpu = self_cpu() - c0;
	*job_cpu = res.user_s + res.sys_s;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double pct(unsigned long long a, unsigned long long b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

int main(int argc, char **argv)
{
	double job[3][MAX_RUNS], rec[3][MAX_RUNS], m[3], r[3];
	struct tk_perfrec_stats st, sum;
	unsigned hz = 199;
	long stack = 0;
	int runs = 3, i, k, c;
	unsigned long long walks = 0;

	while ((c = getopt(argc, argv, "+n:z:s:")) != -1) {
		switch (c) {
		case 'n':
			runs = atoi(optarg);
			break;
		case 'z':
			hz = (unsigned)atoi(optarg);
			break;
		case 's':
			stack = atol(optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: unwind-cost [-n RUNS] [-z HZ] [-s STACK] -- CMD [ARG...]\n");
		return 2;
	}
	argv += optind;
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < runs; i++)
		for (k = 0; k < 3; k++) {
			if (run(argv, k, hz, stack, &job[k][i], &rec[k][i], &st))
				return 1;
			if (k == 2) {
				size_t b;

				sum.samples += st.samples;
				sum.lost += st.lost;
				sum.complete += st.complete;
				sum.spliced += st.spliced;
				sum.partial += st.partial;
				sum.chain += st.chain;
				sum.unwind_ns += st.unwind_ns;
				sum.space_ns += st.space_ns;
				sum.stack_bytes = st.stack_bytes;
				if (st.stack_used_max > sum.stack_used_max)
					sum.stack_used_max = st.stack_used_max;
				for (b = 0; b < 8; b++)
					sum.need[b] += st.need[b];
			}
		}
	for (k = 0; k < 3; k++) {
		m[k] = median(job[k], runs);
		r[k] = median(rec[k], runs);
	}
	printf("  job CPU (median of %d): unprofiled %.3f s; fp chains %.3f s (%.3fx); "
	       "%u-byte stack copies %.3f s (%.3fx)\n", runs, m[0], m[1], m[1] / m[0],
	       sum.stack_bytes, m[2], m[2] / m[0]);
	printf("  tracker's CPU per run (median): fp chains %.4f s; stack copies %.4f s\n", r[1],
	       r[2]);
	if (!sum.samples) {
		printf("  no samples\n");
		return 0;
	}
	printf("  unwinding: %llu samples (%llu lost), %.1f us per sample (%.0f samples/s), plus %.1f ms "
	       "per run opening modules; %.1f%% complete, %.1f%% spliced, %.1f%% partial, "
	       "%.1f%% kernel chain\n", sum.samples, sum.lost,
	       (double)sum.unwind_ns / 1e3 / (double)sum.samples,
	       sum.unwind_ns ? (double)sum.samples * 1e9 / (double)sum.unwind_ns : 0,
	       (double)sum.space_ns / 1e6 / runs,
	       pct(sum.complete, sum.samples), pct(sum.spliced, sum.samples),
	       pct(sum.partial, sum.samples), pct(sum.chain, sum.samples));
	for (k = 0; k < 8; k++)
		walks += sum.need[k];
	printf("  stack bytes the walks needed:");
	{
		unsigned long long acc = 0;

		for (k = 0; k < 7; k++) {
			acc += sum.need[k];
			printf(" <=%u %.0f%%", 512u << k, pct(acc, walks));
		}
		printf(", more %.0f%%; deepest %zu bytes\n", pct(sum.need[7], walks),
		       sum.stack_used_max);
	}
	return 0;
}
