/*
 * tracker run: wrap a job step, measure it, record it.
 *
 * The job's exit status is sacred: after the job has started, nothing that
 * goes wrong in tracker changes what tracker exits with. Recording
 * problems become warnings, and the record file stays for `tracker push`.
 *
 * Nor does tracker stand between a CI step and its job: under CI, every
 * problem found before the start (a bad option, no key, an invalid key) is
 * a warning and the job runs. Only outside CI do the usage errors typed on
 * the command line stop it (setup_problem).
 *
 * What happens around the job is core/ci/runstep.h's; this parses the
 * options, finds the key, says what went wrong and prints the summary.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmd/cmd.h"
#include "core/base/kvlist.h"
#include "core/ci/ci.h"
#include "core/ci/runstep.h"
#include "core/measure/profiler.h"
#include "core/model/run.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker run [--key K] [--db URL] [--artifacts DIR] [--tag K=V]...\n"
	"                   [--timeout DUR] [--grace DUR] [--orphan-wait DUR] [-q]\n"
	"                   [--profile alloc,cpu] [--sample-bytes N] [--cpu-hz N]\n"
	"                   [--profile-file PATH[:FORMAT]]... [--profile-kind KIND]\n"
	"                   [--per-rank] [--machine-class C] [--sacct] -- CMD [ARG...]\n"
	"\n"
	"Runs CMD (no shell), measures it, records one run in the history database\n"
	"and as a JSON record file, and exits with CMD's status. When CMD dies by a\n"
	"signal, tracker dies by the same signal.\n";

static const char more[] =
	"\n"
	"Measured: walltime, user/sys CPU of the process tree, peak RSS of the\n"
	"largest process (maxrss_bytes), peak RSS summed over the tree\n"
	"(tree_rss_bytes), cgroup v2 memory.peak when the job has its own cgroup.\n"
	"The record (file and database row) exists from the start, as \"started\".\n"
	"TERM, INT and HUP are forwarded to the job; the first writes a partial\n"
	"record marked cancelled at once. Killed outright, tracker takes the job's\n"
	"process tree along (docs/reliability.md).\n"
	"\n"
	"Exit status: the job's status; 124 on --timeout; 126/127 when CMD cannot\n"
	"be run, as bash (recorded, status error); 2 when no CMD is given, or\n"
	"outside CI on a usage error (unknown option, bad option value, no key,\n"
	"invalid key or tag, --per-rank outside srun): the job is not started.\n"
	"Under CI (a CI provider or $CI=true) those are warnings and the job runs.\n"
	"\n"
	"Example:\n"
	"  tracker run --key amip --tag resolution=low -- julia --project amip.jl\n"
	"  tracker run --key amip --profile alloc,cpu -- ./amip\n";

struct run_args {
	const char *key, *db, *artifacts, *machine_class;
	struct tk_kvlist tags;
	long cpu_hz;
	int in_ci;      /* problems before the start are warnings */
	struct tk_runstep st;
	struct tk_buf artifacts_dir, db_url, keybuf, derived, from;
};

static int parse_tag(void *data, const char *arg, struct tk_err *err)
{
	struct run_args *a = data;

	if (tk_kvlist_set_pair(&a->tags, arg))
		return tk_err_set(err, TK_EUSAGE, "'%s' is not KEY=VALUE", arg);
	return 0;
}

static int parse_profile_file(void *data, const char *arg, struct tk_err *err)
{
	struct run_args *a = data;

	tk_bundle_add_file(&a->st.bundle, arg);
	return 0;
}

static int parse_profile_kind(void *data, const char *arg, struct tk_err *err)
{
	struct run_args *a = data;

	if (!tk_profstore_valid_kind(arg))
		return tk_err_set(err, TK_EUSAGE, "invalid kind '%s'", arg);
	a->st.profile_kind = arg;
	return 0;
}

static int parse_profile(void *data, const char *arg, struct tk_err *err)
{
	struct run_args *a = data;

	if (tk_profiler_parse_what(arg, &a->st.profiler.what))
		return tk_err_set(err, TK_EUSAGE, "unknown profile '%s' (use alloc, cpu or "
				  "alloc,cpu)", arg);
	return 0;
}

