#ifndef TK_TIMEUTIL_H
#define TK_TIMEUTIL_H
/*
 * Time and size parsing and formatting shared by the commands.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"

/* Microseconds since the epoch, UTC (CLOCK_REALTIME). */
int64_t tk_now_us(void);
/* Seconds on the monotonic clock. */
double tk_mono_s(void);
/* CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID). */
double tk_thread_cpu_s(void);

/*
 * "90", "90s", "1.5m", "2h", "1d", "500ms", "1h30m" -> seconds. Returns 0
 * or TK_EUSAGE with a message naming the text.
 */
int tk_parse_duration(const char *s, double *out, struct tk_err *err);

/*
 * --since: a relative age ("30d", "12h", "2w", "1y" — 1y is 365 days) or
 * an ISO date ("2026-01-31", "2026-01-31T12:00:00Z", "2026-01-31 12:00").
 * Returns the bound in microseconds since the epoch (UTC).
 */
int tk_parse_since(const char *s, int64_t now_us, int64_t *out, struct tk_err *err);

/* ISO 8601 UTC with seconds: "2026-11-21T12:34:56Z". */
void tk_format_iso(struct tk_buf *out, int64_t us);

/* Human units: "1.23 s", "2m 03s", "1h 02m"; "512 KiB", "1.50 GiB". */
void tk_format_duration(struct tk_buf *out, double seconds);
void tk_format_bytes(struct tk_buf *out, int64_t bytes);
/* A count for people: "5,612" below a million, then "1.23 M", "45.6 G". */
void tk_format_count(struct tk_buf *out, double n);
/* A profile weight: an integer when it is one or is 100,000 or more (its
 * fraction is then noise: "190840830", never "1.90841e+08"), else up to
 * 6 significant digits. */
void tk_format_weight(struct tk_buf *out, double w);
/* The same for data files: an integer when it is one (or rounds to one at
 * 15 significant digits), else 15 significant digits, the most a double
 * keeps of a decimal: exact for what a profile wrote, without float noise. */
void tk_format_weight_exact(struct tk_buf *out, double w);

/* Strict number parsing: the whole string must be the number. */
int tk_parse_long(const char *s, long *out);
int tk_parse_double(const char *s, double *out);

#endif
