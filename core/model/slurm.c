/*
 * The run's `slurm` object and sacct's parsable output.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/model/slurm.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

static const char *const kind_names[] = {
	[TK_SACCT_JOB] = "job",
	[TK_SACCT_BATCH] = "batch",
	[TK_SACCT_EXTERN] = "extern",
	[TK_SACCT_INTERACTIVE] = "interactive",
	[TK_SACCT_STEP] = "step",
	[TK_SACCT_OTHER] = "other",
};

#define NR_KINDS (sizeof(kind_names) / sizeof(kind_names[0]))

const char *tk_sacct_kind_name(enum tk_sacct_kind k)
{
	return (size_t)k < NR_KINDS ? kind_names[k] : "other";
}

int tk_sacct_kind_parse(const char *name, enum tk_sacct_kind *out)
{
	size_t i;

	for (i = 0; i < NR_KINDS; i++) {
		if (!strcmp(name, kind_names[i])) {
			*out = (enum tk_sacct_kind)i;
			return 0;
		}
	}
	return -1;
}

void tk_sacct_init(struct tk_sacct *s)
{
	memset(s, 0, sizeof(*s));
	s->maxrss_bytes = -1;
}

static void step_release(struct tk_sacct_step *st)
{
	free(st->job_id);
	free(st->name);
	free(st->state);
	free(st->exit_code);
	free(st->tres_in_tot);
	free(st->tres_in_max);
}

void tk_sacct_release(struct tk_sacct *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		step_release(&s->steps[i]);
	free(s->steps);
	free(s->maxrss_step);
	tk_sacct_init(s);
}

static char *dup_or_null(const char *s)
{
	return s && *s ? tk_xstrdup(s) : NULL;
}

void tk_sacct_add(struct tk_sacct *s, const struct tk_sacct_step *step)
{
	struct tk_sacct_step *d;

	TK_ALLOC_GROW(s->steps, s->nr + 1, s->alloc);
	d = &s->steps[s->nr++];
	d->job_id = tk_xstrdup(step->job_id ? step->job_id : "");
	d->name = dup_or_null(step->name);
	d->kind = step->kind;
	d->state = dup_or_null(step->state);
	d->exit_code = dup_or_null(step->exit_code);
	d->elapsed_s = step->elapsed_s;
	d->maxrss_bytes = step->maxrss_bytes;
	d->averss_bytes = step->averss_bytes;
	d->tres_in_tot = dup_or_null(step->tres_in_tot);
	d->tres_in_max = dup_or_null(step->tres_in_max);
	d->start_s = step->start_s;
	d->end_s = step->end_s;
}

void tk_sacct_finish(struct tk_sacct *s)
{
	size_t i;
	const struct tk_sacct_step *best = NULL;

	for (i = 0; i < s->nr; i++) {
		const struct tk_sacct_step *st = &s->steps[i];

		/* the job's row sums or repeats its steps; extern is the node's */
		if (st->kind == TK_SACCT_JOB || st->kind == TK_SACCT_EXTERN)
			continue;
		if (st->maxrss_bytes >= 0 && (!best || st->maxrss_bytes > best->maxrss_bytes))
			best = st;
	}
	free(s->maxrss_step);
	s->maxrss_step = best ? tk_xstrdup(best->job_id) : NULL;
	s->maxrss_bytes = best ? best->maxrss_bytes : -1;
}

/* The step tracker runs in: "<job>.<own_step>". */
static int is_own_step(const struct tk_sacct_step *st, const char *own_step)
{
	const char *dot = strchr(st->job_id, '.');

	return own_step && *own_step && dot && !strcmp(dot + 1, own_step);
}

/* A step the run launched: an srun step that started while it ran. */
static int launched(const struct tk_sacct_step *st, int64_t from_s, int64_t to_s,
		    const char *own_step)
{
	return st->kind == TK_SACCT_STEP && st->start_s >= 0 && st->start_s >= from_s &&
	       st->start_s <= to_s && !is_own_step(st, own_step);
}

void tk_sacct_keep_own(struct tk_sacct *s, int64_t from_s, int64_t to_s, const char *own_step)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++) {
		if (launched(&s->steps[i], from_s, to_s, own_step))
			s->steps[n++] = s->steps[i];
		else
			step_release(&s->steps[i]);
	}
	s->nr = n;
	tk_sacct_finish(s);
}

