/*
 * `perf script` text, collapsed the way FlameGraph's stackcollapse-perf.pl
 * does it (the reference for every choice below; its golden outputs are
 * the tests). A sample is a header line
 *
 *     java 12688/12764 [002] 6544038.708352: 235 cpu-clock:
 *
 * (comm, which may contain spaces, then pid/tid or tid, then anything up
 * to an optional period and the event name), followed by one stack line
 * per frame, leaf first,
 *
 *     	    7f1e214c24d9 SpinPause+0x1f (/usr/lib/jvm/libjvm.so)
 *
 * and a blank line. The stack is stored root first under a frame named
 * after the comm ("comm-pid" with pid_frames, "comm-pid/tid" with
 * tid_frames; '?' stands for a pid the header does not give).
 *
 * Like stackcollapse-perf.pl:
 *  - only samples of one event are kept: opts->event, or the first event
 *    seen (a user-given name also matches "name:modifiers");
 *  - the weight is the header's period when it has one, else 1 (opts->kind
 *    "samples" counts 1 per sample instead);
 *  - names are tidied: "+0x1f" offsets stripped, everything from the first
 *    '(' dropped (arguments) except in Go method names such as
 *    "net/http.(*Client).Do" and in "(anonymous namespace)", quotes
 *    removed, ';' turned into ':', "[unknown]" replaced by "[dso]" when
 *    the dso is known, Java "Lpkg/Class;" prefixes cleaned;
 *  - inlined frames ("a->b") become separate frames marked "_[i]".
 * Kernel frames get "_[k]" and JIT frames (/tmp/perf-PID.map) "_[j]", as
 * with stackcollapse-perf.pl --all; opts->kind "plain" turns that off.
 * A last sample that no blank line ends is dropped, as the Perl script
 * does: perf script always ends a sample with one, so the file was cut
 * and the stack may be incomplete (the profile's warning says so).
 * Differences: a header line straight after a stack ends the previous
 * sample (the Perl script would glue the stacks), and a one-character
 * comm is accepted.
 */
#include "plugins/import/importers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/demangle.h"
#include "core/model/import.h"
#include "core/base/banned.h"

