/* The raw profile reader: table and maps files, damage, map merging. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/measure/rawprof.h"
#include "tests/unit/tap.h"

#define NSLOTS 16u
#define FRAMES_CAP 64u

struct table {
	struct tk_raw_header h;
	struct tk_raw_slot slots[NSLOTS];
	uint64_t frames[FRAMES_CAP];
};

static void table_init(struct table *t, int pid, const char *exe, const char *comm,
		       const char *unwinder)
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
	snprintf(t->h.comm, sizeof(t->h.comm), "%s", comm);
	snprintf(t->h.unwinder, sizeof(t->h.unwinder), "%s", unwinder);
}

/* Adds a stack in slot i; returns the slot. */
static struct tk_raw_slot *table_stack(struct table *t, unsigned i, const uint64_t *frames,
				       uint32_t n, double bytes, double count)
{
	struct tk_raw_slot *s = &t->slots[i];

	s->hash = 0x1234 + i;
	s->frames = t->h.frames_used;
	s->nframes = n;
	memcpy(&t->frames[t->h.frames_used], frames, n * sizeof(*frames));
	t->h.frames_used += n;
	s->alloc_bytes = bytes;
	s->alloc_count = count;
	return s;
}

/* Writes the table as the file the preload maps: header padded to
 * header_size, the slots, the whole frames region; only `len` bytes of it
 * when len is not 0. */
static void table_write(const struct table *t, const char *path, size_t len)
{
	struct tk_buf b = TK_BUF_INIT;
	FILE *f;

	tk_buf_add(&b, &t->h, sizeof(t->h));
	while (b.len < TK_RAW_HEADER_SIZE)
		tk_buf_addch(&b, 0);
	tk_buf_add(&b, t->slots, sizeof(t->slots));
	tk_buf_add(&b, t->frames, sizeof(t->frames));
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(b.buf, 1, len && len < b.len ? len : b.len, f);
	fclose(f);
	tk_buf_release(&b);
}

static int has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/t-rawprof.XXXXXX";
	char *d = mkdtemp(tmpl);

	if (!d) {
		perror("mkdtemp");
		exit(1);
	}
	return tk_xstrdup(d);
}

static void cleanup(const char *dir)
{
	struct tk_buf cmd = TK_BUF_INIT;

	tk_buf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.buf))
		fprintf(stderr, "cannot remove %s\n", dir);
	tk_buf_release(&cmd);
}

static char *path_in(const char *dir, const char *name)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_addf(&b, "%s/%s", dir, name);
	return tk_buf_detach(&b, NULL);
}

static void test_kinds(void)
{
	is_str(tk_raw_kind(TK_RAW_ALLOC_BYTES), "alloc", "kind alloc");
	is_str(tk_raw_kind(TK_RAW_ALLOC_COUNT), "alloc_count", "kind alloc_count");
	is_str(tk_raw_kind(TK_RAW_PEAK_LIVE), "heap_peak", "kind heap_peak");
	is_str(tk_raw_kind(TK_RAW_CPU_NS), "cpu", "kind cpu");
	ok(tk_raw_kind(TK_RAW_NVALUES) == NULL, "no kind past the last value");
}

static void test_add_map(void)
{
	struct tk_rawset s;
	struct tk_rawimage *im;

	tk_rawset_init(&s);
	im = tk_rawset_add_image(&s, 1, 0, NULL);
	is_str(im->name, "[unknown]", "an image without a name");
	tk_rawimage_add_map(im, 0x5000, 0x6000, 0, "/c");
	tk_rawimage_add_map(im, 0x1000, 0x5000, 0x100000, "/a");
	tk_rawimage_add_map(im, 0x8000, 0x9000, 0, "/d");
	tk_rawimage_add_map(im, 0x7000, 0x7000, 0, "/empty");
	is_int(im->nr_maps, 3, "three maps, the empty one ignored");
	ok(im->maps[0].start == 0x1000 && im->maps[1].start == 0x5000 &&
	   im->maps[2].start == 0x8000, "kept sorted");
	/* inside /a: splits it */
	tk_rawimage_add_map(im, 0x2000, 0x3000, 0, "/b");
	is_int(im->nr_maps, 5, "a map inside another splits it");
	ok(im->maps[0].start == 0x1000 && im->maps[0].end == 0x2000 &&
	   im->maps[0].pgoff == 0x100000 && !strcmp(im->maps[0].path, "/a"), "left part of /a");
	ok(im->maps[1].start == 0x2000 && im->maps[1].end == 0x3000 &&
	   !strcmp(im->maps[1].path, "/b"), "/b in the middle");
	ok(im->maps[2].start == 0x3000 && im->maps[2].end == 0x5000 &&
	   im->maps[2].pgoff == 0x102000 && !strcmp(im->maps[2].path, "/a"),
	   "right part of /a, file offset moved along");
	/* over the end of /a, all of /c and the start of nothing */
	tk_rawimage_add_map(im, 0x4000, 0x8800, 0x42, "/e");
	is_int(im->nr_maps, 5, "a map across several replaces them");
	ok(im->maps[2].start == 0x3000 && im->maps[2].end == 0x4000, "/a cut at /e");
	ok(im->maps[3].start == 0x4000 && im->maps[3].end == 0x8800 &&
	   !strcmp(im->maps[3].path, "/e"), "/e whole");
	ok(im->maps[4].start == 0x8800 && im->maps[4].end == 0x9000 &&
	   im->maps[4].pgoff == 0x800 && !strcmp(im->maps[4].path, "/d"), "/d trimmed");
	tk_rawset_release(&s);
	is_int(s.nr_images, 0, "release empties the set");
}