#define SLURM_DEFAULT_SAMPLE_S 30.0

void tk_sacct_judge(struct tk_sacct *s, int64_t tracker_rss, double sample_s)
{
	size_t i;

	s->maxrss_lower_bound = 0;
	if (s->maxrss_bytes < 0)
		return;
	if (sample_s <= 0)
		sample_s = SLURM_DEFAULT_SAMPLE_S;
	if (tracker_rss > s->maxrss_bytes)
		s->maxrss_lower_bound = 1;
	for (i = 0; i < s->nr; i++) {
		const struct tk_sacct_step *st = &s->steps[i];

		if (s->maxrss_step && !strcmp(st->job_id, s->maxrss_step) &&
		    st->elapsed_s >= 0 && st->elapsed_s < sample_s)
			s->maxrss_lower_bound = 1;
	}
}

const char *tk_sacct_worst_state(const struct tk_sacct *s)
{
	static const char *const worst[] = { "OUT_OF_MEMORY", "TIMEOUT", "CANCELLED", NULL };
	const char *const *w;
	size_t i;

	for (w = worst; *w; w++)
		for (i = 0; i < s->nr; i++)
			if (s->steps[i].state &&
			    !strncmp(s->steps[i].state, *w, strlen(*w)))
				return *w;
	return NULL;
}

/* ---- fields ---- */

