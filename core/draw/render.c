/*
 * Renderer lookup, render options and flamegraph.pl's colour palettes.
 *
 * Colours reproduce flamegraph.pl's default (not --hash, not --random):
 * it seeds Perl's drand48 with the sum of the name's code points and
 * draws one number v in [0,1), the same for the three channels. We do
 * the same arithmetic, so a name gets the colour flamegraph.pl gives it,
 * in every graph.
 */
#include "core/draw/render.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "core/base/timeutil.h"
#include "core/base/banned.h"

void tk_render_opts_init(struct tk_render_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->title = NULL;
	o->subtitle = NULL;
	o->kind = NULL;
	o->palette = NULL;
	o->count_name = NULL;
	o->inverted = 0;
	o->image_width = 1200;
	o->frame_height = 16;
	o->font_size = 12;
	o->top_n = 30;
}

/* The code point at s (lenient: an invalid byte counts as itself). */
static uint32_t next_code_point(const unsigned char **sp)
{
	const unsigned char *s = *sp;
	uint32_t c = s[0];
	int n, i;

	if (c < 0x80 || c < 0xc2 || c > 0xf4) {
		*sp = s + 1;
		return c;
	}
	n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	c &= 0x3f >> n;
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*sp = s + 1;
			return s[0];
		}
		c = c << 6 | (s[i] & 0x3f);
	}
	*sp = s + n + 1;
	return c;
}

/* Perl: srand(unpack("%32W*", name)); rand(1) — drand48 on 48 bits. */
static double name_random(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	uint32_t sum = 0;
	uint64_t x;

	while (*s)
		sum += next_code_point(&s);
	x = (uint64_t)sum << 16 | 0x330e;
	x = (x * 0x5deece66dull + 0xb) & ((1ull << 48) - 1);
	return (double)x / (double)(1ull << 48);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !memcmp(s + ls - lx, suffix, lx);
}

/* ^L?(java|javax|jdk|net|org|com|io|sun)/ */
static int java_package(const char *s)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/",
					    "com/", "io/", "sun/" };
	size_t i;

	if (*s == 'L' && java_package(s + 1))
		return 1;
	for (i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++)
		if (!strncmp(s, pkgs[i], strlen(pkgs[i])))
			return 1;
	return 0;
}

/* The flat palette a multi-palette (java, js, perl, wakeup) picks for name. */
static const char *pick_palette(const char *palette, const char *name)
{
	if (!strcmp(palette, "java")) {
		if (ends_with(name, "_[j]"))
			return "green";
		if (ends_with(name, "_[i]"))
			return "aqua";
		if (java_package(name) || strstr(name, ":::"))
			return "green";
		if (strstr(name, "::"))
			return "yellow";
		if (ends_with(name, "_[k]"))
			return "orange";
		return "red";
	}
	if (!strcmp(palette, "perl")) {
		if (strstr(name, "::"))
			return "yellow";
		if (strstr(name, "Perl") || strstr(name, ".pl"))
			return "green";
		if (ends_with(name, "_[k]"))
			return "orange";
		return "red";
	}
	if (!strcmp(palette, "js")) {
		const char *slash = strchr(name, '/');

		if (ends_with(name, "_[j]"))
			return slash ? "green" : "aqua";
		if (strstr(name, "::"))
			return "yellow";
		if (slash && strstr(slash, ".js"))
			return "green";
		if (strchr(name, ':'))
			return "aqua";
		if (!strcmp(name, " "))
			return "green";
		if (strstr(name, "_[k]"))
			return "orange";
		return "red";
	}
	if (!strcmp(palette, "wakeup"))
		return "aqua";
	return palette;
}