static const struct tk_rawimage *image_of(const struct tk_rawset *s, int pid, unsigned seq)
{
	size_t i;

	for (i = 0; i < s->nr_images; i++)
		if (s->images[i].pid == pid && s->images[i].seq == seq)
			return &s->images[i];
	return NULL;
}

static void test_read(void)
{
	char *dir = tmpdir(), *p;
	struct table *t = tk_xcalloc(1, sizeof(*t));
	struct tk_rawset s;
	struct tk_buf warn = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_rawimage *im;
	static const uint64_t f1[] = { 0x1111, 0x2222, 0x3333 };
	static const uint64_t f2[] = { 0x4444 };
	struct tk_raw_slot *sl;
	int ret;

	/* 100.0: a clean table */
	table_init(t, 100, "/usr/bin/my prog (deleted)", "myprog", "fp+libunwind");
	table_stack(t, 3, f1, 3, 4096, 2);
	sl = table_stack(t, 7, f2, 1, 0, 0);
	sl->cpu_ns = 1e6;
	sl->flags = TK_RAW_SLOT_LEAF_IP | 0x80;
	sl = table_stack(t, 9, f2, 1, 0, 0);   /* all zero: nothing to say */
	sl = table_stack(t, 11, f2, 1, 5, 1);
	sl->hash = 0;                           /* not published: skipped */
	t->h.dropped = 2;
	t->h.truncated = 1;
	p = path_in(dir, "100.0.tkraw");
	table_write(t, p, 0);
	free(p);
	p = path_in(dir, "100.0.maps");
	write_text(p, "# snapshot\n"
		   "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/my prog\n"
		   "00651000-00652000 rw-p 00051000 08:02 173521 /usr/bin/my prog\n"
		   "7f0000000000-7f0000010000 r-xp 00002000 08:02 42 /lib/libx.so\n"
		   "7f0000100000-7f0000110000 rwxp 00000000 00:00 0 \n"
		   "7fff00000000-7fff00002000 r-xp 00000000 00:00 0                  [vdso]\n"
		   "this is not a maps line\n"
		   "# snapshot\n"
		   "7f0000004000-7f0000008000 r-xp 00000000 08:02 43 /lib/liby.so\n"
		   "7f0000020000-7f0000010000 r-xp 00000000 08:02 43 /lib/backwards.so\n");
	free(p);

	/* 100.1: the exec'd image: comm names it, cpu_lost adds up */
	table_init(t, 100, "", "child", "fp");
	table_stack(t, 0, f2, 1, 8, 1);
	t->h.cpu_lost = 5;
	t->h.dropped = 1;
	p = path_in(dir, "100.1.tkraw");
	table_write(t, p, 0);
	free(p);

	/* 7.0: damaged slots; frames_used past the capacity (table full) */
	table_init(t, 7, "/bin/damaged", "", "libunwind");
	table_stack(t, 0, f1, 3, 10, 1);
	sl = table_stack(t, 1, f1, 3, 20, 1);
	sl->frames = FRAMES_CAP - 1;            /* runs past the end */
	sl = table_stack(t, 2, f1, 3, 30, 1);
	sl->nframes = TK_RAW_MAX_FRAMES + 1;
	sl = table_stack(t, 3, f1, 3, 40, 1);
	sl->frames = UINT64_MAX - 1;            /* overflows frames + nframes */
	sl = table_stack(t, 4, f1, 3, NAN, 1);
	sl = table_stack(t, 5, f1, 3, -1, 1);
	t->h.frames_used = FRAMES_CAP + 100;
	p = path_in(dir, "7.0.tkraw");
	table_write(t, p, 0);
	free(p);

	/* 8.0: truncated inside the frames region: what is there is read */
	table_init(t, 8, "/bin/cut", "", "fp");
	{
		uint64_t many[40];
		size_t k;

		for (k = 0; k < 40; k++)
			many[k] = 0x1000 + k;
		table_stack(t, 0, many, 2, 1, 1);
		table_stack(t, 1, many, 40, 2, 1);
	}
	p = path_in(dir, "8.0.tkraw");
	table_write(t, p, TK_RAW_HEADER_SIZE + sizeof(t->slots) + 10 * 8 + 3);
	free(p);

	/* 9.0: bad magic; 10.0: truncated header; 11.0: bad nslots */
	table_init(t, 9, "/bin/x", "", "fp");
	table_stack(t, 0, f2, 1, 1, 1);
	t->h.magic[0] = 'X';
	p = path_in(dir, "9.0.tkraw");
	table_write(t, p, 0);
	free(p);
	t->h.magic[0] = 'T';
	p = path_in(dir, "10.0.tkraw");
	table_write(t, p, 100);
	free(p);
	t->h.nslots = 12;
	p = path_in(dir, "11.0.tkraw");
	table_write(t, p, 0);
	free(p);
	/* 12.0: the slots end past the end of the file */
	table_init(t, 12, "/bin/short", "", "fp");
	table_stack(t, 0, f2, 1, 3, 1);
	table_stack(t, 15, f2, 1, 4, 1);
	p = path_in(dir, "12.0.tkraw");
	table_write(t, p, TK_RAW_HEADER_SIZE + 2 * sizeof(struct tk_raw_slot));
	free(p);

	/* names that are not tables */
	p = path_in(dir, "notes.tkraw");
	write_text(p, "x");
	free(p);
	p = path_in(dir, "1.2.tkraw.tmp");
	write_text(p, "x");
	free(p);

	tk_rawset_init(&s);
	ret = tk_rawset_read_dir(&s, dir, &warn, &err);
	is_int(ret, 0, "the directory reads");
	{
		const char *w = warn.buf;

		while (*w) {
			size_t n = strcspn(w, "\n");

			printf("# %.*s\n", (int)n, w);
			w += n + (w[n] != 0);
		}
	}
	is_int(s.nr_images, 5, "five images: 7.0 8.0 12.0 100.0 100.1");
	ok(s.nr_images == 5 && s.images[0].pid == 7 && s.images[1].pid == 8 &&
	   s.images[2].pid == 12 && s.images[3].pid == 100 && s.images[3].seq == 0 &&
	   s.images[4].seq == 1, "sorted by pid, then seq");
	is_int(s.dropped, 3, "dropped summed over the files");
	is_int(s.cpu_lost, 5, "cpu_lost summed");
	is_int(s.truncated, 1, "truncated summed");
	is_int(s.unwinders, TK_RAW_UNW_FP | TK_RAW_UNW_LIBUNWIND, "both unwinders seen");

	im = image_of(&s, 100, 0);
	ok(im != NULL, "100.0 read");
	if (im) {
		is_str(im->name, "my prog", "name: basename of exe, ' (deleted)' dropped");
		is_int(im->nr_stacks, 2, "unpublished and all-zero slots skipped");
		if (im->nr_stacks == 2) {
			const struct tk_rawstack *a = &im->stacks[0], *b = &im->stacks[1];

			ok(a->nframes == 3 && a->frames[0] == 0x1111 && a->frames[2] == 0x3333,
			   "frames innermost first");
			ok(a->v[TK_RAW_ALLOC_BYTES] == 4096 && a->v[TK_RAW_ALLOC_COUNT] == 2 &&
			   a->v[TK_RAW_CPU_NS] == 0, "alloc values");
			ok(b->v[TK_RAW_CPU_NS] == 1e6 && b->flags == TK_RAW_SLOT_LEAF_IP,
			   "cpu value and leaf flag (unknown flags dropped)");
		}
		is_int(im->nr_maps, 5, "executable maps with a path, later snapshot winning");
		if (im->nr_maps == 5) {
			ok(im->maps[0].start == 0x400000 && im->maps[0].end == 0x452000 &&
			   !strcmp(im->maps[0].path, "/usr/bin/my prog"), "a path with a space");
			ok(im->maps[1].start == 0x7f0000000000 && im->maps[1].end == 0x7f0000004000 &&
			   im->maps[1].pgoff == 0x2000, "libx before liby");
			ok(im->maps[2].start == 0x7f0000004000 &&
			   !strcmp(im->maps[2].path, "/lib/liby.so"), "liby from the later snapshot");
			ok(im->maps[3].start == 0x7f0000008000 && im->maps[3].pgoff == 0xa000 &&
			   !strcmp(im->maps[3].path, "/lib/libx.so"), "libx after liby");
			is_str(im->maps[4].path, "[vdso]", "the vdso is kept");
		}
	}
	ok(has(warn.buf, "100.0.maps' offset") && has(warn.buf, "maps line 7") &&
	   has(warn.buf, "1 more"), "bad maps lines: one warning naming file, offset, line");
	im = image_of(&s, 100, 1);
	ok(im && !strcmp(im->name, "child") && im->nr_maps == 0 && im->nr_stacks == 1,
	   "no exe: comm names it; no maps file: no maps");

	im = image_of(&s, 7, 0);
	ok(im && im->nr_stacks == 1 && im->stacks[0].v[TK_RAW_ALLOC_BYTES] == 10,
	   "damaged slots skipped, the good one kept");
	ok(has(warn.buf, "'") && has(warn.buf, "7.0.tkraw' offset 4160: stack frames") &&
	   has(warn.buf, "(and 4 more problems)"),
	   "one warning for the damaged table, first slot's offset");

	im = image_of(&s, 8, 0);
	ok(im && im->nr_stacks == 1 && im->stacks[0].nframes == 2,
	   "truncated frames: the stack still there is read");
	ok(has(warn.buf, "8.0.tkraw' offset") && has(warn.buf, "10 of 42 frames"),
	   "truncation warned");
	im = image_of(&s, 12, 0);
	ok(im && im->nr_stacks == 0, "slots cut off: nothing read, the frames are gone too");
	ok(has(warn.buf, "12.0.tkraw' offset") && has(warn.buf, "slots end"),
	   "cut slots warned");
	ok(has(warn.buf, "9.0.tkraw' offset 0: not a raw profile table"), "bad magic warned");
	ok(has(warn.buf, "10.0.tkraw' offset 100: file truncated inside the header"),
	   "truncated header warned");
	ok(has(warn.buf, "11.0.tkraw' offset 28: bad slot count 12"), "bad nslots warned");
	ok(!has(warn.buf, "notes.tkraw") && !has(warn.buf, "tkraw.tmp"), "other names ignored");
	tk_rawset_release(&s);

	/* appending: reading again adds the images once more */
	tk_rawset_init(&s);
	tk_rawset_read_dir(&s, dir, NULL, &err);
	tk_rawset_read_dir(&s, dir, NULL, &err);
	is_int(s.nr_images, 10, "read_dir appends (and warnings may be NULL)");
	tk_rawset_release(&s);

	tk_buf_release(&warn);
	free(t);
	cleanup(dir);
	free(dir);

	tk_rawset_init(&s);
	ret = tk_rawset_read_dir(&s, "/nonexistent/tracker-profile", NULL, &err);
	is_int(ret, TK_EUNAVAIL, "a missing directory is TK_EUNAVAIL");
	ok(has(err.msg, "/nonexistent/tracker-profile"), "the message names it");
}

