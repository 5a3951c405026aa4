/*
 * The built-in profiler, wrapper side (see core/measure/profiler.h and
 * docs/profiler.md).
 */
#include <stdarg.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/measure/profiler.h"
#include "core/measure/job.h"
#include "core/base/buf.h"
#include "core/measure/perfrec.h"
#include "core/measure/symbolize.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define PRELOAD_NAME "libtracker-preload.so"

static void __attribute__((format(printf, 2, 3)))
warn(const struct tk_profiler *p, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	if (!p->warn)
		return;
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	p->warn(p->warn_data, msg.buf);
	tk_buf_release(&msg);
}

static const enum tk_unit value_units[TK_RAW_NVALUES] = {
	[TK_RAW_ALLOC_BYTES] = TK_UNIT_BYTES,
	[TK_RAW_ALLOC_COUNT] = TK_UNIT_COUNT,
	[TK_RAW_PEAK_LIVE] = TK_UNIT_BYTES,
	[TK_RAW_CPU_NS] = TK_UNIT_NANOSECONDS,
};

void tk_profiler_init(struct tk_profiler *p)
{
	int v;

	memset(p, 0, sizeof(*p));
	p->sample_bytes = 512 * 1024;
	p->cpu_hz = 199;
	p->sampler = TK_CPU_SAMPLER_AUTO;
	p->unwind = "auto";
	for (v = 0; v < TK_RAW_NVALUES; v++)
		tk_profile_init(&p->profiles[v], value_units[v]);
}

static void remove_dir(const char *dir)
{
	struct tk_buf path = TK_BUF_INIT;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/%s", dir, de->d_name);
		unlink(path.buf);
	}
	closedir(d);
	rmdir(dir);
	tk_buf_release(&path);
}

void tk_profiler_release(struct tk_profiler *p)
{
	size_t i;
	int v;

	if (p->perf)
		tk_perfrec_free(p->perf);
	if (p->dir) {
		remove_dir(p->dir);
		free(p->dir);
	}
	free(p->preload);
	for (v = 0; v < TK_RAW_NVALUES; v++)
		tk_profile_release(&p->profiles[v]);
	for (i = 0; i < p->nr_env; i++)
		free(p->env[i]);
	free(p->env);
}

int tk_profiler_parse_what(const char *spec, unsigned *what)
{
	const char *s = spec;

	*what = 0;
	while (*s) {
		size_t n = strcspn(s, ",");

		if (n == 5 && !strncmp(s, "alloc", 5))
			*what |= TK_PROFILER_ALLOC;
		else if (n == 3 && !strncmp(s, "cpu", 3))
			*what |= TK_PROFILER_CPU;
		else if (n == 3 && !strncmp(s, "all", 3))
			*what |= TK_PROFILER_ALLOC | TK_PROFILER_CPU;
		else
			return -1;
		s += n;
		if (*s == ',')
			s++;
	}
	return *what ? 0 : -1;
}

int tk_profiler_parse_sampler(const char *s, enum tk_cpu_sampler *out)
{
	if (!strcmp(s, "auto"))
		*out = TK_CPU_SAMPLER_AUTO;
	else if (!strcmp(s, "perf"))
		*out = TK_CPU_SAMPLER_PERF;
	else if (!strcmp(s, "timer"))
		*out = TK_CPU_SAMPLER_TIMER;
	else
		return -1;
	return 0;
}

int tk_profiler_parse_unwind(const char *s, const char **out)
{
	if (strcmp(s, "auto") && strcmp(s, "fp") && strcmp(s, "libunwind"))
		return -1;
	*out = s;
	return 0;
}

int tk_profiler_parse_bytes(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1024 }, { "KiB", 1024 }, { "k", 1024 },
		{ "M", 1024 * 1024 }, { "MiB", 1024 * 1024 },
		{ "G", 1024ull * 1024 * 1024 }, { "GiB", 1024ull * 1024 * 1024 },
	};
	unsigned long long n;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || !n)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (n > UINT64_MAX / units[i].mult)
			return -1;
		*out = n * units[i].mult;
		return 0;
	}
	return -1;
}