int tk_sacct_parse_size(const char *s, size_t len, int64_t *out)
{
	static const char units[] = "KMGTPE";
	double v = 0, scale = 1;
	size_t i = 0, digits = 0;
	const char *u;

	*out = -1;
	if (!len)
		return 0;
	for (; i < len && isdigit((unsigned char)s[i]); i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (i < len && s[i] == '.') {
		double f = 0.1;

		for (i++; i < len && isdigit((unsigned char)s[i]); i++, digits++, f /= 10)
			v += (s[i] - '0') * f;
	}
	if (!digits)
		return -1;
	if (i < len) {
		u = memchr(units, s[i], sizeof(units) - 1);
		if (!u || !s[i] || i + 1 != len)
			return -1;
		scale = ldexp(1.0, 10 * (int)(u - units + 1));
	}
	v *= scale;
	if (!(v < 9.0e18))
		return -1;
	*out = (int64_t)(v + 0.5);
	return 0;
}

int tk_sacct_parse_time(const char *s, size_t len, int64_t *out)
{
	struct tm tm;
	char buf[32];
	time_t t;
	size_t i;

	*out = -1;
	if (!len || (len == 7 && !memcmp(s, "Unknown", 7)) || (len == 4 && !memcmp(s, "None", 4)))
		return 0;
	/* YYYY-MM-DDTHH:MM:SS, nothing else */
	if (len != 19)
		return -1;
	for (i = 0; i < len; i++) {
		char want = i == 4 || i == 7 ? '-' : i == 10 ? 'T' : i == 13 || i == 16 ? ':' : '0';

		if (want == '0' ? !isdigit((unsigned char)s[i]) : s[i] != want)
			return -1;
	}
	memcpy(buf, s, len);
	buf[len] = 0;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (int)strtol(buf, NULL, 10) - 1900;
	tm.tm_mon = (int)strtol(buf + 5, NULL, 10) - 1;
	tm.tm_mday = (int)strtol(buf + 8, NULL, 10);
	tm.tm_hour = (int)strtol(buf + 11, NULL, 10);
	tm.tm_min = (int)strtol(buf + 14, NULL, 10);
	tm.tm_sec = (int)strtol(buf + 17, NULL, 10);
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (int64_t)t;
	return 0;
}

/* digits only, at least one; *v its value (capped far above any time) */
static int parse_uint(const char *s, size_t len, double *v)
{
	size_t i;

	*v = 0;
	if (!len || len > 12)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

int tk_sacct_parse_elapsed(const char *s, size_t len, double *out)
{
	const char *end = s + len, *p = s, *dash, *dot;
	double parts[3], days = 0, frac = 0, v;
	size_t n = 0;

	*out = -1;
	if (!len || (len == 7 && !memcmp(s, "INVALID", 7)))
		return 0;
	dash = memchr(s, '-', len);
	if (dash) {
		if (parse_uint(s, (size_t)(dash - s), &days))
			return -1;
		p = dash + 1;
	}
	dot = memchr(p, '.', (size_t)(end - p));
	if (dot) {
		double f = 0.1;
		const char *q;

		if (dot + 1 == end)
			return -1;
		for (q = dot + 1; q < end; q++, f /= 10) {
			if (!isdigit((unsigned char)*q))
				return -1;
			frac += (*q - '0') * f;
		}
		end = dot;
	}
	while (p <= end) {
		const char *colon = memchr(p, ':', (size_t)(end - p));
		const char *stop = colon ? colon : end;

		if (n == 3 || parse_uint(p, (size_t)(stop - p), &v))
			return -1;
		parts[n++] = v;
		if (!colon)
			break;
		p = colon + 1;
	}
	if (n < 2 || (dash && n != 3))
		return -1;
	if (n == 2)
		*out = parts[0] * 60 + parts[1] + frac;
	else
		*out = days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2] + frac;
	return 0;
}

int tk_sacct_tres_get(const char *tres, const char *name, struct tk_buf *value)
{
	size_t nlen = strlen(name);
	const char *p = tres;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		if ((size_t)(end - p) > nlen && !strncmp(p, name, nlen) && p[nlen] == '=') {
			tk_buf_add(value, p + nlen + 1, (size_t)(end - p - nlen - 1));
			return 1;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* "name=value(,name=value)*": names of [A-Za-z0-9/_:.-], values printable */
static int tres_valid(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t start = i;

		while (i < len && (isalnum((unsigned char)s[i]) ||
				   strchr("/_:.-", s[i])) && s[i])
			i++;
		if (i == start || i >= len || s[i] != '=')
			return 0;
		for (i++; i < len && s[i] != ','; i++)
			if (!isprint((unsigned char)s[i]))
				return 0;
		if (i < len)
			i++; /* the comma */
		if (i == len && s[len - 1] == ',')
			return 0;
	}
	return 1;
}

/* 812, 812.batch, 812_3.0, 812+1.extern, 812_[1-5] */
static int job_id_valid(const char *s, size_t len)
{
	size_t i;

	if (!len || !isdigit((unsigned char)s[0]))
		return 0;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._+[]-,%", s[i]))
			return 0;
	return 1;
}

static int state_valid(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 1;
	if (!isupper((unsigned char)s[0]))
		return 0;
	for (i = 0; i < len; i++)
		if (!isprint((unsigned char)s[i]) || !s[i])
			return 0;
	return 1;
}

static int exit_code_valid(const char *s, size_t len)
{
	size_t i, colons = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == ':')
			colons++;
		else if (!isdigit((unsigned char)s[i]))
			return 0;
	}
	return !len || (colons == 1 && s[0] != ':' && s[len - 1] != ':');
}

static enum tk_sacct_kind kind_of(const char *job_id)
{
	const char *dot = strchr(job_id, '.');
	const char *p;

	if (!dot)
		return TK_SACCT_JOB;
	dot++;
	if (!strcmp(dot, "batch"))
		return TK_SACCT_BATCH;
	if (!strcmp(dot, "extern"))
		return TK_SACCT_EXTERN;
	if (!strcmp(dot, "interactive"))
		return TK_SACCT_INTERACTIVE;
	for (p = dot; isdigit((unsigned char)*p); p++)
		;
	return p > dot && !*p ? TK_SACCT_STEP : TK_SACCT_OTHER;
}

struct field {
	const char *s;
	size_t len;
};

static char *field_dup(const struct field *f)
{
	return tk_xstrndup(f->s, f->len);
}

static int line_error(struct tk_err *err, const char *name, size_t line, const char *what)
{
	return tk_err_set(err, TK_EDATA, "cannot parse %s line %zu: %s", name, line, what);
}

