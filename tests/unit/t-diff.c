/*
 * The diff model (core/analyze/diff.h) on hand-built pairs with known answers,
 * tk_flame_layout_weights, the .folded and .txt diff renderers, and the
 * three-column output against inferno-diff-folded's goldens in the shared
 * real-data folder (skipped with a reason when it is absent).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/analyze/diff.h"
#include "core/draw/diffrender.h"
#include "core/analyze/diffsum.h"
#include "core/draw/flame.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

static int load(struct tk_profile *p, const char *text)
{
	struct tk_err err;
	int ret;

	memset(&err, 0, sizeof(err));
	tk_profile_init(p, TK_UNIT_SAMPLES);
	ret = tk_import_mem("test", text, strlen(text), "folded", NULL, p, &err);
	if (ret)
		printf("# import: %s\n", err.msg);
	tk_profile_finish(p);
	return ret;
}

/* Diff of new_text against the bases (NULL-terminated texts). */
static int build(struct tk_diff *d, const char *const *base_texts, const char *new_text,
		 const struct tk_diff_opts *o, struct tk_err *err)
{
	struct tk_profile bases[8], new;
	const struct tk_profile *bp[8];
	size_t n = 0, i;
	int ret;

	for (; base_texts[n]; n++) {
		load(&bases[n], base_texts[n]);
		bp[n] = &bases[n];
	}
	load(&new, new_text);
	memset(err, 0, sizeof(*err));
	ret = tk_diff_build(bp, n, &new, o, d, err);
	if (ret)
		printf("# diff: %s\n", err->msg);
	for (i = 0; i < n; i++)
		tk_profile_release(&bases[i]);
	tk_profile_release(&new);
	return ret;
}

static int build1(struct tk_diff *d, const char *base, const char *new_text,
		  const struct tk_diff_opts *o)
{
	const char *bases[2] = { base, NULL };
	struct tk_err err;

	return build(d, bases, new_text, o, &err);
}

/* The union node of a ';'-separated path, or 0. */
static uint32_t find(const struct tk_diff *d, const char *path)
{
	const struct tk_profile *p = &d->tree;
	uint32_t at = TK_PROFILE_ROOT;
	const char *s = path;

	while (*s) {
		const char *e = strchr(s, ';');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		uint32_t c;

		for (c = p->nodes[at].first_child; c; c = p->nodes[c].next_sibling)
			if (p->name_lens[p->nodes[c].name] == len &&
			    !memcmp(p->names[p->nodes[c].name], s, len))
				break;
		if (!c)
			return 0;
		at = c;
		s += len;
		if (*s)
			s++;
	}
	return at;
}

static enum tk_diff_class cls(const struct tk_diff *d, const char *path,
			      enum tk_diff_mode mode, const struct tk_diff_opts *o,
			      double *intensity)
{
	uint32_t n = find(d, path);

	if (!n) {
		printf("# no node %s\n", path);
		return (enum tk_diff_class)-1;
	}
	return tk_diff_classify(d, n, mode, o, intensity);
}

static int close_to(double got, double want, double tol)
{
	if (fabs(got - want) <= tol)
		return 1;
	printf("#   got %.17g, expected %.17g\n", got, want);
	return 0;
}

/* The renderer's output for ext, malloc'd. */
static char *render(const struct tk_diff *d, const struct tk_diff_opts *o, const char *ext,
		    const struct tk_diff_render_opts *ro)
{
	const struct tk_diff_renderer *r = tk_diff_renderer_for_path(ext);
	struct tk_diff_render_opts defaults;
	struct tk_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!r)
		return NULL;
	if (!ro) {
		tk_diff_render_opts_init(&defaults);
		ro = &defaults;
	}
	f = open_memstream(&buf, &len);
	memset(&err, 0, sizeof(err));
	if (tk_diff_render(r, d, o, ro, f, &err))
		printf("# render: %s\n", err.msg);
	fclose(f);
	return buf;
}

static void test_new_and_vanished(void)
{
	struct tk_diff_opts o;
	struct tk_diff d;
	double x = -1;
	char *s;

	tk_diff_opts_init(&o);
	o.norm = TK_DIFF_NORM_NONE;
	build1(&d, "a;b 10\na;c 4\n", "a;b 10\na;n 5\n", &o);
	is_int(cls(&d, "a;n", TK_DIFF_SELF, &o, &x), TK_DIFF_NEW, "a frame absent from the baseline is NEW");
	ok(x == 1, "NEW has intensity 1");
	is_int(cls(&d, "a;n", TK_DIFF_CUMULATIVE, &o, NULL), TK_DIFF_NEW, "NEW in cumulative mode too");
	ok(d.base_total[find(&d, "a;n")] == 0 && tk_diff_new_total(&d, find(&d, "a;n")) == 5,
	   "NEW frame: base 0, new 5");
	is_int(cls(&d, "a;c", TK_DIFF_SELF, &o, &x), TK_DIFF_VANISHED,
	       "a frame absent from new is VANISHED");
	ok(d.base_total[find(&d, "a;c")] == 4 && tk_diff_new_total(&d, find(&d, "a;c")) == 0,
	   "the vanished frame keeps its base total");
	is_int(cls(&d, "a;b", TK_DIFF_SELF, &o, &x), TK_DIFF_NOISE, "an unchanged frame is NOISE");
	ok(x == 0, "NOISE has intensity 0");
	ok(d.base_sum == 14 && d.new_sum == 15, "sums: base 14, new 15");
	s = render(&d, &o, "x.folded", NULL);
	is_str(s, "a;b 10 10\na;c 4 0\na;n 0 5\n", ".folded: the union, three columns, sorted");
	free(s);
	tk_diff_release(&d);
}

static void test_recursion_and_paths(void)
{
	struct tk_diff_opts o;
	struct tk_diff d;

	tk_diff_opts_init(&o);
	o.norm = TK_DIFF_NORM_NONE;
	build1(&d, "a;a;a 6\na;a 2\n", "a;a 3\n", &o);
	ok(find(&d, "a") && find(&d, "a;a") && find(&d, "a;a;a") && d.tree.nr_nodes == 4,
	   "recursion: a, a;a, a;a;a are three frames");
	ok(d.base_self[find(&d, "a;a;a")] == 6 && d.base_self[find(&d, "a;a")] == 2 &&
	   tk_diff_new_self(&d, find(&d, "a;a")) == 3, "recursion: per-path self values kept");
	ok(d.base_total[find(&d, "a;a")] == 8 && tk_diff_new_total(&d, find(&d, "a;a")) == 3,
	   "recursion: per-path totals kept");
	is_int(cls(&d, "a;a", TK_DIFF_SELF, &o, NULL), TK_DIFF_UP, "a;a self went up (2 -> 3)");
	is_int(cls(&d, "a;a", TK_DIFF_CUMULATIVE, &o, NULL), TK_DIFF_DOWN,
	       "a;a cumulative went down (8 -> 3): the modes differ");
	is_int(cls(&d, "a;a;a", TK_DIFF_SELF, &o, NULL), TK_DIFF_VANISHED, "a;a;a vanished");
	tk_diff_release(&d);

	build1(&d, "a;f 10\nb;f 2\n", "a;f 5\nb;f 4\n", &o);
	ok(d.base_self[find(&d, "a;f")] == 10 && tk_diff_new_self(&d, find(&d, "a;f")) == 5 &&
	   d.base_self[find(&d, "b;f")] == 2 && tk_diff_new_self(&d, find(&d, "b;f")) == 4,
	   "f under a and under b keep separate values");
	is_int(cls(&d, "a;f", TK_DIFF_SELF, &o, NULL), TK_DIFF_DOWN, "f under a: DOWN");
	is_int(cls(&d, "b;f", TK_DIFF_SELF, &o, NULL), TK_DIFF_UP, "f under b: UP");
	tk_diff_release(&d);
}

