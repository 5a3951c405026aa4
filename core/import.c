#include "core/import.h"

#include <string.h>

#include "core/demangle.h"
#include "core/banned.h"

#define PROBE_BYTES 4096

static int import(struct tk_reader *r, const char *format,
		  const struct tk_import_opts *opts, struct tk_profile *out,
		  struct tk_err *err)
{
	static const struct tk_import_opts no_opts;
	const struct tk_importer *imp = NULL;
	const char *head;
	size_t len;
	int ret;

	if (!opts)
		opts = &no_opts;
	if (format) {
		imp = tk_importer_find(format);
		if (!imp)
			return tk_err_set(err, TK_EUSAGE, "unknown profile format '%s'", format);
	} else {
		ret = tk_reader_peek(r, PROBE_BYTES, &head, &len, err);
		if (ret)
			return ret;
		imp = tk_importer_probe(head, len);
		if (!imp)
			return tk_err_set(err, TK_EDATA,
					  "cannot tell the profile format of '%s'; name it with --format",
					  r->name);
	}
	ret = imp->parse(r, out, opts, err);
	if (ret == TK_ENOTMINE) {
		if (err && err->msg[0]) {
			err->code = TK_EDATA;
			return tk_err_prefix(err, "'%s' is not a %s profile", r->name, imp->name);
		}
		return tk_err_set(err, TK_EDATA, "'%s' is not a %s profile", r->name, imp->name);
	}
	if (ret)
		return ret;
	if (!opts->no_demangle)
		tk_profile_demangle(out, imp->demangle);
	tk_profile_finish(out);
	return 0;
}

int tk_import_file(const char *path, const char *format,
		   const struct tk_import_opts *opts, struct tk_profile *out,
		   struct tk_err *err)
{
	struct tk_reader r;
	int ret = tk_reader_open(&r, path, err);

	if (!ret)
		ret = import(&r, format, opts, out, err);
	tk_reader_close(&r);
	return ret;
}

int tk_import_mem(const char *name, const char *data, size_t len, const char *format,
		  const struct tk_import_opts *opts, struct tk_profile *out,
		  struct tk_err *err)
{
	struct tk_reader r;
	int ret;

	tk_reader_from_mem(&r, name, data, len);
	ret = import(&r, format, opts, out, err);
	tk_reader_close(&r);
	return ret;
}
