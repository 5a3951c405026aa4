/*
 * Metrics of a run (contract in core/model/metric.h).
 */
#include "core/model/metric.h"

#include <string.h>

#include "core/base/timeutil.h"
#include "core/base/banned.h"

static const char *const names[TK_METRIC_COUNT] = {
	[TK_METRIC_WALLTIME] = "walltime",
	[TK_METRIC_CPU] = "cpu",
	[TK_METRIC_MAXRSS] = "maxrss",
	[TK_METRIC_TREE_RSS] = "tree_rss",
	[TK_METRIC_ALLOC] = "alloc",
	[TK_METRIC_SLURM_MAXRSS] = "slurm_maxrss",
	[TK_METRIC_ALLOC_COUNT] = "alloc_count",
	[TK_METRIC_HEAP_PEAK] = "heap_peak",
	[TK_METRIC_CPU_PROFILE] = "cpu_profile",
};

static const char *const profile_kinds[TK_METRIC_COUNT] = {
	[TK_METRIC_ALLOC] = "alloc",
	[TK_METRIC_ALLOC_COUNT] = "alloc_count",
	[TK_METRIC_HEAP_PEAK] = "heap_peak",
	[TK_METRIC_CPU_PROFILE] = "cpu",
};

int tk_metric_parse(const char *name, enum tk_metric *out)
{
	int i;

	for (i = 0; name && i < TK_METRIC_COUNT; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum tk_metric)i;
			return 0;
		}
	return -1;
}

const char *tk_metric_name(enum tk_metric m)
{
	return (unsigned)m < TK_METRIC_COUNT ? names[m] : "?";
}

enum tk_metric_unit tk_metric_unit(enum tk_metric m)
{
	switch (m) {
	case TK_METRIC_WALLTIME:
	case TK_METRIC_CPU:
	case TK_METRIC_CPU_PROFILE:
		return TK_METRIC_SECONDS;
	case TK_METRIC_ALLOC_COUNT:
		return TK_METRIC_COUNT_UNIT;
	default:
		return TK_METRIC_BYTES;
	}
}

const char *tk_metric_profile_kind(enum tk_metric m)
{
	return (unsigned)m < TK_METRIC_COUNT ? profile_kinds[m] : NULL;
}

double tk_metric_profile_value(enum tk_metric m, double total, const char *unit,
			       enum tk_metric_unit *out_unit)
{
	enum tk_metric_unit u = tk_metric_unit(m);

	if (!unit || !(total >= 0))
		return -1;
	if (m == TK_METRIC_CPU_PROFILE) {
		if (!strcmp(unit, "nanoseconds"))
			total /= 1e9;
		else if (!strcmp(unit, "samples") || !strcmp(unit, "count"))
			u = TK_METRIC_COUNT_UNIT;
		else
			return -1;
	} else if (!strcmp(unit, "nanoseconds") ||
		   (u == TK_METRIC_COUNT_UNIT && !strcmp(unit, "bytes"))) {
		/* a time is no amount of memory; bytes are no count */
		return -1;
	}
	/* else the unit the metric is in, or "samples"/"count" of a file
	 * that names none (folded stacks imported with --kind alloc): the
	 * kind says what its numbers are */
	if (out_unit)
		*out_unit = u;
	return total;
}

int tk_metric_parse_list(const char *list, enum tk_metric *out, struct tk_err *err)
{
	struct tk_buf name = TK_BUF_INIT;
	const char *p = list, *end;
	int n = 0, i, dup;
	enum tk_metric m;

	while (p && *p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		tk_buf_reset(&name);
		tk_buf_add(&name, p, (size_t)(end - p));
		tk_buf_trim(&name);
		if (name.len) {
			if (tk_metric_parse(name.buf, &m)) {
				tk_err_set(err, TK_EUSAGE, "unknown metric '%s' (expected "
					   TK_METRIC_NAMES ")", name.buf);
				tk_buf_release(&name);
				return TK_EUSAGE;
			}
			for (dup = 0, i = 0; i < n; i++)
				dup |= out[i] == m;
			if (!dup)
				out[n++] = m;
		}
		p = *end ? end + 1 : end;
	}
	tk_buf_release(&name);
	if (!n)
		return tk_err_set(err, TK_EUSAGE, "no metric named (expected "
				  TK_METRIC_NAMES ")");
	return n;
}

int tk_metric_value(const struct tk_run_summary *s, enum tk_metric m, double *out)
{
	double v = -1;

	switch (m) {
	case TK_METRIC_WALLTIME:
		v = s->walltime_s;
		break;
	case TK_METRIC_CPU:
		if (s->user_s >= 0 && s->sys_s >= 0)
			v = s->user_s + s->sys_s;
		break;
	case TK_METRIC_MAXRSS:
		v = (double)s->maxrss_bytes;
		break;
	case TK_METRIC_TREE_RSS:
		v = (double)s->tree_rss_bytes;
		break;
	case TK_METRIC_SLURM_MAXRSS:
		v = (double)s->slurm_maxrss_bytes;
		break;
	default: /* a profile's total */
		break;
	}
	if (!(v >= 0))
		return -1;
	*out = v;
	return 0;
}

void tk_metric_format_unit(struct tk_buf *out, enum tk_metric_unit unit, double value)
{
	if (unit == TK_METRIC_SECONDS)
		tk_format_duration(out, value);
	else if (unit == TK_METRIC_BYTES)
		tk_format_bytes(out, (int64_t)(value + 0.5));
	else
		tk_format_count(out, value);
}

void tk_metric_format(struct tk_buf *out, enum tk_metric m, double value)
{
	tk_metric_format_unit(out, tk_metric_unit(m), value);
}

static const char *const method_names[] = { "interval", "percent", "zscore", "mannwhitney" };

const char *tk_verdict_method_name(enum tk_verdict_method m)
{
	return (unsigned)m < sizeof(method_names) / sizeof(method_names[0]) ? method_names[m]
									 : "?";
}

int tk_verdict_method_parse(const char *name, enum tk_verdict_method *out)
{
	size_t i;

	for (i = 0; name && i < sizeof(method_names) / sizeof(method_names[0]); i++)
		if (!strcmp(name, method_names[i])) {
			*out = (enum tk_verdict_method)i;
			return 0;
		}
	return -1;
}