static int parse_sample_bytes(void *data, const char *arg, struct tk_err *err)
{
	struct run_args *a = data;

	if (tk_profiler_parse_bytes(arg, &a->st.profiler.sample_bytes))
		return tk_err_set(err, TK_EUSAGE, "invalid size '%s' (use 1, 4096, 512KiB or "
				  "1MiB)", arg);
	return 0;
}

static int parse_sampler(void *data, const char *arg, struct tk_err *err)
{
	struct run_args *a = data;

	if (tk_profiler_parse_sampler(arg, &a->st.profiler.sampler))
		return tk_err_set(err, TK_EUSAGE, "unknown sampler '%s' (use auto, perf or "
				  "timer)", arg);
	return 0;
}

static int parse_unwind(void *data, const char *arg, struct tk_err *err)
{
	struct run_args *a = data;

	if (tk_profiler_parse_unwind(arg, &a->st.profiler.unwind))
		return tk_err_set(err, TK_EUSAGE, "unknown unwinder '%s' (use auto, fp or "
				  "libunwind)", arg);
	return 0;
}

#define O struct run_args
static const struct cmd_option options[] = {
	OPT_STRING(0, "key", O, key, "K", "the step's key (else $TRACKER_KEY, else "
		   "BUILDKITE_STEP_KEY, else derived from the CI step's name with a warning: "
		   "Buildkite label, GitHub job, GitLab job, SLURM job name); a parallel "
		   "Buildkite job's key gets [JOB/COUNT] appended"),
	OPT_DB(O, db),
	OPT_STRING(0, "artifacts", O, artifacts, "DIR", "where the record file goes (default "
		   "tracker-artifacts)"),
	OPT_CALLBACK(0, "tag", "K=V", parse_tag, "attach a tag (repeatable)"),
	OPT_STRING(0, "machine-class", O, machine_class, "C", "machine kind (else config, "
		   "Buildkite queue, partition, host)"),
	OPT_DURATION(0, "timeout", O, st.timeout_s, "DUR", "send TERM after DUR (90, 90s, 5m, "
		     "2h), KILL after the grace period; tracker then exits 124"),
	OPT_DURATION(0, "grace", O, st.jo.grace_s, "DUR", "time between TERM and KILL "
		     "(default 5s, under the 10s Buildkite and 30s SLURM (KillWait) wait before "
		     "a KILL)"),
	OPT_DURATION(0, "orphan-wait", O, st.jo.orphan_wait_s, "DUR", "wait for processes the "
		     "job left running (default 10s)"),
	OPT_FLAG('q', "quiet", O, st.quiet, "no summary line on stderr"),
	OPT_CALLBACK(0, "profile", "WHAT", parse_profile, "profile the job with the built-in "
		     "profiler: alloc (allocations: kinds alloc, alloc_count, heap_peak), cpu "
		     "(kind cpu), or alloc,cpu; see docs/profiler.md"),
	OPT_CALLBACK(0, "sample-bytes", "N", parse_sample_bytes, "mean bytes between "
		     "allocation samples (default 512KiB; 1 records every allocation exactly)"),
	OPT_LONG(0, "cpu-hz", O, cpu_hz, "N", 1, 10000, "CPU samples per second of CPU time "
		 "(default 199)"),
	OPT_CALLBACK(0, "cpu-sampler", "S", parse_sampler, "auto (default: perf_event_open "
		     "when allowed, else per-thread CPU timers), perf or timer"),
	OPT_CALLBACK(0, "unwind", "U", parse_unwind, "auto (default: frame pointers when the "
		     "code keeps them, else libunwind), fp or libunwind"),
	OPT_FLAG(0, "profile-lines", O, st.profiler.lines, "name frames \"function "
		 "file.c:42\""),
	OPT_FLAG(0, "per-rank", O, st.per_rank, "one rank of an MPI job under srun: record the "
		 "run as rank $SLURM_PROCID of job $SLURM_JOB_ID.$SLURM_STEP_ID of its cluster "
		 "(in a batch script: a warning, and a run of its own)"),
	OPT_CALLBACK(0, "profile-file", "PATH[:FORMAT]", parse_profile_file, "after the job, "
		     "import the profile it wrote to PATH and store it with the run "
		     "(repeatable); a missing or unreadable file is a warning, the run is still "
		     "recorded; in PATH, %r is the rank ($SLURM_PROCID; 'batch' in a batch "
		     "script) and %% a %"),
	OPT_CALLBACK(0, "profile-kind", "KIND", parse_profile_kind, "the kind of those "
		     "profiles (default: from the unit: bytes -> alloc, counts -> alloc_count, "
		     "else cpu)"),
	OPT_FLAG(0, "no-demangle", O, st.profiler.no_demangle, "keep the profiles' frame names "
		 "raw (C++/Rust mangled, name@@GLIBC_2.34); see docs/importers.md"),
	OPT_FLAG(0, "no-timeline", O, st.no_timeline, "keep no memory timeline of the run "
		 "(sampled every 10 ms at first, at most 2048 points)"),
	OPT_FLAG(0, "sacct", O, st.sacct, "keep sacct's figures of the srun steps the run "
		 "launched (automatic inside an allocation, except with --per-rank)"),
	OPT_END(),
};

