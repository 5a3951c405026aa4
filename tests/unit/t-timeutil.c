/*
 * core/base/timeutil: durations, --since, ISO dates, human units, strict numbers,
 * including the strictness cases a review found (ambiguous "1h30", hex,
 * impossible dates, rounding across unit boundaries).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/timeutil.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

#define US 1000000LL
/* 2026-01-31T12:00:00Z */
#define NOW (1769860800LL * US)

static int dur(const char *s, double *out)
{
	struct tk_err err = TK_ERR_INIT;

	*out = -12345;
	return tk_parse_duration(s, out, &err);
}

static void duration_ok(const char *s, double want)
{
	double v;
	int ret = dur(s, &v);

	ok(ret == 0 && fabs(v - want) < 1e-9, "duration '%s' is %g s (got %d, %g)",
	   s, want, ret, v);
}

static void duration_bad(const char *s)
{
	double v;

	is_int(dur(s, &v), TK_EUSAGE, "duration '%s' is rejected", s);
}

static void test_duration(void)
{
	struct tk_err err = TK_ERR_INIT;
	double v;

	/* The header's examples. */
	duration_ok("90", 90);
	duration_ok("90s", 90);
	duration_ok("1.5m", 90);
	duration_ok("2h", 7200);
	duration_ok("1d", 86400);
	duration_ok("500ms", 0.5);
	duration_ok("1h30m", 5400);
	/* Others the code accepts on purpose. */
	duration_ok("0", 0);
	duration_ok(".5s", 0.5);
	duration_ok("2w", 14 * 86400);
	duration_ok("1y", 365 * 86400);
	duration_ok("5min", 300);
	duration_ok("1h1m1s", 3661);

	duration_bad("");
	duration_bad("abc");
	duration_bad("-5");
	duration_bad("+5");
	duration_bad("5x");
	duration_bad("5 s");
	duration_bad(" 5");
	duration_bad("5 ");
	duration_bad("1h-5m");
	duration_bad("s");
	duration_bad(".");
	duration_bad("1.5.5s");
	duration_bad("5minutes");
	duration_bad("5sec");
	duration_bad("5S");
	duration_bad("inf");
	duration_bad("nan");
	duration_bad("1e999s");
	duration_bad("1abcdefghijklmnop");

	tk_parse_duration("5x", &v, &err);
	ok(strstr(err.msg, "'5x'") != NULL, "the message names the text: %s", err.msg);

	ok(dur("1h30", &v) != 0, "'1h30' is rejected ");
	ok(dur("1e308y", &v) != 0, "'1e308y' is rejected");
	ok(dur("0x10", &v) != 0, "'0x10' is rejected");
}

static int since(const char *s, int64_t *out)
{
	struct tk_err err = TK_ERR_INIT;

	*out = -12345;
	return tk_parse_since(s, NOW, out, &err);
}

static void since_ok(const char *s, int64_t want)
{
	int64_t v;
	int ret = since(s, &v);

	ok(ret == 0 && v == want, "since '%s' is %lld (got %d, %lld)", s,
	   (long long)want, ret, (long long)v);
}

static void since_bad(const char *s)
{
	int64_t v;

	is_int(since(s, &v), TK_EUSAGE, "since '%s' is rejected", s);
}

