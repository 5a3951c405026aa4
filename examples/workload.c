/*
 * workload: the bundled example workloads. `tracker run` wraps them in the
 * demo (examples/demo.sh), the tests and the benchmarks, because their
 * memory, CPU and process shapes are known exactly.
 *
 *   workload touch MIB [HOLD_S]        allocate and touch MIB, hold it
 *   workload ramp MIB STEPS S [HOLD_S] allocate and touch MIB in STEPS equal
 *                                      steps spread over S seconds, free it
 *                                      all, and live on HOLD_S (0.5)
 *   workload fork N MIB [HOLD_S]       N children each hold MIB at once
 *   workload daemon MIB [HOLD_S]       double-fork: the grandchild outlives
 *                                      its parent and holds MIB
 *   workload spin SECONDS              burn CPU for SECONDS of wall time
 *   workload cpu SECONDS FILE          burn SECONDS of its own CPU time, then
 *                                      write its user+sys seconds to FILE
 *   workload sleep SECONDS
 *   workload exit CODE
 *   workload signal NAME               die by SIGNAME (TERM, KILL, SEGV, ...)
 *   workload trap-term FILE SECONDS    on SIGTERM write FILE and exit 143
 *   workload ignore-term SECONDS       ignore SIGTERM (needs SIGKILL)
 *   workload model STEPS MIB [PROFILE] a toy model: per step, grow a field of
 *                                      MIB/STEPS and compute; with PROFILE,
 *                                      write the time measured in each
 *                                      phase as folded stacks (ns)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *msg)
{
	fprintf(stderr, "workload: %s\n", msg);
	exit(2);
}

static double num(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end)
		die("expected a number");
	return v;
}

static void nap(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* mmap and write every page, so the memory is resident. */
static char *touch(double mib)
{
	size_t len = (size_t)(mib * 1024 * 1024), i;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (!len)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("cannot allocate");
	for (i = 0; i < len; i += (size_t)page)
		p[i] = (char)i;
	return p;
}

static int cmd_ramp(double mib, int steps, double seconds, double hold)
{
	char **parts;
	int i;

	if (steps < 1 || steps > 10000)
		die("STEPS must be 1..10000");
	parts = calloc((size_t)steps, sizeof(*parts));
	if (!parts)
		die("cannot allocate");
	for (i = 0; i < steps; i++) {
		parts[i] = touch(mib / steps);
		nap(seconds / steps);
	}
	for (i = 0; i < steps; i++)
		if (parts[i])
			munmap(parts[i], (size_t)(mib / steps * 1024 * 1024));
	free(parts);
	nap(hold);
	return 0;
}

static double spin(double seconds)
{
	struct timespec a, b;
	volatile double x = 0;
	double el = 0;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	while (el < seconds) {
		for (i = 0; i < 100000; i++)
			x += (double)i * 1e-9;
		clock_gettime(CLOCK_MONOTONIC, &b);
		el = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	}
	return x;
}

static double own_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Written, never read: the loop's work cannot be optimised away. */
static volatile double cpu_sink;

/* CPU time, not wall time: a loaded machine stretches the wall clock. */
static int cmd_cpu(double seconds, const char *file)
{
	FILE *f;
	long i;

	while (own_cpu() < seconds)
		for (i = 0; i < 100000; i++)
			cpu_sink += (double)i * 1e-9;
	f = fopen(file, "w");
	if (!f)
		die("cannot write the CPU file");
	fprintf(f, "%.6f\n", own_cpu());
	return fclose(f) ? 1 : 0;
}

static int signal_by_name(const char *name)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "TERM", SIGTERM }, { "KILL", SIGKILL }, { "SEGV", SIGSEGV },
		{ "INT", SIGINT }, { "HUP", SIGHUP }, { "ABRT", SIGABRT },
		{ "USR1", SIGUSR1 }, { "BUS", SIGBUS }, { "FPE", SIGFPE },
	};
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcmp(name, sigs[i].name))
			return sigs[i].sig;
	die("unknown signal name");
	return 0;
}

static const char *term_file;