/*
 * The library next to the tracker binary (a build tree), else in
 * ../lib/tracker beside it (an install: `make install PREFIX=P` puts them
 * in P/bin and P/lib/tracker, whatever PREFIX the build was made with, and
 * a DESTDIR tree or a moved prefix keeps working), else in the LIBDIR
 * compiled in.
 */
static char *find_preload(const char *libdir)
{
	static const char *const beside[] = { "/" PRELOAD_NAME,
					      "/../lib/tracker/" PRELOAD_NAME };
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct tk_buf b = TK_BUF_INIT;
	size_t i;

	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		for (i = 0; slash && i < sizeof(beside) / sizeof(beside[0]); i++) {
			tk_buf_reset(&b);
			tk_buf_add(&b, self, (size_t)(slash - self));
			tk_buf_adds(&b, beside[i]);
			if (!access(b.buf, R_OK))
				return tk_buf_detach(&b, NULL);
		}
	}
	tk_buf_reset(&b);
	if (!libdir) {
		tk_buf_release(&b);
		return NULL;
	}
	tk_buf_addf(&b, "%s/" PRELOAD_NAME, libdir);
	if (!access(b.buf, R_OK))
		return tk_buf_detach(&b, NULL);
	tk_buf_release(&b);
	return NULL;
}

/* argv[0] as execvp would find it; NULL when it would not. */
static char *resolve_command(const char *cmd)
{
	const char *path = getenv("PATH");
	struct tk_buf b = TK_BUF_INIT;

	if (strchr(cmd, '/'))
		return tk_xstrdup(cmd);
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat sb;

		tk_buf_reset(&b);
		if (n)
			tk_buf_add(&b, path, n);
		else
			tk_buf_adds(&b, ".");
		tk_buf_addf(&b, "/%s", cmd);
		if (!stat(b.buf, &sb) && S_ISREG(sb.st_mode) && !access(b.buf, X_OK))
			return tk_buf_detach(&b, NULL);
		path += n;
		if (*path == ':')
			path++;
	}
	tk_buf_release(&b);
	return NULL;
}

/*
 * Why LD_PRELOAD cannot reach the program at path, or NULL when it can (or
 * when it is not an ELF file: a script's interpreter is what runs).
 */