struct perf_state {
	const struct tk_import_opts *opts;
	int annotate;           /* _[k] and _[j] */
	int count_samples;      /* weight 1, not the period */
	char *event;            /* the event kept; NULL until known */
	int event_given;        /* from opts: matches name:modifiers too */
	int in_sample;          /* a header of the kept event was seen */
	int is_java;            /* comm starts with "java" */
	uint32_t root;          /* name id of the comm frame */
	double weight;
	uint32_t *frames;       /* name ids, leaf first */
	size_t nr_frames, alloc_frames;
	uint32_t *path;         /* root first, for tk_profile_add_stack */
	size_t alloc_path;
	struct tk_buf name;     /* scratch */
	unsigned long long samples, other_events, unrecognized, first_unrecognized;
	int any_period;
	unsigned long long header_line, dropped_line;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int has(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	return n <= len && memmem(s, len, needle, n) != NULL;
}

struct header {
	const char *comm;
	size_t comm_len;
	const char *pid, *tid;  /* digits; pid NULL: only a tid was given */
	size_t pid_len, tid_len;
	const char *event;      /* NULL: none found */
	size_t event_len;
	double period;          /* 0: none */
};

/*
 * "comm pid/tid ...": the comm is the shortest prefix (at least one
 * character, starting with a non-space) followed by whitespace, digits,
 * optional "/digits" and whitespace. Returns 1 on a match.
 */
static int parse_comm(const char *s, size_t len, struct header *h)
{
	size_t i;

	if (!len || is_space(s[0]))
		return 0;
	for (i = 1; i < len; i++) {
		size_t j = i, d1, d2, t1, t2;

		if (!is_space(s[i]))
			continue;
		while (j < len && is_space(s[j]))
			j++;
		d1 = j;
		while (j < len && is_digit(s[j]))
			j++;
		/* On failure the next candidate blank is past j: keeps it linear. */
		if (j == d1) {
			i = j;
			continue;
		}
		d2 = j;
		while (j < len && s[j] == '/')
			j++;
		t1 = j;
		while (j < len && is_digit(s[j]))
			j++;
		t2 = j;
		if (j >= len || !is_space(s[j])) {
			i = j;
			continue;
		}
		h->comm = s;
		h->comm_len = i;
		/* Perl's "not $tid": a missing tid or "0" means "tid only". */
		if (t2 > t1 && !(t2 - t1 == 1 && s[t1] == '0')) {
			h->pid = s + d1;
			h->pid_len = d2 - d1;
			h->tid = s + t1;
			h->tid_len = t2 - t1;
		} else {
			h->pid = NULL;
			h->pid_len = 0;
			h->tid = s + d1;
			h->tid_len = d2 - d1;
		}
		return 1;
	}
	return 0;
}

/* "...: [period] event:" at the end of the line. */
static void parse_event(const char *s, size_t len, struct header *h)
{
	size_t end = len, k, i, digits_end;

	h->event = NULL;
	h->period = 0;
	while (end && is_space(s[end - 1]))
		end--;
	if (end < 2 || s[end - 1] != ':')
		return;
	k = end - 1;
	while (k && !is_space(s[k - 1]))
		k--;
	if (k == end - 1 || !k)
		return;
	i = k;
	while (i && is_space(s[i - 1]))
		i--;
	digits_end = i;
	while (i && is_digit(s[i - 1]))
		i--;
	if (i < digits_end) {
		size_t j = i;

		while (j && is_space(s[j - 1]))
			j--;
		if (!j || s[j - 1] != ':') {
			return; /* not a period: "comm 3244 event:" */
		} else {
			size_t d;
			double v = 0;

			for (d = i; d < digits_end; d++)
				v = v * 10 + (s[d] - '0');
			h->period = v;
		}
	} else if (!i || s[i - 1] != ':') {
		return;
	}
	h->event = s + k;
	h->event_len = end - 1 - k;
}

static int event_matches(const struct perf_state *st, const char *ev, size_t len)
{
	size_t n = strlen(st->event);

	if (len == n && !memcmp(ev, st->event, n))
		return 1;
	return st->event_given && len > n && ev[n] == ':' && !memcmp(ev, st->event, n);
}

static int frame_error(struct tk_reader *in, struct tk_err *err, const char *what)
{
	return tk_err_set(err, TK_EDATA, "'%s' line %llu: %s", in->name,
			  (unsigned long long)in->line_no, what);
}

static int start_sample(struct perf_state *st, struct tk_reader *in, struct tk_profile *p,
			const struct header *h)
{
	struct tk_buf *b = &st->name;
	size_t i;

	if (h->event) {
		if (!st->event) {
			st->event = tk_xstrndup(h->event, h->event_len);
		} else if (!event_matches(st, h->event, h->event_len)) {
			st->other_events++;
			return 0;
		}
	}
	tk_buf_reset(b);
	tk_buf_add(b, h->comm, h->comm_len);
	if (st->opts->tid_frames || st->opts->pid_frames) {
		tk_buf_addch(b, '-');
		if (h->pid)
			tk_buf_add(b, h->pid, h->pid_len);
		else
			tk_buf_addch(b, '?');
		if (st->opts->tid_frames) {
			tk_buf_addch(b, '/');
			tk_buf_add(b, h->tid, h->tid_len);
		}
	}
	for (i = 0; i < b->len; i++)
		if (b->buf[i] == ' ')
			b->buf[i] = '_';
	st->root = tk_profile_intern(p, b->buf, b->len);
	st->is_java = h->comm_len >= 4 && !memcmp(h->comm, "java", 4);
	st->in_sample = 1;
	st->header_line = in->line_no;
	st->nr_frames = 0;
	if (h->period)
		st->any_period = 1;
	st->weight = st->count_samples || !h->period ? 1 : h->period;
	return 0;
}

static int end_sample(struct perf_state *st, struct tk_reader *in, struct tk_profile *p,
		      struct tk_err *err)
{
	size_t i, n = st->nr_frames;

