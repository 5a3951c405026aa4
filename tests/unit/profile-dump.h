#ifndef TK_TEST_PROFILE_DUMP_H
#define TK_TEST_PROFILE_DUMP_H
/*
 * For importer tests: a profile as sorted folded lines, "a;b;c WEIGHT\n"
 * for every node with a non-zero self weight (%.15g), so a test compares
 * the whole tree against expected text in one is_str.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/import.h"
#include "core/profile.h"

static int dump_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void dump_path(const struct tk_profile *p, uint32_t node, struct tk_buf *out)
{
	if (node == TK_PROFILE_ROOT)
		return;
	if (p->nodes[node].parent != TK_PROFILE_ROOT) {
		dump_path(p, p->nodes[node].parent, out);
		tk_buf_addch(out, ';');
	}
	tk_buf_adds(out, tk_profile_name(p, node));
}

/* Returns a malloc'd string; the caller frees it. */
static __attribute__((unused)) char *dump_folded(const struct tk_profile *p)
{
	char **lines = tk_xcalloc(p->nr_nodes + 1, sizeof(char *));
	struct tk_buf out = TK_BUF_INIT;
	size_t n = 0, i;
	uint32_t id;

	for (id = 1; id < p->nr_nodes; id++) {
		struct tk_buf line = TK_BUF_INIT;

		if (p->nodes[id].self == 0)
			continue;
		dump_path(p, id, &line);
		tk_buf_addf(&line, " %.15g\n", p->nodes[id].self);
		lines[n++] = tk_buf_detach(&line, NULL);
	}
	qsort(lines, n, sizeof(char *), dump_cmp);
	for (i = 0; i < n; i++) {
		tk_buf_adds(&out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	return tk_buf_detach(&out, NULL);
}

/*
 * Imports path (format NULL: probed; kind and sample_type may be NULL) and
 * returns its dump, or NULL with *ret and err set on failure.
 */
static __attribute__((unused)) char *
dump_import(const char *path, const char *format, const char *kind, const char *sample_type,
	    enum tk_unit *unit, int *ret, struct tk_err *err)
{
	struct tk_import_opts opts;
	struct tk_profile p;
	char *s;

	memset(&opts, 0, sizeof(opts));
	opts.kind = kind;
	opts.sample_type = sample_type;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	*ret = tk_import_file(path, format, &opts, &p, err);
	s = *ret ? NULL : dump_folded(&p);
	if (unit)
		*unit = p.unit;
	tk_profile_release(&p);
	return s;
}

/* Imports data[0..len) from memory; returns the code, err set. */
static int __attribute__((unused))
dump_import_mem(const char *name, const char *data, size_t len, const char *format,
		struct tk_err *err)
{
	struct tk_profile p;
	int ret;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_import_mem(name, data, len, format, NULL, &p, err);
	tk_profile_release(&p);
	return ret;
}

/* A JSON text nested n arrays deep (malloc'd, NUL-terminated). */
static __attribute__((unused)) char *dump_deep_json(size_t n, size_t *len)
{
	char *s = tk_xmalloc(2 * n + 1);

	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = 0;
	*len = 2 * n;
	return s;
}

#endif
