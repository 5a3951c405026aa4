/*
 * Symbolizing raw stacks: addresses taken from this very program (built
 * -O2 -g like every unit test) and from the libraries it has mapped, in a
 * table file and a maps file written the way the preload writes them.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/model/profile.h"
#include "core/measure/rawprof.h"
#include "core/measure/symbolize.h"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

#define NSLOTS 32u
#define FRAMES_CAP 256u

/* ---- code whose addresses the tests name ---- */

/* gcc's noipa also stops interprocedural constant propagation; clang has
 * no such attribute and does not clone these small functions anyway. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOIPA __attribute__((noipa))
#else
#define NOIPA __attribute__((noinline))
#endif

static volatile int line_grab, line_inlined, line_caller;
static volatile uint64_t cmp_ret;

NOIPA static uint64_t grab(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

static inline __attribute__((always_inline)) uint64_t inlined_fn(void)
{
	uint64_t a;

	line_grab = __LINE__ + 1;
	a = grab();
	__asm__ volatile("" : "+r"(a));
	return a;
}

NOIPA static uint64_t outer_fn(void)
{
	uint64_t a;

	line_inlined = __LINE__ + 1;
	a = inlined_fn();
	__asm__ volatile("" : "+r"(a));
	return a;
}

/* f[0]: a return address inside inlined_fn inside outer_fn; f[1]: one in
 * caller_fn */
NOIPA static void caller_fn(uint64_t *f)
{
	f[0] = outer_fn();
	line_caller = __LINE__ + 1;
	f[1] = grab();
	__asm__ volatile("" ::: "memory");
}

NOIPA static int leaf_fn(int x)
{
	return x * 3 + 1;
}

NOIPA static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	cmp_ret = (uint64_t)(uintptr_t)__builtin_return_address(0);
	return (x > y) - (x < y);
}

/* ---- writing the files ---- */

struct table {
	struct tk_raw_header h;
	struct tk_raw_slot slots[NSLOTS];
	uint64_t frames[FRAMES_CAP];
	unsigned used;
};

static void table_init(struct table *t, int pid, const char *exe)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->h.magic, TK_RAW_MAGIC, sizeof(t->h.magic));
	t->h.version = TK_RAW_VERSION;
	t->h.header_size = TK_RAW_HEADER_SIZE;
	t->h.pid = pid;
	t->h.nslots = NSLOTS;
	t->h.frames_off = TK_RAW_HEADER_SIZE + NSLOTS * sizeof(struct tk_raw_slot);
	t->h.frames_cap = FRAMES_CAP;
	t->h.sample_bytes = 1;
	snprintf(t->h.exe, sizeof(t->h.exe), "%s", exe);
	snprintf(t->h.unwinder, sizeof(t->h.unwinder), "fp");
}

static struct tk_raw_slot *table_stack(struct table *t, const uint64_t *frames, uint32_t n,
				       double bytes)
{
	struct tk_raw_slot *s = &t->slots[t->used];

	s->hash = 0x9000 + t->used++;
	s->frames = t->h.frames_used;
	s->nframes = n;
	memcpy(&t->frames[t->h.frames_used], frames, n * sizeof(*frames));
	t->h.frames_used += n;
	s->alloc_bytes = bytes;
	s->alloc_count = bytes ? 1 : 0;
	return s;
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	struct tk_buf p = TK_BUF_INIT;
	FILE *f;

	tk_buf_addf(&p, "%s/%s", dir, name);
	f = fopen(p.buf, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(p.buf);
		exit(1);
	}
	tk_buf_release(&p);
}

static void table_write(const struct table *t, const char *dir, const char *name)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_add(&b, &t->h, sizeof(t->h));
	while (b.len < TK_RAW_HEADER_SIZE)
		tk_buf_addch(&b, 0);
	tk_buf_add(&b, t->slots, sizeof(t->slots));
	tk_buf_add(&b, t->frames, sizeof(t->frames));
	write_file(dir, name, b.buf, b.len);
	tk_buf_release(&b);
}