	if (!st->in_sample)
		return 0;
	st->in_sample = 0;
	TK_ALLOC_GROW(st->path, n + 1, st->alloc_path);
	st->path[0] = st->root;
	for (i = 0; i < n; i++)
		st->path[i + 1] = st->frames[n - 1 - i];
	st->samples++;
	if (tk_profile_weight_error(p, st->weight))
		return tk_err_set(err, TK_EDATA, "'%s' line %llu: the sample's period %g %s",
				  in->name, (unsigned long long)in->line_no, st->weight,
				  tk_profile_weight_error(p, st->weight));
	if (tk_profile_add_stack(p, st->path, n + 1, st->weight))
		return tk_err_set(err, TK_EDATA, "'%s' line %llu: more than %u distinct stacks",
				  in->name, (unsigned long long)in->line_no, TK_PROFILE_MAX_NODES);
	return 0;
}

/* Is this a Go method name: ".(" somewhere followed later by ")."? */
static int is_go_method(const char *s, size_t len)
{
	const char *open = memmem(s, len, ".(", 2);

	return open && memmem(open + 2, len - (size_t)(open + 2 - s), ").", 2);
}

/* Appends one tidied frame name (a piece of "a->b") to st->name. */
static void tidy(struct perf_state *st, const char *f, size_t len, const char *mod,
		 size_t mod_len, int inlined)
{
	struct tk_buf *b = &st->name;
	size_t start, i, cut;
	int kernel, jit;

	tk_buf_reset(b);
	if (len == 9 && !memcmp(f, "[unknown]", 9)) {
		tk_buf_addch(b, '[');
		if (!(mod_len == 9 && !memcmp(mod, "[unknown]", 9))) {
			const char *slash = memrchr(mod, '/', mod_len);
			size_t off = slash ? (size_t)(slash + 1 - mod) : 0;

			tk_buf_add(b, mod + off, mod_len - off);
		} else {
			tk_buf_adds(b, "unknown");
		}
		tk_buf_addch(b, ']');
	} else {
		tk_buf_add(b, f, len);
	}
	for (i = 0; i < b->len; i++)
		if (b->buf[i] == ';')
			b->buf[i] = ':';
	if (!is_go_method(b->buf, b->len)) {
		for (cut = 0; cut < b->len; cut++) {
			const char *anon = "(anonymous namespace)";

			if (b->buf[cut] != '(')
				continue;
			if (b->len - cut >= 21 && !memcmp(b->buf + cut, anon, 21))
				continue;
			tk_buf_setlen(b, cut);
			break;
		}
	}
	for (i = start = 0; i < b->len; i++)
		if (b->buf[i] != '"' && b->buf[i] != '\'')
			b->buf[start++] = b->buf[i];
	tk_buf_setlen(b, start);
	if (st->is_java && b->len && b->buf[0] == 'L' && memchr(b->buf, '/', b->len)) {
		memmove(b->buf, b->buf + 1, b->len - 1);
		tk_buf_setlen(b, b->len - 1);
	}
	if (inlined) {
		if (!has(b->buf, b->len, "_[i]"))
			tk_buf_adds(b, "_[i]");
		return;
	}
	if (!st->annotate)
		return;
	kernel = mod_len && (mod[0] == '[' ||
			     (mod_len >= 7 && !memcmp(mod + mod_len - 7, "vmlinux", 7))) &&
		 !has(mod, mod_len, "unknown");
	if (kernel) {
		tk_buf_adds(b, "_[k]");
		return;
	}
	jit = 0;
	{
		const char *m = mod, *end = mod + mod_len;

		while (!jit && (m = memmem(m, (size_t)(end - m), "/tmp/perf-", 10))) {
			const char *d = m + 10, *e = d;

			while (e < end && is_digit(*e))
				e++;
			jit = e > d && end - e >= 4 && !memcmp(e, ".map", 4);
			m += 10;
		}
	}
	if (jit && !has(b->buf, b->len, "_[j]"))
		tk_buf_adds(b, "_[j]");
}

static int push_frame(struct perf_state *st, struct tk_reader *in, struct tk_profile *p,
		      struct tk_err *err)
{
	if (st->nr_frames + 1 >= TK_PROFILE_MAX_DEPTH)
		return frame_error(in, err, "stack deeper than 65536 frames");
	if (st->name.len > TK_PROFILE_MAX_NAME)
		return frame_error(in, err, "frame name longer than 1048576 bytes");
	TK_ALLOC_GROW(st->frames, st->nr_frames + 1, st->alloc_frames);
	st->frames[st->nr_frames++] = tk_profile_intern(p, st->name.buf, st->name.len);
	return 0;
}

/*
 * "<ws>addr sym+0xoff (dso)". Returns 1 when it is a stack line (frames
 * pushed), 0 when not, or a negative code.
 */
static int stack_line(struct perf_state *st, struct tk_reader *in, struct tk_profile *p,
		      const char *s, size_t len, struct tk_err *err)
{
	size_t i = 0, q, m, c, fend, pc_end;
	const char *f, *mod;
	size_t flen, mod_len;
	/* Pieces of "a->b" go on the stack in order, before what is there. */
	size_t first, a, b;
	int ret, piece;

	while (i < len && is_space(s[i]))
		i++;
	q = i;
	while (i < len && is_word(s[i]))
		i++;
	if (i == q)
		return 0;
	pc_end = i;
	while (i < len && is_space(s[i]))
		i++;
	q = i;
	/*
	 * The last ')' and the last " (" before it, leaving a symbol of at
	 * least one character: when only blanks separate the address from
	 * " (dso)", the Perl regex takes one blank as the symbol.
	 */
	c = len;
	while (c > pc_end && s[c - 1] != ')')
		c--;
	if (c <= pc_end)
		return 0;
	c--;
	m = c;
	for (;;) {
		if (m < pc_end + 2)
			return 0;
		m--;
		if (s[m] == ' ' && s[m + 1] == '(')
			break;
	}
	if (q >= m)
		q = m - 1;
	f = s + q;
	fend = m - q;
	mod = s + m + 2;
	mod_len = c - (m + 2);
	/* "sym+0x1f" -> "sym" */
	{
		size_t j = fend;

		while (j > 0 && ((f[j - 1] >= '0' && f[j - 1] <= '9') ||
				 (f[j - 1] >= 'a' && f[j - 1] <= 'f')))
			j--;
		if (j < fend && j >= 3 && f[j - 1] == 'x' && f[j - 2] == '0' && f[j - 3] == '+')
			fend = j - 3;
	}
	flen = fend;
	if (!st->in_sample)
		return 1;
	if (flen && f[0] == '(')
		return 1;
	/* Split on "->"; pieces are pushed leaf first, so in reverse. */
	first = st->nr_frames;
	a = 0;
	piece = 0;
	for (;;) {
		const char *arrow = flen > a ? memmem(f + a, flen - a, "->", 2) : NULL;

		b = arrow ? (size_t)(arrow - f) : flen;
		tidy(st, f + a, b - a, mod, mod_len, piece > 0);
		ret = push_frame(st, in, p, err);
		if (ret)
			return ret;
		piece++;
		if (!arrow)
			break;
		a = b + 2;
	}
	/* "a->b" reads root to leaf (the Perl script unshifts (a, b) onto a
	 * root-first stack) but frames[] is leaf first: reverse the pieces. */
	for (a = first, b = st->nr_frames - 1; a < b; a++, b--) {
		uint32_t t = st->frames[a];

		st->frames[a] = st->frames[b];
		st->frames[b] = t;
	}
	return 1;
}

static int parse_kind(struct perf_state *st, const char *kind, struct tk_err *err)
{
	const char *s = kind;

	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (n == 5 && !memcmp(s, "plain", 5))
			st->annotate = 0;
		else if (n == 7 && !memcmp(s, "samples", 7))
			st->count_samples = 1;
		else if (n == 6 && !memcmp(s, "period", 6))
			st->count_samples = 0;
		else if (n == 8 && !memcmp(s, "annotate", 8))
			st->annotate = 1;
		else if (n)
			return tk_err_set(err, TK_EUSAGE,
					  "unknown perf kind '%.*s' (use plain, annotate, samples or period)",
					  (int)n, s);
		s += n;
		if (*s)
			s++;
	}
	return 0;
}

