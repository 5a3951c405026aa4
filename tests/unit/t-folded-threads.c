/*
 * The folded importer on one thread and on two (a reader interning names,
 * a builder walking the tree): the same tree node for node, the same
 * warnings and the same errors; and the pieces it stands on: the hash
 * taken while scanning, interning many names at once, the depth checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "tests/unit/tap.h"

static int import_with(const char *text, size_t len, int threads, struct tk_profile *p,
		       struct tk_err *err)
{
	struct tk_import_opts o;

	memset(&o, 0, sizeof(o));
	o.threads = threads;
	o.no_demangle = 1;
	tk_profile_init(p, TK_UNIT_SAMPLES);
	return tk_import_mem("t.folded", text, len, "folded", &o, p, err);
}

/* Every node's id, parent, name, sibling links and weights, and every
 * name by id: equal dumps are the same tree, built in the same order. */
static char *dump_nodes(const struct tk_profile *p)
{
	struct tk_buf b = TK_BUF_INIT;
	uint32_t i;

	for (i = 0; i < p->nr_names; i++)
		tk_buf_addf(&b, "name %u %s\n", i, p->names[i]);
	for (i = 0; i < p->nr_nodes; i++) {
		const struct tk_profile_node *n = &p->nodes[i];

		tk_buf_addf(&b, "node %u parent %u name %u first %u next %u self %.17g total %.17g\n",
			    i, n->parent, n->name, n->first_child, n->next_sibling, n->self,
			    n->total);
	}
	tk_buf_addf(&b, "warning %s\n", p->warning);
	return tk_buf_detach(&b, NULL);
}

static void same_both_ways(const char *what, const char *text, size_t len)
{
	struct tk_profile one, two;
	struct tk_err e1 = TK_ERR_INIT, e2 = TK_ERR_INIT;
	int r1 = import_with(text, len, 1, &one, &e1);
	int r2 = import_with(text, len, 2, &two, &e2);

	is_int(r2, r1, "%s: the same result on two threads", what);
	is_str(e2.msg, e1.msg, "%s: the same message", what);
	if (!r1 && !r2) {
		char *a = dump_nodes(&one), *b = dump_nodes(&two);

		ok(!strcmp(a, b), "%s: the same tree, node for node (%u nodes)", what,
		   one.nr_nodes);
		free(a);
		free(b);
	}
	tk_profile_release(&one);
	tk_profile_release(&two);
}

/* xorshift: the same "random" input on every machine */
static uint64_t state = 88172645463325252ull;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* n lines of stacks sharing prefixes, names of every length 0 to 23 (the
 * hash's word and tail cases), some escaped, fractional counts, comments,
 * blank and broken lines among them; sorted when `sorted`. */
static char *make_input(size_t n, int sorted, size_t *len)
{
	struct tk_buf b = TK_BUF_INIT;
	char names[64][32];
	size_t i, d, prev[40] = { 0 }, prev_depth = 0;

	for (i = 0; i < 64; i++) {
		size_t l = i % 24, k;

		for (k = 0; k < l; k++)
			names[i][k] = (char)('a' + (i * 7 + k * 3) % 26);
		names[i][l] = '\0';
		if (i % 16 == 5 && l >= 4)
			memcpy(names[i] + 1, "\\x3b", 4); /* an escaped ';' */
	}
	for (i = 0; i < n; i++) {
		size_t depth = 1 + rnd() % 39, keep = sorted ? rnd() % (prev_depth + 1) : 0;

		if (i % 997 == 3)
			tk_buf_adds(&b, "# a comment\n\n");
		if (i % 1499 == 7)
			tk_buf_adds(&b, "a line without a count\n");
		if (keep > depth)
			keep = depth;
		for (d = 0; d < depth; d++) {
			size_t k = d < keep ? prev[d] : rnd() % 64;

			prev[d] = k;
			tk_buf_addf(&b, "%s%s", d ? ";" : "", names[k]);
		}
		prev_depth = depth;
		if (i % 5 == 0)
			tk_buf_addf(&b, " %llu.%u\n", (unsigned long long)(rnd() % 1000), (unsigned)(i % 10));
		else
			tk_buf_addf(&b, " %llu\n", (unsigned long long)(1 + rnd() % 100000));
	}
	*len = b.len;
	return tk_buf_detach(&b, NULL);
}

static void test_same_tree(void)
{
	static const char small[] =
		"# a comment\n\nmain;a;x 3\nmain;a 2\nbroken\nmain;b;x 5\nmain;a;x 4.25\n"
		" 7\nmain;\\x3b;x 1\nmain;a;x 1 9\n";
	size_t len;
	char *big;

	same_both_ways("a small file", small, strlen(small));
	big = make_input(30000, 1, &len);
	same_both_ways("30000 sorted lines (many blocks)", big, len);
	free(big);
	big = make_input(20000, 0, &len);
	same_both_ways("20000 unsorted lines", big, len);
	free(big);
}

/* An error after many lines: reported as one thread reports it. */
static void test_same_errors(void)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t base, i;

	for (i = 0; i < 20000; i++)
		tk_buf_addf(&b, "main;f%zu;g%zu %zu\n", i % 300, i, i + 1);
	base = b.len;

	tk_buf_adds(&b, "main;f -3\n");
	same_both_ways("a negative count at the end", b.buf, b.len);

	tk_buf_setlen(&b, base);
	tk_buf_adds(&b, "main;f 1e300\nmain;g 1e300\n");
	same_both_ways("a total too large at the end", b.buf, b.len);

	tk_buf_setlen(&b, base);
	for (i = 0; i < TK_PROFILE_MAX_DEPTH + 1; i++)
		tk_buf_adds(&b, i ? ";f" : "f");
	tk_buf_adds(&b, " 1\nmain 1\n");
	same_both_ways("a stack too deep at the end", b.buf, b.len);

	tk_buf_setlen(&b, base);
	tk_buf_add(&b, "main;f 1\nbin\0ary 1\n", 19);
	same_both_ways("a NUL byte at the end", b.buf, b.len);
	tk_buf_release(&b);
}

