/*
 * Flame layout against flamegraph.pl: every fixtures/flame/<case>.frames
 * holds the frames flamegraph.pl drew for an input and options (see
 * docs/flamegraph-compat.md); our layout must give the same frames (name,
 * depth, start, width in samples, within 1e-9 of the total). Inputs from
 * the shared real-data folder are skipped with a reason when it is absent.
 * Also: deep stacks, --reverse, palettes, renderer lookup, SVG escaping.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/draw/flame.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "core/draw/render.h"
#include "tests/unit/tap.h"

struct row {
	unsigned depth;
	double start, width;
	char *name;
};

struct golden {
	char kind[16];
	char input[512];
	double minwidth, width, total;
	int reverse;
	struct row *rows;
	size_t nr, alloc;
};

/* Trailing whitespace is not part of a name for us (see the compat notes). */
static size_t trim_len(const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len;
}

static int read_golden(const char *path, struct golden *g)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	memset(g, 0, sizeof(*g));
	g->width = 1200;
	g->minwidth = 0.1;
	if (!f)
		return -1;
	for (;;) {
		char *p, *q;
		struct row r;

		n = getline(&line, &cap, f);
		if (n <= 0)
			break;

		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (!strncmp(line, "#! input ", 9)) {
			if (sscanf(line + 9, "%15s %511s", g->kind, g->input) != 2)
				return -1;
		} else if (!strncmp(line, "#! minwidth ", 12)) {
			g->minwidth = strtod(line + 12, NULL);
		} else if (!strncmp(line, "#! width ", 9)) {
			g->width = strtod(line + 9, NULL);
		} else if (!strncmp(line, "#! reverse ", 11)) {
			g->reverse = line[11] == '1';
		} else if (!strncmp(line, "#! total ", 9)) {
			g->total = strtod(line + 9, NULL);
		} else if (line[0] != '#' && line[0]) {
			r.depth = (unsigned)strtoul(line, &p, 10);
			r.start = strtod(p + 1, &q);
			r.width = strtod(q + 1, &p);
			if (*p != '\t')
				return -1;
			p++;
			r.name = tk_xstrndup(p, trim_len(p, strlen(p)));
			TK_ALLOC_GROW(g->rows, g->nr + 1, g->alloc);
			g->rows[g->nr++] = r;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

static void golden_release(struct golden *g)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		free(g->rows[i].name);
	free(g->rows);
}

static double sort_tol;

static int cmp_rows(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (fabs(a->start - b->start) > sort_tol)
		return a->start < b->start ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The name as flamegraph.pl titles it: without a _[kwij] annotation. */
static char *shown_name(const struct tk_profile *p, const struct tk_flame_frame *f)
{
	const char *s;
	size_t len;

	if (f->node == TK_PROFILE_ROOT)
		return tk_xstrdup("all");
	s = tk_profile_name(p, f->node);
	len = strlen(s);
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
	    strchr("kwij", s[len - 2]))
		len -= 4;
	return tk_xstrndup(s, trim_len(s, len));
}

static void check_golden(const char *dir, const char *file)
{
	struct golden g;
	struct tk_profile p, r;
	struct tk_flame fl;
	struct tk_flame_opts fo;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf path = TK_BUF_INIT, input = TK_BUF_INIT;
	struct tk_import_opts raw = { .no_demangle = 1 };
	struct row *mine;
	const char *shared = getenv("TRACKER_SHARED");
	double tol;
	size_t i, bad = 0;

	tk_buf_addf(&path, "%s/%s", dir, file);
	if (read_golden(path.buf, &g) || !g.input[0] || !(g.total > 0)) {
		ok(0, "%s: a readable golden", file);
		goto out;
	}
	if (!strcmp(g.kind, "shared"))
		tk_buf_addf(&input, "%s/%s", shared ? shared : "../shared", g.input);
	else
		tk_buf_adds(&input, g.input);
	if (access(input.buf, R_OK)) {
		skip(1, "%s: %s is absent (real data lives outside the repo)", file,
		     input.buf);
		goto out_golden;
	}
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	/* flamegraph.pl keeps names as they are (name@@GLIBC_2.3.2) */
	if (tk_import_file(input.buf, "folded", &raw, &p, &err)) {
		ok(0, "%s: import %s: %s", file, input.buf, err.msg);
		tk_profile_release(&p);
		goto out_golden;
	}
	if (g.reverse) {
		if (tk_profile_reverse(&p, &r, &err))
			ok(0, "%s: reverse: %s", file, err.msg);
		tk_profile_release(&p);
		p = r;
	}
	tk_flame_opts_init(&fo);
	fo.image_width = g.width;
	fo.minwidth = g.minwidth;
	if (tk_flame_layout(&p, &fo, &fl, &err)) {
		ok(0, "%s: layout: %s", file, err.msg);
		tk_profile_release(&p);
		goto out_golden;
	}
	tol = 1e-9 * g.total;
	sort_tol = tol;
	mine = tk_xcalloc(fl.nr ? fl.nr : 1, sizeof(*mine));
	for (i = 0; i < fl.nr; i++) {
		mine[i].depth = fl.frames[i].depth;
		mine[i].start = fl.frames[i].start;
		mine[i].width = fl.frames[i].width;
		mine[i].name = shown_name(&p, &fl.frames[i]);
	}
	qsort(mine, fl.nr, sizeof(*mine), cmp_rows);
	qsort(g.rows, g.nr, sizeof(*g.rows), cmp_rows);
	if (fabs(fl.total - g.total) > tol) {
		printf("#   total %.17g, flamegraph.pl %.17g\n", fl.total, g.total);
		bad++;
	}
	if (fl.nr != g.nr) {
		printf("#   %zu frames, flamegraph.pl drew %zu\n", fl.nr, g.nr);
		bad++;
	}
	for (i = 0; i < fl.nr && i < g.nr && bad < 5; i++) {
		const struct row *a = &mine[i], *b = &g.rows[i];

		if (a->depth != b->depth || strcmp(a->name, b->name) ||
		    fabs(a->start - b->start) > tol || fabs(a->width - b->width) > tol) {
			printf("#   frame %zu: got %u %.12g %.12g '%s', flamegraph.pl %u %.12g %.12g '%s'\n",
			       i, a->depth, a->start, a->width, a->name, b->depth, b->start, b->width,
			       b->name);
			bad++;
		}
	}
	ok(!bad, "%s: %zu frames equal flamegraph.pl's", file, g.nr);
	for (i = 0; i < fl.nr; i++)
		free(mine[i].name);
	free(mine);
	tk_flame_release(&fl);
	tk_profile_release(&p);
out_golden:
	golden_release(&g);
out:
	tk_buf_release(&path);
	tk_buf_release(&input);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_goldens(void)
{
	const char *dir = "fixtures/flame";
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t nr = 0, alloc = 0, i;

	if (!d) {
		ok(0, "cannot open %s (run from the top of the tree)", dir);
		return;
	}
	for (;;) {
		size_t len;

		e = readdir(d);
		if (!e)
			break;
		len = strlen(e->d_name);

		if (len > 7 && !strcmp(e->d_name + len - 7, ".frames")) {
			TK_ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = tk_xstrdup(e->d_name);
		}
	}
	closedir(d);
	ok(nr >= 10, "fixtures/flame has the goldens (%zu)", nr);
	qsort(names, nr, sizeof(*names), cmp_str);
	for (i = 0; i < nr; i++) {
		check_golden(dir, names[i]);
		free(names[i]);
	}
	free(names);
}

static void check_deep(void)
{
	struct tk_profile p;
	struct tk_flame fl;
	struct tk_err err = TK_ERR_INIT;
	uint32_t *names = tk_xcalloc(TK_PROFILE_MAX_DEPTH, sizeof(*names));
	struct tk_profile r;
	size_t i;
	int ret;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	for (i = 0; i < TK_PROFILE_MAX_DEPTH; i++)
		names[i] = tk_profile_intern(&p, i % 2 ? "odd" : "even", i % 2 ? 3 : 4);
	ok(!tk_profile_add_stack(&p, names, TK_PROFILE_MAX_DEPTH, 2), "a 65536-deep stack");
	tk_profile_finish(&p);
	ret = tk_flame_layout(&p, NULL, &fl, &err);
	is_int(ret, 0, "lays out");
	is_int(fl.nr, TK_PROFILE_MAX_DEPTH + 1, "every frame of it");
	is_int(fl.max_depth, TK_PROFILE_MAX_DEPTH, "max depth");
	tk_flame_release(&fl);
	ret = tk_profile_reverse(&p, &r, &err);
	is_int(ret, 0, "reverses");
	is_int(r.nr_nodes, TK_PROFILE_MAX_DEPTH + 1, "reversed: one chain");
	ok(!strcmp(tk_profile_name(&r, r.nodes[0].first_child), "odd"), "leaf first");
	tk_profile_release(&r);
	tk_profile_release(&p);
	free(names);
}

static void check_layout_rules(void)
{
	static const char text[] = "m;a 5\nm;a;b 3\nm;c 0.5\nm;d 1\n";
	struct tk_profile p;
	struct tk_flame fl;
	struct tk_flame_opts fo;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_flame_layout(&p, NULL, &fl, &err);
	is_int(ret, TK_EINTERNAL, "an unfinished profile is refused");
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	tk_import_mem("t.folded", text, sizeof(text) - 1, "folded", NULL, &p, &err);
	/* total 9.5 over 1180 px: 1 px is 9.5/1180 samples; c (0.5) is 62.1 px */
	tk_flame_opts_init(&fo);
	fo.minwidth = 0.5 * 1180 / 9.5; /* exactly c's width: kept, not < */
	ret = tk_flame_layout(&p, &fo, &fl, &err);
	is_int(ret, 0, "lays out");
	is_int(fl.nr, 6, "a frame exactly minwidth wide is kept");
	tk_flame_release(&fl);
	fo.minwidth = 0.51 * 1180 / 9.5;
	tk_flame_layout(&p, &fo, &fl, &err);
	is_int(fl.nr, 5, "a narrower one is dropped");
	ok(fl.frames[2].start == 0 && fl.frames[3].start == 5 && fl.frames[4].start == 8.5,
	   "a's self weight sits left of b; d starts after the dropped c");
	tk_flame_release(&fl);
	fo.image_width = 20;
	ret = tk_flame_layout(&p, &fo, &fl, &err);
	is_int(ret, TK_EUSAGE, "an image too narrow for frames is a usage error");
	tk_profile_release(&p);
}

static void check_palettes(void)
{
	int r, g, b, r2, g2, b2;

	/* flamegraph.pl 41fee1f draws these names with these colours */
	tk_palette_color("hot", "a", &r, &g, &b);
	ok(r == 236 && g == 146 && b == 35, "hot 'a' is flamegraph.pl's rgb(236,146,35)");
	tk_palette_color("hot", "main", &r, &g, &b);
	ok(r == 243 && g == 179 && b == 42, "hot 'main' is rgb(243,179,42)");
	tk_palette_color("hot", "", &r, &g, &b);
	ok(r == 213 && g == 39 && b == 9, "the root is rgb(213,39,9)");
	tk_palette_color("mem", "main", &r, &g, &b);
	tk_palette_color("mem", "main", &r2, &g2, &b2);
	ok(r == r2 && g == g2 && b == b2 && r == 0 && g >= 190, "mem is green, deterministic");
	tk_palette_color("java", "java/lang/Thread:.run_[j]", &r, &g, &b);
	ok(g >= 200 && r < 120, "java: jit frames are green");
	tk_palette_color("java", "foo_[k]", &r, &g, &b);
	ok(r >= 190 && b == 0, "java: kernel frames are orange");
}

static void check_renderers(void)
{
	const struct tk_renderer *r = tk_renderer_for_path("out/x.svg");

	ok(r && !strcmp(r->name, "svg"), ".svg picks the svg renderer");
	r = tk_renderer_for_path("X.SVG");
	ok(r && !strcmp(r->name, "svg"), "extensions are case-insensitive");
	ok(!tk_renderer_for_path("x.unknown"), "an unknown extension has none");
	ok(!tk_renderer_for_path("dir.svg/noext"), "a directory's extension does not count");
}

static void check_svg_escaping(void)
{
	static const char text[] =
		"main;<script>alert(1)</script> 3\n"
		"main;]]>&lt\"q\";bad\xff\xfe utf8 2\n"
		"main;ok\x01\x1b; 1\n";
	struct tk_profile p;
	struct tk_flame fl;
	struct tk_render_opts ro;
	struct tk_err err = TK_ERR_INIT;
	char *svg = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	tk_import_mem("t.folded", text, sizeof(text) - 1, "folded", NULL, &p, &err);
	tk_flame_layout(&p, NULL, &fl, &err);
	tk_render_opts_init(&ro);
	ro.title = "<b>title</b> & \"more\"";
	f = open_memstream(&svg, &len);
	ret = tk_renderer_for_path("x.svg")->render(&p, &fl, &ro, f, &err);
	fclose(f);
	is_int(ret, 0, "renders hostile names");
	ok(!strstr(svg, "<script>alert") && strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;"),
	   "markup in names is escaped");
	ok(!strstr(svg, "]]>&") && strstr(svg, "]]&gt;&amp;lt\"q\""), "]]> and & are escaped");
	ok(!strstr(svg, "\xff") && strstr(svg, "bad\\xff\\xfe utf8"),
	   "invalid UTF-8 as \\xNN, as a terminal shows it");
	ok(!strchr(svg, '\x01') && !strchr(svg, '\x1b') && strstr(svg, "ok\\x01\\x1b"),
	   "control characters as \\xNN");
	ok(strstr(svg, "&lt;b&gt;title&lt;/b&gt; &amp; \"more\"") != NULL, "the title is escaped");
	ok(strstr(svg, "id=\"unzoom\"") && strstr(svg, "id=\"search\"") &&
	   strstr(svg, "id=\"matched\"") && strstr(svg, "id=\"details\""),
	   "the interactive elements are there");
	free(svg);
	tk_flame_release(&fl);
	tk_profile_release(&p);
}

/* Every picture names what it shows and its total, in human units; the
 * palette follows the kind. */
static void check_headline(void)
{
	static const struct {
		enum tk_unit unit;
		const char *kind, *count_name;
		double total;
		const char *want;
	} cases[] = {
		{ TK_UNIT_NANOSECONDS, NULL, NULL, 341708500, "CPU time \xe2\x80\x94 342 ms" },
		{ TK_UNIT_NANOSECONDS, "cpu", NULL, 75.5e9, "CPU time \xe2\x80\x94 1m 16s" },
		{ TK_UNIT_BYTES, "alloc", NULL, 203.0 * 1024 * 1024,
		  "Allocated bytes \xe2\x80\x94 203 MiB" },
		{ TK_UNIT_BYTES, "heap_peak", NULL, 1.71486e+08, "Peak heap \xe2\x80\x94 164 MiB" },
		{ TK_UNIT_BYTES, "inuse_space", NULL, 1536, "Heap in use \xe2\x80\x94 1.50 KiB" },
		{ TK_UNIT_BYTES, NULL, NULL, 300, "Bytes \xe2\x80\x94 300 B" },
		{ TK_UNIT_COUNT, "alloc_count", NULL, 5612, "Allocations \xe2\x80\x94 5,612 allocations" },
		{ TK_UNIT_SAMPLES, "cpu", NULL, 12345, "CPU \xe2\x80\x94 12,345 samples" },
		{ TK_UNIT_SAMPLES, NULL, NULL, 4.5, "Profile \xe2\x80\x94 4.5 samples" },
		{ TK_UNIT_SAMPLES, NULL, "events", 1, "Profile \xe2\x80\x94 1 events" },
		{ TK_UNIT_SAMPLES, NULL, NULL, 190840830.00000003,
		  "Profile \xe2\x80\x94 191 M samples" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tk_buf b = TK_BUF_INIT;

		tk_render_headline(&b, cases[i].unit, cases[i].kind, cases[i].count_name,
				   cases[i].total);
		is_str(b.buf, cases[i].want, "headline %s", cases[i].want);
		tk_buf_release(&b);
	}
	is_str(tk_render_default_palette(TK_UNIT_BYTES), "mem", "bytes are drawn in mem");
	is_str(tk_render_default_palette(TK_UNIT_COUNT), "mem", "counts are drawn in mem");
	is_str(tk_render_default_palette(TK_UNIT_NANOSECONDS), "hot", "time is drawn in hot");
	is_str(tk_render_default_palette(TK_UNIT_SAMPLES), "hot", "samples are drawn in hot");
}

/* tk_render_flame: the layout and the renderer in one call, the same
 * bytes as the two steps. */
static void check_render_flame(void)
{
	static const char text[] = "main;a;b 3\nmain;a 2\nmain;c 5\n";
	struct tk_profile p;
	struct tk_flame fl;
	struct tk_flame_opts lo;
	struct tk_render_opts ro, resolved;
	struct tk_buf strings = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_renderer *r = tk_renderer_for_path("x.svg");
	char *two = NULL, *one = NULL;
	size_t len = 0;
	FILE *f;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	tk_import_mem("t.folded", text, sizeof(text) - 1, "folded", NULL, &p, &err);
	tk_flame_opts_init(&lo);
	lo.image_width = 600;
	tk_render_opts_init(&ro);
	ro.image_width = 600;
	ro.inverted = 1;
	f = open_memstream(&two, &len);
	tk_flame_layout(&p, &lo, &fl, &err);
	tk_render_opts_resolve(&ro, &p, &resolved, &strings);
	ok(!strcmp(resolved.title, "Profile \xe2\x80\x94 10 samples (icicle)") &&
	   !strcmp(resolved.palette, "hot"), "the default title is the headline, the palette hot");
	r->render(&p, &fl, &resolved, f, &err);
	fclose(f);
	tk_flame_release(&fl);
	tk_buf_release(&strings);
	f = open_memstream(&one, &len);
	is_int(tk_render_flame(r, &p, &lo, &ro, f, &err), 0, "render a flame graph in one call");
	fclose(f);
	ok(two && one && !strcmp(two, one), "the bytes of layout then render");
	ok(one && strstr(one, "width=\"600\""), "with the options given");
	free(two);
	free(one);
	tk_profile_release(&p);
}

/* The SVG of a one-frame profile of weight w in unit u. */
static char *render_unit(enum tk_unit u, double w)
{
	struct tk_profile p;
	struct tk_flame fl;
	struct tk_render_opts ro;
	struct tk_err err = TK_ERR_INIT;
	uint32_t name;
	char *svg = NULL;
	size_t len = 0;
	FILE *f;

	tk_profile_init(&p, u);
	name = tk_profile_intern(&p, "work", 4);
	tk_profile_add_stack(&p, &name, 1, w);
	tk_profile_finish(&p);
	tk_flame_layout(&p, NULL, &fl, &err);
	tk_render_opts_init(&ro);
	f = open_memstream(&svg, &len);
	tk_renderer_for_path("x.svg")->render(&p, &fl, &ro, f, &err);
	fclose(f);
	tk_flame_release(&fl);
	tk_profile_release(&p);
	return svg;
}

static void check_units(void)
{
	char *s;

	s = render_unit(TK_UNIT_NANOSECONDS, 2.5e9);
	ok(strstr(s, "<title>work (2.50 s, 100.00%)") != NULL, "nanoseconds shown as seconds");
	free(s);
	s = render_unit(TK_UNIT_NANOSECONDS, 12345678);
	ok(strstr(s, "<title>work (12.35 ms, 100.00%)") != NULL, "... or milliseconds");
	free(s);
	s = render_unit(TK_UNIT_BYTES, 3 * 1048576.0);
	ok(strstr(s, "<title>work (3.00 MiB, 100.00%)") != NULL, "bytes shown as MiB");
	free(s);
	s = render_unit(TK_UNIT_BYTES, 2048);
	ok(strstr(s, "<title>work (2.00 KiB, 100.00%)") != NULL, "... or KiB");
	free(s);
	s = render_unit(TK_UNIT_SAMPLES, 1234567);
	ok(strstr(s, "<title>work (1,234,567 samples, 100.00%)") != NULL,
	   "samples with thousands separators");
	free(s);
}

/* What tracker flame's options and --list-formats rest on. */
static void check_option_values(void)
{
	struct tk_profile a, b;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf exts = TK_BUF_INIT;
	double px = 0.1, pct = -1, v;
	char *list = NULL;
	size_t len = 0;
	FILE *f;

	is_int(tk_flame_parse_minwidth("0.5", &px, &pct), 0, "--minwidth 0.5");
	ok(px == 0.5 && pct < 0, "is pixels");
	is_int(tk_flame_parse_minwidth("2.5%", &px, &pct), 0, "--minwidth 2.5%%");
	ok(pct == 2.5 && px == 0.5, "is a percentage, pixels untouched");
	is_int(tk_flame_parse_minwidth("101%", &px, &pct), -1, "over 100%% is refused");
	is_int(tk_flame_parse_minwidth("-1", &px, &pct), -1, "a negative width is refused");
	is_int(tk_flame_parse_size("1200", &v), 0, "1200 pixels");
	is_int(tk_flame_parse_size("12px", &v), -1, "a unit is refused");
	ok(tk_palette_known("mem") && !tk_palette_known("Mem"), "palettes by exact name");
	tk_renderer_list_exts(&exts);
	ok(strstr(exts.buf, ".svg") && strstr(exts.buf, ".html") && strstr(exts.buf, ", "),
	   "the renderers' extensions: %s", exts.buf);
	tk_buf_release(&exts);

	f = open_memstream(&list, &len);
	tk_importer_list(f);
	fclose(f);
	ok(strstr(list, "\nfolded\n") || !strncmp(list, "folded\n", 7),
	   "the importers are listed, folded among them");
	free(list);

	tk_profile_init(&a, TK_UNIT_SAMPLES);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_import_pair("fixtures/folded/deep.folded", "fixtures/folded/diff.folded",
			      NULL, NULL, &a, &b, &err), 0, "import two files at once");
	ok(tk_profile_total(&a) > 0 && tk_profile_total(&b) > 0, "both have weight");
	tk_profile_release(&a);
	tk_profile_release(&b);
	tk_profile_init(&a, TK_UNIT_SAMPLES);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	ok(tk_import_pair("fixtures/folded/deep.folded", "no/such.folded", NULL, NULL, &a, &b,
			  &err) < 0 && strstr(err.msg, "no/such.folded"),
	   "the second's error names it: %s", err.msg);
	tk_profile_release(&a);
	tk_profile_release(&b);
}

int main(void)
{
	check_option_values();
	check_goldens();
	check_deep();
	check_layout_rules();
	check_palettes();
	check_renderers();
	check_svg_escaping();
	check_render_flame();
	check_headline();
	check_units();
	return done_testing();
}