static void set_warning(const struct perf_state *st, struct tk_reader *in,
			struct tk_profile *p)
{
	struct tk_buf b = TK_BUF_INIT;

	if (st->other_events)
		tk_buf_addf(&b, "; kept the %llu sample(s) of event '%s', skipped %llu of other events",
			    st->samples, st->event, st->other_events);
	if (st->unrecognized)
		tk_buf_addf(&b, "; skipped %llu unrecognized line(s) (first: line %llu)",
			    st->unrecognized, st->first_unrecognized);
	if (st->dropped_line)
		tk_buf_addf(&b, "; dropped the last sample (line %llu): no blank line ends it, "
			    "the file may be cut short", st->dropped_line);
	if (b.len)
		snprintf(p->warning, sizeof(p->warning), "'%s':%s", in->name, b.buf + 1);
	tk_buf_release(&b);
}

static int perf_parse(struct tk_reader *in, struct tk_profile *p,
		      const struct tk_import_opts *opts, struct tk_err *err)
{
	struct perf_state st;
	const char *line;
	size_t len;
	int ret;

	memset(&st, 0, sizeof(st));
	st.opts = opts;
	st.annotate = 1;
	tk_buf_init(&st.name, 0);
	ret = parse_kind(&st, opts->kind, err);
	if (ret)
		goto out;
	if (opts->event && *opts->event) {
		st.event = tk_xstrdup(opts->event);
		st.event_given = 1;
	}
	while ((ret = tk_reader_line(in, &line, &len, err)) > 0) {
		struct header h;

		if (len && line[0] == '#')
			continue;
		if (!len) {
			ret = end_sample(&st, in, p, err);
			if (ret)
				break;
			continue;
		}
		if (parse_comm(line, len, &h)) {
			/* A header without the blank line before it. */
			ret = end_sample(&st, in, p, err);
			if (ret)
				break;
			parse_event(line, len, &h);
			ret = start_sample(&st, in, p, &h);
			if (ret)
				break;
			continue;
		}
		ret = stack_line(&st, in, p, line, len, err);
		if (ret < 0)
			break;
		if (!ret && !st.unrecognized++)
			st.first_unrecognized = in->line_no;
		ret = 0;
	}
	if (ret)
		goto out;
	if (st.in_sample)
		st.dropped_line = st.header_line;
	if (!st.samples) {
		if (st.dropped_line && !st.other_events) {
			ret = tk_err_set(err, TK_EDATA,
					 "'%s' line %llu: the only sample is cut short (no blank line ends it)",
					 in->name, st.dropped_line);
			goto out;
		}
		if (st.other_events)
			ret = tk_err_set(err, TK_EDATA, "'%s': no samples of event '%s'", in->name,
					 st.event);
		else
			ret = tk_err_set(err, TK_ENOTMINE, "no perf script samples in it");
		goto out;
	}
	if (st.count_samples || !st.any_period)
		p->unit = TK_UNIT_SAMPLES;
	else if (st.event && (!strncmp(st.event, "cpu-clock", 9) ||
			      !strncmp(st.event, "task-clock", 10)))
		p->unit = TK_UNIT_NANOSECONDS; /* software clocks count ns */
	else
		p->unit = TK_UNIT_COUNT;
	set_warning(&st, in, p);
out:
	free(st.event);
	free(st.frames);
	free(st.path);
	tk_buf_release(&st.name);
	return ret;
}

