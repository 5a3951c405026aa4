/*
 * core/base/outfmt: picking an output by its file's extension or by a
 * --format name, and naming the formats in messages.
 */
#include <string.h>

#include "core/base/outfmt.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

enum { PNG, SVG, HTML, PPROF, TABLE, CSV };

static const struct tk_outfmt fmts[] = {
	{ PNG, NULL, ".png" },
	{ SVG, NULL, ".svg" },
	{ HTML, NULL, ".html" },
	{ HTML, NULL, ".htm" },
	{ PPROF, NULL, ".pb.gz" },
	{ TABLE, "table", NULL },
	{ CSV, "csv", NULL },
};

#define NR (sizeof(fmts) / sizeof(fmts[0]))

static int by_path(const char *path)
{
	const struct tk_outfmt *f = tk_outfmt_by_path(fmts, NR, path);

	return f ? f->id : -1;
}

int main(void)
{
	struct tk_buf b = TK_BUF_INIT;

	is_int(by_path("amip.png"), PNG, "an extension picks its format");
	is_int(by_path("out/AMIP.PNG"), PNG, "case-insensitively");
	is_int(by_path("page.htm"), HTML, "two extensions, one format");
	is_int(by_path("cpu.pb.gz"), PPROF, "a compound extension");
	is_int(by_path("x.gz"), -1, "part of a compound extension is not it");
	is_int(by_path("a.png/b"), -1, "only the file name's end counts");
	is_int(by_path("png"), -1, "no dot, no extension");
	is_int(by_path(".svg"), SVG, "a file named by its extension");
	ok(tk_path_has_ext("dir.svg/x.txt", ".txt") && !tk_path_has_ext("dir.svg/x", ".svg"),
	   "the directory's name does not count");
	ok(tk_outfmt_by_name(fmts, NR, "csv")->id == CSV, "a --format name");
	ok(!tk_outfmt_by_name(fmts, NR, "CSV") && !tk_outfmt_by_name(fmts, NR, NULL),
	   "names are exact");
	ok(!tk_outfmt_by_name(fmts, NR, ".png"), "an extension is no name");
	tk_outfmt_list(fmts, NR, 1, ", ", " or ", &b);
	is_str(b.buf, ".png, .svg, .html, .htm or .pb.gz", "the extensions, for messages");
	tk_buf_reset(&b);
	tk_outfmt_list(fmts, NR, 0, ", ", " or ", &b);
	is_str(b.buf, "table or csv", "the names, for messages");
	tk_buf_reset(&b);
	tk_outfmt_list(fmts, 2, 1, " | ", NULL, &b);
	is_str(b.buf, ".png | .svg", "one separator throughout");
	tk_buf_release(&b);
	return done_testing();
}