void tk_palette_color(const char *palette, const char *name, int *r, int *g, int *b)
{
	double v = name_random(name ? name : "");

	if (!palette)
		palette = "hot";
	palette = pick_palette(palette, name ? name : "");
	*r = *g = *b = 0;
	if (!strcmp(palette, "mem")) {
		*g = 190 + (int)(50 * v);
		*b = (int)(210 * v);
	} else if (!strcmp(palette, "io")) {
		*r = *g = 80 + (int)(60 * v);
		*b = 190 + (int)(55 * v);
	} else if (!strcmp(palette, "red")) {
		*r = 200 + (int)(55 * v);
		*g = *b = 50 + (int)(80 * v);
	} else if (!strcmp(palette, "green")) {
		*g = 200 + (int)(55 * v);
		*r = *b = 50 + (int)(60 * v);
	} else if (!strcmp(palette, "blue")) {
		*b = 205 + (int)(50 * v);
		*r = *g = 80 + (int)(60 * v);
	} else if (!strcmp(palette, "yellow")) {
		*r = *g = 175 + (int)(55 * v);
		*b = 50 + (int)(20 * v);
	} else if (!strcmp(palette, "purple")) {
		*r = *b = 190 + (int)(65 * v);
		*g = 80 + (int)(60 * v);
	} else if (!strcmp(palette, "aqua")) {
		*r = 50 + (int)(60 * v);
		*g = *b = 165 + (int)(55 * v);
	} else if (!strcmp(palette, "orange")) {
		*r = 190 + (int)(65 * v);
		*g = 90 + (int)(65 * v);
	} else {
		/* hot, and the fallback for names we do not know */
		*r = 205 + (int)(50 * v);
		*g = (int)(230 * v);
		*b = (int)(55 * v);
	}
}

size_t tk_render_shown_len(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    name[len - 2] && strchr("kwij", name[len - 2]))
		return len - 4;
	return len;
}

void tk_palette_background(const char *palette, uint32_t *top, uint32_t *bottom)
{
	static const char *const grey[] = { "red", "green", "blue", "aqua", "yellow",
					    "purple", "orange" };
	size_t i;

	*top = 0xeeeeee;
	*bottom = 0xeeeeb0;
	if (!palette)
		return;
	if (!strcmp(palette, "mem")) {
		*top = 0xeef2ee;
		*bottom = 0xe0ffe0;
	} else if (!strcmp(palette, "io") || !strcmp(palette, "wakeup")) {
		*bottom = 0xe0e0ff;
	}
	for (i = 0; i < sizeof(grey) / sizeof(grey[0]); i++)
		if (!strcmp(palette, grey[i])) {
			*top = 0xf8f8f8;
			*bottom = 0xe8e8e8;
		}
}

int tk_palette_known(const char *name)
{
	static const char *const palettes[] = {
		"hot", "mem", "io", "wakeup", "java", "js", "perl", "red", "green", "blue",
		"aqua", "yellow", "purple", "orange",
	};
	size_t i;

	for (i = 0; i < sizeof(palettes) / sizeof(palettes[0]); i++)
		if (!strcmp(name, palettes[i]))
			return 1;
	return 0;
}

void tk_renderer_list_exts(struct tk_buf *b)
{
	size_t i;

	for (i = 0; tk_renderer_at(i); i++)
		tk_buf_addf(b, "%s%s", i ? ", " : "", tk_renderer_at(i)->ext);
}

const char *tk_render_kind_label(enum tk_unit unit, const char *kind)
{
	switch (unit) {
	case TK_UNIT_NANOSECONDS:
		return kind && strstr(kind, "wall") ? "Wall time" : "CPU time";
	case TK_UNIT_BYTES:
		/* tracker's heap_peak; pprof's inuse_space */
		if (kind && strstr(kind, "peak"))
			return "Peak heap";
		if (kind && (strstr(kind, "heap") || strstr(kind, "inuse")))
			return "Heap in use";
		/* a file's bytes may be allocated or in use: only a kind says */
		return kind && strstr(kind, "alloc") ? "Allocated bytes" : "Bytes";
	case TK_UNIT_COUNT:
		if (kind && strstr(kind, "inuse"))
			return "Live objects";
		return "Allocations";
	case TK_UNIT_SAMPLES:
		break;
	}
	/* the unit says they are samples: the label says of what, if known */
	return kind && !strcmp(kind, "cpu") ? "CPU" : "Profile";
}

const char *tk_render_default_palette(enum tk_unit unit)
{
	return unit == TK_UNIT_BYTES || unit == TK_UNIT_COUNT ? "mem" : "hot";
}

void tk_render_headline(struct tk_buf *out, enum tk_unit unit, const char *kind,
			const char *count_name, double total)
{
	tk_buf_adds(out, tk_render_kind_label(unit, kind));
	tk_buf_adds(out, " \xe2\x80\x94 ");
	if (!count_name && unit == TK_UNIT_NANOSECONDS) {
		tk_format_duration(out, total / 1e9);
		return;
	}
	if (!count_name && unit == TK_UNIT_BYTES) {
		tk_format_bytes(out, total < 9e18 ? (int64_t)total : INT64_MAX);
		return;
	}
	/* sampled and scaled profiles have fractional weights */
	if (total == floor(total) || total >= 1e6)
		tk_format_count(out, total);
	else
		tk_format_weight(out, total);
	tk_buf_addch(out, ' ');
	tk_buf_adds(out, count_name ? count_name
			: unit == TK_UNIT_COUNT ? (total == 1 ? "allocation" : "allocations")
			: (total == 1 ? "sample" : "samples"));
}

