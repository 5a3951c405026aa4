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
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/store/bundle.h"
#include "core/measure/profiler.h"
#include "core/analyze/ranks.h"
#include "core/model/rank.h"
#include "core/ci/ci.h"
#include "core/ci/sacct.h"
#include "core/model/import.h"
#include "core/measure/job.h"
#include "core/model/machine.h"
#include "core/model/run.h"
#include "core/store/store.h"
#include "core/base/timeutil.h"
#include "core/store/profstore.h"
#include "core/store/recorder.h"
#include "core/base/banned.h"

const char cmd_run_usage[] =
	"usage: tracker run [--key K] [--db URL] [--artifacts DIR] [--tag K=V]...\n"
	"                   [--timeout DUR] [--grace DUR] [--orphan-wait DUR] [-q]\n"
	"                   [--profile alloc,cpu] [--sample-bytes N] [--cpu-hz N]\n"
	"                   [--profile-file PATH[:FORMAT]]... [--profile-kind KIND]\n"
	"                   [--per-rank] [--machine-class C] [--sacct] -- CMD [ARG...]\n"
	"\n"
	"Runs CMD (no shell), measures it, records one run in the history database\n"
	"and as a JSON record file, and exits with CMD's status. When CMD dies by a\n"
	"signal, tracker dies by the same signal.\n"
	"\n"
	"Options:\n"
	"  --key K            the step's key (else $TRACKER_KEY, else BUILDKITE_STEP_KEY,\n"
	"                     else derived from the CI step's name with a warning:\n"
	"                     Buildkite label, GitHub job, GitLab job, SLURM job name);\n"
	"                     a parallel Buildkite job's key gets [JOB/COUNT] appended\n"
	"  --db URL           database: a path or sqlite:PATH (else $TRACKER_DB, else\n"
	"                     db: in .tracker.yml, else ~/.local/share/tracker/history.db)\n"
	"  --artifacts DIR    where the record file goes (default tracker-artifacts)\n"
	"  --tag K=V          attach a tag (repeatable)\n"
	"  --machine-class C  machine kind (else config, Buildkite queue, partition, host)\n"
	"  --timeout DUR      send TERM after DUR (90, 90s, 5m, 2h), KILL after the\n"
	"                     grace period; tracker then exits 124\n"
	"  --grace DUR        time between TERM and KILL (default 5s, under the 10s\n"
	"                     Buildkite and 30s SLURM (KillWait) wait before a KILL)\n"
	"  --orphan-wait DUR  wait for processes the job left running (default 10s)\n"
	"  -q, --quiet        no summary line on stderr\n"
	"  --profile WHAT     profile the job with the built-in profiler: alloc\n"
	"                     (allocations: kinds alloc, alloc_count, heap_peak),\n"
	"                     cpu (kind cpu), or alloc,cpu; see docs/profiler.md\n"
	"  --sample-bytes N   mean bytes between allocation samples (default 512KiB;\n"
	"                     1 records every allocation exactly)\n"
	"  --cpu-hz N         CPU samples per second of CPU time (default 199)\n"
	"  --cpu-sampler S    auto (default: perf_event_open when allowed, else\n"
	"                     per-thread CPU timers), perf or timer\n"
	"  --unwind U         auto (default: frame pointers when the code keeps\n"
	"                     them, else libunwind), fp or libunwind\n"
	"  --profile-lines    name frames \"function file.c:42\"\n"
	"  --per-rank         one rank of an MPI job under srun: record the run as\n"
	"                     rank $SLURM_PROCID of job $SLURM_JOB_ID.$SLURM_STEP_ID\n"
	"  --profile-file PATH[:FORMAT]\n"
	"                     after the job, import the profile it wrote to PATH\n"
	"                     and store it with the run (repeatable); a missing or\n"
	"                     unreadable file is a warning, the run is still recorded;\n"
	"                     in PATH, %r is the rank ($SLURM_PROCID) and %% a %\n"
	"  --profile-kind KIND  the kind of those profiles (default: from the unit:\n"
	"                     bytes -> alloc, counts -> alloc_count, else cpu)\n"
	"  --no-demangle      keep the profiles' frame names raw (C++/Rust mangled,\n"
	"                     name@@GLIBC_2.34); see docs/importers.md\n"
	"  --sacct            keep sacct's figures of the job's steps (automatic inside\n"
	"                     an allocation, except with --per-rank)\n"
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

