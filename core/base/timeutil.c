#include "core/base/timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/banned.h"

int64_t tk_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

double tk_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double tk_thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int tk_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return TK_EUSAGE;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return TK_EUSAGE;
	*out = v;
	return 0;
}

int tk_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return TK_EUSAGE;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return TK_EUSAGE;
	*out = v;
	return 0;
}

struct unit {
	const char *name;
	double seconds;
};

static const struct unit duration_units[] = {
	{ "ms", 0.001 }, { "s", 1 }, { "m", 60 }, { "min", 60 }, { "h", 3600 },
	{ "d", 86400 }, { "w", 7 * 86400 }, { "y", 365 * 86400 },
	{ NULL, 0 },
};

/* A decimal number: digits with at most one '.', no sign, no exponent,
 * no hex. Returns the characters used, 0 when there is none. */
static size_t decimal(const char *p, double *v)
{
	size_t n = 0, dots = 0;
	char tmp[64];

	while ((isdigit((unsigned char)p[n]) || p[n] == '.') && n < sizeof(tmp) - 1) {
		dots += p[n] == '.';
		n++;
	}
	if (!n || dots > 1 || (n == 1 && p[0] == '.'))
		return 0;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	*v = strtod(tmp, NULL);
	return n;
}

/* "1h30m", "90", "1.5m": a sum of number+unit terms; a number alone (the
 * whole string) is seconds, so "1h30" is refused rather than guessed. */
static int parse_terms(const char *s, double *out)
{
	double total = 0;
	const char *p = s;

	if (!*p)
		return -1;
	while (*p) {
		char name[8];
		double v;
		size_t n = decimal(p, &v), len = 0;
		const struct unit *u;

		if (!n)
			return -1;
		p += n;
		while (isalpha((unsigned char)*p) && len < sizeof(name) - 1)
			name[len++] = *p++;
		name[len] = '\0';
		if (isalpha((unsigned char)*p))
			return -1;
		if (!len) {
			if (*p || total > 0 || p - n != s)
				return -1;
			total = v;
			break;
		}
		for (u = duration_units; u->name; u++)
			if (!strcmp(u->name, name))
				break;
		if (!u->name)
			return -1;
		total += v * u->seconds;
	}
	if (!isfinite(total))
		return -1;
	*out = total;
	return 0;
}

int tk_parse_duration(const char *s, double *out, struct tk_err *err)
{
	if (parse_terms(s, out))
		return tk_err_set(err, TK_EUSAGE,
				  "invalid duration '%s' (examples: 90, 90s, 1.5m, 2h, 1h30m)", s);
	return 0;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant's algorithm: days since 1970-01-01, proleptic Gregorian. */
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* Exactly n digits at p; -1 otherwise. */
static int digits(const char *p, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* YYYY-MM-DD[(T| )HH:MM[:SS[.frac]][Z|(+|-)HH:MM]] */
static int parse_iso(const char *s, int64_t *out)
{
	int y, mo, d, h = 0, mi = 0;
	double sec = 0;
	const char *p = s;
	int64_t days, offset = 0;

	y = digits(p, 4);
	if (y < 0 || p[4] != '-')
		return -1;
	mo = digits(p + 5, 2);
	if (mo < 1 || mo > 12 || p[7] != '-')
		return -1;
	d = digits(p + 8, 2);
	if (d < 1 || d > days_in_month(y, mo))
		return -1;
	p += 10;
	if (*p == 'T' || *p == ' ') {
		/* Each read only once the bytes before it proved to be there. */
		h = digits(p + 1, 2);
		if (h < 0 || h > 23 || p[3] != ':')
			return -1;
		mi = digits(p + 4, 2);
		if (mi < 0 || mi > 59)
			return -1;
		p += 6;
		if (*p == ':') {
			size_t n = decimal(p + 1, &sec);

			if (!n || !isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]) ||
			    sec >= 61)
				return -1;
			p += 1 + n;
		}
		if (*p == 'Z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int oh = digits(p + 1, 2), om;

			if (oh < 0 || oh > 14 || p[3] != ':')
				return -1;
			om = digits(p + 4, 2);
			if (om < 0 || om > 59)
				return -1;
			offset = (int64_t)(oh * 3600 + om * 60) * (*p == '+' ? 1 : -1);
			p += 6;
		}
	}
	if (*p)
		return -1;
	days = days_from_civil(y, (unsigned)mo, (unsigned)d);
	*out = ((days * 86400 + h * 3600 + mi * 60 - offset) * 1000000) +
	       (int64_t)(sec * 1e6);
	return 0;
}

