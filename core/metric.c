/*
 * Metrics of a run (contract in core/metric.h).
 */
#include "core/metric.h"

#include <string.h>

#include "core/profile.h"
#include "core/profstore.h"
#include "core/timeutil.h"
#include "core/banned.h"

static const char *const names[TK_METRIC_COUNT] = {
	[TK_METRIC_WALLTIME] = "walltime",
	[TK_METRIC_CPU] = "cpu",
	[TK_METRIC_MAXRSS] = "maxrss",
	[TK_METRIC_TREE_RSS] = "tree_rss",
	[TK_METRIC_ALLOC] = "alloc",
	[TK_METRIC_SLURM_MAXRSS] = "slurm_maxrss",
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
	return m == TK_METRIC_WALLTIME || m == TK_METRIC_CPU ? TK_METRIC_SECONDS
							     : TK_METRIC_BYTES;
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
	case TK_METRIC_ALLOC:
		break;
	}
	if (!(v >= 0))
		return -1;
	*out = v;
	return 0;
}

void tk_metric_format(struct tk_buf *out, enum tk_metric m, double value)
{
	if (tk_metric_unit(m) == TK_METRIC_SECONDS)
		tk_format_duration(out, value);
	else
		tk_format_bytes(out, (int64_t)(value + 0.5));
}

int tk_metric_alloc_totals(struct tk_store *s, const char *const *ids, size_t n,
			   double *out, struct tk_err *err)
{
	struct tk_store_profile_total q;
	struct tk_profile p;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		memset(&q, 0, sizeof(q));
		q.run_id = ids[i];
		q.kind = "alloc";
		out[i] = -1;
		ret = s->ops->ctrl ? s->ops->ctrl(s, TK_STORE_CTRL_PROFILE_TOTAL, &q, err)
				   : TK_EUSAGE;
		if (!ret) {
			if (q.found)
				out[i] = q.total;
			continue;
		}
		if (ret != TK_EUSAGE)
			return ret;
		/* a backend without the operation: load the profile */
		tk_err_clear(err);
		tk_profile_init(&p, TK_UNIT_BYTES);
		ret = tk_profstore_get(s, ids[i], "alloc", &p, err);
		if (!ret) {
			tk_profile_finish(&p);
			out[i] = tk_profile_total(&p);
		}
		tk_profile_release(&p);
		if (ret == TK_EDATA)
			tk_err_clear(err);
		else if (ret)
			return ret;
	}
	return 0;
}
