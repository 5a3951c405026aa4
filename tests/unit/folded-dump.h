#ifndef TK_TEST_FOLDED_DUMP_H
#define TK_TEST_FOLDED_DUMP_H
/*
 * Test helpers for importers: a profile as folded text ("a;b;c 12\n" per
 * node with a self weight, lines sorted bytewise), sorting any text's
 * lines the same way for comparisons with goldens, and finding the tree's
 * fixtures/ and the shared real-data folder:
 *
 *   TRACKER_ROOT    the top of the tree (default ".", where prove runs)
 *   TRACKER_SHARED  the shared data folder (default $TRACKER_ROOT/../shared)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/model/profile.h"

static __attribute__((unused)) int dump_cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of text (a trailing newline is added to the last). */
static __attribute__((unused)) char *dump_sort_lines(const char *text)
{
	char *copy = tk_xstrdup(text), *s = copy, **lines = NULL;
	size_t nr = 0, alloc = 0, i;
	struct tk_buf out = TK_BUF_INIT;

	while (*s) {
		char *nl = strchr(s, '\n');

		TK_ALLOC_GROW(lines, nr + 1, alloc);
		lines[nr++] = s;
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	qsort(lines, nr, sizeof(*lines), dump_cmp_lines);
	for (i = 0; i < nr; i++)
		tk_buf_addf(&out, "%s\n", lines[i]);
	free(lines);
	free(copy);
	return tk_buf_detach(&out, NULL);
}

static __attribute__((unused)) void dump_node(const struct tk_profile *p, uint32_t node, struct tk_buf *path,
		      struct tk_buf *out)
{
	size_t keep = path->len;
	uint32_t c;

	if (node != TK_PROFILE_ROOT) {
		if (path->len)
			tk_buf_addch(path, ';');
		tk_buf_adds(path, tk_profile_name(p, node));
		if (p->nodes[node].self != 0)
			tk_buf_addf(out, "%s %.15g\n", path->buf, p->nodes[node].self);
	}
	for (c = p->nodes[node].first_child; c; c = p->nodes[c].next_sibling)
		dump_node(p, c, path, out);
	tk_buf_setlen(path, keep);
}

/* The profile as sorted folded lines; the caller frees. */
static __attribute__((unused)) char *dump_folded(const struct tk_profile *p)
{
	struct tk_buf path = TK_BUF_INIT, out = TK_BUF_INIT;
	char *sorted;

	dump_node(p, TK_PROFILE_ROOT, &path, &out);
	sorted = dump_sort_lines(out.buf);
	tk_buf_release(&path);
	tk_buf_release(&out);
	return sorted;
}

static __attribute__((unused)) const char *dump_root(void)
{
	const char *r = getenv("TRACKER_ROOT");

	return r && *r ? r : ".";
}

/* $TRACKER_ROOT/rel; the caller frees. */
static __attribute__((unused)) char *dump_fixture(const char *rel)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_addf(&b, "%s/%s", dump_root(), rel);
	return tk_buf_detach(&b, NULL);
}

/* The shared real-data file rel, or NULL when absent; the caller frees. */
static __attribute__((unused)) char *dump_shared(const char *rel)
{
	struct tk_buf b = TK_BUF_INIT;
	const char *s = getenv("TRACKER_SHARED");
	FILE *f;

	if (s && *s)
		tk_buf_addf(&b, "%s/%s", s, rel);
	else
		tk_buf_addf(&b, "%s/../shared/%s", dump_root(), rel);
	f = fopen(b.buf, "rb");
	if (!f) {
		tk_buf_release(&b);
		return NULL;
	}
	fclose(f);
	return tk_buf_detach(&b, NULL);
}

/* The whole file, or NULL; the caller frees. */
static __attribute__((unused)) char *dump_read(const char *path)
{
	struct tk_buf b = TK_BUF_INIT;

	if (tk_buf_read_file(&b, path, NULL)) {
		tk_buf_release(&b);
		return NULL;
	}
	return tk_buf_detach(&b, NULL);
}

#endif