/* Damage a valid table at random, 300 times; res[0] counts the images
 * read, res[1] the stacks deeper than the reader allows. */
static void mutate_and_read(unsigned res[2])
{
	char *dir = tmpdir(), *p = path_in(dir, "5.0.tkraw");
	struct table *t = tk_xcalloc(1, sizeof(*t)), *m = tk_xcalloc(1, sizeof(*m));
	static const uint64_t f[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	unsigned round, k, bad = 0, images = 0;
	uint64_t seed = 42;

	table_init(t, 5, "/bin/m", "m", "fp");
	for (k = 0; k < NSLOTS; k++)
		table_stack(t, k, f, 1 + k % 4, 1 + k, 1);
	for (round = 0; round < 300; round++) {
		struct tk_rawset s;
		unsigned char *bytes = (unsigned char *)m;
		size_t i, j;

		*m = *t;
		for (k = 0; k < 1 + round % 16; k++) {
			size_t off;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* mostly inside the header's numbers and the slots */
			off = (seed >> 33) % (round % 3 ? sizeof(m->h) - sizeof(m->h.exe) : sizeof(*m));
			bytes[off] = (unsigned char)(seed >> 20);
		}
		table_write(m, p, round % 5 == 0 ? (seed >> 40) % sizeof(*m) : 0);
		tk_rawset_init(&s);
		tk_rawset_read_dir(&s, dir, NULL, NULL);
		for (i = 0; i < s.nr_images; i++) {
			images++;
			for (j = 0; j < s.images[i].nr_stacks; j++)
				if (s.images[i].stacks[j].nframes > TK_RAW_MAX_FRAMES)
					bad++;
		}
		tk_rawset_release(&s);
	}
	res[0] = images;
	res[1] = bad;
	unlink(p);
	free(p);
	free(t);
	free(m);
	cleanup(dir);
	free(dir);
}

/* The reader never crashes on damaged tables, and whatever it returns
 * stays inside the frames it read. It runs in a child, so a crash is a
 * failed test rather than the end of this one. */
static void test_mutations(void)
{
	unsigned res[2] = { 0, 0 };
	ssize_t got = 0;
	int fds[2], status = 0;
	pid_t pid;

	if (pipe(fds)) {
		ok(0, "pipe for the mutation child: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		mutate_and_read(res);
		_exit(write(fds[1], res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 3);
	}
	close(fds[1]);
	if (pid > 0) {
		got = read(fds[0], res, sizeof(res));
		waitpid(pid, &status, 0);
	}
	close(fds[0]);
	if (!ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		got == (ssize_t)sizeof(res),
		"300 damaged tables read without a crash (%u images came out)", res[0]))
		printf("#   the reader's child %s %d\n",
		       WIFSIGNALED(status) ? "died by signal" : "exited with",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	is_int(got == (ssize_t)sizeof(res) ? res[1] : 1, 0,
	       "no stack deeper than TK_RAW_MAX_FRAMES");
}

/*
 * A table as the preload leaves it: a sparse file in which a few pages
 * hold slots, far apart, with holes between them. The reader skips the
 * holes; every slot that holds a stack is still read, the last one too.
 */
static void test_sparse(void)
{
	enum { SPARSE_SLOTS = 1u << 16 };
	static const unsigned at[] = { 5, 64, 40000, SPARSE_SLOTS - 1 };
	char *dir = tmpdir(), *p = path_in(dir, "300.0.tkraw");
	struct tk_raw_header h;
	struct tk_rawset s;
	struct tk_buf warn = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_rawimage *im;
	uint64_t frames_off = TK_RAW_HEADER_SIZE +
			      (uint64_t)SPARSE_SLOTS * sizeof(struct tk_raw_slot);
	double total = 0;
	size_t k;
	int fd, ret, bad = 0;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TK_RAW_MAGIC, sizeof(h.magic));
	h.version = TK_RAW_VERSION;
	h.header_size = TK_RAW_HEADER_SIZE;
	h.pid = 300;
	h.nslots = SPARSE_SLOTS;
	h.frames_off = frames_off;
	h.frames_cap = 1024;
	h.frames_used = 4;
	h.sample_bytes = 1;
	snprintf(h.unwinder, sizeof(h.unwinder), "fp");
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(frames_off + 1024 * 8)) ||
	    pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		bad = 1;
	for (k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		struct tk_raw_slot sl;
		uint64_t frame = 0x5000 + k;

		memset(&sl, 0, sizeof(sl));
		sl.hash = 0x777 + k;
		sl.frames = k;
		sl.nframes = 1;
		sl.alloc_bytes = (double)(1u << k);
		sl.alloc_count = 1;
		if (pwrite(fd, &sl, sizeof(sl), (off_t)(TK_RAW_HEADER_SIZE +
							(uint64_t)at[k] * sizeof(sl))) != (ssize_t)sizeof(sl) ||
		    pwrite(fd, &frame, 8, (off_t)(frames_off + k * 8)) != 8)
			bad = 1;
	}
	if (fd >= 0)
		close(fd);
	ok(!bad, "a sparse 4 MiB table written");

	tk_rawset_init(&s);
	ret = tk_rawset_read_dir(&s, dir, &warn, &err);
	is_int(ret, 0, "the sparse table reads");
	is_str(warn.buf, "", "without a warning");
	im = image_of(&s, 300, 0);
	ok(im != NULL, "300.0 read");
	if (im) {
		is_int(im->nr_stacks, 4, "the slots on both sides of every hole, the last one too");
		for (k = 0; k < im->nr_stacks; k++)
			total += im->stacks[k].v[TK_RAW_ALLOC_BYTES];
		ok(total == 15, "their values: 1 + 2 + 4 + 8 bytes");
	}
	tk_rawset_release(&s);
	tk_buf_release(&warn);
	free(p);
	cleanup(dir);
	free(dir);
}

int main(void)
{
	test_kinds();
	test_add_map();
	test_read();
	test_sparse();
	test_mutations();
	return done_testing();
}
