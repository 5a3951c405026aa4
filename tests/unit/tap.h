#ifndef TK_TAP_H
#define TK_TAP_H
/*
 * A tiny TAP producer for C unit tests: one process per test file.
 *
 *   int main(void) {
 *   	ok(1 + 1 == 2, "arithmetic");
 *   	is_int(f(), 3, "f gives 3");
 *   	is_str(g(), "x", "g gives x");
 *   	if (!have_data)
 *   		skip(2, "../shared/real-data is absent");
 *   	return done_testing();
 *   }
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static int __attribute__((format(printf, 2, 3), unused))
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define is_int(got, want, ...) do { \
		long long tap_g_ = (long long)(got), tap_w_ = (long long)(want); \
		if (!ok(tap_g_ == tap_w_, __VA_ARGS__)) \
			printf("#   got %lld, expected %lld\n", tap_g_, tap_w_); \
	} while (0)

#define is_str(got, want, ...) do { \
		const char *tap_g_ = (got), *tap_w_ = (want); \
		int tap_eq_ = tap_g_ && tap_w_ ? !strcmp(tap_g_, tap_w_) : tap_g_ == tap_w_; \
		if (!ok(tap_eq_, __VA_ARGS__)) \
			printf("#   got '%s', expected '%s'\n", tap_g_ ? tap_g_ : "(null)", \
			       tap_w_ ? tap_w_ : "(null)"); \
	} while (0)

/*
 * Records n tests as skipped, "ok N # SKIP reason" each, for tests that
 * cannot run here; prove counts them as skips, not passes.
 */
static void __attribute__((format(printf, 2, 3), unused))
skip(int n, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < n; i++) {
		tap_n++;
		printf("ok %d # SKIP ", tap_n);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
}

static void __attribute__((unused)) diag(const char *msg)
{
	printf("# %s\n", msg);
}

static int __attribute__((unused)) done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