/* One row: JobID|JobName...|MaxRSS|AveRSS|TotTRES|MaxTRES|Elapsed|State|ExitCode|Start|End */
static int parse_line(const char *s, size_t len, const char *name, size_t lineno,
		      struct tk_sacct *out, struct tk_err *err)
{
	struct field f[TK_SACCT_NFIELDS];
	struct tk_sacct_step st;
	const char *end = s + len, *p;
	size_t i, pipes = 0;
	int ret = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '|')
			pipes++;
		else if (!s[i])
			return line_error(err, name, lineno, "a NUL byte");
	}
	if (pipes < TK_SACCT_NFIELDS - 1)
		return line_error(err, name, lineno, "fewer than 11 '|'-separated fields");
	p = memchr(s, '|', len);
	f[0] = (struct field){ s, (size_t)(p - s) };
	/* the last nine, from the right; the name is what is left between */
	for (i = TK_SACCT_NFIELDS - 1; i >= 2; i--) {
		const char *q = end;

		while (q > s && q[-1] != '|')
			q--;
		f[i] = (struct field){ q, (size_t)(end - q) };
		end = q - 1;
	}
	f[1] = (struct field){ p + 1, (size_t)(end - p - 1) };
	if (!job_id_valid(f[0].s, f[0].len))
		return line_error(err, name, lineno, "the JobID is not a job id");
	memset(&st, 0, sizeof(st));
	if (tk_sacct_parse_size(f[2].s, f[2].len, &st.maxrss_bytes))
		return line_error(err, name, lineno, "MaxRSS is not a size");
	if (tk_sacct_parse_size(f[3].s, f[3].len, &st.averss_bytes))
		return line_error(err, name, lineno, "AveRSS is not a size");
	if (!tres_valid(f[4].s, f[4].len) || !tres_valid(f[5].s, f[5].len))
		return line_error(err, name, lineno, "a TRESUsageIn field is not a TRES list");
	if (tk_sacct_parse_elapsed(f[6].s, f[6].len, &st.elapsed_s))
		return line_error(err, name, lineno, "Elapsed is not [D-]HH:MM:SS");
	if (!state_valid(f[7].s, f[7].len))
		return line_error(err, name, lineno, "State is not a job state");
	if (!exit_code_valid(f[8].s, f[8].len))
		return line_error(err, name, lineno, "ExitCode is not CODE:SIGNAL");
	if (tk_sacct_parse_time(f[9].s, f[9].len, &st.start_s) ||
	    tk_sacct_parse_time(f[10].s, f[10].len, &st.end_s))
		return line_error(err, name, lineno, "Start or End is not a time");
	if (out->nr >= TK_SACCT_STEPS_MAX)
		return line_error(err, name, lineno, "more than 4096 steps");
	st.job_id = field_dup(&f[0]);
	st.name = field_dup(&f[1]);
	st.kind = kind_of(st.job_id);
	st.state = field_dup(&f[7]);
	st.exit_code = field_dup(&f[8]);
	st.tres_in_tot = field_dup(&f[4]);
	st.tres_in_max = field_dup(&f[5]);
	tk_sacct_add(out, &st);
	step_release(&st);
	return ret;
}

int tk_sacct_parse(const char *text, size_t len, const char *name, struct tk_sacct *out,
		   struct tk_err *err)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;
	int ret = 0;

	tk_sacct_release(out);
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);

		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n > TK_SACCT_LINE_MAX)
			ret = line_error(err, name, lineno, "line too long");
		else if (n)
			ret = parse_line(p, n, name, lineno, out, err);
		p = nl ? nl + 1 : end;
	}
	if (ret)
		tk_sacct_release(out);
	else
		tk_sacct_finish(out);
	return ret;
}

static int finished_state(const char *state)
{
	static const char *const busy[] = { "RUNNING", "PENDING", "COMPLETING", "REQUEUED",
					    "RESIZING", "SUSPENDED", NULL };
	const char *const *b;

	if (!state)
		return 0;
	for (b = busy; *b; b++)
		if (!strncmp(state, *b, strlen(*b)))
			return 0;
	return 1;
}

int tk_sacct_settled(const struct tk_sacct *s, int64_t from_s, int64_t to_s,
		      const char *own_step)
{
	size_t i;

	if (!s->nr)
		return 0;
	for (i = 0; i < s->nr; i++) {
		const struct tk_sacct_step *st = &s->steps[i];

		if (!launched(st, from_s, to_s, own_step))
			continue;
		if (!finished_state(st->state) || st->maxrss_bytes < 0)
			return 0;
	}
	return 1;
}

/* The first line of what sacct said on its standard error, printable characters only. */
