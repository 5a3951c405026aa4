#include "core/measure/rawprof.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

/* Bounds on what a table file may claim, so that a damaged header cannot
 * make the reader allocate absurd amounts. */
#define MAX_SLOTS (1ull << 28)
#define MAX_FRAMES (1ull << 27)      /* 1 GiB of addresses */
#define MAX_MAPS_FILE (64u << 20)
#define SLOT_CHUNK 4096

static const char *const kind_names[TK_RAW_NVALUES] = {
	[TK_RAW_ALLOC_BYTES] = "alloc",
	[TK_RAW_ALLOC_COUNT] = "alloc_count",
	[TK_RAW_PEAK_LIVE] = "heap_peak",
	[TK_RAW_CPU_NS] = "cpu",
};

const char *tk_raw_kind(enum tk_raw_value v)
{
	if ((unsigned)v < TK_RAW_NVALUES)
		return kind_names[v];
	return NULL;
}

void tk_rawset_init(struct tk_rawset *s)
{
	memset(s, 0, sizeof(*s));
}

void tk_rawimage_release(struct tk_rawimage *im)
{
	size_t j;

	free(im->name);
	for (j = 0; j < im->nr_maps; j++)
		free(im->maps[j].path);
	free(im->maps);
	for (j = 0; j < im->nr_stacks; j++)
		free(im->stacks[j].frames);
	free(im->stacks);
	memset(im, 0, sizeof(*im));
}

void tk_rawset_release(struct tk_rawset *s)
{
	size_t i;

	for (i = 0; i < s->nr_images; i++)
		tk_rawimage_release(&s->images[i]);
	free(s->images);
	tk_rawset_init(s);
}

/*
 * The arrays of a rawset carry no capacity field: the helpers keep the
 * allocation at capacity(nr), a power of two of at least 16, so growing
 * stays amortized O(1) without one.
 */
static size_t capacity(size_t nr)
{
	size_t c = 16;

	while (c < nr)
		c *= 2;
	return c;
}

static void *grow(void *p, size_t nr, size_t want, size_t size)
{
	if (p && want <= capacity(nr))
		return p;
	return tk_realloc_array(p, capacity(want), size);
}

struct tk_rawimage *tk_rawset_add_image(struct tk_rawset *s, int pid, unsigned seq,
					const char *name)
{
	struct tk_rawimage *im;

	s->images = grow(s->images, s->nr_images, s->nr_images + 1, sizeof(*s->images));
	im = &s->images[s->nr_images++];
	memset(im, 0, sizeof(*im));
	im->pid = pid;
	im->seq = seq;
	im->name = tk_xstrdup(name && *name ? name : "[unknown]");
	return im;
}

void tk_rawimage_add_stack(struct tk_rawimage *im, const uint64_t *frames, uint32_t nframes,
			   uint32_t flags, const double v[TK_RAW_NVALUES])
{
	struct tk_rawstack *st;

	im->stacks = grow(im->stacks, im->nr_stacks, im->nr_stacks + 1, sizeof(*im->stacks));
	st = &im->stacks[im->nr_stacks++];
	st->frames = tk_realloc_array(NULL, nframes ? nframes : 1, sizeof(*frames));
	if (nframes)
		memcpy(st->frames, frames, nframes * sizeof(*frames));
	st->nframes = nframes;
	st->flags = flags;
	memcpy(st->v, v, sizeof(st->v));
}

/* The maps are disjoint and sorted, so their ends are sorted too: the
 * first map ending after addr. */
