#include "core/measure/proctree.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/err.h"
#include "core/base/banned.h"

void tk_proctree_init(struct tk_proctree *t, pid_t root)
{
	char path[64];

	memset(t, 0, sizeof(*t));
	t->root = root;
	t->page_size = sysconf(_SC_PAGESIZE);
	tk_buf_init(&t->line, 0);
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)root, (long)root);
	t->use_children = access(path, R_OK) == 0;
}

void tk_proctree_release(struct tk_proctree *t)
{
	free(t->pids);
	tk_buf_release(&t->line);
	memset(t, 0, sizeof(*t));
}

/* Reads a small /proc file into t->line; -1 when it is gone. */
static int read_small(struct tk_proctree *t, const char *path)
{
	char chunk[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	tk_buf_reset(&t->line);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return n < 0 ? -1 : 0;
		}
		tk_buf_add(&t->line, chunk, (size_t)n);
	}
}

static void push_pid(struct tk_proctree *t, pid_t pid)
{
	TK_ALLOC_GROW(t->pids, t->nr + 1, t->alloc);
	t->pids[t->nr++] = pid;
}

static void push_pid_list(struct tk_proctree *t, const char *s)
{
	while (*s) {
		char *end;
		long v;

		while (*s == ' ' || *s == '\n')
			s++;
		if (!*s)
			break;
		v = strtol(s, &end, 10);
		if (end == s)
			break;
		if (v > 0)
			push_pid(t, (pid_t)v);
		s = end;
	}
}

/* Appends the children of pid (of all its threads) to t->pids. */
static void add_children(struct tk_proctree *t, pid_t pid)
{
	char path[96];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/children",
			 (long)pid, de->d_name);
		if (read_small(t, path) == 0)
			push_pid_list(t, t->line.buf);
	}
	closedir(d);
}

static int list_by_children(struct tk_proctree *t)
{
	size_t i;

	t->nr = 0;
	add_children(t, t->root);
	/* Breadth-first: t->pids grows while we walk it. */
	for (i = 0; i < t->nr; i++)
		add_children(t, t->pids[i]);
	return 0;
}

/* The parent pid from /proc/PID/stat; the comm field may hold spaces and
 * parentheses, so parse from the last ')'. */
static pid_t parent_of(struct tk_proctree *t, pid_t pid)
{
	char path[64], state;
	const char *p;
	long ppid;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (read_small(t, path))
		return -1;
	p = strrchr(t->line.buf, ')');
	if (!p || sscanf(p + 1, " %c %ld", &state, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

static int list_by_scan(struct tk_proctree *t)
{
	pid_t *all = NULL, *parent = NULL;
	size_t n = 0, alloc = 0, palloc = 0, i, j;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return TK_EUNAVAIL;
	while ((de = readdir(d))) {
		long v;
		char *end;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		v = strtol(de->d_name, &end, 10);
		if (*end)
			continue;
		TK_ALLOC_GROW(all, n + 1, alloc);
		TK_ALLOC_GROW(parent, n + 1, palloc);
		all[n] = (pid_t)v;
		parent[n] = parent_of(t, (pid_t)v);
		n++;
	}
	closedir(d);
	t->nr = 0;
	for (i = 0; i < n; i++)
		if (parent[i] == t->root)
			push_pid(t, all[i]);
	for (j = 0; j < t->nr; j++)
		for (i = 0; i < n; i++)
			if (parent[i] == t->pids[j])
				push_pid(t, all[i]);
	free(all);
	free(parent);
	return 0;
}

int tk_proctree_list(struct tk_proctree *t)
{
	return t->use_children ? list_by_children(t) : list_by_scan(t);
}

/* Reads /proc/PID/statm's resident and shared page counts. */
static int read_statm(pid_t pid, long long *resident, long long *shared)
{
	char path[64], buf[256];
	long long size;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/statm", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld %lld", &size, resident, shared) != 3)
		return -1;
	return 0;
}

int64_t tk_proc_rss_bytes(pid_t pid, long page_size)
{
	long long resident, shared;

	if (read_statm(pid, &resident, &shared))
		return -1;
	return (int64_t)resident * page_size;
}

int tk_proctree_sample(struct tk_proctree *t, struct tk_tree_sample *out)
{
	size_t i;
	int ret = tk_proctree_list(t);

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	for (i = 0; i < t->nr; i++) {
		int64_t rss = tk_proc_rss_bytes(t->pids[i], t->page_size);

		if (rss < 0)
			continue;
		out->rss_bytes += rss;
		if (rss > out->max_proc_rss_bytes)
			out->max_proc_rss_bytes = rss;
		out->nprocs++;
	}
	return 0;
}
