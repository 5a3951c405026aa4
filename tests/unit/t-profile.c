/* The profile model and the folded importer. */
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "core/model/profile.h"
#include "tests/unit/tap.h"

/* The node reached by following names from the root, 0 if none. */
static uint32_t path(const struct tk_profile *p, const char *const *names)
{
	uint32_t node = TK_PROFILE_ROOT;

	for (; *names; names++) {
		uint32_t c;

		for (c = p->nodes[node].first_child; c; c = p->nodes[c].next_sibling)
			if (!strcmp(tk_profile_name(p, c), *names))
				break;
		if (!c)
			return 0;
		node = c;
	}
	return node;
}

static int import(struct tk_profile *p, const char *text, struct tk_err *err)
{
	tk_profile_init(p, TK_UNIT_SAMPLES);
	return tk_import_mem("test.folded", text, strlen(text), NULL, NULL, p, err);
}

/* Weights a profile refuses, and what it keeps when it does. */
static void test_weights(void)
{
	struct tk_profile p;
	uint32_t names[1], n;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	names[0] = tk_profile_intern(&p, "f", 1);
	is_int(tk_profile_add_stack(&p, names, 1, 2.5), 0, "a finite weight is added");
	n = tk_profile_child(&p, TK_PROFILE_ROOT, names[0]);
	is_int(tk_profile_add_self(&p, n, 0.0 / 0.0), TK_EDATA, "NaN is refused");
	is_int(tk_profile_add_self(&p, n, -1), TK_EDATA, "a negative weight is refused");
	is_int(tk_profile_add_self(&p, n, 1.0 / 0.0), TK_EDATA, "infinity is refused");
	is_int(tk_profile_add_stack(&p, names, 1, -0.5), TK_EDATA, "add_stack refuses too");
	ok(p.nodes[n].self == 2.5, "the node keeps its weight");
	is_str(tk_profile_weight_error(&p, 0.0 / 0.0), "is not a number", "NaN: why");
	is_str(tk_profile_weight_error(&p, -3), "is negative", "negative: why");
	is_str(tk_profile_weight_error(&p, 2e300), "is too large", "2e300: why");
	ok(tk_profile_weight_error(&p, 0) == NULL, "0 is a weight");
	is_int(tk_profile_add_self(&p, n, 6e299), 0, "6e299 is a weight");
	is_str(tk_profile_weight_error(&p, 6e299), "makes the total too large",
	       "a second 6e299 would pass the limit");
	is_int(tk_profile_add_self(&p, n, 6e299), TK_EDATA, "and is refused");
	tk_profile_finish(&p);
	ok(tk_profile_total(&p) <= TK_PROFILE_MAX_WEIGHT, "the total stays finite");
	tk_profile_release(&p);
}

static void test_depth_and_nul(void)
{
	struct tk_profile p;
	uint32_t names[3];

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_profile_depth(&p), 0, "an empty profile has depth 0");
	names[0] = tk_profile_intern(&p, "a", 1);
	names[1] = tk_profile_intern(&p, "b\0c", 3);
	names[2] = tk_profile_intern(&p, "a", 1);
	tk_profile_add_stack(&p, names, 3, 1);
	tk_profile_add_stack(&p, names, 1, 1);
	is_int(tk_profile_depth(&p), 3, "the deepest stack");
	is_str(p.names[names[1]], "b\\0c", "a NUL in a name becomes \\0");
	is_int(p.name_lens[names[1]], 4, "its length counts both characters");
	is_int(tk_profile_intern(&p, "b\\0c", 4), names[1], "and is that name");
	tk_profile_release(&p);
}

int main(void)
{
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	static const char *const main_a_x[] = { "main", "a", "x", NULL };
	static const char *const main_a[] = { "main", "a", NULL };
	static const char *const main_b_x[] = { "main", "b", "x", NULL };
	static const char *const spaced[] = { "void f(int, char *)", "<script>&\"", NULL };
	uint32_t n;
	int ret;

	ret = import(&p, "main;a;x 3\nmain;a 2\nmain;b;x 5\nmain;a;x 4\n", &err);
	is_int(ret, 0, "folded imports");
	is_int(p.nr_nodes, 6, "root, main, a, x, b, x: one node per distinct path");
	n = path(&p, main_a_x);
	ok(n && p.nodes[n].self == 7, "repeated stacks merge (main;a;x self 7)");
	n = path(&p, main_a);
	ok(n && p.nodes[n].self == 2 && p.nodes[n].total == 9, "main;a self 2 total 9");
	n = path(&p, main_b_x);
	ok(n && p.nodes[n].total == 5, "x under b is its own node");
	ok(tk_profile_total(&p) == 14, "total 14");
	is_int(p.nr_names, 5, "names interned once: '', main, a, x, b");
	tk_profile_release(&p);

	ret = import(&p, "void f(int, char *);<script>&\" 1.5\n", &err);
	is_int(ret, 0, "names with spaces and markup import");
	n = path(&p, spaced);
	ok(n && p.nodes[n].self == 1.5, "fractional count and raw name kept");
	tk_profile_release(&p);

	ret = import(&p, "main;f 10 12\nmain;g 5 0\n", &err);
	is_int(ret, 0, "differential two-count form imports");
	ok(tk_profile_total(&p) == 12, "the second count is the weight");
	tk_profile_release(&p);

	ret = import(&p, "# comment\n\nmain;f 1\nbroken line\nmain;g 2\n", &err);
	is_int(ret, 0, "lines without a count are skipped");
	ok(strstr(p.warning, "skipped 1 line") && strstr(p.warning, "line 4"),
	   "the warning counts them and names the first: %s", p.warning);
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_import_mem("x.folded", "no counts here\nat all\n", 22, "folded", NULL, &p, &err);
	is_int(ret, TK_EDATA, "a file without any count is rejected");
	ok(strstr(err.msg, "'x.folded'") && strstr(err.msg, "line 1"), "naming the file and line: %s",
	   err.msg);
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_import_mem("x", "a 1\n", 4, "nonsense", NULL, &p, &err);
	is_int(ret, TK_EUSAGE, "an unknown format name is a usage error");
	tk_profile_release(&p);

	/* Unsorted input must give the same tree as sorted (prefix cache). */
	ret = import(&p, "a;b;c 1\na;b 1\na;b;c 1\na;bb;c 1\na;b;c;d 1\na 1\n", &err);
	{
		static const char *const abc[] = { "a", "b", "c", NULL };
		static const char *const abbc[] = { "a", "bb", "c", NULL };
		static const char *const abcd[] = { "a", "b", "c", "d", NULL };

		n = path(&p, abc);
		ok(n && p.nodes[n].self == 2 && p.nodes[n].total == 3, "a;b;c self 2 total 3");
		ok(path(&p, abbc) && path(&p, abbc) != n, "a;bb;c is not a;b;c");
		ok(path(&p, abcd) && p.nodes[path(&p, abcd)].self == 1, "a;b;c;d self 1");
		is_int(p.nr_nodes, 7, "7 nodes");
	}
	tk_profile_release(&p);
	test_weights();
	test_depth_and_nul();
	return done_testing();
}