struct run_state {
	struct tk_run run;
	struct tk_bundle bundle;   /* the profiles */
	const char *profile_kind;
	struct tk_profiler profiler;
	struct tk_buf artifacts;
	struct tk_recorder rec;
	int quiet;
	int in_ci;       /* problems before the start are warnings */
	int no_record;   /* no run id: run the job, record nothing */
};

/*
 * A problem found before the job starts. Under CI the job runs anyway: a
 * wrapper must never break the step it was added to, so this warns and
 * returns 0. Outside CI it is a usage error typed on the command line:
 * the job is not started, and this returns 2.
 */
static int __attribute__((format(printf, 3, 4)))
setup_problem(const struct cmd_ctx *ctx, const struct run_state *st, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;
	int ret = 0;

	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (st->in_ci)
		cmd_warning("%s; ignored under CI, the job runs", msg.buf);
	else
		ret = cmd_usage_error(ctx, "%s", msg.buf);
	tk_buf_release(&msg);
	return ret;
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

static void warning(void *data, const char *msg)
{
	cmd_warning("%s", msg);
}

enum { OPT_KEY = 256, OPT_DB, OPT_ARTIFACTS, OPT_TAG, OPT_TIMEOUT, OPT_GRACE,
       OPT_ORPHAN_WAIT, OPT_PROFILE_FILE, OPT_PROFILE_KIND, OPT_PROFILE, OPT_SAMPLE_BYTES,
       OPT_CPU_HZ, OPT_CPU_SAMPLER, OPT_UNWIND, OPT_PROFILE_LINES, OPT_PER_RANK,
       OPT_NO_DEMANGLE, OPT_MACHINE_CLASS, OPT_SACCT };

static const struct option run_options[] = {
	{ "key", required_argument, NULL, OPT_KEY },
	{ "db", required_argument, NULL, OPT_DB },
	{ "artifacts", required_argument, NULL, OPT_ARTIFACTS },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "orphan-wait", required_argument, NULL, OPT_ORPHAN_WAIT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "profile-file", required_argument, NULL, OPT_PROFILE_FILE },
	{ "profile-kind", required_argument, NULL, OPT_PROFILE_KIND },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "sample-bytes", required_argument, NULL, OPT_SAMPLE_BYTES },
	{ "cpu-hz", required_argument, NULL, OPT_CPU_HZ },
	{ "cpu-sampler", required_argument, NULL, OPT_CPU_SAMPLER },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "profile-lines", no_argument, NULL, OPT_PROFILE_LINES },
	{ "per-rank", no_argument, NULL, OPT_PER_RANK },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "machine-class", required_argument, NULL, OPT_MACHINE_CLASS },
	{ "sacct", no_argument, NULL, OPT_SACCT },
	{ NULL, 0, NULL, 0 },
};

static void release_state(struct run_state *st)
{
	tk_bundle_release(&st->bundle);
	tk_profiler_release(&st->profiler);
	tk_run_release(&st->run);
	tk_buf_release(&st->artifacts);
	tk_recorder_release(&st->rec);
}