int tk_parse_since(const char *s, int64_t now_us, int64_t *out, struct tk_err *err)
{
	double age;

	if (!parse_iso(s, out))
		return 0;
	if (!parse_terms(s, &age) && strpbrk(s, "smhdwy")) {
		*out = now_us - (int64_t)(age * 1e6);
		return 0;
	}
	return tk_err_set(err, TK_EUSAGE,
			  "invalid time '%s' (examples: 30d, 12h, 1y, 2026-01-31, 2026-01-31T12:00:00Z)",
			  s);
}

void tk_format_iso(struct tk_buf *out, int64_t us)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	if (us < 0 && us % 1000000)
		t--;
	gmtime_r(&t, &tm);
	tk_buf_addf(out, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void tk_format_duration(struct tk_buf *out, double s)
{
	long long t;

	if (s < 0) {
		tk_buf_adds(out, "-");
		return;
	}
	/* Decide the unit after rounding, so 59.999 s is "1m 00s". */
	if (s * 1000 < 999.5) {
		tk_buf_addf(out, "%.0f ms", s * 1000);
		return;
	}
	if (round(s * 100) / 100 < 60) {
		tk_buf_addf(out, "%.2f s", s);
		return;
	}
	t = llround(s);
	if (t < 3600)
		tk_buf_addf(out, "%lldm %02llds", t / 60, t % 60);
	else
		tk_buf_addf(out, "%lldh %02lldm", t / 3600, (t / 60) % 60);
}

/* v printed with the precision tk_format_bytes uses for it. */
static double shown(double v)
{
	double scale = v < 10 ? 100 : v < 100 ? 10 : 1;

	return round(v * scale) / scale;
}

void tk_format_bytes(struct tk_buf *out, int64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0, last = sizeof(units) / sizeof(units[0]) - 1;

	if (bytes < 0) {
		tk_buf_adds(out, "-");
		return;
	}
	while (v >= 1024 && u < last) {
		v /= 1024;
		u++;
	}
	/* 1 MiB - 1 byte would show as "1024 KiB": carry into the next unit. */
	if (u && u < last && shown(v) >= 1024) {
		v /= 1024;
		u++;
	}
	if (!u)
		tk_buf_addf(out, "%lld B", (long long)bytes);
	else
		tk_buf_addf(out, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", shown(v), units[u]);
}

void tk_format_count(struct tk_buf *out, double n)
{
	static const char *const units[] = { "", " k", " M", " G", " T" };
	char digits[32];
	size_t u = 0, len, i;

	if (!(n >= 0)) {
		tk_buf_adds(out, "-");
		return;
	}
	if (n < 1e6) {
		/* a whole count with thousands separators: "5,612" */
		len = (size_t)snprintf(digits, sizeof(digits), "%.0f", n);
		for (i = 0; i < len; i++) {
			if (i && (len - i) % 3 == 0)
				tk_buf_addch(out, ',');
			tk_buf_addch(out, digits[i]);
		}
		return;
	}
	while (n >= 1000 && u < sizeof(units) / sizeof(units[0]) - 1) {
		n /= 1000;
		u++;
	}
	tk_buf_addf(out, n < 10 ? "%.2f%s" : n < 100 ? "%.1f%s" : "%.0f%s", n, units[u]);
}

void tk_format_weight(struct tk_buf *out, double w)
{
	if (w == (double)(long long)w && w < 9e15 && w > -9e15)
		tk_buf_addf(out, "%lld", (long long)w);
	else if (fabs(w) >= 1e5 && fabs(w) < 9e15)
		/* a sum of sampled weights: its fraction is noise, and
		 * "1.90841e+08" is no number for people */
		tk_buf_addf(out, "%.0f", w);
	else
		tk_buf_addf(out, "%.6g", w);
}

void tk_format_weight_exact(struct tk_buf *out, double w)
{
	char tmp[64];

	if (w == (double)(long long)w && w < 9e15 && w > -9e15) {
		tk_buf_addf(out, "%lld", (long long)w);
		return;
	}
	/*
	 * DBL_DIG (15) significant digits: every decimal of up to 15 digits
	 * a profile wrote reads back as itself, and the sums of sampled
	 * weights lose their float noise (190840830.00000003 is 190840830).
	 */
	snprintf(tmp, sizeof(tmp), "%.15g", w);
	tk_buf_adds(out, tmp);
}