static void on_term(int sig)
{
	int fd = open(term_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	(void)sig;
	if (fd >= 0) {
		if (write(fd, "TERM\n", 5) < 0)
			_exit(1);
		close(fd);
	}
	_exit(143);
}

static int cmd_fork(int n, double mib, double hold)
{
	int i, status, ret = 0;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("cannot fork");
		if (pid == 0) {
			touch(mib);
			nap(hold);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	return ret;
}

static int cmd_daemon(double mib, double hold)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		die("cannot fork");
	if (pid == 0) {
		pid_t gpid;

		setsid();
		gpid = fork();
		if (gpid < 0)
			_exit(1);
		if (gpid == 0) {
			/* Let the middle process exit first: the grandchild is an orphan. */
			nap(0.05);
			touch(mib);
			nap(hold);
			_exit(0);
		}
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The model's fields come from malloc, as a real code's arrays do, so the
 * built-in allocation profiler (tracker run --profile alloc) sees them. */
static __attribute__((noinline)) char *allocate_fields(double mib)
{
	size_t len = (size_t)(mib * 1024 * 1024), i;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (!len)
		return NULL;
	p = malloc(len);
	if (!p)
		die("cannot allocate");
	for (i = 0; i < len; i += (size_t)page)
		p[i] = (char)i;
	return p;
}

/*
 * A toy model that instruments itself: the wall time of each phase is
 * measured and written as folded stacks, the way a real code's timers
 * (or a sampling profiler) would report them.
 */
static int cmd_model(int steps, double mib, const char *profile)
{
	static const char *const phases[] = {
		"main;model_run;step!;allocate_fields",
		"main;model_run;step!;dynamics;advect_tracers",
		"main;model_run;step!;dynamics;pressure_solve",
		"main;model_run;step!;physics;radiation",
		"main;model_run;write_output",
	};
	double spent[5] = { 0 }, t;
	int i, k;
	FILE *f;

	for (i = 0; i < steps; i++) {
		t = now_s();
		allocate_fields(mib / steps);
		spent[0] += now_s() - t;
		t = now_s();
		spin(0.008);
		spent[1] += now_s() - t;
		t = now_s();
		spin(0.004);
		spent[2] += now_s() - t;
		t = now_s();
		spin(0.006);
		spent[3] += now_s() - t;
		t = now_s();
		printf("step %d/%d\n", i + 1, steps);
		fflush(stdout);
		spent[4] += now_s() - t;
	}
	if (!profile)
		return 0;
	f = fopen(profile, "w");
	if (!f)
		die("cannot write the profile");
	for (k = 0; k < 5; k++)
		fprintf(f, "%s %.0f\n", phases[k], spent[k] * 1e9);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "touch") && argc >= 3) {
		touch(num(argv[2]));
		nap(argc > 3 ? num(argv[3]) : 0.2);
		return 0;
	}
	if (!strcmp(cmd, "ramp") && argc >= 5)
		return cmd_ramp(num(argv[2]), (int)num(argv[3]), num(argv[4]),
				argc > 5 ? num(argv[5]) : 0.5);
	if (!strcmp(cmd, "fork") && argc >= 4)
		return cmd_fork((int)num(argv[2]), num(argv[3]), argc > 4 ? num(argv[4]) : 1.0);
	if (!strcmp(cmd, "daemon") && argc >= 3)
		return cmd_daemon(num(argv[2]), argc > 3 ? num(argv[3]) : 1.0);
	if (!strcmp(cmd, "spin") && argc == 3) {
		spin(num(argv[2]));
		return 0;
	}
	if (!strcmp(cmd, "cpu") && argc == 4)
		return cmd_cpu(num(argv[2]), argv[3]);
	if (!strcmp(cmd, "sleep") && argc == 3) {
		nap(num(argv[2]));
		return 0;
	}
	if (!strcmp(cmd, "exit") && argc == 3)
		return (int)num(argv[2]);
	if (!strcmp(cmd, "signal") && argc == 3) {
		struct rlimit no_core = { 0, 0 };
		int sig = signal_by_name(argv[2]);

		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		raise(sig);
		return 99;
	}
	if (!strcmp(cmd, "trap-term") && argc == 4) {
		term_file = argv[2];
		signal(SIGTERM, on_term);
		nap(num(argv[3]));
		return 0;
	}
	if (!strcmp(cmd, "ignore-term") && argc == 3) {
		signal(SIGTERM, SIG_IGN);
		nap(num(argv[2]));
		return 0;
	}
	if (!strcmp(cmd, "model") && (argc == 4 || argc == 5))
		return cmd_model((int)num(argv[2]), num(argv[3]), argc == 5 ? argv[4] : NULL);
	fprintf(stderr,
		"usage: workload touch MIB [HOLD_S] | ramp MIB STEPS S [HOLD_S]\n"
		"       | fork N MIB [HOLD_S] | daemon MIB [HOLD_S]\n"
		"       | spin S | cpu S FILE | sleep S | exit CODE | signal NAME\n"
		"       | trap-term FILE S\n"
		"       | ignore-term S | model STEPS MIB [PROFILE]\n");
	return 2;
}