/* A stack line: whitespace, a hex address, whitespace. */
static int looks_like_frame(const char *s, size_t n)
{
	size_t i = 0, d;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (!i)
		return 0;
	d = i;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i > d && i < n && (s[i] == ' ' || s[i] == '\t');
}

/*
 * After '#' comments and blank lines, a sample header followed by a stack
 * line (or a header ending in "event:", for perf script without -g).
 */
static int perf_probe(const char *head, size_t len)
{
	const char *s = head, *end = head + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		struct header h;

		if (n && s[n - 1] == '\r')
			n--;
		if (!n || s[0] == '#') {
			if (!nl)
				return 0;
			s = nl + 1;
			continue;
		}
		if (!parse_comm(s, n, &h))
			return 0;
		parse_event(s, n, &h);
		if (nl) {
			const char *t = nl + 1;
			const char *nl2 = memchr(t, '\n', (size_t)(end - t));
			size_t n2 = nl2 ? (size_t)(nl2 - t) : (size_t)(end - t);

			if (looks_like_frame(t, n2))
				return 1;
		}
		return h.event != NULL;
	}
	return 0;
}

const struct tk_importer tk_import_perf = {
	.version = TK_IMPORTER_VERSION,
	.name = "perf",
	.summary = "perf script text (stackcollapse-perf.pl rules)",
	.probe = perf_probe,
	.parse = perf_parse,
	/* perf's own demangled names lose their parameters here */
	.demangle = TK_DEMANGLE_NO_PARAMS,
};
