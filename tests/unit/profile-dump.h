#ifndef TK_TEST_PROFILE_DUMP_H
#define TK_TEST_PROFILE_DUMP_H
/*
 * For importer tests: importing straight to a dump (dump_folded, from
 * folded-dump.h: sorted folded lines "a;b;c WEIGHT\n" for every node with
 * a non-zero self weight), so a test compares the whole tree against
 * expected text in one is_str.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "tests/unit/folded-dump.h"

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
