/*
 * Output formats by extension or name (contract in core/base/outfmt.h).
 */
#include "core/base/outfmt.h"

#include <string.h>
#include <strings.h>

#include "core/base/banned.h"

int tk_path_has_ext(const char *path, const char *ext)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(base), e = strlen(ext);

	return n >= e && !strcasecmp(base + n - e, ext);
}

const struct tk_outfmt *tk_outfmt_by_path(const struct tk_outfmt *t, size_t n,
					  const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].ext && tk_path_has_ext(path, t[i].ext))
			return &t[i];
	return NULL;
}

const struct tk_outfmt *tk_outfmt_by_name(const struct tk_outfmt *t, size_t n,
					  const char *name)
{
	size_t i;

	for (i = 0; name && i < n; i++)
		if (t[i].name && !strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* The text of row i as the list shows it; NULL for none or a repeat. */
static const char *shown(const struct tk_outfmt *t, size_t i, int by_ext)
{
	const char *s = by_ext ? t[i].ext : t[i].name;
	size_t k;

	for (k = 0; s && k < i; k++)
		if ((by_ext ? t[k].ext : t[k].name) && !strcmp(by_ext ? t[k].ext : t[k].name, s))
			return NULL;
	return s;
}

void tk_outfmt_list(const struct tk_outfmt *t, size_t n, int by_ext, const char *sep,
		    const char *last, struct tk_buf *out)
{
	size_t i, total = 0, done = 0;

	for (i = 0; i < n; i++)
		total += shown(t, i, by_ext) != NULL;
	for (i = 0; i < n; i++) {
		const char *s = shown(t, i, by_ext);

		if (!s)
			continue;
		if (done)
			tk_buf_adds(out, done + 1 == total && last ? last : sep);
		tk_buf_adds(out, s);
		done++;
	}
}
