/* The bounded memory timeline of a running job (core/measure/memsampler.h). */
#include "core/measure/memsampler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/banned.h"

void tk_memsampler_init(struct tk_memsampler *m, struct tk_timeline *tl, const char *cgroup_dir)
{
	int n;

	memset(m, 0, sizeof(*m));
	m->tl = tl;
	m->interval_ms = TK_MEMSAMPLER_FIRST_MS;
	if (cgroup_dir && *cgroup_dir) {
		n = snprintf(m->current, sizeof(m->current), "%s/memory.current", cgroup_dir);
		if (n < 0 || (size_t)n >= sizeof(m->current) || access(m->current, R_OK))
			m->current[0] = '\0';
	}
	if (tl) {
		tl->nr = 0;
		tl->has_cgroup = m->current[0] != '\0';
		tl->interval_ms = m->interval_ms;
	}
}

int64_t tk_memsampler_cgroup(const struct tk_memsampler *m)
{
	char buf[64];
	long long v;
	ssize_t n;
	int fd;

	if (!m->current[0])
		return -1;
	fd = open(m->current, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%lld", &v) != 1 || v < 0)
		return -1;
	return (int64_t)v;
}

/* b into a: the larger RSS's point stays, with the larger cgroup figure. */
static void merge(struct tk_timeline_point *a, const struct tk_timeline_point *b)
{
	int64_t cg = a->cgroup_bytes > b->cgroup_bytes ? a->cgroup_bytes : b->cgroup_bytes;

	if (b->rss_bytes > a->rss_bytes) {
		a->t_ms = b->t_ms;
		a->rss_bytes = b->rss_bytes;
	}
	a->cgroup_bytes = cg;
}

/* Halves the points, pair by pair, and doubles the interval. */
static void halve(struct tk_memsampler *m)
{
	struct tk_timeline *tl = m->tl;
	size_t i, n = 0;

	for (i = 0; i < tl->nr; i += 2) {
		tl->p[n] = tl->p[i];
		if (i + 1 < tl->nr)
			merge(&tl->p[n], &tl->p[i + 1]);
		n++;
	}
	tl->nr = n;
	m->interval_ms *= 2;
	tl->interval_ms = m->interval_ms;
}

double tk_memsampler_add(struct tk_memsampler *m, double t_s, int64_t rss_bytes)
{
	struct tk_timeline *tl = m->tl;
	struct tk_timeline_point pt;

	if (!tl)
		return 1e9;
	if (rss_bytes < 0)
		return (double)m->interval_ms / 1000.0;
	pt.t_ms = (int64_t)(t_s * 1000.0 + 0.5);
	pt.rss_bytes = rss_bytes;
	pt.cgroup_bytes = tl->has_cgroup ? tk_memsampler_cgroup(m) : -1;
	if (tl->has_cgroup && pt.cgroup_bytes < 0)
		pt.cgroup_bytes = 0;
	if (tl->nr && pt.t_ms < tl->p[tl->nr - 1].t_ms + m->interval_ms / 2) {
		merge(&tl->p[tl->nr - 1], &pt);
	} else {
		if (tl->nr >= TK_MEMSAMPLER_POINTS)
			halve(m);
		tk_timeline_add(tl, pt.t_ms, pt.rss_bytes, pt.cgroup_bytes);
	}
	return (double)m->interval_ms / 1000.0;
}
