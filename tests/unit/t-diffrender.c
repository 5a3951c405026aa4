/*
 * The graphical diff renderers (plugins/diffrender/html.c, svg.c, png.c):
 * small diffs with known answers rendered to memory, checking the HTML
 * page's embedded data (values, class codes per mode, labels), the SVG's
 * frame titles and colours, escaping of hostile names in both, that the
 * SVG is well-formed (xmllint, when installed), the PNG and PDF
 * signatures, lookup by extension and write errors. The page's behaviour
 * in a browser is checked by tests/t4002-diff-browser.sh.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analyze/diff.h"
#include "core/draw/diffrender.h"
#include "core/model/import.h"
#include "plugins/diffrender/renderers.h"
#include "tests/unit/tap.h"

static const char base_folded[] =
	"main;init;parse_args 3\n"
	"main;init;load_config 7\n"
	"main;compute;kernel_a 40\n"
	"main;compute;kernel_a;helper 10\n"
	"main;compute;kernel_b 25\n"
	"main;compute 5\n"
	"main;io;write_out 8\n"
	"main;old_path 6\n"
	"other;idle 2\n";

static const char new_folded[] =
	"main;init;parse_args 3\n"
	"main;init;load_config 7\n"
	"main;compute;kernel_a 60\n"
	"main;compute;kernel_a;helper 10\n"
	"main;compute;kernel_b 10\n"
	"main;compute 5\n"
	"main;io;write_out 8\n"
	"main;brand_new 4\n"
	"other;idle 2\n";

/* Hostile names: both profiles, baseline only, new only. */
static const char hostile_base[] =
	"main;<script>alert(1)</script> 3\n"
	"main;\"q\" & 'a' &amp &lt ]]> 2\n"
	"main;bad\377\376utf8 1\n"
	"main;</script><!-- 4\n";

static const char hostile_new[] =
	"main;<script>alert(1)</script> 5\n"
	"main;\"q\" & 'a' &amp &lt ]]> 2\n"
	"main;bad\377\376utf8 2\n"
	"main;]]><script>x</script> 1\n";

struct fixture {
	struct tk_profile base, new;
	struct tk_diff d;
	struct tk_diff_opts dopts;
	int ok;
};

static int setup(struct fixture *fx, const char *b, const char *n, enum tk_diff_norm norm)
{
	const struct tk_profile *bases[1];
	struct tk_err err = TK_ERR_INIT;

	memset(fx, 0, sizeof(*fx));
	tk_profile_init(&fx->base, TK_UNIT_SAMPLES);
	tk_profile_init(&fx->new, TK_UNIT_SAMPLES);
	if (tk_import_mem("base.folded", b, strlen(b), "folded", NULL, &fx->base, &err) ||
	    tk_import_mem("new.folded", n, strlen(n), "folded", NULL, &fx->new, &err)) {
		diag(err.msg);
		return 0;
	}
	tk_profile_finish(&fx->base);
	tk_profile_finish(&fx->new);
	tk_diff_opts_init(&fx->dopts);
	fx->dopts.norm = norm;
	bases[0] = &fx->base;
	if (tk_diff_build(bases, 1, &fx->new, &fx->dopts, &fx->d, &err)) {
		diag(err.msg);
		return 0;
	}
	fx->ok = 1;
	return 1;
}

static void teardown(struct fixture *fx)
{
	if (fx->ok)
		tk_diff_release(&fx->d);
	tk_profile_release(&fx->base);
	tk_profile_release(&fx->new);
}