/* 1 when "--" is among argv[from..argc). */
static int has_separator(int argc, char **argv, int from)
{
	int i;

	for (i = from; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return 1;
	return 0;
}

int cmd_run(int argc, char **argv, struct cmd_ctx *ctx)
{
	const char *opt_key = NULL, *opt_db = NULL, *opt_artifacts = NULL, *opt_machine_class = NULL;
	const char *key;
	const struct tk_key_config *kc;
	struct tk_kvlist cli_tags = { NULL, 0, 0 };
	struct tk_job_opts jo;
	struct tk_job_result jr;
	struct tk_watchdog wd;
	struct run_state st;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf db = TK_BUF_INIT, derived = TK_BUF_INIT, from = TK_BUF_INIT, keybuf = TK_BUF_INIT;
	double timeout = -1, v;
	size_t n;
	int c, i, li = 0, exec_errno, per_rank = 0, ret = 0, lost = 0, sacct = 0, refused = 0;

	memset(&jo, 0, sizeof(jo));
	memset(&st, 0, sizeof(st));
	jo.watchdog = tk_watchdog_start(&wd, &err) ? NULL : &wd;
	tk_profiler_init(&st.profiler);
	st.profiler.warn = warning;
	st.profiler.libdir = TRACKER_LIBDIR;
	st.bundle.warn = warning;
	tk_run_init(&st.run);
	tk_buf_init(&st.artifacts, 0);
	tk_recorder_init(&st.rec);
	st.rec.warn = warning;
	jo.grace_s = 5;
	jo.orphan_wait_s = 10;
	st.in_ci = tk_ci_detected(&tk_env_process);
	optind = 1;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, "+:q", run_options, &li)) != -1) {
		switch (c) {
		case OPT_KEY:
			opt_key = optarg;
			break;
		case OPT_DB:
			opt_db = optarg;
			break;
		case OPT_ARTIFACTS:
			opt_artifacts = optarg;
			break;
		case OPT_TAG:
			if (tk_kvlist_set_pair(&cli_tags, optarg))
				ret = setup_problem(ctx, &st, "--tag wants KEY=VALUE, not '%s'",
						    optarg);
			break;
		case OPT_TIMEOUT:
		case OPT_GRACE:
		case OPT_ORPHAN_WAIT:
			if (tk_parse_duration(optarg, &v, &err))
				ret = setup_problem(ctx, &st, "%s", err.msg);
			else if (c == OPT_TIMEOUT)
				timeout = v;
			else if (c == OPT_GRACE)
				jo.grace_s = v;
			else
				jo.orphan_wait_s = v;
			break;
		case 'q':
			st.quiet = 1;
			break;
		case OPT_PROFILE_FILE:
			tk_bundle_add_file(&st.bundle, optarg);
			break;
		case OPT_PROFILE_KIND:
			if (!tk_profstore_valid_kind(optarg))
				ret = setup_problem(ctx, &st, "invalid --profile-kind '%s'", optarg);
			else
				st.profile_kind = optarg;
			break;
		case OPT_PROFILE:
		case OPT_SAMPLE_BYTES:
		case OPT_CPU_HZ:
		case OPT_CPU_SAMPLER:
		case OPT_UNWIND:
		case OPT_PROFILE_LINES:
			if (tk_profiler_set(&st.profiler, run_options[li].name, optarg, &err))
				ret = setup_problem(ctx, &st, "%s", err.msg);
			break;
		case OPT_PER_RANK:
		case OPT_SACCT:
			*(c == OPT_SACCT ? &sacct : &per_rank) = 1;
			break;
		case OPT_NO_DEMANGLE:
			st.profiler.no_demangle = 1;
			break;
		case OPT_MACHINE_CLASS:
			opt_machine_class = optarg;
			break;
		case ':':
			ret = setup_problem(ctx, &st, "option '%s' needs a value",
					    argv[optind - 1]);
			lost = 1;
			break;
		default:
			ret = setup_problem(ctx, &st, "unknown option '%s'", argv[optind - 1]);
			lost = 1;
			/* "--frob 3 -- CMD": 3 is its value, the options go on */
			if (!ret && !strncmp(argv[optind - 1], "--", 2) &&
			    !strchr(argv[optind - 1], '=') && optind < argc &&
			    argv[optind][0] != '-' && has_separator(argc, argv, optind))
				optind++;
			break;
		}
	}
	if (ret)
		goto out;
	/*
	 * After an unknown option the parse may have stopped early ("--frob
	 * 3 4 -- make"): the command is what follows the first "--".
	 */
	if (lost && has_separator(argc, argv, 1)) {
		for (i = 1; strcmp(argv[i], "--"); i++)
			;
		optind = i + 1;
	}
	if (optind >= argc) {
		ret = cmd_usage_error(ctx, "no command to run (put it after --)");
		goto out;
	}
	key = tk_ci_key(&tk_env_process, opt_key, &keybuf);
	if (key && tk_run_check_key(key, &err)) {
		if (!st.in_ci && (ret = setup_problem(ctx, &st, "%s", err.msg)))
			goto out;
		key = NULL; /* under CI: err.msg is said below, with the key used */
		refused = 1;
	}
	if (!key) {
		if (tk_ci_derive_key(&tk_env_process, argv[optind], &derived, &from, &err)) {
			ret = cmd_usage_error(ctx, "%s", err.msg);
			goto out;
		}
		key = derived.buf;
		if (tk_run_check_key(key, &err)) {
			ret = cmd_usage_error(ctx, "%s", err.msg);
			goto out;
		}
		cmd_warning("%s%srecording as '%s', from %s (name it with --key to keep it stable)",
			    refused ? err.msg : "no key given", refused ? "; ignored under CI, " : ": ",
			    key, from.buf);
	}
	if (tk_uuid_v4(st.run.id, &err)) {
		cmd_warning("%s; the job runs, but is not recorded", err.msg);
		st.no_record = 1;
	}
	st.run.key = tk_xstrdup(key);
	st.run.tracker_version = tk_xstrdup(TRACKER_VERSION);
	tk_run_set_argv(&st.run, argv + optind);
	kc = tk_config_key(&ctx->config, key);
	if (kc) {
		tk_kvlist_merge(&st.run.tags, &kc->tags);
		if (timeout < 0 && kc->timeout_s > 0)
			timeout = kc->timeout_s;
	}
	n = tk_run_add_tags(&st.run, &cli_tags, &err);
	if (n && (ret = setup_problem(ctx, &st, "%s; %s dropped", err.msg,
				      n > 1 ? "it and the other refused tags are" : "the tag is")))
		goto out;
	if (tk_ci_collect(&tk_env_process, &st.run.ci, &err))
		cmd_warning("incomplete CI context: %s", err.msg);
	st.run.machine_class = tk_machine_class_for(opt_machine_class, &ctx->config, key, &st.run.ci);
	if (per_rank && tk_ranks_setup(&st.run, &err)) {
		ret = setup_problem(ctx, &st, "%s", err.msg);
		if (ret)
			goto out;
	}
	tk_bundle_expand_paths(&st.bundle, tk_ranks_task_rank(&st.run));
	cmd_resolve_artifacts(ctx, opt_artifacts, &st.artifacts);
	cmd_resolve_db(ctx, opt_db, &db);

	jo.argv = argv + optind;
	jo.timeout_s = timeout > 0 ? timeout : 0;
	st.rec.dir = st.artifacts.buf;
	st.rec.db = db.buf;
	st.rec.quiet = st.quiet;
	if (!st.no_record)
		tk_recorder_hook(&st.rec, &st.run, &jo);
	st.profiler.quiet = st.quiet;
	tk_profiler_start(&st.profiler, argv + optind);
	tk_profiler_hook(&st.profiler, &jo);
	fflush(NULL);
	if (tk_job_run(&jo, &jr, &exec_errno, &err)) {
		cmd_error("%s", err.msg);
		ret = EXIT_INTERNAL;
		if (!exec_errno)
			goto out;
		/* it could not start: that is recorded too, as a shell's 126/127 */
		st.rec.cancel = cmd_catch_cancel();
		tk_job_result_to_run(&jr, &st.run);
		st.run.status = TK_RUN_ERROR;
		if (!st.no_record)
			tk_recorder_finish(&st.rec, NULL, &st.run);
		ret = jr.exit_code;
		goto out;
	}
	/* From here on, tracker's troubles never change the exit status. */
	st.rec.cancel = cmd_catch_cancel();
	tk_job_result_to_run(&jr, &st.run);
	st.run.partial = 0;
	tk_profiler_finish(&st.profiler);
	if ((sacct || !per_rank) && !st.no_record &&
	    tk_sacct_for_run(&st.run, sacct, &tk_env_process, &from) && !st.quiet)
		fprintf(stderr, "tracker: note: %s\n", from.buf);
	if (!st.no_record) {
		tk_bundle_take(&st.bundle, st.profiler.profiles, st.profiler.have,
			       TK_RAW_NVALUES);
		tk_bundle_import(&st.bundle, &st.run, st.artifacts.buf, st.profile_kind,
				 st.profiler.no_demangle);
		tk_recorder_finish(&st.rec, &st.bundle, &st.run);
	}
	if (jr.orphans_left && !st.quiet)
		cmd_warning("%d process(es) the job started are still running; "
			    "not waiting for them (see --orphan-wait)", jr.orphans_left);
	if (!st.quiet) {
		tk_buf_reset(&db);
		tk_run_format_summary(&st.run, &db);
		fprintf(stderr, "tracker: %s\n", db.buf);
	}
	if (jr.timed_out)
		ret = 124;
	else if (jr.term_signal)
		reraise(jr.term_signal);
	else
		ret = jr.exit_code;
out:
	if (jo.watchdog)
		tk_watchdog_done(&wd);
	tk_kvlist_release(&cli_tags);
	release_state(&st);
	tk_buf_release(&db);
	tk_buf_release(&derived);
	tk_buf_release(&keybuf);
	tk_buf_release(&from);
	return ret;
}