static char *self_maps(void)
{
	struct tk_buf b = TK_BUF_INIT;

	if (tk_buf_read_file(&b, "/proc/self/maps", NULL)) {
		perror("/proc/self/maps");
		exit(1);
	}
	return tk_buf_detach(&b, NULL);
}

/* The line of maps whose path ends in suffix and is executable, parsed. */
static int find_map(const char *maps, const char *suffix, uint64_t *start, uint64_t *end,
		    uint64_t *pgoff, char *path, size_t path_size)
{
	const char *line = maps;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[4096], perms[5], file[4096];
		unsigned long long s, e, o;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = 0;
			file[0] = 0;
			if (sscanf(buf, "%llx-%llx %4s %llx %*s %*s %4095s", &s, &e, perms, &o,
				   file) >= 4 && perms[2] == 'x' && strlen(file) >= strlen(suffix) &&
			    !strcmp(file + strlen(file) - strlen(suffix), suffix)) {
				*start = s;
				*end = e;
				*pgoff = o;
				snprintf(path, path_size, "%s", file);
				return 0;
			}
		}
		line += len + (nl != NULL);
	}
	return -1;
}

/* Whether the ELF file has DWARF for this source file (the unit tests
 * are built -g unless CFLAGS say otherwise). */
static int has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY), found = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf *dw;

	if (fd < 0)
		return 0;
	dw = dwarf_begin(fd, DWARF_C_READ);
	while (dw && !found && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *name = dwarf_offdie(dw, off + hsize, &cu) ? dwarf_diename(&cu) : NULL;
		size_t n = name ? strlen(name) : 0;

		found = n >= 13 && !strcmp(name + n - 13, "t-symbolize.c");
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	close(fd);
	return found;
}