static const char *preload_blocker(const char *path)
{
	Elf64_Ehdr eh;
	struct stat sb;
	int fd, i, has_interp = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb)) {
		close(fd);
		return NULL;
	}
	if (((sb.st_mode & S_ISUID) && sb.st_uid != geteuid()) ||
	    ((sb.st_mode & S_ISGID) && sb.st_gid != getegid())) {
		close(fd);
		return "is setuid or setgid";
	}
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		close(fd);
		return NULL;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
		close(fd);
		return "is a 32-bit program";
	}
	for (i = 0; i < eh.e_phnum && i < 4096; i++) {
		Elf64_Phdr ph;
		off_t at = (off_t)eh.e_phoff + (off_t)i * eh.e_phentsize;

		if (pread(fd, &ph, sizeof(ph), at) != (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			has_interp = 1;
	}
	close(fd);
	return has_interp ? NULL : "is statically linked";
}

/*
 * The job's environment is tracker's with the profiler's variables set:
 * p->env, built here, never tracker's own (core changes no process
 * state). Sets name=value, replacing an earlier name=.
 */
static void env_set(struct tk_profiler *p, const char *name, const char *value)
{
	size_t len = strlen(name), i;
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_addf(&b, "%s=%s", name, value);
	for (i = 0; i < p->nr_env; i++)
		if (!strncmp(p->env[i], name, len) && p->env[i][len] == '=') {
			free(p->env[i]);
			p->env[i] = tk_buf_detach(&b, NULL);
			return;
		}
	TK_ALLOC_GROW(p->env, p->nr_env + 2, p->alloc_env);
	p->env[p->nr_env++] = tk_buf_detach(&b, NULL);
	p->env[p->nr_env] = NULL;
}

static void env_set_u64(struct tk_profiler *p, const char *name, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	env_set(p, name, num);
}

/* A copy of tracker's environment to change for the job. */
static void env_start(struct tk_profiler *p)
{
	char **e;

	for (e = environ; *e; e++) {
		TK_ALLOC_GROW(p->env, p->nr_env + 2, p->alloc_env);
		p->env[p->nr_env++] = tk_xstrdup(*e);
	}
	TK_ALLOC_GROW(p->env, p->nr_env + 1, p->alloc_env);
	p->env[p->nr_env] = NULL;
}

char *const *tk_profiler_env(const struct tk_profiler *p)
{
	return p->env;
}

void tk_profiler_hook(struct tk_profiler *p, struct tk_job_opts *jo)
{
	jo->envp = tk_profiler_env(p);
	if (!p->what)
		return;
	jo->before_exec = tk_profiler_before_exec;
	jo->tick = tk_profiler_tick;
	jo->hook_data = p;
}

static int make_dir(struct tk_profiler *p)
{
	const char *tmp = getenv("TMPDIR");
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_addf(&b, "%s/tracker-profile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b.buf)) {
		warn(p, "cannot create a directory for the profiler (%s): %s", b.buf,
		     strerror(errno));
		tk_buf_release(&b);
		return -1;
	}
	p->dir = tk_buf_detach(&b, NULL);
	return 0;
}

int tk_profiler_start(struct tk_profiler *p, char *const *argv)
{
	struct tk_err err = TK_ERR_INIT;
	int need_preload;
	const char *why = NULL;
	char *cmd;

	if (!p->what)
		return 0;
	p->prog = argv[0];
	if ((p->what & TK_PROFILER_CPU) && p->sampler != TK_CPU_SAMPLER_TIMER) {
		if (tk_perfrec_probe(&err)) {
			if (p->sampler == TK_CPU_SAMPLER_PERF) {
				warn(p, "%s; recording without a CPU profile", err.msg);
				p->what &= ~TK_PROFILER_CPU;
			} else {
				p->timer_cpu = 1;
			}
		}
	} else if (p->what & TK_PROFILER_CPU) {
		p->timer_cpu = 1;
	}
	need_preload = (p->what & TK_PROFILER_ALLOC) || p->timer_cpu;
	if (!need_preload)
		return 0;

	cmd = resolve_command(argv[0]);
	if (cmd)
		why = preload_blocker(cmd);
	if (why) {
		warn(p, "'%s' %s: LD_PRELOAD cannot reach it, so the run is recorded "
		     "without %s", argv[0], why,
		     !(p->what & TK_PROFILER_ALLOC) ? "a CPU profile" :
		     p->timer_cpu ? "allocation and CPU profiles" : "an allocation profile");
		p->no_alloc = 1;
		free(cmd);
		return 0;
	}
	free(cmd);
	p->preload = find_preload(p->libdir);
	if (!p->preload) {
		warn(p, "cannot find %s next to tracker, in ../lib/tracker beside it or "
		     "in %s; recording without the built-in profile", PRELOAD_NAME,
		     p->libdir ? p->libdir : "no library directory");
		p->no_alloc = 1;
		return 0;
	}
#ifndef TK_WITH_LIBUNWIND
	if (!p->unwind || strcmp(p->unwind, "fp"))
		warn(p, "tracker was built without libunwind (install libunwind-dev and "
		     "rebuild): the profiler's stacks follow frame pointers only");
#endif
	if (make_dir(p)) {
		p->no_alloc = 1;
		return 0;
	}

	env_start(p);
	env_set(p, TK_RAW_ENV_DIR, p->dir);
	env_set_u64(p, TK_RAW_ENV_SAMPLE_BYTES,
		    (p->what & TK_PROFILER_ALLOC) ? p->sample_bytes : 0);
	env_set_u64(p, TK_RAW_ENV_CPU_HZ, p->timer_cpu ? p->cpu_hz : 0);
	env_set(p, TK_RAW_ENV_UNWIND, p->unwind);
	{
		const char *old = getenv("LD_PRELOAD");
		struct tk_buf b = TK_BUF_INIT;

		tk_buf_adds(&b, p->preload);
		if (old && *old)
			tk_buf_addf(&b, ":%s", old);
		env_set(p, "LD_PRELOAD", b.buf);
		tk_buf_release(&b);
	}
	return 0;
}

int tk_profiler_before_exec(pid_t child, void *data)
{
	struct tk_profiler *p = data;
	struct tk_err err = TK_ERR_INIT;

	if (!(p->what & TK_PROFILER_CPU) || p->timer_cpu)
		return 0;
	if (tk_perfrec_open(&p->perf, child, p->cpu_hz, &err)) {
		warn(p, "%s; recording without a CPU profile", err.msg);
		p->perf = NULL;
		p->perf_failed = 1;
		return -1;
	}
	return 0;
}

void tk_profiler_tick(void *data)
{
	struct tk_profiler *p = data;

	if (p->perf)
		tk_perfrec_drain(p->perf);
}

static void warn_losses(const struct tk_profiler *p, const struct tk_rawset *set)
{
	if (set->dropped)
		warn(p, "the profiler's stack table filled up: %llu samples were "
		     "dropped", (unsigned long long)set->dropped);
	if (set->cpu_lost)
		warn(p, "%llu CPU samples were lost (taken inside the profiler or "
		     "the kernel's buffer overflowed)",
		     (unsigned long long)set->cpu_lost);
	if (set->truncated)
		warn(p, "%llu stacks were deeper than %d frames; their outermost "
		     "frames are cut", (unsigned long long)set->truncated,
		     TK_RAW_MAX_FRAMES);
}

/*
 * A profile asked for and not stored gets one line saying why, unless a
 * warning said so already (a static program, perf refused, no table).
 */
static void say_what_is_missing(const struct tk_profiler *p, const struct tk_rawset *set,
				size_t tables)
{
	int no_alloc = (p->what & TK_PROFILER_ALLOC) && p->dir && tables &&
		       !p->have[TK_RAW_ALLOC_BYTES] && !set->dropped;

	if (no_alloc && !set->malloc_tables)
		warn(p, "--profile alloc saw no malloc calls in '%s' (static binary, "
		     "custom allocator?); no allocation profile stored", p->prog);
	else if (no_alloc)
		warn(p, "--profile alloc sampled none of the allocations of '%s' "
		     "(fewer bytes than --sample-bytes %llu; --sample-bytes 1 "
		     "records every one); no allocation profile stored", p->prog,
		     (unsigned long long)p->sample_bytes);
	if ((p->what & TK_PROFILER_CPU) && !p->have[TK_RAW_CPU_NS] && !p->perf_failed &&
	    !(p->timer_cpu && p->no_alloc) && !set->cpu_lost)
		warn(p, "--profile cpu took no sample of '%s' (too short: under "
		     "one period, 1/%u s of CPU time); no CPU profile stored", p->prog,
		     p->cpu_hz);
}

/*
 * The sampling noise of the allocation profiles, which the profiler knows
 * (struct tk_profile's dispersion): an allocation of s bytes is sampled
 * with probability q = 1 - exp(-s/S) and then weighs s/q bytes and 1/q
 * allocations, so it adds s^2 (1-q)/q to the variance of its frame's
 * bytes, s / (exp(s/S) - 1) per byte (S for small blocks, falling to 0
 * for blocks far above S, which are always sampled), and (1-q)/q =
 * 1 / (exp(s/S) - 1) per allocation to its count. Both are taken at the
 * profile's mean allocation size: exact when the sizes are alike (the
 * known-answer model's 64 KiB blocks), about S for bytes when small
 * blocks dominate. The peak of the live sampled bytes is a sum of such
 * weights too.
 */
static void set_dispersion(struct tk_profiler *p)
{
	double s = (double)p->sample_bytes, bytes, count, x;

	if (!(p->what & TK_PROFILER_ALLOC) || p->sample_bytes <= 1)
		return;
	bytes = tk_profile_total(&p->profiles[TK_RAW_ALLOC_BYTES]);
	count = tk_profile_total(&p->profiles[TK_RAW_ALLOC_COUNT]);
	if (!(bytes > 0 && count > 0))
		return;
	x = bytes / count / s;
	if (!(isfinite(x) && x > 0 && x < 700))
		return;  /* past 700 exp overflows: blocks that large are exact */
	p->profiles[TK_RAW_ALLOC_BYTES].dispersion = bytes / count / expm1(x);
	p->profiles[TK_RAW_PEAK_LIVE].dispersion = bytes / count / expm1(x);
	p->profiles[TK_RAW_ALLOC_COUNT].dispersion = 1 / expm1(x);
}

void tk_profiler_finish(struct tk_profiler *p)
{
	struct tk_symbolize_opts so;
	struct tk_rawset set;
	struct tk_buf warnings = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	size_t tables;
	int v;

	if (!p->what)
		return;
	tk_rawset_init(&set);
	if (p->perf) {
		struct tk_buf note = TK_BUF_INIT;

		if (tk_perfrec_finish(p->perf, &set, &err))
			warn(p, "CPU profile: %s", err.msg);
		if (tk_perfrec_note(p->perf, &note))
			warn(p, "%s", note.buf);
		tk_buf_release(&note);
		tk_perfrec_free(p->perf);
		p->perf = NULL;
	}
	tables = set.nr_images; /* the perf images come first */
	if (p->dir && tk_rawset_read_dir(&set, p->dir, &warnings, &err))
		warn(p, "%s", err.msg);
	tables = set.nr_images - tables;
	if (warnings.len) {
		char *line = warnings.buf, *nl;

		for (; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl) {
				warn(p, "%s", line);
				break;
			}
			*nl = '\0';
			warn(p, "%s", line);
		}
	}
	if ((p->what & TK_PROFILER_ALLOC) && p->dir && !tables)
		warn(p, "the job wrote no allocation profile (did it clear "
		     "LD_PRELOAD, or run only static programs?)");
	warn_losses(p, &set);
	memset(&so, 0, sizeof(so));
	so.lines = p->lines;
	so.no_demangle = p->no_demangle;
	/* Naming uses local files only: libdw would otherwise fetch debug
	 * information over the network, for minutes, at the end of a CI job. */
	unsetenv("DEBUGINFOD_URLS");
	/* It initializes the profiles afresh. */
	for (v = 0; v < TK_RAW_NVALUES; v++)
		tk_profile_release(&p->profiles[v]);
	if (tk_rawset_to_profiles(&set, &so, p->profiles, p->have, &err))
		warn(p, "cannot name the profiled stacks: %s", err.msg);
	if (!(p->what & TK_PROFILER_ALLOC))
		p->have[TK_RAW_ALLOC_BYTES] = p->have[TK_RAW_ALLOC_COUNT] =
			p->have[TK_RAW_PEAK_LIVE] = 0;
	if (!(p->what & TK_PROFILER_CPU))
		p->have[TK_RAW_CPU_NS] = 0;
	set_dispersion(p);
	say_what_is_missing(p, &set, tables);
	tk_rawset_release(&set);
	tk_buf_release(&warnings);
}