/* Renders with r to a string (NULL on failure). */
static char *render(const struct tk_diff_renderer *r, struct fixture *fx,
		    const struct tk_diff_render_opts *o, size_t *len_out)
{
	struct tk_err err = TK_ERR_INIT;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	int ret = tk_diff_render(r, &fx->d, &fx->dopts, o, fp, &err);

	fclose(fp);
	if (ret) {
		diag(err.msg);
		free(out);
		return NULL;
	}
	if (len_out)
		*len_out = len;
	return out;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/* The page's JSON object (between the tk-data script tags). */
static json_t *page_data(const char *page)
{
	const char *s = strstr(page, "id=\"tk-data\">"), *e;
	json_error_t jerr;
	json_t *j;

	if (!s)
		return NULL;
	s += strlen("id=\"tk-data\">");
	e = strstr(s, "</script>");
	if (!e)
		return NULL;
	j = json_loadb(s, (size_t)(e - s), 0, &jerr);
	if (!j)
		diag(jerr.text);
	return j;
}

/* Index of the first frame named name in the page data, or -1. */
static int frame_of(json_t *data, const char *name)
{
	json_t *names = json_object_get(data, "names"), *idx = json_object_get(data, "name");
	size_t i;

	for (i = 0; i < json_array_size(idx); i++) {
		json_t *nm = json_array_get(names, (size_t)json_integer_value(json_array_get(idx, i)));

		if (json_is_string(nm) && !strcmp(json_string_value(nm), name))
			return (int)i;
	}
	return -1;
}

static double num_at(json_t *data, const char *key, int i)
{
	return json_number_value(json_array_get(json_object_get(data, key), (size_t)i));
}

static void test_html(void)
{
	struct fixture fx;
	struct tk_diff_render_opts o;
	json_t *data;
	char *page;
	int i;

	if (!setup(&fx, base_folded, new_folded, TK_DIFF_NORM_NONE)) {
		ok(0, "html: build the diff");
		teardown(&fx);
		return;
	}
	tk_diff_render_opts_init(&o);
	o.base_label = "main #41 <b>";
	o.new_label = "feature & co";
	page = render(&tk_diffrender_html, &fx, &o, NULL);
	ok(page != NULL, "html: renders");
	if (!page) {
		teardown(&fx);
		return;
	}
	ok(strstr(page, "<b id=\"new-label\">feature &amp; co</b>") != NULL, "html: the new label, escaped");
	ok(strstr(page, "<b id=\"base-label\">main #41 &lt;b&gt;</b>") != NULL, "html: the base label, escaped");
	ok(strstr(page, "normalization: none") != NULL, "html: the normalization is named");
	ok(strstr(page, "id=\"legend\"") && strstr(page, "-100%") && strstr(page, "+100%"),
	   "html: a legend labelled with the saturation bound");
	ok(strstr(page, "id=\"mode-self\"") && strstr(page, "id=\"mode-cumulative\"") &&
	   strstr(page, "id=\"width-new\"") && strstr(page, "id=\"width-base\"") &&
	   strstr(page, "id=\"vanished\"") && strstr(page, "id=\"search\"") &&
	   strstr(page, "id=\"details\"") && strstr(page, "id=\"unzoom\""),
	   "html: the toggles and controls");
	ok(strstr(page, "script-src 'sha256-") != NULL, "html: a CSP with the script's hash");
	data = page_data(page);
	ok(data != NULL, "html: the embedded data is JSON");
	if (data) {
		is_str(json_string_value(json_object_get(data, "mode")), "self", "html: mode self");
		is_str(json_string_value(json_object_get(data, "width")), "new", "html: width by new");
		is_str(json_string_value(json_object_get(data, "new_label")), "feature & co",
		       "html: the label in the data");
		is_int(json_array_size(json_object_get(data, "depth")), 15,
		       "html: 15 frames (the union, root included)");
		i = frame_of(data, "compute");
		ok(i > 0 && num_at(data, "nt", i) == 85 && num_at(data, "bt", i) == 80 &&
		   num_at(data, "ns", i) == 5 && num_at(data, "bs", i) == 5,
		   "html: compute's base and new, self and total");
		ok(i > 0 && num_at(data, "cs", i) == 0, "html: compute is noise by self");
		ok(i > 0 && num_at(data, "cc", i) == 7, "html: compute is +7%% (6.25 rounded up) by total");
		i = frame_of(data, "kernel_a");
		ok(i > 0 && num_at(data, "cs", i) == 50 && num_at(data, "cc", i) == 40,
		   "html: kernel_a +50%% self, +40%% total");
		i = frame_of(data, "kernel_b");
		ok(i > 0 && num_at(data, "cs", i) == -60 && num_at(data, "cc", i) == -60,
		   "html: kernel_b -60%%");
		i = frame_of(data, "brand_new");
		ok(i > 0 && num_at(data, "cs", i) == 101 && num_at(data, "cc", i) == 101 &&
		   num_at(data, "bt", i) == 0, "html: brand_new is new");
		i = frame_of(data, "old_path");
		ok(i > 0 && num_at(data, "cs", i) == -101 && num_at(data, "nt", i) == 0 &&
		   num_at(data, "bt", i) == 6, "html: old_path vanished, kept with its baseline");
		json_decref(data);
	}
	free(page);

	/* Options reach the page. */
	o.mode = TK_DIFF_CUMULATIVE;
	o.width_by_base = 1;
	o.new_color = "#112233";
	page = render(&tk_diffrender_html, &fx, &o, NULL);
	data = page ? page_data(page) : NULL;
	ok(data && !strcmp(json_string_value(json_object_get(data, "mode")), "cumulative") &&
	   !strcmp(json_string_value(json_object_get(data, "width")), "base") &&
	   !strcmp(json_string_value(json_object_get(data, "new_color")), "#112233"),
	   "html: mode, width and new colour options");
	json_decref(data);
	free(page);
	teardown(&fx);

	/* TOTAL normalization: the baseline goes out unscaled with its factor. */
	if (setup(&fx, base_folded, new_folded, TK_DIFF_NORM_TOTAL)) {
		tk_diff_render_opts_init(&o);
		page = render(&tk_diffrender_html, &fx, &o, NULL);
		data = page ? page_data(page) : NULL;
		i = data ? frame_of(data, "kernel_a") : -1;
		ok(i > 0 && num_at(data, "bt", i) == 50 &&
		   json_number_value(json_object_get(data, "base_scale")) > 1.028 &&
		   json_number_value(json_object_get(data, "base_scale")) < 1.029,
		   "html: total normalization: raw baseline 50 and scale 109/106");
		json_decref(data);
		free(page);
	}
	teardown(&fx);
}

static void test_html_hostile(void)
{
	struct fixture fx;
	struct tk_diff_render_opts o;
	json_t *data;
	char *page;
	size_t len = 0;

	if (!setup(&fx, hostile_base, hostile_new, TK_DIFF_NORM_TOTAL)) {
		ok(0, "hostile: build the diff");
		teardown(&fx);
		return;
	}
	tk_diff_render_opts_init(&o);
	o.base_label = "</script><script>alert(2)</script>";
	o.new_label = "bad\377label";
	o.render.title = "<title>]]>";
	page = render(&tk_diffrender_html, &fx, &o, &len);
	ok(page != NULL, "hostile html: renders");
	if (!page) {
		teardown(&fx);
		return;
	}
	is_int(count(page, "<script"), 2, "hostile html: only the page's two <script elements");
	is_int(count(page, "</script"), 2, "hostile html: only the page's two </script");
	ok(!strstr(page, "<!--") && !strstr(page, "<title>]]>"), "hostile html: no comment or tag opened");
	ok(strstr(page, "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e") != NULL,
	   "hostile html: <script> as \\u003c escapes in the JSON");
	ok(strstr(page, "\\\"q\\\" \\u0026 'a' \\u0026amp \\u0026lt ]]\\u003e") != NULL,
	   "hostile html: quotes, & and ]]> escaped in the JSON");
	ok(strstr(page, "bad\\\\xff\\\\xfeutf8") != NULL,
	   "hostile html: invalid UTF-8 as the text \\xNN in the JSON, as a terminal shows it");
	ok(strstr(page, "&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;") != NULL,
	   "hostile html: the label as HTML text");
	ok(strstr(page, "bad\\xfflabel") != NULL, "hostile html: invalid UTF-8 in a label as \\xNN");
	data = page_data(page);
	ok(data && frame_of(data, "</script><!--") > 0 && frame_of(data, "]]><script>x</script>") > 0 &&
	   frame_of(data, "bad\\xff\\xfeutf8") > 0,
	   "hostile html: the names read back as shown (vanished and new ones too)");
	json_decref(data);
	free(page);
	teardown(&fx);
}

static int xmllint_ok(const char *svg, size_t len)
{
	char path[] = "/tmp/t-diffrender-XXXXXX";
	char cmd[128];
	int fd = mkstemp(path), ret;

	if (fd < 0)
		return 0;
	ret = write(fd, svg, len) == (ssize_t)len;
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	ret = ret && system(cmd) == 0;
	unlink(path);
	return ret;
}

static void test_svg(void)
{
	struct fixture fx;
	struct tk_diff_render_opts o;
	int have_xmllint = system("command -v xmllint >/dev/null 2>&1") == 0;
	char *svg;
	size_t len = 0;

	if (setup(&fx, base_folded, new_folded, TK_DIFF_NORM_NONE)) {
		tk_diff_render_opts_init(&o);
		o.base_label = "base.folded";
		o.new_label = "new.folded";
		svg = render(&tk_diffrender_svg, &fx, &o, &len);
		ok(svg != NULL, "svg: renders");
		if (svg) {
			ok(strstr(svg, "<title>kernel_a (self: base 40 samples, new 60 samples, "
				       "\xce\x94 +20 samples, +50.00%)</title>") != NULL,
			   "svg: kernel_a's details by self");
			ok(strstr(svg, "<title>compute (self: base 5 samples, new 5 samples, \xce\x94 +0 "
				       "samples, +0.00%, within noise)</title>") != NULL,
			   "svg: compute within noise by self");
			ok(strstr(svg, "+\xe2\x88\x9e%, new)</title><rect") && strstr(svg, "fill=\"#000000\""),
			   "svg: brand_new is new, black");
			ok(!strstr(svg, "<title>old_path"), "svg: no width for old_path by new");
			ok(strstr(svg, "new.folded compared with the baseline base.folded; colour: self change") != NULL,
			   "svg: says what was compared and the mode");
			ok(strstr(svg, "id=\"legend\"") != NULL, "svg: a legend");
			if (have_xmllint)
				ok(xmllint_ok(svg, len), "svg: well-formed (xmllint)");
			free(svg);
		}
		o.mode = TK_DIFF_CUMULATIVE;
		o.width_by_base = 1;
		svg = render(&tk_diffrender_svg, &fx, &o, &len);
		ok(svg && strstr(svg, "<title>compute (total: base 80 samples, new 85 samples, \xce\x94 +5 "
				      "samples, +6.25%)</title>") != NULL,
		   "svg: compute by total");
		ok(svg && strstr(svg, "<title>old_path (total: base 6 samples, new 0 samples, \xce\x94 -6 "
				      "samples, -100.00%, vanished)</title>") &&
		   strstr(svg, "fill=\"url(#vanished)\""),
		   "svg: old_path drawn vanished by baseline widths");
		if (svg && have_xmllint)
			ok(xmllint_ok(svg, len), "svg: cumulative, by base: well-formed");
		free(svg);
	}
	teardown(&fx);

	if (setup(&fx, hostile_base, hostile_new, TK_DIFF_NORM_TOTAL)) {
		tk_diff_render_opts_init(&o);
		o.base_label = "<b>&\377";
		o.render.title = "]]></script>";
		svg = render(&tk_diffrender_svg, &fx, &o, &len);
		ok(svg && strstr(svg, "<title>&lt;script&gt;alert(1)&lt;/script&gt; (") &&
		   strstr(svg, "<title>\"q\" &amp; 'a' &amp;amp &amp;lt ]]&gt; (") &&
		   strstr(svg, "<title>bad\\xff\\xfeutf8 (") &&
		   strstr(svg, "&lt;b&gt;&amp;\\xff"),
		   "hostile svg: names and labels escaped");
		ok(svg && count(svg, "]]>") == 1, "hostile svg: one ]]> (the script's)");
		if (svg && have_xmllint)
			ok(xmllint_ok(svg, len), "hostile svg: well-formed (xmllint)");
		free(svg);
	}
	teardown(&fx);
}

static void test_png_pdf(void)
{
	struct fixture fx;
	struct tk_diff_render_opts o;
	char *img;
	size_t len = 0;

	if (!setup(&fx, hostile_base, hostile_new, TK_DIFF_NORM_TOTAL)) {
		teardown(&fx);
		return;
	}
	tk_diff_render_opts_init(&o);
	img = render(&tk_diffrender_png, &fx, &o, &len);
	ok(img && len > 8 && !memcmp(img, "\x89PNG\r\n\x1a\n", 8), "png: a PNG");
	free(img);
	o.mode = TK_DIFF_CUMULATIVE;
	o.width_by_base = 1;
	img = render(&tk_diffrender_pdf, &fx, &o, &len);
	ok(img && len > 5 && !memcmp(img, "%PDF-", 5), "pdf: a PDF");
	free(img);
	teardown(&fx);
}

static void test_lookup_and_errors(void)
{
	static const struct tk_diff_renderer *const all[] = {
		&tk_diffrender_html, &tk_diffrender_svg, &tk_diffrender_png, &tk_diffrender_pdf,
	};
	struct fixture fx;
	struct tk_diff_render_opts o;
	struct tk_err err = TK_ERR_INIT;
	size_t i;

	ok(tk_diff_renderer_for_path("out/x.html") == &tk_diffrender_html, "lookup: .html");
	ok(tk_diff_renderer_for_path("x.SVG") == &tk_diffrender_svg, "lookup: .SVG");
	ok(tk_diff_renderer_for_path("x.png") == &tk_diffrender_png, "lookup: .png");
	ok(tk_diff_renderer_for_path("x.pdf") == &tk_diffrender_pdf, "lookup: .pdf");
	if (!setup(&fx, base_folded, new_folded, TK_DIFF_NORM_TOTAL)) {
		teardown(&fx);
		return;
	}
	tk_diff_render_opts_init(&o);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		FILE *full = fopen("/dev/full", "w");

		if (!full)
			continue;
		is_int(tk_diff_render(all[i], &fx.d, &fx.dopts, &o, full, &err), TK_EUNAVAIL,
		       "%s: a write error is reported", all[i]->name);
		fclose(full);
	}
	teardown(&fx);
}

int main(void)
{
	test_html();
	test_html_hostile();
	test_svg();
	test_png_pdf();
	test_lookup_and_errors();
	return done_testing();
}
