/* A run's memory timeline and its compact form (core/model/timeline.h). */
#include "core/model/timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/banned.h"

/* Sizes are kept in KiB in the compact form; 2^50 KiB is 1 EiB, far
 * beyond any machine, and keeps every sum of deltas inside int64. */
#define KIB_MAX ((int64_t)1 << 50)
/* Ten years of milliseconds: no run lasts longer. */
#define T_MAX ((int64_t)10 * 366 * 24 * 3600 * 1000)

void tk_timeline_init(struct tk_timeline *tl)
{
	memset(tl, 0, sizeof(*tl));
}

void tk_timeline_release(struct tk_timeline *tl)
{
	free(tl->p);
	tk_timeline_init(tl);
}

void tk_timeline_add(struct tk_timeline *tl, int64_t t_ms, int64_t rss_bytes,
		     int64_t cgroup_bytes)
{
	TK_ALLOC_GROW(tl->p, tl->nr + 1, tl->alloc);
	tl->p[tl->nr].t_ms = t_ms;
	tl->p[tl->nr].rss_bytes = rss_bytes;
	tl->p[tl->nr].cgroup_bytes = cgroup_bytes;
	tl->nr++;
}

void tk_timeline_copy(struct tk_timeline *dst, const struct tk_timeline *src)
{
	size_t i;

	dst->nr = 0;
	for (i = 0; i < src->nr; i++)
		tk_timeline_add(dst, src->p[i].t_ms, src->p[i].rss_bytes, src->p[i].cgroup_bytes);
	dst->interval_ms = src->interval_ms;
	dst->has_cgroup = src->has_cgroup;
}

size_t tk_timeline_peak(const struct tk_timeline *tl)
{
	size_t i, best = 0;

	for (i = 1; i < tl->nr; i++)
		if (tl->p[i].rss_bytes > tl->p[best].rss_bytes)
			best = i;
	return best;
}

/* Bytes to KiB, rounded to the nearest (pages are whole KiB anyway). */
static int64_t kib(int64_t bytes)
{
	return bytes < 0 ? 0 : (bytes + 512) / 1024;
}

void tk_timeline_encode(const struct tk_timeline *tl, struct tk_buf *out)
{
	int64_t t = 0, r = 0, c = 0;
	size_t i;

	for (i = 0; i < tl->nr; i++) {
		const struct tk_timeline_point *p = &tl->p[i];

		tk_buf_addf(out, "%s%" PRId64 ",%" PRId64, i ? " " : "", p->t_ms - t,
			    kib(p->rss_bytes) - r);
		if (tl->has_cgroup) {
			tk_buf_addf(out, ",%" PRId64, kib(p->cgroup_bytes) - c);
			c = kib(p->cgroup_bytes);
		}
		t = p->t_ms;
		r = kib(p->rss_bytes);
	}
}

/* A signed decimal of at most 16 digits at *s, within [-KIB_MAX, KIB_MAX]. */
static int number(const char **s, const char *end, int64_t *out)
{
	const char *p = *s;
	int neg = 0, digits = 0;
	int64_t v = 0;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	while (p < end && *p >= '0' && *p <= '9') {
		if (++digits > 16)
			return -1;
		v = v * 10 + (*p - '0');
		p++;
	}
	if (!digits || v > KIB_MAX)
		return -1;
	*out = neg ? -v : v;
	*s = p;
	return 0;
}

int tk_timeline_decode(const char *text, size_t len, struct tk_timeline *tl,
		       struct tk_err *err)
{
	const char *s = text, *end = text + len;
	int64_t t = 0, r = 0, c = 0;
	int fields = 0;

	tl->nr = 0;
	tl->has_cgroup = 0;
	if (len > TK_TIMELINE_TEXT_MAX)
		return tk_err_set(err, TK_EDATA, "memory timeline of %zu bytes is over the %d "
				  "byte bound", len, TK_TIMELINE_TEXT_MAX);
	while (s < end) {
		int64_t v[3];
		int n = 0;

		if (tl->nr && *s++ != ' ')
			goto bad;
		for (;;) {
			if (number(&s, end, &v[n]))
				goto bad;
			n++;
			if (s >= end || *s != ',' || n == 3)
				break;
			s++;
		}
		if (n < 2 || (fields && n != fields))
			goto bad;
		fields = n;
		t += v[0];
		r += v[1];
		if (n == 3)
			c += v[2];
		if (v[0] < 0 || t > T_MAX || r < 0 || r > KIB_MAX || c < 0 || c > KIB_MAX)
			goto bad;
		if (tl->nr >= TK_TIMELINE_POINTS_MAX)
			return tk_err_set(err, TK_EDATA, "memory timeline has more than %d points",
					  TK_TIMELINE_POINTS_MAX);
		tk_timeline_add(tl, t, r * 1024, n == 3 ? c * 1024 : -1);
	}
	tl->has_cgroup = fields == 3;
	return 0;
bad:
	tl->nr = 0;
	return tk_err_set(err, TK_EDATA, "cannot parse memory timeline at offset %zu",
			  (size_t)(s - text));
}