static size_t first_ending_after(const struct tk_rawimage *im, uint64_t addr)
{
	size_t lo = 0, hi = im->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->maps[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

const struct tk_rawmap *tk_rawimage_find_map(const struct tk_rawimage *im, uint64_t addr)
{
	size_t i = first_ending_after(im, addr);

	return i < im->nr_maps && im->maps[i].start <= addr ? &im->maps[i] : NULL;
}

void tk_rawimage_add_map(struct tk_rawimage *im, uint64_t start, uint64_t end, uint64_t pgoff,
			 const char *path)
{
	struct tk_rawmap repl[3];
	size_t i, j, k, nr = 0;

	if (start >= end)
		return;
	i = first_ending_after(im, start);
	for (j = i; j < im->nr_maps && im->maps[j].start < end; j++)
		;
	/* maps i..j-1 overlap the new one: keep what sticks out on either
	 * side, drop the rest */
	if (i < j && im->maps[i].start < start) {
		repl[nr] = im->maps[i];
		repl[nr].end = start;
		repl[nr].path = im->maps[i].path ? tk_xstrdup(im->maps[i].path) : NULL;
		nr++;
	}
	repl[nr].start = start;
	repl[nr].end = end;
	repl[nr].pgoff = pgoff;
	repl[nr].path = path ? tk_xstrdup(path) : NULL;
	nr++;
	if (i < j && im->maps[j - 1].end > end) {
		repl[nr] = im->maps[j - 1];
		repl[nr].pgoff += end - im->maps[j - 1].start;
		repl[nr].start = end;
		repl[nr].path = im->maps[j - 1].path ? tk_xstrdup(im->maps[j - 1].path) : NULL;
		nr++;
	}
	for (k = i; k < j; k++)
		free(im->maps[k].path);
	if (nr > j - i)
		im->maps = grow(im->maps, im->nr_maps, im->nr_maps + nr - (j - i),
				sizeof(*im->maps));
	memmove(&im->maps[i + nr], &im->maps[j], (im->nr_maps - j) * sizeof(*im->maps));
	memcpy(&im->maps[i], repl, nr * sizeof(*repl));
	im->nr_maps = im->nr_maps + nr - (j - i);
}

/* ---- reading a directory ---- */

/* One problem per file is reported: the first, with a count of the rest. */
struct problems {
	struct tk_buf first;
	size_t more;
};

static void __attribute__((format(printf, 3, 4)))
problem(struct problems *pb, unsigned long long offset, const char *fmt, ...)
{
	va_list ap;

	if (pb->first.len) {
		pb->more++;
		return;
	}
	tk_buf_addf(&pb->first, "offset %llu: ", offset);
	va_start(ap, fmt);
	tk_buf_vaddf(&pb->first, fmt, ap);
	va_end(ap);
}

static void flush_problems(struct problems *pb, const char *path, struct tk_buf *warnings)
{
	if (pb->first.len && warnings) {
		tk_buf_addf(warnings, "'%s' %s", path, pb->first.buf);
		if (pb->more)
			tk_buf_addf(warnings, " (and %zu more problem%s)", pb->more,
				    pb->more == 1 ? "" : "s");
		tk_buf_addch(warnings, '\n');
	}
	tk_buf_release(&pb->first);
	pb->more = 0;
}

/* Reads exactly len bytes at off, or fewer at the end of the file. */
static ssize_t read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/*
 * The first slot at or after slot i that may hold data, and in *end the
 * slot where that data stops (a hole begins). The table is a sparse file
 * of which a job touches a few pages: the holes (all-zero slots, which
 * are empty) are skipped rather than read as 16 MiB of zeros. Where the
 * file system cannot tell (no SEEK_DATA), everything is data and every
 * slot is read, as before.
 */
static uint64_t next_data_slot(int fd, const struct tk_raw_header *h, uint64_t i,
			       size_t slot_size, uint64_t *end)
{
	uint64_t at = h->header_size + i * slot_size;
	off_t data = lseek(fd, (off_t)at, SEEK_DATA), hole;

	*end = UINT64_MAX;
	if (data < 0)
		return errno == ENXIO ? UINT64_MAX : i;  /* ENXIO: no data past at */
	if ((uint64_t)data > at)
		i = ((uint64_t)data - h->header_size) / slot_size;
	hole = lseek(fd, data, SEEK_HOLE);
	if (hole > data)
		*end = ((uint64_t)hole - h->header_size + slot_size - 1) / slot_size;
	return i;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The root frame's name: basename of the executable, else comm. */
static char *image_name(const struct tk_raw_header *h)
{
	static const char deleted[] = " (deleted)";
	size_t len = strnlen(h->exe, sizeof(h->exe)), dl = sizeof(deleted) - 1;
	char *exe = tk_xstrndup(h->exe, len), *name;

	if (len > dl && !strcmp(exe + len - dl, deleted))
		exe[len - dl] = '\0';
	if (*base_name(exe))
		name = tk_xstrdup(base_name(exe));
	else if (strnlen(h->comm, sizeof(h->comm)))
		name = tk_xstrndup(h->comm, strnlen(h->comm, sizeof(h->comm)));
	else
		name = tk_xstrdup("[unknown]");
	free(exe);
	return name;
}

static unsigned unwinder_bits(const struct tk_raw_header *h)
{
	char u[sizeof(h->unwinder) + 1];
	unsigned bits = 0;
	char *p = u;

	memcpy(u, h->unwinder, sizeof(h->unwinder));
	u[sizeof(h->unwinder)] = '\0';
	while (*p) {
		size_t n = strcspn(p, "+");

		if (n == 2 && !memcmp(p, "fp", 2))
			bits |= TK_RAW_UNW_FP;
		else if (n == 9 && !memcmp(p, "libunwind", 9))
			bits |= TK_RAW_UNW_LIBUNWIND;
		p += n;
		if (*p)
			p++;
	}
	return bits;
}

static int value_ok(double v)
{
	return isfinite(v) && v >= 0;
}

/* Checks the header; returns 0 or -1 with the problem noted. */
static int check_header(const struct tk_raw_header *h, uint64_t size, struct problems *pb)
{
	uint64_t slots_end;

	if (memcmp(h->magic, TK_RAW_MAGIC, sizeof(h->magic))) {
		problem(pb, 0, "not a raw profile table (bad magic)");
		return -1;
	}
	if (h->version != TK_RAW_VERSION) {
		problem(pb, offsetof(struct tk_raw_header, version),
			"unsupported version %u", (unsigned)h->version);
		return -1;
	}
	if (h->header_size < sizeof(*h) || h->header_size % 8) {
		problem(pb, offsetof(struct tk_raw_header, header_size),
			"bad header size %u", (unsigned)h->header_size);
		return -1;
	}
	if (!h->nslots || h->nslots & (h->nslots - 1) || h->nslots > MAX_SLOTS) {
		problem(pb, offsetof(struct tk_raw_header, nslots),
			"bad slot count %u", (unsigned)h->nslots);
		return -1;
	}
	slots_end = h->header_size + (uint64_t)h->nslots * sizeof(struct tk_raw_slot);
	if (h->frames_off < slots_end || h->frames_off % 8 || h->frames_cap > (UINT64_MAX >> 4)) {
		problem(pb, offsetof(struct tk_raw_header, frames_off),
			"bad frames region (offset %llu, capacity %llu)",
			(unsigned long long)h->frames_off, (unsigned long long)h->frames_cap);
		return -1;
	}
	if (size < slots_end)
		problem(pb, size, "file truncated: the slots end at %llu",
			(unsigned long long)slots_end);
	return 0;
}

static void add_slot(struct tk_rawimage *im, const struct tk_raw_slot *sl, const uint64_t *frames,
		     uint64_t nr_frames, uint64_t off, struct problems *pb)
{
	double v[TK_RAW_NVALUES];
	size_t k;
	int any = 0;

	if (sl->nframes > TK_RAW_MAX_FRAMES || sl->frames > nr_frames ||
	    sl->nframes > nr_frames - sl->frames) {
		problem(pb, off, "stack frames %llu+%u outside the %llu frames recorded",
			(unsigned long long)sl->frames, (unsigned)sl->nframes,
			(unsigned long long)nr_frames);
		return;
	}
	v[TK_RAW_ALLOC_BYTES] = sl->alloc_bytes;
	v[TK_RAW_ALLOC_COUNT] = sl->alloc_count;
	v[TK_RAW_PEAK_LIVE] = sl->peak_live_bytes;
	v[TK_RAW_CPU_NS] = sl->cpu_ns;
	for (k = 0; k < TK_RAW_NVALUES; k++) {
		if (!value_ok(v[k])) {
			problem(pb, off, "bad value in stack slot");
			return;
		}
		any |= v[k] != 0;
	}
	if (any)
		tk_rawimage_add_stack(im, frames + sl->frames, sl->nframes,
				      sl->flags & TK_RAW_SLOT_LEAF_IP, v);
}

/*
 * Reads one table file into a new image of s. A file whose header is bad
 * adds nothing; a truncated or partly damaged one adds what can be
 * trusted. Every problem goes to pb.
 */
static void read_table(struct tk_rawset *s, const char *path, int pid, unsigned seq,
		       struct tk_rawimage **out, struct problems *pb)
{
	struct tk_raw_header h;
	struct tk_raw_slot *slots = NULL;
	struct tk_rawimage *im;
	uint64_t size, nr_frames, avail, i, nslots, want = 0;
	uint64_t *frames = NULL;
	struct stat st;
	ssize_t n;
	char *name;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		problem(pb, 0, "cannot read: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	size = (uint64_t)st.st_size;
	memset(&h, 0, sizeof(h));
	n = read_at(fd, &h, sizeof(h), 0);
	if (n < 0) {
		problem(pb, 0, "cannot read: %s", strerror(errno));
		goto out;
	}
	if ((size_t)n < sizeof(h)) {
		problem(pb, (unsigned long long)n, "file truncated inside the header");
		goto out;
	}
	if (check_header(&h, size, pb))
		goto out;

	/* Frames the process appended and the file still holds. frames_used
	 * may pass frames_cap when the table filled up (the samples were
	 * counted as dropped). */
	nr_frames = h.frames_used < h.frames_cap ? h.frames_used : h.frames_cap;
	avail = size > h.frames_off ? (size - h.frames_off) / 8 : 0;
	if (avail < nr_frames) {
		problem(pb, size, "file truncated: %llu of %llu frames present",
			(unsigned long long)avail, (unsigned long long)nr_frames);
		nr_frames = avail;
	}
	if (nr_frames > MAX_FRAMES) {
		problem(pb, offsetof(struct tk_raw_header, frames_used),
			"%llu frames used: more than the %llu read",
			(unsigned long long)nr_frames, (unsigned long long)MAX_FRAMES);
		nr_frames = MAX_FRAMES;
	}
	frames = tk_realloc_array(NULL, nr_frames ? nr_frames : 1, sizeof(*frames));
	n = read_at(fd, frames, nr_frames * sizeof(*frames), h.frames_off);
	if (n < 0) {
		problem(pb, h.frames_off, "cannot read: %s", strerror(errno));
		goto out;
	}
	nr_frames = (uint64_t)n / sizeof(*frames);

	name = image_name(&h);
	im = tk_rawset_add_image(s, pid, seq, name);
	free(name);
	s->dropped += h.dropped;
	s->cpu_lost += h.cpu_lost;
	s->truncated += h.truncated;
	s->unwinders |= unwinder_bits(&h);
	if (h.flags & TK_RAW_F_MALLOC)
		s->malloc_tables++;

	slots = tk_realloc_array(NULL, SLOT_CHUNK, sizeof(*slots));
	nslots = h.nslots;
	for (i = 0; i < nslots; i += want) {
		uint64_t got, k, base, end;

		i = next_data_slot(fd, &h, i, sizeof(*slots), &end);
		if (i >= nslots)
			break;
		want = nslots - i < SLOT_CHUNK ? nslots - i : SLOT_CHUNK;
		if (end > i && end - i < want)
			want = end - i;
		base = h.header_size + i * sizeof(*slots);
		n = read_at(fd, slots, want * sizeof(*slots), base);
		if (n < 0) {
			problem(pb, base, "cannot read: %s", strerror(errno));
			break;
		}
		got = (uint64_t)n / sizeof(*slots);
		for (k = 0; k < got; k++)
			if (slots[k].hash)
				add_slot(im, &slots[k], frames, nr_frames,
					 base + k * sizeof(*slots), pb);
		if (got < want)
			break;
	}
	*out = im;
out:
	free(slots);
	free(frames);
	close(fd);
}

static int parse_hex(const char **p, uint64_t *out)
{
	char *end;

	if (!isxdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*out = strtoull(*p, &end, 16);
	if (errno)
		return -1;
	*p = end;
	return 0;
}

int tk_rawmaps_parse_line(const char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
			  const char **path)
{
	const char *p = line, *perms;
	uint64_t dev, inode;
	char *e;

	if (parse_hex(&p, start) || *p++ != '-' || parse_hex(&p, end) || *p++ != ' ')
		return -1;
	perms = p;
	if (strnlen(perms, 4) < 4 || perms[4] != ' ')
		return -1;
	p += 5;
	if (parse_hex(&p, pgoff) || *p++ != ' ' || parse_hex(&p, &dev) || *p++ != ':' ||
	    parse_hex(&p, &dev) || *p++ != ' ')
		return -1;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	inode = strtoull(p, &e, 10);
	(void)inode;
	if (errno || (*e && *e != ' '))
		return -1;
	p = e;
	while (*p == ' ')
		p++;
	if (*start >= *end)
		return -1;
	*path = p;
	return perms[2] == 'x' && *p ? 1 : 0;
}

static void read_maps(struct tk_rawimage *im, const char *path, struct tk_buf *warnings)
{
	struct tk_buf text = TK_BUF_INIT;
	struct problems pb = { TK_BUF_INIT, 0 };
	char *line, *next;
	unsigned lineno = 0;

	text.cap = MAX_MAPS_FILE;
	if (tk_buf_read_file(&text, path, NULL)) {
		/* a missing maps file leaves the addresses unnamed */
		if (access(path, F_OK) == 0)
			problem(&pb, 0, "cannot read the maps file");
		goto out;
	}
	for (line = text.buf; *line; line = next) {
		uint64_t start, end, pgoff;
		const char *file;
		char *nl = strchr(line, '\n');

		lineno++;
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (!*line || *line == '#')
			continue;
		switch (tk_rawmaps_parse_line(line, &start, &end, &pgoff, &file)) {
		case 1:
			tk_rawimage_add_map(im, start, end, pgoff, file);
			break;
		case 0:
			break;
		default:
			problem(&pb, (unsigned long long)(line - text.buf),
				"cannot parse maps line %u", lineno);
		}
	}
out:
	flush_problems(&pb, path, warnings);
	tk_buf_release(&text);
}

struct table_name {
	char *name;
	int pid;
	unsigned seq;
};

/* "<pid>.<seq>.tkraw" -> pid and seq; -1 for other names. */
static int parse_table_name(const char *name, int *pid, unsigned *seq)
{
	unsigned long long p, q;
	char *e;

	if (!isdigit((unsigned char)*name))
		return -1;
	errno = 0;
	p = strtoull(name, &e, 10);
	if (errno || *e != '.' || p > 0x7fffffff || !isdigit((unsigned char)e[1]))
		return -1;
	q = strtoull(e + 1, &e, 10);
	if (errno || q > 0xffffffffu || strcmp(e, ".tkraw"))
		return -1;
	*pid = (int)p;
	*seq = (unsigned)q;
	return 0;
}

static int cmp_table_name(const void *a, const void *b)
{
	const struct table_name *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

int tk_rawset_read_dir(struct tk_rawset *s, const char *dir, struct tk_buf *warnings,
		       struct tk_err *err)
{
	struct table_name *names = NULL;
	size_t nr = 0, alloc = 0, i;
	struct tk_buf path = TK_BUF_INIT;
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return tk_err_set(err, TK_EUNAVAIL, "cannot read profile directory '%s': %s", dir,
				  strerror(errno));
	for (;;) {
		int pid;
		unsigned seq;

		de = readdir(d);
		if (!de)
			break;
		if (parse_table_name(de->d_name, &pid, &seq))
			continue;
		TK_ALLOC_GROW(names, nr + 1, alloc);
		names[nr].name = tk_xstrdup(de->d_name);
		names[nr].pid = pid;
		names[nr].seq = seq;
		nr++;
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_table_name);

	for (i = 0; i < nr; i++) {
		struct problems pb = { TK_BUF_INIT, 0 };
		struct tk_rawimage *im;

		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/%s", dir, names[i].name);
		read_table(s, path.buf, names[i].pid, names[i].seq, &im, &pb);
		flush_problems(&pb, path.buf, warnings);
		if (im) {
			tk_buf_reset(&path);
			tk_buf_addf(&path, "%s/%d.%u.maps", dir, names[i].pid, names[i].seq);
			read_maps(im, path.buf, warnings);
		}
		free(names[i].name);
	}
	free(names);
	tk_buf_release(&path);
	return 0;
}