static void test_since(void)
{
	struct tk_err err = TK_ERR_INIT;
	int64_t v;

	since_ok("30d", NOW - 30 * 86400 * US);
	since_ok("12h", NOW - 12 * 3600 * US);
	since_ok("2w", NOW - 14 * 86400 * US);
	since_ok("1y", NOW - 365 * 86400 * US);
	since_ok("90m", NOW - 90 * 60 * US);
	since_ok("2026-01-31", 1769817600LL * US);
	since_ok("2026-01-31T12:00:00Z", 1769860800LL * US);
	since_ok("2026-01-31T12:00:00", 1769860800LL * US);
	since_ok("2026-01-31 12:00", 1769860800LL * US);
	since_ok("2026-01-31T12:00Z", 1769860800LL * US);
	since_ok("2026-01-31T12:00:00+02:00", 1769853600LL * US);
	since_ok("2026-01-31T12:00:00-05:30", (1769860800LL + 5 * 3600 + 1800) * US);
	since_ok("2026-01-31T12:00:00.25Z", 1769860800LL * US + 250000);
	since_ok("2024-02-29", 1709164800LL * US);
	since_ok("2000-03-01", 951868800LL * US);
	since_ok("1970-01-01T00:00:00Z", 0);
	since_ok("1969-12-31T23:59:59Z", -1 * US);

	since_bad("");
	since_bad("garbage");
	since_bad("90"); /* a bare number has no unit: ambiguous for a date */
	since_bad("30 d");
	since_bad("-30d");
	since_bad("2026-13-01");
	since_bad("2026-00-10");
	since_bad("2026-01-32");
	since_bad("2026-01-00");
	since_bad("2026-1-31");
	since_bad("26-01-31");
	since_bad("2026/01/31");
	since_bad("2026-01-31T");
	since_bad("2026-01-31T25:00");
	since_bad("2026-01-31T12:60");
	since_bad("2026-01-31T12");
	since_bad("2026-01-31T12:00:00Q");
	since_bad("2026-01-31T12:00:00+0200");
	since_bad("2026-01-31Z");
	since_bad("2026-01-31x");

	tk_parse_since("yesterday", NOW, &v, &err);
	ok(err.code == TK_EUSAGE && strstr(err.msg, "'yesterday'") != NULL,
	   "the message names the text: %s", err.msg);

	ok(since("2026-02-31", &v) != 0, "'2026-02-31' is rejected");
	ok(since("2026-01-31T-1:00", &v) != 0, "a negative hour is rejected");
	ok(since("2026-01-31T12:00:00+99:99", &v) != 0, "offset +99:99 is rejected");
	ok(since("2026-01-31T12:00:nanZ", &v) != 0, "seconds 'nan' are rejected");
	ok(since("+026-01-31", &v) != 0, "a signed 3-digit year is rejected");
}

static void iso_is(int64_t us, const char *want)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_format_iso(&b, us);
	is_str(b.buf, want, "format_iso(%lld)", (long long)us);
	tk_buf_release(&b);
}

static void test_format_iso(void)
{
	struct tk_buf b = TK_BUF_INIT;
	int64_t back = 0;
	struct tk_err err = TK_ERR_INIT;

	iso_is(0, "1970-01-01T00:00:00Z");
	iso_is(-1, "1969-12-31T23:59:59Z");
	iso_is(-US, "1969-12-31T23:59:59Z");
	iso_is(1769860800LL * US, "2026-01-31T12:00:00Z");
	iso_is(1709164800LL * US, "2024-02-29T00:00:00Z");
	iso_is(1709251199LL * US + 999999, "2024-02-29T23:59:59Z");
	iso_is(951868800LL * US, "2000-03-01T00:00:00Z");
	iso_is(946684799LL * US, "1999-12-31T23:59:59Z");

	tk_buf_adds(&b, "at ");
	tk_format_iso(&b, 1709164800LL * US);
	is_str(b.buf, "at 2024-02-29T00:00:00Z", "format_iso appends");
	ok(tk_parse_since(b.buf + 3, NOW, &back, &err) == 0 && back == 1709164800LL * US,
	   "format_iso output parses back to the same time");
	tk_buf_release(&b);
}

static void fmt_dur_is(double s, const char *want)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_format_duration(&b, s);
	is_str(b.buf, want, "format_duration(%g)", s);
	tk_buf_release(&b);
}

static void fmt_bytes_is(int64_t n, const char *want)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_format_bytes(&b, n);
	is_str(b.buf, want, "format_bytes(%lld)", (long long)n);
	tk_buf_release(&b);
}

static void test_format_units(void)
{
	struct tk_buf b = TK_BUF_INIT;

	fmt_dur_is(1.234, "1.23 s");  /* header example */
	fmt_dur_is(123, "2m 03s");    /* header example */
	fmt_dur_is(3720, "1h 02m");   /* header example */
	fmt_dur_is(0, "0 ms");
	fmt_dur_is(0.5, "500 ms");
	fmt_dur_is(59, "59.00 s");
	fmt_dur_is(60, "1m 00s");
	fmt_dur_is(86400 + 60, "24h 01m");
	fmt_dur_is(-1, "-"); /* unknown */

	fmt_bytes_is(0, "0 B");
	fmt_bytes_is(1023, "1023 B");
	fmt_bytes_is(1024, "1.00 KiB");
	fmt_bytes_is(512 * 1024, "512 KiB"); /* header example */
	fmt_bytes_is(15LL * 1024 * 1024, "15.0 MiB");
	fmt_bytes_is(-1, "-"); /* unknown */

	tk_format_bytes(&b, 1610612736LL);
	ok(!strcmp(b.buf, "1.50 GiB"), "format_bytes(1.5 GiB) is '1.50 GiB' as the header says");
	tk_buf_reset(&b);
	tk_format_bytes(&b, 1610612736LL);
	ok(!strcmp(b.buf, "1.50 GiB") || !strcmp(b.buf, "1.5 GiB"),
	   "format_bytes(1.5 GiB) is 1.5 GiB in some precision: %s", b.buf);
	tk_buf_reset(&b);
	tk_format_duration(&b, 59.999);
	ok(strcmp(b.buf, "60.00 s") != 0, "59.999 s is not printed as '60.00 s'");
	tk_buf_reset(&b);
	tk_format_bytes(&b, 1024 * 1024 - 1);
	ok(strcmp(b.buf, "1024 KiB") != 0, "1 MiB - 1 is not printed as '1024 KiB'");
	tk_buf_release(&b);
}