static void test_hash_and_intern(void)
{
	struct tk_profile p;
	char s[40];
	const char *texts[40];
	size_t lens[40], i, bad = 0;
	uint64_t hashes[40];
	uint32_t ids[40];

	/* the steps give tk_hash_bytes for every tail length */
	for (i = 0; i < sizeof(s); i++)
		s[i] = (char)(' ' + i * 5 % 90);
	for (i = 0; i < sizeof(s); i++) {
		uint64_t h = TK_HASH_SEED, w;
		size_t k = 0;

		for (; k + 8 <= i; k += 8) {
			memcpy(&w, s + k, 8);
			h = tk_hash_word(h, w);
		}
		if (k < i) {
			w = 0;
			memcpy(&w, s + k, i - k);
			h = tk_hash_tail(h, w);
		}
		if (tk_hash_end(h, i) != tk_hash_bytes(s, i))
			bad++;
	}
	is_int((int)bad, 0, "hashing by steps equals tk_hash_bytes for lengths 0 to 39");

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	for (i = 0; i < 40; i++) {
		texts[i] = s + i % 7;
		lens[i] = i % 30;
		hashes[i] = tk_hash_bytes(texts[i], lens[i]);
	}
	tk_profile_intern_many(&p, texts, lens, hashes, 40, ids);
	for (i = 0, bad = 0; i < 40; i++)
		if (tk_profile_intern(&p, texts[i], lens[i]) != ids[i] ||
		    p.name_lens[ids[i]] != lens[i] || memcmp(p.names[ids[i]], texts[i], lens[i]))
			bad++;
	is_int((int)bad, 0, "interning many at once gives the ids one at a time gives");
	is_int(ids[0], 0, "the empty name is the root's");
	tk_profile_release(&p);
}

static void test_depth(void)
{
	struct tk_profile p;
	uint32_t names[3], node = TK_PROFILE_ROOT, i;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	names[0] = tk_profile_intern(&p, "a", 1);
	names[1] = tk_profile_intern(&p, "b", 1);
	names[2] = tk_profile_intern(&p, "c", 1);
	is_int(tk_profile_add_stack(&p, names, 3, 2), 0, "a;b;c");
	is_int(tk_profile_add_stack(&p, names, 1, 1), 0, "a");
	tk_profile_finish(&p);
	is_int(tk_profile_depth(&p), 3, "depth 3");
	is_int(tk_profile_deeper_than(&p, 3), 0, "not deeper than 3");
	is_int(tk_profile_deeper_than(&p, 2), 1, "deeper than 2");
	ok(!p.finished, "the check leaves the profile unfinished");
	tk_profile_finish(&p);
	ok(p.nodes[0].total == 3 && tk_profile_total(&p) == 3, "finishing again gives the totals");
	tk_profile_release(&p);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	for (i = 0; i < TK_PROFILE_MAX_DEPTH + 2; i++)
		node = tk_profile_new_child(&p, node, names[i % 3]);
	is_int(tk_profile_depth(&p), TK_PROFILE_MAX_DEPTH + 1,
	       "a deeper tree counts as one past the cap");
	is_int(tk_profile_deeper_than(&p, TK_PROFILE_MAX_DEPTH), 1, "and is deeper than it");
	tk_profile_release(&p);
}

int main(void)
{
	test_same_tree();
	test_same_errors();
	test_hash_and_intern();
	test_depth();
	return done_testing();
}