const struct cmd_help cmd_run_help = { usage, options, more };

/*
 * A problem found before the job starts. Under CI the job runs anyway: a
 * wrapper must never break the step it was added to, so this warns and
 * returns 0. Outside CI it is a usage error typed on the command line:
 * the job is not started, and this returns 2.
 */
static int __attribute__((format(printf, 3, 4)))
setup_problem(const struct cmd_ctx *ctx, const struct run_args *a, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;
	int ret = 0;

	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (a->in_ci)
		cmd_warning("%s; ignored under CI, the job runs", msg.buf);
	else
		ret = cmd_usage_error(ctx, "%s", msg.buf);
	tk_buf_release(&msg);
	return ret;
}

static void ci_problem(void *data, const char *msg)
{
	cmd_warning("%s; ignored under CI, the job runs", msg);
}

static void warning(void *data, const char *msg)
{
	cmd_warning("%s", msg);
}

static void note(void *data, const char *msg)
{
	fprintf(stderr, "tracker: note: %s\n", msg);
}

/* Die the way the job died. Core dumps stay the job's: ours are off. */
static void reraise(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	exit(128 + sig);
}

/* The options; the job's argv is left in argv[0..n). Returns n, or -1
 * after a usage error. Under CI every problem is a warning. */
static int parse(const struct cmd_ctx *ctx, int argc, char **argv, struct run_args *a)
{
	struct cmd_parse how = { CMD_PARSE_STOP_AT_ARG, ci_problem, a };
	struct tk_err err = TK_ERR_INIT;
	int nr_args;

	if (a->in_ci)
		nr_args = cmd_options_parse(options, a, argc, argv, &how, &err);
	else
		nr_args = cmd_parse_options(ctx, options, a, argc, argv, CMD_PARSE_STOP_AT_ARG);
	if (nr_args < 0)
		return -1;
	if (a->cpu_hz)
		a->st.profiler.cpu_hz = (unsigned)a->cpu_hz;
	if (!nr_args) {
		cmd_usage_error(ctx, "no command to run (put it after --)");
		return -1;
	}
	return nr_args;
}

/*
 * The run's key: --key, else $TRACKER_KEY, else BUILDKITE_STEP_KEY, else
 * derived from the CI step that runs command, with a warning. Returns 0
 * with *key set, or the exit code of a usage error.
 */