static void test_numbers(void)
{
	long l = 7;
	double d = 7;

	ok(!tk_parse_long("42", &l) && l == 42, "parse_long 42");
	ok(!tk_parse_long("-3", &l) && l == -3, "parse_long -3");
	ok(!tk_parse_long("0", &l) && l == 0, "parse_long 0");
	l = 7;
	ok(tk_parse_long("", &l) == TK_EUSAGE && l == 7, "parse_long '' fails, out untouched");
	ok(tk_parse_long(NULL, &l) == TK_EUSAGE, "parse_long NULL fails");
	ok(tk_parse_long(" 5", &l) == TK_EUSAGE, "parse_long leading space fails");
	ok(tk_parse_long("5 ", &l) == TK_EUSAGE, "parse_long trailing space fails");
	ok(tk_parse_long("5x", &l) == TK_EUSAGE, "parse_long trailing junk fails");
	ok(tk_parse_long("1.5", &l) == TK_EUSAGE, "parse_long 1.5 fails");
	ok(tk_parse_long("0x10", &l) == TK_EUSAGE, "parse_long is decimal only");
	ok(tk_parse_long("99999999999999999999", &l) == TK_EUSAGE, "parse_long overflow fails");
	ok(tk_parse_long("-99999999999999999999", &l) == TK_EUSAGE, "parse_long underflow fails");
	ok(!tk_parse_long("9223372036854775807", &l) && l == LONG_MAX, "parse_long LONG_MAX");

	ok(!tk_parse_double("1.5", &d) && d == 1.5, "parse_double 1.5");
	ok(!tk_parse_double("-2e3", &d) && d == -2000, "parse_double -2e3");
	d = 7;
	ok(tk_parse_double("", &d) == TK_EUSAGE && d == 7, "parse_double '' fails, out untouched");
	ok(tk_parse_double(" 1", &d) == TK_EUSAGE, "parse_double leading space fails");
	ok(tk_parse_double("1 ", &d) == TK_EUSAGE, "parse_double trailing space fails");
	ok(tk_parse_double("1.5x", &d) == TK_EUSAGE, "parse_double trailing junk fails");
	ok(tk_parse_double("nan", &d) == TK_EUSAGE, "parse_double nan fails");
	ok(tk_parse_double("inf", &d) == TK_EUSAGE, "parse_double inf fails");
	ok(tk_parse_double("1e999", &d) == TK_EUSAGE, "parse_double overflow fails");
}

/* Data files print what a profile wrote, without the noise of summing
 * sampled weights in binary floating point. */
static void test_weight_exact(void)
{
	static const struct { double w; const char *want; } cases[] = {
		{ 190840830.00000003, "190840830" },
		{ 0.1 + 0.2, "0.3" },
		{ 2.5, "2.5" },
		{ 1234567, "1234567" },
		{ 0.000123456789012345, "0.000123456789012345" },
		{ 1e300, "1e+300" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tk_buf b = TK_BUF_INIT;

		tk_format_weight_exact(&b, cases[i].w);
		is_str(b.buf, cases[i].want, "weight_exact %.17g", cases[i].w);
		tk_buf_release(&b);
	}
}

/* Weights for people: never an exponent below 9e15. */
static void test_weight(void)
{
	static const struct { double w; const char *want; } cases[] = {
		{ 190840830.00000003, "190840830" },
		{ 4.5, "4.5" },
		{ 12345.678, "12345.7" },
		{ 123456.7, "123457" },
		{ 7, "7" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tk_buf b = TK_BUF_INIT;

		tk_format_weight(&b, cases[i].w);
		is_str(b.buf, cases[i].want, "weight %.17g", cases[i].w);
		tk_buf_release(&b);
	}
}

int main(void)
{
	test_weight_exact();
	test_weight();
	test_duration();
	test_since();
	test_format_iso();
	test_format_units();
	test_numbers();
	return done_testing();
}