void tk_render_opts_resolve(const struct tk_render_opts *o, const struct tk_profile *p,
			    struct tk_render_opts *res, struct tk_buf *buf)
{
	*res = *o;
	if (!res->palette)
		res->palette = tk_render_default_palette(p->unit);
	tk_buf_reset(buf);
	tk_render_headline(buf, p->unit, o->kind, o->count_name, tk_profile_total(p));
	if (!o->title) {
		if (o->inverted)
			tk_buf_adds(buf, " (icicle)");
		res->title = buf->buf;
		return;
	}
	/* the user's title; what is shown and its total lead the subtitle */
	if (o->subtitle && *o->subtitle) {
		tk_buf_adds(buf, " \xc2\xb7 ");
		tk_buf_adds(buf, o->subtitle);
	}
	res->subtitle = buf->buf;
}

int tk_render_flame(const struct tk_renderer *r, const struct tk_profile *p,
		    const struct tk_flame_opts *lo, const struct tk_render_opts *ro,
		    FILE *out, struct tk_err *err)
{
	struct tk_render_opts o;
	struct tk_buf buf = TK_BUF_INIT;
	struct tk_flame f;
	int ret;

	tk_render_opts_resolve(ro, p, &o, &buf);
	memset(&f, 0, sizeof(f));
	ret = tk_flame_layout(p, lo, &f, err);
	if (!ret)
		ret = r->render(p, &f, &o, out, err);
	tk_flame_release(&f);
	tk_buf_release(&buf);
	return ret;
}

/* ---- frame categories ---- */

/* ProfileView.jl's and ProfileCanvas's scheme: dispatch red, GC orange,
 * compilation purple, task green; perf's kernel and JIT frames keep the
 * palettes' own colours (flamegraph.pl's java palette), so they have
 * none here. */
static const int category_colors[TK_CAT_NR][3] = {
	[TK_CAT_DISPATCH] = { 226, 64, 64 },
	[TK_CAT_GC] = { 247, 163, 30 },
	[TK_CAT_COMPILATION] = { 156, 108, 214 },
	[TK_CAT_TASK] = { 82, 168, 92 },
};

int tk_category_colored(enum tk_category c)
{
	return c == TK_CAT_DISPATCH || c == TK_CAT_GC || c == TK_CAT_COMPILATION ||
	       c == TK_CAT_TASK;
}

void tk_category_rgb(enum tk_category c, int *r, int *g, int *b)
{
	if (!tk_category_colored(c))
		c = TK_CAT_NONE;
	*r = category_colors[c][0];
	*g = category_colors[c][1];
	*b = category_colors[c][2];
}

int tk_render_categories(const struct tk_profile *p, const struct tk_render_opts *o)
{
	enum tk_category cats[TK_CAT_NR];

	return !o->no_categories && tk_render_legend(p, cats) > 0;
}

size_t tk_render_legend(const struct tk_profile *p, enum tk_category *cats)
{
	uint8_t seen[TK_CAT_NR];
	size_t nr = 0;
	uint32_t i;
	int c;

	memset(seen, 0, sizeof(seen));
	for (i = 1; p->name_cats && i < p->nr_cats; i++)
		if (p->name_cats[i] < TK_CAT_NR)
			seen[p->name_cats[i]] = 1;
	for (c = 1; c < TK_CAT_NR; c++)
		if (seen[c] && tk_category_colored((enum tk_category)c))
			cats[nr++] = (enum tk_category)c;
	return nr;
}

void tk_render_name_rgb(const struct tk_profile *p, uint32_t name, const struct tk_render_opts *o,
			int on, int *r, int *g, int *b)
{
	enum tk_category c;
	double v;

	if (!on) {
		tk_palette_color(o->palette, name ? p->names[name] : "", r, g, b);
		return;
	}
	c = name ? tk_profile_category(p, name) : TK_CAT_NONE;
	if (tk_category_colored(c)) {
		tk_category_rgb(c, r, g, b);
		return;
	}
	/* a pale blue-grey, varied by the name so neighbours differ */
	v = name_random(name ? p->names[name] : "");
	*r = 176 + (int)(40 * v);
	*g = 190 + (int)(34 * v);
	*b = 212 + (int)(30 * v);
}
