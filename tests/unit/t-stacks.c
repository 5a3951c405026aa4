/*
 * core/model/stacks: the folded outputs read back as the same tree, whatever
 * bytes the names hold (';', line breaks, NUL, '#', tails that look like
 * counts, literal "\x41"), and names without such bytes are written as
 * they are.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/draw/flame.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "core/draw/render.h"
#include "core/model/stacks.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

/* Every node as "depth hex(name) self", depth first with children in
 * name order: two trees are the same when their dumps are. */
static void dump(const struct tk_profile *p, uint32_t n, int depth, struct tk_buf *out)
{
	uint32_t kids[256], nr = 0, c, i, j;
	size_t k, len = p->name_lens[p->nodes[n].name];
	const char *s = tk_profile_name(p, n);

	tk_buf_addf(out, "%d ", depth);
	for (k = 0; k < len; k++)
		tk_buf_addf(out, "%02x", (unsigned char)s[k]);
	tk_buf_addf(out, " %.17g\n", p->nodes[n].self);
	for (c = p->nodes[n].first_child; c && nr < 256; c = p->nodes[c].next_sibling)
		kids[nr++] = c;
	for (i = 1; i < nr; i++)
		for (j = i; j > 0 && strcmp(tk_profile_name(p, kids[j - 1]),
					    tk_profile_name(p, kids[j])) > 0; j--) {
			uint32_t t = kids[j];

			kids[j] = kids[j - 1];
			kids[j - 1] = t;
		}
	for (i = 0; i < nr; i++)
		dump(p, kids[i], depth + 1, out);
}

static void add(struct tk_profile *p, const char *a, size_t alen, const char *b, size_t blen,
		double w)
{
	uint32_t names[2];

	names[0] = tk_profile_intern(p, a, alen);
	if (b)
		names[1] = tk_profile_intern(p, b, blen);
	tk_profile_add_stack(p, names, b ? 2 : 1, w);
}

static char *render_folded(const struct tk_profile *p)
{
	const struct tk_renderer *r = tk_renderer_for_path("x.folded");
	struct tk_render_opts o;
	struct tk_err err = TK_ERR_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	tk_render_opts_init(&o);
	if (r->render(p, NULL, &o, f, &err))
		printf("# render: %s\n", err.msg);
	fclose(f);
	return text;
}

static void round_trip(const char *what, struct tk_profile *p, const char *want_text)
{
	struct tk_profile q;
	struct tk_import_opts opts;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf a = TK_BUF_INIT, b = TK_BUF_INIT;
	char *text;
	int ret;

	memset(&opts, 0, sizeof(opts));
	opts.no_demangle = 1;
	tk_profile_finish(p);
	text = render_folded(p);
	if (want_text)
		is_str(text, want_text, "%s: the folded text", what);
	tk_profile_init(&q, TK_UNIT_SAMPLES);
	ret = tk_import_mem("a.folded", text, strlen(text), "folded", &opts, &q, &err);
	is_int(ret, 0, "%s: reads back (%s)", what, err.msg);
	dump(p, TK_PROFILE_ROOT, 0, &a);
	dump(&q, TK_PROFILE_ROOT, 0, &b);
	is_str(b.buf, a.buf, "%s: the same tree", what);
	tk_buf_release(&a);
	tk_buf_release(&b);
	tk_profile_release(&q);
	free(text);
}

int main(void)
{
	struct tk_profile p;

	/* plain names are written as they are */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "main", 4, "f(int, char*) const", 19, 3);
	add(&p, "main", 4, "<lambda> & \"x\"", 14, 2.5);
	round_trip("plain names", &p, "main;<lambda> & \"x\" 2.5\nmain;f(int, char*) const 3\n");
	tk_profile_release(&p);

	/* one hostile byte at a time, known answers */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "a;b", 3, NULL, 0, 1);
	round_trip("a ';'", &p, "a\\x3bb 1\n");
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "#x", 2, "#y", 2, 1);
	round_trip("a leading '#'", &p, "\\x23x;#y 1\n");
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "m", 1, "f 12", 4, 7);
	add(&p, "g 3", 3, "h", 1, 1);
	round_trip("a tail like a count", &p, "g 3;h 1\nm;f\\x2012 7\n");
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "a\nb\rc", 5, "d\\x41", 5, 2);
	round_trip("line breaks and a literal \\x41", &p, "a\\x0ab\\x0dc;d\\x5cx41 2\n");
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "x\0y", 3, NULL, 0, 4);
	is_str(tk_profile_name(&p, 1), "x\\0y", "a NUL in a name becomes \\0");
	round_trip("a NUL", &p, "x\\0y 4\n");
	tk_profile_release(&p);

	/* everything at once, with names that are only the bad bytes */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, ";", 1, " ", 1, 1);
	add(&p, "\t9 ", 3, ";;\n", 3, 2);
	add(&p, "", 0, "1.5", 3, 3);
	add(&p, "\\", 1, "\\x", 2, 4);
	add(&p, "\xff\xfe", 2, "a \t", 3, 0.125);
	round_trip("hostile names", &p, NULL);
	tk_profile_release(&p);
	return done_testing();
}