static void test_normalized_names(void)
{
	struct tk_diff_opts o;
	struct tk_diff d;

	tk_diff_opts_init(&o);
	o.norm = TK_DIFF_NORM_NONE;
	build1(&d, "main;foo<int> 5\n", "main;foo<long> 7\n", &o);
	ok(find(&d, "main;foo<int>") && find(&d, "main;foo<long>"),
	   "without normalization the renamed frame is two frames");
	is_int(cls(&d, "main;foo<long>", TK_DIFF_SELF, &o, NULL), TK_DIFF_NEW, "... one NEW");
	is_int(cls(&d, "main;foo<int>", TK_DIFF_SELF, &o, NULL), TK_DIFF_VANISHED,
	       "... one VANISHED");
	tk_diff_release(&d);

	o.normalize_flags = TK_NORM_TEMPLATES;
	build1(&d, "main;foo<int> 5\n", "main;foo<long> 7\n", &o);
	ok(find(&d, "main;foo<>") && !find(&d, "main;foo<int>") && d.tree.nr_nodes == 3,
	   "templates: foo<int> and foo<long> match as foo<>");
	ok(d.base_self[find(&d, "main;foo<>")] == 5 &&
	   tk_diff_new_self(&d, find(&d, "main;foo<>")) == 7,
	   "... with base 5 and new 7");
	is_int(cls(&d, "main;foo<>", TK_DIFF_SELF, &o, NULL), TK_DIFF_UP, "... UP");
	tk_diff_release(&d);

	build1(&d, "a;foo<int> 2\na;foo<long> 3\n", "a;foo<char> 1\n", &o);
	ok(d.base_self[find(&d, "a;foo<>")] == 5 && tk_diff_new_self(&d, find(&d, "a;foo<>")) == 1,
	   "siblings that normalize alike add up");
	tk_diff_release(&d);

	o.normalize_flags = TK_NORM_JULIA;
	build1(&d, "main;#f#12 4\n", "main;#f#13 4\n", &o);
	ok(find(&d, "main;#f#N") && d.tree.nr_nodes == 3, "julia: #f#12 and #f#13 match");
	is_int(cls(&d, "main;#f#N", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE, "... unchanged");
	tk_diff_release(&d);
}

static int all_finite(const struct tk_diff *d)
{
	uint32_t i;

	for (i = 0; i < d->tree.nr_nodes; i++)
		if (!isfinite(d->base_self[i]) || !isfinite(d->base_total[i]) ||
		    !isfinite(tk_diff_new_self(d, i)) || !isfinite(tk_diff_new_total(d, i)) ||
		    !isfinite(d->spread_self[i]) || !isfinite(d->spread_total[i]))
			return 0;
	return isfinite(d->base_scale) && isfinite(d->base_sum) && isfinite(d->new_sum);
}

static void test_zero_baseline(void)
{
	const char *three[] = { "a;b 0\n", "a;b 4\n", "a;b 6\n", NULL };
	struct tk_diff_opts o;
	struct tk_diff d;
	struct tk_err err;
	double x = -1;
	uint32_t i;
	int all_new = 1, ret;

	tk_diff_opts_init(&o);
	o.norm = TK_DIFF_NORM_TOTAL;
	ret = build1(&d, "a;b 0\na;c 0\n", "a;b 3\na;d 2\n", &o);
	is_int(ret, 0, "an all-zero baseline is accepted under TOTAL");
	ok(d.base_scale == 1, "... its scale is 1 (nothing to scale)");
	ok(all_finite(&d), "... no NaN or inf anywhere");
	for (i = 1; i < d.tree.nr_nodes; i++)
		if (tk_diff_new_total(&d, i) > 0 &&
		    tk_diff_classify(&d, i, TK_DIFF_SELF, &o, &x) != TK_DIFF_NEW)
			all_new = 0;
	ok(all_new, "... every frame of new is NEW");
	ok(x == 1, "... with intensity 1");
	is_int(cls(&d, "a;c", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE,
	       "... a zero frame in both is NOISE");
	tk_diff_release(&d);

	ret = build(&d, three, "a;b 5\n", &o, &err);
	is_int(d.nr_base, 2, "an empty baseline among three is left out of the mean");
	ok(close_to(d.base_self[find(&d, "a;b")], 5, 1e-12) &&
	   close_to(d.spread_self[find(&d, "a;b")], 0, 1e-12),
	   "... TOTAL-scaled 4 and 6 to 5 each: mean 5, spread 0");
	tk_diff_release(&d);

	o.norm = TK_DIFF_NORM_WALLTIME;
	ret = build1(&d, "a 1\n", "a 2\n", &o);
	is_int(ret, TK_EUSAGE, "WALLTIME without walltimes is a usage error");
	ok(d.tree.nodes == NULL && d.base_self == NULL, "... and leaves out empty");
	tk_diff_release(&d);
}

static void test_totals(void)
{
	struct tk_diff_opts o;
	struct tk_diff d;
	uint32_t x, y;

	tk_diff_opts_init(&o);
	ok(o.norm == TK_DIFF_NORM_NONE, "the default: values as measured (NONE)");
	o.norm = TK_DIFF_NORM_TOTAL;
	build1(&d, "x 14\ny 51\n", "x 13\ny 67\n", &o);
	x = find(&d, "x");
	y = find(&d, "y");
	ok(d.base_scale == 80.0 / 65.0, "TOTAL: the scale is new/base = 80/65 as a double");
	ok(d.base_self[x] == 14.0 * 80.0 / 65.0 && d.base_self[y] == 51.0 * 80.0 / 65.0,
	   "TOTAL: each weight is w * 80 / 65, not truncated");
	ok(close_to(d.base_sum, 80, 1e-9) && d.new_sum == 80, "TOTAL: the totals match");
	tk_diff_release(&d);

	o.norm = TK_DIFF_NORM_NONE;
	build1(&d, "x 14\ny 51\n", "x 13\ny 67\n", &o);
	ok(d.base_self[find(&d, "x")] == 14 && d.base_scale == 1 && d.base_sum == 65,
	   "NONE: raw weights");
	tk_diff_release(&d);

	o.norm = TK_DIFF_NORM_WALLTIME;
	o.base_walltime_s = 2;
	o.new_walltime_s = 3;
	build1(&d, "x 14\ny 51\n", "x 13\ny 67\n", &o);
	ok(d.base_self[find(&d, "x")] == 21 && d.base_scale == 1.5 && d.base_sum == 97.5,
	   "WALLTIME: scaled by 3 s / 2 s");
	tk_diff_release(&d);
}

static void test_three_baselines(void)
{
	const char *bases[] = { "a;b 10\na;c 5\na;z 3\n", "a;b 12\na;c 5\n", "a;b 14\na;c 5\n",
				NULL };
	struct tk_diff_opts o;
	struct tk_diff d;
	struct tk_err err;
	uint32_t b, z, a;

	tk_diff_opts_init(&o);
	o.spread_k = 2;
	o.norm = TK_DIFF_NORM_NONE;
	build(&d, bases, "a;b 15\na;c 5\n", &o, &err);
	b = find(&d, "a;b");
	z = find(&d, "a;z");
	a = find(&d, "a");
	is_int(d.nr_base, 3, "three baselines aggregated");
	ok(close_to(d.base_self[b], 12, 1e-12) && close_to(d.spread_self[b], 2, 1e-12),
	   "a;b: mean 12, sample std dev 2");
	ok(close_to(d.base_self[z], 1, 1e-12) && close_to(d.spread_self[z], sqrt(3), 1e-12),
	   "a;z in one baseline of three: mean 1, std dev sqrt(3) (missing counts as 0)");
	ok(close_to(d.base_total[a], 18, 1e-12) && close_to(d.spread_total[a], 1, 1e-12),
	   "a cumulative: totals 18, 17, 19: mean 18, std dev 1");
	ok(d.spread_self[find(&d, "a;c")] == 0, "a;c, the same in all three: spread 0");
	is_int(cls(&d, "a;b", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE,
	       "a;b 12 -> 15: within 2 sd x sqrt(1 + 1/3) (4.62), NOISE");
	tk_diff_release(&d);

	/* the pooled noise of 18 is sqrt(1/3 * 18) = 2.45, above the spread 2 */
	build(&d, bases, "a;b 18\na;c 5\n", &o, &err);
	is_int(cls(&d, "a;b", TK_DIFF_SELF, &o, NULL), TK_DIFF_UP,
	       "a;b 12 -> 18: beyond 2 sd x sqrt(1 + 1/3) (5.66), UP");
	o.spread_k = 3;
	is_int(cls(&d, "a;b", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE, "... within 3 sd x sqrt(1 + 1/3) (8.49): NOISE");
	o.spread_k = 2;
	tk_diff_release(&d);

	build(&d, bases, "a;b 7\na;c 5\n", &o, &err);
	is_int(cls(&d, "a;b", TK_DIFF_SELF, &o, NULL), TK_DIFF_DOWN, "a;b 12 -> 7: DOWN");
	tk_diff_release(&d);
}

static void test_noise_and_intensity(void)
{
	struct tk_diff_opts o;
	struct tk_diff d;
	double x = -1;

	tk_diff_opts_init(&o);
	o.norm = TK_DIFF_NORM_NONE;
	build1(&d, "a 10\n", "a 12\n", &o);
	o.min_delta = 3;
	is_int(cls(&d, "a", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE, "|delta| 2 < min_delta 3: NOISE");
	o.min_delta = 2;
	is_int(cls(&d, "a", TK_DIFF_SELF, &o, &x), TK_DIFF_UP, "|delta| 2, min_delta 2: UP");
	ok(close_to(x, 0.2, 1e-12), "intensity |delta| / base = 0.2");
	o.min_delta = 0;
	tk_diff_release(&d);

	build1(&d, "a;b 10\n", "a;b 15\n", &o);
	cls(&d, "a;b", TK_DIFF_SELF, &o, &x);
	ok(close_to(x, 0.5, 1e-12), "+50%%: intensity 0.5");
	o.saturation = 2;
	cls(&d, "a;b", TK_DIFF_SELF, &o, &x);
	ok(close_to(x, 0.25, 1e-12), "+50%% with saturation 2 (200%%): 0.25");
	o.saturation = 0.25;
	cls(&d, "a;b", TK_DIFF_SELF, &o, &x);
	ok(x == 1, "+50%% with saturation 0.25: clamped at 1");
	o.saturation = 1;
	tk_diff_release(&d);

	build1(&d, "a;b 10\n", "a;b 40\n", &o);
	cls(&d, "a;b", TK_DIFF_SELF, &o, &x);
	ok(x == 1, "+300%%: clamped at 1");
	tk_diff_release(&d);

	build1(&d, "a;b 10\n", "a;b 5\n", &o);
	is_int(cls(&d, "a;b", TK_DIFF_SELF, &o, &x), TK_DIFF_DOWN, "-50%%: DOWN");
	ok(close_to(x, 0.5, 1e-12), "... intensity 0.5");
	tk_diff_release(&d);

	/* self moves, cumulative does not */
	build1(&d, "a;b 10\n", "a;b 5\na 5\n", &o);
	is_int(cls(&d, "a", TK_DIFF_SELF, &o, &x), TK_DIFF_UP, "a gains self weight: self UP");
	ok(x == 1, "... from a base self of 0: full intensity");
	is_int(cls(&d, "a", TK_DIFF_CUMULATIVE, &o, NULL), TK_DIFF_NOISE,
	       "... its cumulative 10 -> 10 is NOISE");
	is_int(cls(&d, "a;b", TK_DIFF_CUMULATIVE, &o, NULL), TK_DIFF_DOWN, "a;b cumulative DOWN");
	tk_diff_release(&d);
}

static void test_layout(void)
{
	struct tk_diff_opts o;
	struct tk_diff d;
	double *nw;
	uint32_t n;
	struct tk_flame f;
	struct tk_err err;
	int ret;

	tk_diff_opts_init(&o);
	o.norm = TK_DIFF_NORM_NONE;
	build1(&d, "a;b 10\na;c 4\na 2\n", "a;b 10\na 1\n", &o);
	memset(&err, 0, sizeof(err));
	ret = tk_flame_layout_weights(&d.tree, d.base_total, NULL, &f, &err);
	is_int(ret, 0, "layout by base");
	is_int(f.nr, 4, "... root, a, a;b, a;c");
	ok(f.total == 16 && f.nr == 4 && f.frames[1].width == 16 &&
	   f.frames[2].node == find(&d, "a;b") && f.frames[2].start == 2 &&
	   f.frames[2].width == 10 && f.frames[3].node == find(&d, "a;c") &&
	   f.frames[3].start == 12 && f.frames[3].width == 4,
	   "... a's own 2 first, then b at 2 (10 wide), c at 12 (4 wide)");
	tk_flame_release(&f);
	nw = tk_xcalloc(d.tree.nr_nodes, sizeof(*nw));
	for (n = 0; n < d.tree.nr_nodes; n++)
		nw[n] = tk_diff_new_total(&d, n);
	ret = tk_flame_layout_weights(&d.tree, nw, NULL, &f, &err);
	free(nw);
	is_int(ret, 0, "layout by new");
	ok(f.total == 11 && f.nr == 3 && f.frames[2].node == find(&d, "a;b") &&
	   f.frames[2].start == 1 && f.frames[2].width == 10,
	   "... the vanished a;c (zero total) left out, b after a's own 1");
	tk_flame_release(&f);
	ret = tk_flame_layout(&d.tree, NULL, &f, &err);
	ok(!ret && f.nr == 3 && f.total == 11, "the union tree lays out by new with tk_flame_layout");
	tk_flame_release(&f);
	tk_diff_release(&d);
}

static void test_renderers(void)
{
	struct tk_diff_render_opts ro;
	struct tk_diff_opts o;
	struct tk_profile base, new;
	const struct tk_profile *bp[1];
	struct tk_diff d;
	struct tk_err err;
	uint32_t names[3];
	char *s;

	ok(tk_diff_renderer_for_path("out/x.FOLDED") != NULL &&
	   tk_diff_renderer_for_path("x.txt") != NULL && !tk_diff_renderer_for_path("x.gif") &&
	   !tk_diff_renderer_for_path("folded"), "renderers by extension");

	tk_diff_opts_init(&o);
	o.norm = TK_DIFF_NORM_TOTAL;
	build1(&d, "x 14\ny 50.9\nz 0.1\n", "x 13\ny 67\n", &o);
	s = render(&d, &o, "x.folded", NULL);
	{
		const char *x = s ? strstr(s, "x ") : NULL, *z = s ? strstr(s, "\nz ") : NULL;

		/* 15 significant digits: what a double holds of a decimal,
		 * without the noise of the 16th and 17th */
		ok(x && z && fabs(strtod(x + 2, NULL) / (14 * 80.0 / 65.0) - 1) < 1e-14 &&
		   fabs(strtod(z + 3, NULL) / (0.1 * 80.0 / 65.0) - 1) < 1e-14 &&
		   !strstr(s, "e+") && strstr(s, "x 17.2307692307692 13\n"),
		   ".folded: scaled weights read back to 15 significant digits");
		ok(s && strstr(s, " 13\n") && strstr(s, " 67\n"), ".folded: integers as integers");
	}
	free(s);
	tk_diff_release(&d);

	/* hostile names: a newline inside a frame name */
	tk_profile_init(&base, TK_UNIT_SAMPLES);
	tk_profile_init(&new, TK_UNIT_SAMPLES);
	names[0] = tk_profile_intern(&base, "main", 4);
	names[1] = tk_profile_intern(&base, "evil\nname\r", 11);
	tk_profile_add_stack(&base, names, 2, 10);
	names[0] = tk_profile_intern(&new, "main", 4);
	names[1] = tk_profile_intern(&new, "evil\nname\r", 11);
	names[2] = tk_profile_intern(&new, "leaf", 4);
	tk_profile_add_stack(&new, names, 2, 30);
	tk_profile_add_stack(&new, names, 3, 7);
	names[1] = tk_profile_intern(&new, "gone", 4);
	tk_profile_finish(&base);
	names[1] = tk_profile_intern(&base, "gone", 4);
	tk_profile_add_stack(&base, names, 2, 5);
	tk_profile_finish(&base);
	tk_profile_finish(&new);
	bp[0] = &base;
	o.norm = TK_DIFF_NORM_NONE;
	memset(&err, 0, sizeof(err));
	is_int(tk_diff_build(bp, 1, &new, &o, &d, &err), 0, "diff of hand-built profiles");
	s = render(&d, &o, "x.folded", NULL);
	is_str(s, "main;evil\\x0aname\\x0d\\0 10 30\nmain;evil\\x0aname\\x0d\\0;leaf 0 7\n"
	       "main;gone 5 0\n",
	       ".folded: one line per stack whatever the names hold, escaped");
	free(s);
	tk_diff_render_opts_init(&ro);
	ro.base_label = "main #41 3f2a9c1e";
	ro.new_label = "pr-7 #42\n";
	s = render(&d, &o, "x.txt", &ro);
	ok(s && strstr(s, "Graph\nsamples 15 -> 37 (+146.7%)\nbase: ") &&
	   strstr(s, "main #41 3f2a9c1e") && !strstr(s, "scaled"),
	   ".txt: the totals first, then the labels; nothing scaled");
	/* the name holds a NUL too (11 bytes): interned as "\0" */
	ok(s && strstr(s, "+20  +200.0%  evil\\x0aname\\x0d\\0 <- main\n") &&
	   strstr(s, "+7      new  leaf <- evil\\x0aname\\x0d\\0 <- main\n") &&
	   strstr(s, "-5  -100.0%  gone <- main\n"),
	   ".txt: increases and decreases with base, new, delta, delta%% and the path");
	ok(s && !strstr(s, "evil\n") && !strstr(s, "\r") && !strstr(s, "#42\n"),
	   ".txt: no raw newline from a name or label");
	ok(s && strstr(s, "self increases") && strstr(s, "self decreases") &&
	   strstr(s, "evil\\x0aname\\x0d\\0 <- main") < strstr(s, "leaf <- evil"),
	   ".txt: increases ranked by absolute delta");
	free(s);
	tk_diff_release(&d);
	tk_profile_release(&base);
	tk_profile_release(&new);
}

/* Our .folded output with both weights truncated to integers, sorted. */
static char *truncated(const char *text)
{
	struct tk_buf out = TK_BUF_INIT;
	char *copy = tk_xstrdup(text), *line = copy, *sorted;

	while (*line) {
		char *nl = strchr(line, '\n'), *sp2, *sp1;

		if (nl)
			*nl = 0;
		sp2 = strrchr(line, ' ');
		*sp2 = 0;
		sp1 = strrchr(line, ' ');
		*sp1 = 0;
		tk_buf_addf(&out, "%s %lld %lld\n", line, (long long)strtod(sp1 + 1, NULL),
			    (long long)strtod(sp2 + 1, NULL));
		if (!nl)
			break;
		line = nl + 1;
	}
	free(copy);
	sorted = dump_sort_lines(out.buf);
	tk_buf_release(&out);
	return sorted;
}

static void golden(const char *before, const char *after, const char *result,
		   enum tk_diff_norm norm, unsigned flags, int truncate, const char *what)
{
	char *bp = dump_shared(before), *ap = dump_shared(after), *rp = dump_shared(result);
	char *btext, *atext, *raw, *want, *got, *s;
	struct tk_diff_opts o;
	struct tk_diff d;

	if (!bp || !ap || !rp) {
		skip(1, "%s: ../shared/real-data/diff-folded-golden is absent", what);
		free(bp), free(ap), free(rp);
		return;
	}
	btext = dump_read(bp);
	atext = dump_read(ap);
	raw = dump_read(rp);
	want = dump_sort_lines(raw);
	free(raw);
	tk_diff_opts_init(&o);
	o.norm = norm;
	o.normalize_flags = flags;
	build1(&d, btext, atext, &o);
	s = render(&d, &o, "x.folded", NULL);
	got = truncate ? truncated(s) : dump_sort_lines(s);
	is_str(got, want, "%s", what);
	free(s);
	free(got);
	free(want);
	free(btext);
	free(atext);
	free(bp), free(ap), free(rp);
	tk_diff_release(&d);
}

static void test_goldens(void)
{
	const char *g = "real-data/diff-folded-golden/";
	char b[128], a[128], r[128];

	snprintf(b, sizeof(b), "%sbefore.txt", g);
	snprintf(a, sizeof(a), "%safter.txt", g);
	snprintf(r, sizeof(r), "%sresults/default.txt", g);
	golden(b, a, r, TK_DIFF_NORM_NONE, 0, 0,
	       "inferno-diff-folded default: --normalize none gives exactly its output");
	/*
	 * -n scales the before counts to the after total and inferno then
	 * truncates them to integers (14 * 80 / 65 = 17.23 -> 17); we keep the
	 * float 17.230769230769234 on purpose. So this one compares our output
	 * with both columns truncated: the same numbers before the truncation.
	 */
	snprintf(r, sizeof(r), "%sresults/normalize.txt", g);
	golden(b, a, r, TK_DIFF_NORM_TOTAL, 0, 1,
	       "inferno-diff-folded -n: --normalize total, equal after truncating our floats");
	/* -s strips hex addresses to "0x..."; TK_NORM_HEX writes the same text. */
	snprintf(r, sizeof(r), "%sresults/strip_hex.txt", g);
	golden(b, a, r, TK_DIFF_NORM_NONE, TK_NORM_HEX, 0,
	       "inferno-diff-folded -s: hex normalization gives exactly its output");
	/* inferno truncates fractional input counts (11.98 -> 11); we keep them. */
	snprintf(b, sizeof(b), "%sbefore_fractionals.txt", g);
	snprintf(r, sizeof(r), "%sresults/fractionals.txt", g);
	golden(b, a, r, TK_DIFF_NORM_NONE, 0, 1,
	       "inferno-diff-folded fractionals: equal after truncating our fractional counts");
}

/* A sampled profile: every weight a Poisson-ish count around `mean`. */
static void test_pooled_noise(void)
{
	/* five baselines of four frames whose counts wobble as sampling does
	 * (about sqrt(n)), and a new run where only f2 doubles */
	const char *bases[] = {
		"m;f1 100\nm;f2 400\nm;f3 900\nm;f4 30\n",
		"m;f1 112\nm;f2 385\nm;f3 880\nm;f4 36\n",
		"m;f1 91\nm;f2 420\nm;f3 931\nm;f4 25\n",
		"m;f1 104\nm;f2 396\nm;f3 905\nm;f4 33\n",
		"m;f1 97\nm;f2 410\nm;f3 890\nm;f4 28\n", NULL,
	};
	struct tk_diff_opts o;
	struct tk_diff d;
	struct tk_err err;

	tk_diff_opts_init(&o);
	is_int(build(&d, bases, "m;f1 120\nm;f2 800\nm;f3 870\nm;f4 40\nm;f5 1\n", &o, &err), 0,
	       "five sampled baselines");
	ok(d.dispersion > 0.3 && d.dispersion < 3, "the pooled dispersion is about one count "
	   "per count (%g)", d.dispersion);
	is_int(cls(&d, "m;f2", TK_DIFF_SELF, &o, NULL), TK_DIFF_UP, "f2 doubled: UP");
	is_int(cls(&d, "m;f1", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE, "f1 +19%% of 100: noise");
	is_int(cls(&d, "m;f3", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE, "f3 -3.5%%: noise");
	is_int(cls(&d, "m;f4", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE,
	       "f4 +32%% of 30, where one run's spread is small: the pooled noise keeps it grey");
	is_int(cls(&d, "m;f5", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE,
	       "f5, one sample new run caught: noise, not NEW");
	ok(tk_diff_noise_band(&d, 100, 0, &o) > 0, "the band of a frame without spread is not 0");
	tk_diff_release(&d);

	build1(&d, "m;f1 100\n", "m;f1 101\nm;f5 1\n", &o);
	ok(d.dispersion == 0 && tk_diff_noise_band(&d, 100, 0, &o) == 0,
	   "one baseline: no noise floor");
	is_int(cls(&d, "m;f5", TK_DIFF_SELF, &o, NULL), TK_DIFF_NEW, "... so f5 is NEW");
	tk_diff_release(&d);
}

/* ---- the known sampling dispersion ---- */

/* Five baselines of three frames that happen to agree to 1%, in bytes,
 * each sampled with a known dispersion of 1000 bytes per byte (a frame of
 * 100000 bytes varies by 10%), and a new run. */
static void known_build(struct tk_diff *d, double dispersion, const char *new_text,
			const struct tk_diff_opts *o)
{
	static const char *const texts[] = {
		"m;f1 100000\nm;f2 100000\nm;f3 100000\n",
		"m;f1 101000\nm;f2 99000\nm;f3 100500\n",
		"m;f1 99000\nm;f2 100500\nm;f3 99500\n",
		"m;f1 100500\nm;f2 101000\nm;f3 100000\n",
		"m;f1 99500\nm;f2 99500\nm;f3 100000\n",
	};
	struct tk_profile bases[5], new;
	const struct tk_profile *bp[5];
	struct tk_err err = TK_ERR_INIT;
	size_t i;

	for (i = 0; i < 5; i++) {
		load(&bases[i], texts[i]);
		bases[i].unit = TK_UNIT_BYTES;
		bases[i].dispersion = dispersion;
		bp[i] = &bases[i];
	}
	load(&new, new_text);
	new.unit = TK_UNIT_BYTES;
	new.dispersion = dispersion;
	if (tk_diff_build(bp, 5, &new, o, d, &err))
		printf("# diff: %s\n", err.msg);
	for (i = 0; i < 5; i++)
		tk_profile_release(&bases[i]);
	tk_profile_release(&new);
}

static void test_known_dispersion(void)
{
	const char *new_text = "m;f1 80000\nm;f2 150000\nm;f3 100000\n";
	struct tk_diff_opts o;
	struct tk_diff d;

	tk_diff_opts_init(&o);
	known_build(&d, 0, new_text, &o);
	ok(d.dispersion < 100, "baselines that agree by chance: a pooled dispersion far "
	   "under the sampling's (%g)", d.dispersion);
	is_int(cls(&d, "m;f1", TK_DIFF_SELF, &o, NULL), TK_DIFF_DOWN,
	       "... so without the profiler's word a 2-sigma wobble is DOWN");
	tk_diff_release(&d);

	known_build(&d, 1000, new_text, &o);
	ok(d.dispersion == 1000, "the profiles' known dispersion is the floor (%g)",
	   d.dispersion);
	is_int(cls(&d, "m;f1", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE,
	       "f1 -20%%, two sampling sd: noise");
	is_int(cls(&d, "m;f2", TK_DIFF_SELF, &o, NULL), TK_DIFF_UP, "f2 +50%%: UP");
	is_int(cls(&d, "m;f3", TK_DIFF_SELF, &o, NULL), TK_DIFF_NOISE, "f3 unchanged: noise");
	tk_diff_release(&d);

	o.norm = TK_DIFF_NORM_TOTAL;
	known_build(&d, 1000, new_text, &o);
	/* the lightest baseline, 299000 bytes, is scaled the most */
	ok(close_to(d.dispersion, 1000 * 330000.0 / 299000.0, 1e-6),
	   "a baseline scaled by c brings c times its dispersion (%g)", d.dispersion);
	tk_diff_release(&d);
}

/* splitmix64: a fixed sequence, so the counts below are the same on every
 * machine. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * One run of the known-answer model as the allocation sampler sees it:
 * three frames allocating 2048, 1536 and 1280 blocks of 64 KiB, each
 * sampled with probability q = 1 - exp(-1/8) (512 KiB mean interval) and
 * then weighing 64 KiB / q, with the dispersion the profiler stores.
 */
static void sampled_run(struct tk_profile *p, uint64_t *rng, int known)
{
	static const unsigned blocks[3] = { 2048, 1536, 1280 };
	static const char *const names[3] = { "f1", "f2", "f3" };
	const double size = 65536, mean = 524288, q = -expm1(-size / mean);
	uint32_t m, n;
	unsigned f, b, hits;

	tk_profile_init(p, TK_UNIT_BYTES);
	m = tk_profile_child(p, TK_PROFILE_ROOT, tk_profile_intern(p, "m", 1));
	for (f = 0; f < 3; f++) {
		for (hits = 0, b = 0; b < blocks[f]; b++)
			hits += (double)(rng_next(rng) >> 11) * 0x1p-53 < q;
		n = tk_profile_child(p, m, tk_profile_intern(p, names[f], 2));
		tk_profile_add_self(p, n, hits * size / q);
	}
	p->dispersion = known ? size / expm1(size / mean) : 0;
	tk_profile_finish(p);
}

/*
 * Unchanged frames let out of the noise band over many sampled diffs of
 * five baselines against one run: three frames' pooled estimate alone is
 * too often low (about 1.4% of frames out), the known dispersion under it
 * keeps them near what a 3.3-sigma band gives (about 0.1%).
 */
static void test_sampled_false_changes(void)
{
	const unsigned trials = 2000;
	unsigned out[2] = { 0, 0 }, t, k, f;
	struct tk_diff_opts o;

	tk_diff_opts_init(&o);
	for (k = 0; k < 2; k++) {
		uint64_t rng = 42;

		for (t = 0; t < trials; t++) {
			struct tk_profile bases[5], new;
			const struct tk_profile *bp[5];
			struct tk_err err = TK_ERR_INIT;
			struct tk_diff d;

			for (f = 0; f < 5; f++) {
				sampled_run(&bases[f], &rng, k);
				bp[f] = &bases[f];
			}
			sampled_run(&new, &rng, k);
			if (tk_diff_build(bp, 5, &new, &o, &d, &err)) {
				printf("# diff: %s\n", err.msg);
				out[k] = trials * 3;
			} else {
				out[k] += cls(&d, "m;f1", TK_DIFF_SELF, &o, NULL) != TK_DIFF_NOISE;
				out[k] += cls(&d, "m;f2", TK_DIFF_SELF, &o, NULL) != TK_DIFF_NOISE;
				out[k] += cls(&d, "m;f3", TK_DIFF_SELF, &o, NULL) != TK_DIFF_NOISE;
				tk_diff_release(&d);
			}
			for (f = 0; f < 5; f++)
				tk_profile_release(&bases[f]);
			tk_profile_release(&new);
		}
	}
	ok(out[0] > trials * 3 / 125, "pooled estimate alone: %u of %u unchanged frames "
	   "out of the band (over 0.8%%)", out[0], trials * 3);
	ok(out[1] < trials * 3 / 250, "with the known dispersion: %u of %u (under 0.4%%)",
	   out[1], trials * 3);
}

static void test_match_roots(void)
{
	struct tk_diff_opts o;
	struct tk_diff d;

	tk_diff_opts_init(&o);
	ok(!o.match_roots, "exact top-level matching by default (files)");
	build1(&d, "climate-staging;main;rad 10\nsh;main 1\n",
	       "climate-feature;main;rad 20\nsh;main 1\n", &o);
	ok(find(&d, "climate-staging;main;rad") && find(&d, "climate-feature;main;rad"),
	   "without match_roots the renamed program is two frames");
	tk_diff_release(&d);
	o.match_roots = 1;
	build1(&d, "climate-staging;main;rad 10\nsh;main 1\n",
	       "climate-feature;main;rad 20\nsh;main 1\n", &o);
	ok(!find(&d, "climate-staging") && find(&d, "climate-feature;main;rad"),
	   "match_roots: one frame, under the new name");
	ok(d.base_self[find(&d, "climate-feature;main;rad")] == 10 &&
	   tk_diff_new_self(&d, find(&d, "climate-feature;main;rad")) == 20, "... with both values");
	ok(d.base_self[find(&d, "sh;main")] == 1, "... the same-named sibling still matches itself");
	tk_diff_release(&d);
	build1(&d, "a;x 1\nb;x 1\n", "c;x 1\nd;x 1\n", &o);
	ok(find(&d, "a") && find(&d, "c") && find(&d, "d"),
	   "two unmatched on each side: no guessing");
	tk_diff_release(&d);
}

static void test_summary(void)
{
	struct tk_diff_opts o;
	struct tk_diff_summary s;
	struct tk_diff d;
	struct tk_buf b = TK_BUF_INIT;

	tk_diff_opts_init(&o);
	build1(&d, "m;a;x 100\nm;b 50\nm;gone 10\n", "m;a;x 150\nm;b 25\nm;c 5\n", &o);
	tk_diff_add_totals(&b, &d, &o, NULL);
	is_str(b.buf, "samples 160 -> 180 (+12.5%)", "totals line: measured totals and the change");
	tk_diff_summarize(&d, &o, 5, &s);
	ok(s.up[TK_DIFF_SELF].nr == 2 && s.up[TK_DIFF_SELF].rows[0].node == find(&d, "m;a;x") &&
	   s.up[TK_DIFF_SELF].rows[1].node == find(&d, "m;c"), "self increases: x, then new c");
	ok(s.down[TK_DIFF_SELF].nr == 2 && s.down[TK_DIFF_SELF].rows[0].node == find(&d, "m;b") &&
	   s.down[TK_DIFF_SELF].rows[1].cls == TK_DIFF_VANISHED, "self decreases: b, then gone");
	ok(s.up[TK_DIFF_CUMULATIVE].nr == 2 &&
	   s.up[TK_DIFF_CUMULATIVE].rows[0].node == find(&d, "m;a;x") &&
	   s.up[TK_DIFF_CUMULATIVE].rows[1].node == find(&d, "m;c"),
	   "cumulative: x +50 (a passes all of its change to x: not listed), c +5 (m, "
	   "which every stack passes through, holds the total's +20: not listed)");
	is_int(s.nr_new, 1, "one new frame");
	is_int(s.nr_vanished, 1, "one vanished frame");
	tk_buf_reset(&b);
	tk_diff_add_change(&b, &d, &s.up[TK_DIFF_SELF].rows[0], 2);
	is_str(b.buf, "x <- a <- ...  +50.0% (+50)", "a change in words, path cut");
	tk_buf_reset(&b);
	tk_diff_add_change(&b, &d, &s.down[TK_DIFF_SELF].rows[1], 0);
	is_str(b.buf, "gone <- m  vanished (-10)", "a vanished frame");
	tk_diff_summary_release(&s);
	tk_diff_release(&d);
	/* A caller whose change one child carries within 10% is left for
	 * that child; one whose change is the net of several stays. */
	build1(&d, "idle 100\nmain;solve;dgemm 4000\nmain;solve;asm 1500\nmain;io;w 800\n"
		   "main;io;r 300\nmain;init 200\n",
	       "idle 100\nmain;solve;dgemm 5200\nmain;solve;asm 1450\nmain;io;w 600\n"
		   "main;io;r 310\nmain;init 200\n", &o);
	tk_diff_summarize(&d, &o, 5, &s);
	ok(s.up[TK_DIFF_CUMULATIVE].nr == 3 &&
	   s.up[TK_DIFF_CUMULATIVE].rows[0].node == find(&d, "main;solve;dgemm") &&
	   s.up[TK_DIFF_CUMULATIVE].rows[1].node == find(&d, "main") &&
	   s.up[TK_DIFF_CUMULATIVE].rows[2].node == find(&d, "main;io;r"),
	   "cumulative increases: dgemm +1200, main +960 (solve +1150 less io -190), r +10; "
	   "not solve (dgemm's +1200 less asm's -50)");
	ok(s.down[TK_DIFF_CUMULATIVE].nr == 2 &&
	   s.down[TK_DIFF_CUMULATIVE].rows[0].node == find(&d, "main;io;w") &&
	   s.down[TK_DIFF_CUMULATIVE].rows[1].node == find(&d, "main;solve;asm"),
	   "cumulative decreases: w -200, asm -50; not io -190");
	tk_diff_summary_release(&s);
	tk_diff_release(&d);

	o.norm = TK_DIFF_NORM_TOTAL;
	build1(&d, "m;x 100\n", "m;x 150\n", &o);
	tk_buf_reset(&b);
	tk_diff_add_totals(&b, &d, &o, "CPU time");
	is_str(b.buf, "CPU time 100 -> 150 (+50.0%); baseline scaled x1.5 to the same total",
	       "scaled: the totals stay measured, and the scaling is said");
	tk_diff_release(&d);

	is_str(tk_diff_quantity("alloc", TK_UNIT_BYTES), "allocations", "quantity of alloc");
	is_str(tk_diff_quantity("cpu", TK_UNIT_NANOSECONDS), "CPU time", "quantity of cpu");
	is_str(tk_diff_quantity("cpu", TK_UNIT_SAMPLES), "CPU samples", "... counted in samples");
	is_str(tk_diff_quantity(NULL, TK_UNIT_BYTES), "bytes", "a file in bytes");
	tk_buf_reset(&b);
	tk_diff_add_value(&b, TK_UNIT_BYTES, -3 * 1048576.0, 1);
	tk_diff_add_value(&b, TK_UNIT_NANOSECONDS, 1.5e9, 0);
	is_str(b.buf, "-3.00 MiB1.50 s", "values in human units");
	tk_buf_release(&b);
}

static void test_units(void)
{
	struct tk_profile base, new;
	const struct tk_profile *bp[1] = { &base };
	struct tk_diff_opts o;
	struct tk_diff d;
	struct tk_err err;

	load(&base, "m;x 10\n");
	load(&new, "m;x 10\n");
	new.unit = TK_UNIT_NANOSECONDS;
	tk_diff_opts_init(&o);
	memset(&err, 0, sizeof(err));
	is_int(tk_diff_build(bp, 1, &new, &o, &d, &err), TK_EDATA,
	       "samples and nanoseconds are not subtracted");
	ok(strstr(err.msg, "--normalize total") != NULL, "... the message names the way out");
	o.norm = TK_DIFF_NORM_TOTAL;
	is_int(tk_diff_build(bp, 1, &new, &o, &d, &err), 0, "... shapes compare");
	tk_diff_release(&d);
	tk_profile_release(&base);
	tk_profile_release(&new);
}

/* Whether two doubles are the same bits (NaN and -0 included). */
static int same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/* Whether a and b are the same diff, node for node and bit for bit. */
static int same_diff(const struct tk_diff *a, const struct tk_diff *b)
{
	const struct tk_profile *p = &a->tree, *q = &b->tree;
	uint32_t i;

	if (p->nr_nodes != q->nr_nodes || p->nr_names != q->nr_names || p->unit != q->unit)
		return 0;
	for (i = 0; i < p->nr_names; i++)
		if (p->name_lens[i] != q->name_lens[i] ||
		    memcmp(p->names[i], q->names[i], p->name_lens[i]) ||
		    tk_profile_category(p, i) != tk_profile_category(q, i))
			return 0;
	for (i = 0; i < p->nr_nodes; i++) {
		const struct tk_profile_node *x = &p->nodes[i], *y = &q->nodes[i];

		if (x->name != y->name || x->parent != y->parent ||
		    x->first_child != y->first_child || x->next_sibling != y->next_sibling ||
		    !same_double(x->self, y->self) || !same_double(x->total, y->total) ||
		    !same_double(a->base_self[i], b->base_self[i]) ||
		    !same_double(a->base_total[i], b->base_total[i]) ||
		    !same_double(a->spread_self[i], b->spread_self[i]) ||
		    !same_double(a->spread_total[i], b->spread_total[i]))
			return 0;
	}
	return p->finished == q->finished && a->nr_base == b->nr_base &&
	       same_double(a->base_scale, b->base_scale) &&
	       same_double(a->base_sum, b->base_sum) && same_double(a->new_sum, b->new_sum) &&
	       same_double(a->base_raw_sum, b->base_raw_sum) &&
	       same_double(a->dispersion, b->dispersion);
}

/*
 * tk_diff_build_owned (what tracker diff uses) against tk_diff_build on
 * the same inputs: the same union, ids and weights, whatever the options;
 * the inputs it was given are empty afterwards.
 */
static void test_owned(void)
{
	static const struct {
		const char *what;
		const char *bases[4];
		const char *new_text;
		unsigned flags;
		int match_roots;
		enum tk_diff_norm norm;
	} cases[] = {
		{ "one baseline", { "a;b;c 3\na;b 2\na;d 1\nx;y 4\n" },
		  "a;b;c 5\na;e 2\nz 1\nx;y 4\n", 0, 0, TK_DIFF_NORM_NONE },
		{ "one baseline scaled to new's total", { "a;b;c 3\na;d 1\nq;r;s 7\n" },
		  "a;b;c 5\na;e 2\n", 0, 0, TK_DIFF_NORM_TOTAL },
		{ "three baselines", { "a;b 3\na;c 1\n", "a;b 4\nd 2\n", "a;c 2\na;b;e 1\n" },
		  "a;b 5\na;f 1\n", 0, 0, TK_DIFF_NORM_NONE },
		{ "normalized names", { "f<int>;g 0x1f 2\nf<long>;h 1\n" },
		  "f<int>;g 0x2e 3\nf<char>;h 2\n", TK_NORM_ALL, 0, TK_DIFF_NORM_NONE },
		{ "renamed program", { "prog-a;main;rad 10\nsh;main 1\n" },
		  "prog-b;main;rad 20\nsh;main 1\n", 0, 1, TK_DIFF_NORM_NONE },
		{ "renamed program, three baselines",
		  { "prog-a;main 10\n", "prog-c;main 12\nsh 1\n", "prog-b;main 9\n" },
		  "prog-b;main 20\n", 0, 1, TK_DIFF_NORM_TOTAL },
		{ "an empty baseline beside one with weight", { "a;b 0\n", "a;c 2\n" },
		  "a;b 1\n", 0, 0, TK_DIFF_NORM_NONE },
	};
	size_t c, k;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tk_profile bases[4], new;
		const struct tk_profile *bp[4];
		struct tk_diff_opts o;
		struct tk_diff a, b;
		struct tk_err err;
		size_t n = 0;
		int empty = 1;

		tk_diff_opts_init(&o);
		o.normalize_flags = cases[c].flags;
		o.match_roots = cases[c].match_roots;
		o.norm = cases[c].norm;
		for (; n < 4 && cases[c].bases[n]; n++) {
			load(&bases[n], cases[c].bases[n]);
			bp[n] = &bases[n];
		}
		load(&new, cases[c].new_text);
		memset(&err, 0, sizeof(err));
		is_int(tk_diff_build(bp, n, &new, &o, &a, &err), 0, "%s: borrowed", cases[c].what);
		is_int(tk_diff_build_owned(bases, n, &new, &o, &b, &err), 0, "%s: given up",
		       cases[c].what);
		ok(same_diff(&a, &b), "%s: the same diff, node for node", cases[c].what);
		for (k = 0; k < n; k++)
			empty = empty && bases[k].nr_nodes == 1 && tk_profile_total(&bases[k]) == 0;
		ok(empty && new.nr_nodes == 1 && new.nr_names == 1 &&
		   new.unit == TK_UNIT_SAMPLES, "%s: the inputs are given up", cases[c].what);
		tk_diff_release(&a);
		tk_diff_release(&b);
		for (k = 0; k < n; k++)
			tk_profile_release(&bases[k]);
		tk_profile_release(&new);
	}
}

static void test_owned_errors(void)
{
	struct tk_profile base, new;
	struct tk_diff_opts o;
	struct tk_diff d;
	struct tk_err err;

	load(&base, "a;b 3\n");
	load(&new, "a;b 5\n");
	base.unit = TK_UNIT_BYTES;
	tk_diff_opts_init(&o);
	memset(&err, 0, sizeof(err));
	is_int(tk_diff_build_owned(&base, 1, &new, &o, &d, &err), TK_EDATA,
	       "given up: bytes against samples is refused as when borrowed");
	ok(base.nr_nodes == 1 && new.nr_nodes == 1 && base.unit == TK_UNIT_BYTES,
	   "... and the inputs are given up all the same, units kept");
	tk_profile_release(&base);
	tk_profile_release(&new);

	/* a failure after new's tree became the union: released once */
	load(&base, "a;b 3\n");
	load(&new, "a;b 5\n");
	base.nodes[1].first_child = 0;
	base.nodes[2].first_child = 1; /* a child made before its parent */
	base.nodes[0].first_child = 2;
	base.nodes[2].next_sibling = 0;
	memset(&err, 0, sizeof(err));
	is_int(tk_diff_build_owned(&base, 1, &new, &o, &d, &err), TK_EINTERNAL,
	       "given up: a broken baseline fails after new became the union");
	ok(strstr(err.msg, "comes before its parent") && new.nr_nodes == 1 &&
	   base.nr_nodes == 1, "... naming it, the inputs given up");
	tk_profile_release(&base);
	tk_profile_release(&new);
}

/* a ranks above b as "what changed" ranks rows: larger change, then earlier node */
static int ranks_above(double da, uint32_t a, double db, uint32_t b)
{
	return fabs(da) != fabs(db) ? fabs(da) > fabs(db) : a < b;
}

/*
 * A diff past the size walked on two threads (65536 nodes), with many
 * changes of one size: the lists are the top rows of all nodes in rank
 * order, as one walk would give, and the counts add up.
 */
static void test_summary_large(void)
{
	struct tk_buf base = TK_BUF_INIT, new = TK_BUF_INIT;
	struct tk_diff_opts o;
	struct tk_diff_summary s;
	struct tk_diff d;
	uint32_t want_up[5], want_down[5], n, k;
	double up_d[5], down_d[5];
	size_t nr_up = 0, nr_down = 0, i, nr_new = 0, nr_vanished = 0;
	int same = 1;

	for (k = 0; k < 70000; k++) {
		if (k % 11)
			tk_buf_addf(&base, "r;f%u;g%u %u\n", k % 300, k, 1 + k % 7);
		/* a few large changes, spread over the nodes of both halves */
		if (k % 13)
			tk_buf_addf(&new, "r;f%u;g%u %u\n", k % 300, k,
				    1 + (k * 3) % 7 + (k % 997 ? 0 : 50 + k % 3));
	}
	tk_diff_opts_init(&o);
	build1(&d, base.buf, new.buf, &o);
	ok(d.tree.nr_nodes > 65536, "a diff of %u nodes", d.tree.nr_nodes);
	/* the top 5 self increases and decreases by brute force */
	for (n = 1; n < d.tree.nr_nodes; n++) {
		double delta = tk_diff_new_self(&d, n) - d.base_self[n];
		enum tk_diff_class c = tk_diff_classify(&d, n, TK_DIFF_CUMULATIVE, &o, NULL);
		uint32_t *w = delta > 0 ? want_up : want_down;
		double *wd = delta > 0 ? up_d : down_d;
		size_t *nr = delta > 0 ? &nr_up : &nr_down;

		nr_new += c == TK_DIFF_NEW;
		nr_vanished += c == TK_DIFF_VANISHED;
		if (delta == 0 || tk_diff_classify(&d, n, TK_DIFF_SELF, &o, NULL) == TK_DIFF_NOISE)
			continue;
		for (i = *nr < 5 ? (*nr)++ : 5; i > 0 && ranks_above(delta, n, wd[i - 1], w[i - 1]);
		     i--) {
			if (i < 5) {
				w[i] = w[i - 1];
				wd[i] = wd[i - 1];
			}
		}
		if (i < 5) {
			w[i] = n;
			wd[i] = delta;
		}
	}
	tk_diff_summarize(&d, &o, 5, &s);
	same = s.up[TK_DIFF_SELF].nr == nr_up && s.down[TK_DIFF_SELF].nr == nr_down;
	for (i = 0; same && i < nr_up; i++)
		same = s.up[TK_DIFF_SELF].rows[i].node == want_up[i];
	for (i = 0; same && i < nr_down; i++)
		same = s.down[TK_DIFF_SELF].rows[i].node == want_down[i];
	ok(same && nr_up == 5 && nr_down == 5, "two threads: the top self changes in rank order");
	for (i = 0, k = 0; i < nr_up; i++)
		k |= want_up[i] < d.tree.nr_nodes / 2 ? 1 : 2;
	ok(k == 3, "... taken from both halves of the nodes");
	ok(s.nr_new == nr_new && s.nr_vanished == nr_vanished && nr_new > 1000 &&
	   nr_vanished > 1000, "... and every new (%zu) and vanished (%zu) frame counted",
	   s.nr_new, s.nr_vanished);
	tk_diff_summary_release(&s);
	tk_diff_release(&d);
	tk_buf_release(&base);
	tk_buf_release(&new);
}

int main(void)
{
	test_summary_large();
	test_owned();
	test_owned_errors();
	test_pooled_noise();
	test_known_dispersion();
	test_sampled_false_changes();
	test_match_roots();
	test_summary();
	test_units();
	test_new_and_vanished();
	test_recursion_and_paths();
	test_normalized_names();
	test_zero_baseline();
	test_totals();
	test_three_baselines();
	test_noise_and_intensity();
	test_layout();
	test_renderers();
	test_goldens();
	return done_testing();
}
