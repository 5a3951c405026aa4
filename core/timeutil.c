#include "core/timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/banned.h"

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

/* "1h30m", "90", "1.5m": a sum of number+unit terms; a bare number is seconds. */
static int parse_terms(const char *s, double *out)
{
	double total = 0;
	const char *p = s;

	if (!*p)
		return -1;
	while (*p) {
		char *end, name[8];
		double v;
		size_t n = 0;
		const struct unit *u;

		if (!isdigit((unsigned char)*p) && *p != '.')
			return -1;
		errno = 0;
		v = strtod(p, &end);
		if (errno || end == p || !isfinite(v) || v < 0)
			return -1;
		p = end;
		while (isalpha((unsigned char)*p) && n < sizeof(name) - 1)
			name[n++] = *p++;
		name[n] = '\0';
		if (isalpha((unsigned char)*p))
			return -1;
		if (!n) {
			if (*p)
				return -1;
			total += v;
			break;
		}
		for (u = duration_units; u->name; u++)
			if (!strcmp(u->name, name))
				break;
		if (!u->name)
			return -1;
		total += v * u->seconds;
	}
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

static int parse_iso(const char *s, int64_t *out)
{
	int y, mo, d, h = 0, mi = 0, n = 0, used = 0;
	double sec = 0;
	const char *p;
	int64_t days, offset = 0;

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3 || used != 10)
		return -1;
	p = s + used;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (sscanf(p, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5)
			return -1;
		p += n;
		if (*p == ':') {
			char *end;

			sec = strtod(p + 1, &end);
			if (end == p + 1)
				return -1;
			p = end;
		}
		if (*p == 'Z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int oh, om;

			if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n) != 2 || n != 5)
				return -1;
			offset = (int64_t)(oh * 3600 + om * 60) * (*p == '+' ? 1 : -1);
			p += 1 + n;
		}
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec < 0 || sec >= 61)
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
	if (s < 0) {
		tk_buf_adds(out, "-");
		return;
	}
	if (s < 1)
		tk_buf_addf(out, "%.0f ms", s * 1000);
	else if (s < 60)
		tk_buf_addf(out, "%.2f s", s);
	else if (s < 3600)
		tk_buf_addf(out, "%dm %02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		tk_buf_addf(out, "%dh %02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

void tk_format_bytes(struct tk_buf *out, int64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 0) {
		tk_buf_adds(out, "-");
		return;
	}
	while (v >= 1024 && u < sizeof(units) / sizeof(units[0]) - 1) {
		v /= 1024;
		u++;
	}
	if (!u)
		tk_buf_addf(out, "%lld B", (long long)bytes);
	else
		tk_buf_addf(out, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
}