static int find_key(const struct cmd_ctx *ctx, struct run_args *a, const char *command,
		    const char **key)
{
	struct tk_err err = TK_ERR_INIT, refusal = TK_ERR_INIT;

	*key = tk_ci_key(&tk_env_process, a->key, &a->keybuf);
	if (*key && tk_run_check_key(*key, &refusal)) {
		if (!a->in_ci)
			return cmd_usage_error(ctx, "%s", refusal.msg);
		*key = NULL; /* under CI: refused, said below with the key used */
	}
	if (*key)
		return 0;
	if (tk_ci_derive_key(&tk_env_process, command, &a->derived, &a->from, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	*key = a->derived.buf;
	if (tk_run_check_key(*key, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	cmd_warning("%s%srecording as '%s', from %s (name it with --key to keep it stable)",
		    refusal.msg[0] ? refusal.msg : "no key given",
		    refusal.msg[0] ? "; ignored under CI, " : ": ", *key, a->from.buf);
	return 0;
}

/* The run's record before the job: key, tags, where it runs. Returns 0 or
 * the exit code of a usage error. */
static int prepare(const struct cmd_ctx *ctx, struct run_args *a, char **argv)
{
	struct tk_err err = TK_ERR_INIT;
	const char *key;
	size_t n;
	int ret;

	ret = find_key(ctx, a, argv[0], &key);
	if (ret)
		return ret;
	tk_runstep_begin(&a->st, key, argv, TRACKER_VERSION, &ctx->config);
	n = tk_run_add_tags(&a->st.run, &a->tags, &err);
	if (n && setup_problem(ctx, a, "%s; %s dropped", err.msg,
			       n > 1 ? "it and the other refused tags are" : "the tag is"))
		return EXIT_USAGE;
	if (tk_runstep_context(&a->st, a->machine_class, &ctx->config, &err))
		return setup_problem(ctx, a, "%s", err.msg);
	return 0;
}

/* Runs the job and records it. Returns the job's exit status, 124 on
 * --timeout; dies by the job's signal. */
static int run_job(const struct cmd_ctx *ctx, struct run_args *a, char **argv)
{
	struct tk_job_result jr;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf line = TK_BUF_INIT;
	int exec_errno;

	cmd_resolve_artifacts(ctx, a->artifacts, &a->artifacts_dir);
	cmd_resolve_db(ctx, a->db, &a->db_url);
	a->st.rec.dir = a->artifacts_dir.buf;
	a->st.rec.db = a->db_url.buf;
	fflush(NULL);
	if (tk_runstep_run(&a->st, argv, &jr, &exec_errno, &err)) {
		cmd_error("%s", err.msg);
		if (!exec_errno)
			return EXIT_INTERNAL;
		/* it could not start: that is recorded too, as a shell's 126/127 */
		tk_runstep_finish_unstarted(&a->st, &jr, cmd_catch_cancel());
		return jr.exit_code;
	}
	/* From here on, tracker's troubles never change the exit status. */
	tk_runstep_finish(&a->st, &jr, cmd_catch_cancel());
	if (jr.orphans_left && !a->st.quiet)
		cmd_warning("%d process(es) the job started are still running; "
			    "not waiting for them (see --orphan-wait)", jr.orphans_left);
	if (!a->st.quiet) {
		tk_run_format_summary(&a->st.run, &line);
		fprintf(stderr, "tracker: %s\n", line.buf);
		tk_buf_release(&line);
	}
	if (jr.timed_out)
		return 124;
	if (jr.term_signal)
		reraise(jr.term_signal);
	return jr.exit_code;
}

int cmd_run(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct run_args a;
	int nr_args, ret;

	memset(&a, 0, sizeof(a));
	tk_runstep_init(&a.st, TRACKER_LIBDIR, warning, note, &a);
	a.in_ci = tk_ci_detected(&tk_env_process);
	nr_args = parse(ctx, argc, argv, &a);
	ret = nr_args < 0 ? EXIT_USAGE : prepare(ctx, &a, argv);
	if (!ret)
		ret = run_job(ctx, &a, argv);
	tk_runstep_release(&a.st);
	tk_kvlist_release(&a.tags);
	tk_buf_release(&a.artifacts_dir);
	tk_buf_release(&a.db_url);
	tk_buf_release(&a.keybuf);
	tk_buf_release(&a.derived);
	tk_buf_release(&a.from);
	return ret;
}