static int has_line(const char *dump, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = strstr(dump, line); p; p = strstr(p + n, line))
		if ((p == dump || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static void print_dump(const char *dump)
{
	const char *w = dump;

	while (*w) {
		size_t n = strcspn(w, "\n");

		printf("#   %.*s\n", (int)n, w);
		w += n + (w[n] != 0);
	}
}

static char *profile_dump(const struct tk_rawset *s, int lines, int have[TK_RAW_NVALUES],
			  enum tk_raw_value v, struct tk_profile *keep)
{
	struct tk_profile out[TK_RAW_NVALUES];
	struct tk_symbolize_opts o = { lines };
	struct tk_err err = TK_ERR_INIT;
	char *dump;
	int ret, i;

	ret = tk_rawset_to_profiles(s, &o, out, have, &err);
	if (ret)
		printf("# %s\n", err.msg);
	dump = dump_folded(&out[v]);
	for (i = 0; i < TK_RAW_NVALUES; i++) {
		if (keep && i == (int)v)
			*keep = out[i];
		else
			tk_profile_release(&out[i]);
	}
	return dump;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How many distinct addresses per second: every 16th byte of libc's text
 * and of this program's, one stack each. Reported, not asserted. */
static void throughput(const struct tk_rawimage *self, const char *exe)
{
	struct tk_rawset s;
	struct tk_rawimage *im;
	double one[TK_RAW_NVALUES] = { 1, 1, 0, 0 };
	size_t i, n = 0;
	int lines;

	tk_rawset_init(&s);
	im = tk_rawset_add_image(&s, 1, 0, "bench");
	for (i = 0; i < self->nr_maps; i++)
		tk_rawimage_add_map(im, self->maps[i].start, self->maps[i].end, self->maps[i].pgoff,
				    self->maps[i].path);
	for (i = 0; i < im->nr_maps && n < 200000; i++) {
		const char *b = strrchr(im->maps[i].path, '/');
		uint64_t a;

		if (!b || (strncmp(b, "/libc.so", 8) && strcmp(im->maps[i].path, exe)))
			continue;
		for (a = im->maps[i].start + 1; a < im->maps[i].end && n < 200000; a += 16, n++)
			tk_rawimage_add_stack(im, &a, 1, 0, one);
	}
	for (lines = 0; lines < 2; lines++) {
		struct tk_profile p;
		int have[TK_RAW_NVALUES];
		double t0 = now(), dt;
		char *dump = profile_dump(&s, lines, have, TK_RAW_ALLOC_BYTES, &p);

		dt = now() - t0;
		ok(p.nr_names > 1000, "throughput run: %u distinct names from %zu addresses%s",
		   p.nr_names, n, lines ? " with lines" : "");
		printf("# symbolized %zu distinct addresses in %.3f s: %.0f addresses/s%s\n", n, dt,
		       n / (dt > 0 ? dt : 1e-9), lines ? " (with file:line)" : "");
		tk_profile_release(&p);
		free(dump);
	}
	tk_rawset_release(&s);
}

int main(void)
{
	char tmpl[] = "/tmp/t-symbolize.XXXXXX";
	char *dir = mkdtemp(tmpl), *maps = self_maps(), *dump, exe[1024], self_path[4096];
	char want[1024];
	struct table *t = tk_xcalloc(1, sizeof(*t));
	struct tk_buf b = TK_BUF_INIT, warn = TK_BUF_INIT;
	struct tk_rawset s;
	struct tk_err err = TK_ERR_INIT;
	struct tk_profile cpu;
	uint64_t f[2], fr[4], ms, me, mo, delta = 0x100000000ull;
	int have[TK_RAW_NVALUES], ret, arr[64], i, dwarf;
	ssize_t n;
	void *sym, *libc;

	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	caller_fn(f);
	dwarf = has_dwarf(exe);
	if (!dwarf)
		printf("# %s has no DWARF (CFLAGS without -g?): inlined frames and lines untested\n",
		       exe);
	for (i = 0; i < 64; i++)
		arr[i] = (i * 37) % 64;
	qsort(arr, 64, sizeof(arr[0]), cmp_int);

	/* image 1: this process (its exe named as the test expects, whatever
	 * the binary is called) */
	table_init(t, getpid(), "/test/bin/t-symbolize");
	table_stack(t, f, 2, 100);                         /* caller;outer;inlined */
	fr[0] = (uint64_t)(uintptr_t)&leaf_fn + 2;
	fr[1] = f[1];
	table_stack(t, fr, 2, 0)->cpu_ns = 5e6;            /* a CPU sample in leaf_fn */
	t->slots[1].flags = TK_RAW_SLOT_LEAF_IP;
	/* from libc itself: a sanitizer interposes qsort */
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	ok(libc != NULL, "libc.so.6 is loaded");
	sym = libc ? dlsym(libc, "abort") : NULL;
	fr[0] = (uint64_t)(uintptr_t)sym + 5;
	sym = libc ? dlsym(libc, "qsort") : NULL;
	fr[1] = (uint64_t)(uintptr_t)sym + 1;
	table_stack(t, fr, 2, 7);                          /* qsort;abort */
	fr[0] = cmp_ret;
	table_stack(t, fr, 1, 9);                          /* inside qsort's machinery */
	sym = dlsym(RTLD_DEFAULT, "elf_version");
	fr[0] = (uint64_t)(uintptr_t)sym + 1;
	table_stack(t, fr, 1, 11);                         /* libelf */
	fr[0] = 0x10;
	fr[1] = f[1];
	table_stack(t, fr, 2, 13);                         /* caller;[unknown] */
	table_write(t, dir, "100.0.tkraw");
	tk_buf_addf(&b, "# snapshot\n%s", maps);
	write_file(dir, "100.0.maps", b.buf, b.len);

	/* image 2: the same program loaded elsewhere (ASLR), a file that is
	 * gone, one that is not ELF, the vdso */
	table_init(t, getpid(), "/test/bin/t-symbolize");
	t->h.seq = 1;
	fr[0] = f[0] + delta;
	fr[1] = f[1] + delta;
	table_stack(t, fr, 2, 1000);
	fr[0] = 0x10010;
	table_stack(t, fr, 1, 1);
	t->slots[t->used - 1].flags = TK_RAW_SLOT_LEAF_IP;
	fr[0] = 0x30020;
	table_stack(t, fr, 1, 2);
	table_write(t, dir, "100.1.tkraw");
	write_file(dir, "notelf.so", "hello\n", 6);
	tk_buf_reset(&b);
	tk_buf_adds(&b, "# snapshot\n"
		    "00010000-00020000 r-xp 00003000 08:02 12 /nonexistent/libgone.so\n"
		    "00030000-00031000 r-xp 00000000 08:02 13 ");
	tk_buf_addf(&b, "%s/notelf.so\n", dir);
	ret = find_map(maps, exe, &ms, &me, &mo, self_path, sizeof(self_path));
	ok(ret == 0, "this program's text mapping found");
	{
		const char *line = maps;

		/* every mapping of this program, moved up by delta */
		while (*line) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			unsigned long long s0, e0, o0;
			char perms[5];

			if (len > strlen(self_path) && !memcmp(line + len - strlen(self_path),
							       self_path, strlen(self_path)) &&
			    sscanf(line, "%llx-%llx %4s %llx", &s0, &e0, perms, &o0) == 4)
				tk_buf_addf(&b, "%llx-%llx %s %08llx 08:02 1 %s\n", s0 + delta,
					    e0 + delta, perms, o0, self_path);
			line += len + (nl != NULL);
		}
	}
	write_file(dir, "100.1.maps", b.buf, b.len);

	tk_rawset_init(&s);
	ret = tk_rawset_read_dir(&s, dir, &warn, &err);
	is_int(ret, 0, "the tables read back");
	is_str(warn.buf, "", "without warnings");
	is_int(s.nr_images, 2, "two images");

	dump = profile_dump(&s, 0, have, TK_RAW_ALLOC_BYTES, NULL);
	printf("# alloc profile:\n");
	print_dump(dump);
	ok(have[TK_RAW_ALLOC_BYTES] && have[TK_RAW_ALLOC_COUNT] && !have[TK_RAW_PEAK_LIVE] &&
	   have[TK_RAW_CPU_NS], "have: alloc, alloc_count and cpu, no heap_peak");
	if (dwarf)
		ok(has_line(dump, "t-symbolize;caller_fn;outer_fn;inlined_fn 1100"),
		   "inlined frame under its caller; the ASLR-moved copy names the same (100 + 1000)");
	else
		ok(has_line(dump, "t-symbolize;caller_fn;outer_fn 1100"),
		   "no DWARF in this build: caller_fn;outer_fn, the inlined frame unseen");
	ok(has_line(dump, "t-symbolize;qsort;abort 7"), "libc functions by name");
	{
		const char *p = strstr(dump, " 9\n"), *ln;

		for (ln = p; ln && ln > dump && ln[-1] != '\n'; ln--)
			;
		snprintf(want, sizeof(want), "%.*s", p ? (int)(p - ln) : 0, p ? ln : "");
	}
	/* a static function of libc: named from libc6-dbg's DWARF or symtab
	 * when installed, module+offset otherwise */
	ok(*want && !strstr(want, "[unknown]"),
	   "a return address inside qsort's machinery is named: %s", want);
	if (strstr(want, "libc.so.6+"))
		printf("# no debug info for libc.so.6 (libc6-dbg): its static functions are unnamed\n");
	ok(has_line(dump, "t-symbolize;elf_version 11"),
	   "another library by its ELF symbols");
	ok(has_line(dump, "t-symbolize;caller_fn;[unknown] 13"),
	   "an address no mapping covers is [unknown]");
	ok(has_line(dump, "t-symbolize;libgone.so+0x3010 1"),
	   "a file that is gone: module+offset into the file");
	ok(has_line(dump, "t-symbolize;notelf.so+0x20 2"), "a file that is not ELF: module+offset");
	free(dump);

	dump = profile_dump(&s, 0, have, TK_RAW_CPU_NS, &cpu);
	ok(has_line(dump, "t-symbolize;caller_fn;leaf_fn 5000000"),
	   "a leaf IP is named as is, not as the call before it");
	ok(cpu.unit == TK_UNIT_NANOSECONDS, "cpu in nanoseconds");
	tk_profile_release(&cpu);
	free(dump);
	dump = profile_dump(&s, 0, have, TK_RAW_ALLOC_COUNT, &cpu);
	ok(cpu.unit == TK_UNIT_COUNT && has_line(dump, "t-symbolize;qsort;abort 1"),
	   "alloc_count in counts");
	tk_profile_release(&cpu);
	free(dump);

	dump = profile_dump(&s, 1, have, TK_RAW_ALLOC_BYTES, NULL);
	printf("# alloc profile with lines:\n");
	print_dump(dump);
	snprintf(want, sizeof(want),
		 "t-symbolize;caller_fn t-symbolize.c:%d;outer_fn t-symbolize.c:%d;"
		 "inlined_fn t-symbolize.c:%d 1100", line_caller, line_inlined, line_grab);
	if (dwarf)
		ok(has_line(dump, want), "lines: each frame at its call, inlined ones too (%s)",
		   want);
	else
		skip(1, "no DWARF in this build for file:line");
	ok(strstr(dump, "t-symbolize;qsort ") && strstr(dump, ";abort "),
	   "lines: libc frames keep their names");
	ok(has_line(dump, "t-symbolize;libgone.so+0x3010 1"), "lines: unknown names unchanged");
	free(dump);

	{
		/* nonsense maps over real files (offsets past their end, ranges
		 * out of order) and random addresses: names, never a crash */
		struct tk_rawset junk;
		struct tk_rawimage *im = &s.images[0], *j;
		double one[TK_RAW_NVALUES] = { 1, 0, 0, 0 };
		uint64_t seed = 7, a[8];
		size_t k, m;

		tk_rawset_init(&junk);
		j = tk_rawset_add_image(&junk, 1, 0, "junk");
		j->maps = tk_xcalloc(im->nr_maps + 1, sizeof(*j->maps));
		for (k = 0; k < im->nr_maps; k++) {
			/* reversed, bypassing tk_rawimage_add_map */
			struct tk_rawmap *d = &j->maps[im->nr_maps - 1 - k];

			*d = im->maps[k];
			d->path = tk_xstrdup(im->maps[k].path);
			d->pgoff = k % 2 ? d->pgoff + (1ull << 40) : d->pgoff;
		}
		j->nr_maps = im->nr_maps;
		for (k = 0; k < 2000; k++) {
			for (m = 0; m < 8; m++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				a[m] = m % 2 ? seed >> 16 :
					im->maps[(seed >> 33) % im->nr_maps].start + (seed >> 50);
			}
			tk_rawimage_add_stack(j, a, 8, k % 3 ? 0 : TK_RAW_SLOT_LEAF_IP, one);
		}
		dump = profile_dump(&junk, 1, have, TK_RAW_ALLOC_BYTES, NULL);
		ok(have[TK_RAW_ALLOC_BYTES] && strlen(dump) > 0,
		   "junk maps and addresses: a profile, no crash");
		free(dump);
		tk_rawset_release(&junk);
	}

	throughput(&s.images[0], exe);

	tk_rawset_release(&s);
	if (libc)
		dlclose(libc);
	tk_buf_release(&b);
	tk_buf_release(&warn);
	free(maps);
	free(t);
	tk_buf_init(&b, 0);
	tk_buf_addf(&b, "rm -rf '%s'", dir);
	if (system(b.buf))
		printf("# cannot remove %s\n", dir);
	tk_buf_release(&b);
	return done_testing();
}
