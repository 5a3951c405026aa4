/*
 * alloc-heavy: an allocation-heavy program for the profiler benchmark.
 *
 *   alloc-heavy [ROUNDS]
 *
 * Mimics the allocation mix of real codes — a compiler front end's symbol
 * tables and token lists, a simulation's per-step scratch buffers and
 * growing output arrays — rather than a malloc/free loop:
 *
 *   - small objects (16-200 bytes) in a binary search tree of interned
 *     strings and in syntax trees built by a recursive-descent parser
 *     (allocations up to 24 frames deep, reached through recursion by
 *     many different return-address paths), and
 *     in linked lists that are filtered and freed in random
 *     order, plus a long-lived cache whose entries are evicted at random
 *     (so the heap stays fragmented);
 *   - medium buffers (4-64 KiB, some from calloc) filled and summed;
 *   - vectors and strings grown with realloc;
 *   - now and then a large buffer (4-24 MiB) whose pages are all touched.
 *
 * Everything it allocates it also writes and reads. The allocation sites
 * sit on distinct call paths, so a profile has a shape.
 * Deterministic (a fixed-seed generator); prints a checksum, which must
 * not change under a profiler. About 1.1 s with the default 48 rounds on
 * the 2-core development machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SLOTS 4096

struct node {
	struct node *left, *right;
	char *key;
	uint64_t uses;
	uint32_t len;
};

struct event {
	struct event *next;
	uint32_t kind, size;
	unsigned char payload[];
};

struct vec {
	uint64_t *v;
	size_t nr, alloc;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t checksum;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)((rnd() >> 32) % n);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fprintf(stderr, "alloc-heavy: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "alloc-heavy: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static void mix(uint64_t v)
{
	checksum = (checksum ^ v) * 0x100000001b3ull;
}

/* ---- symbol table: a binary search tree of interned strings ---- */

static struct node *node_new(const char *word, uint32_t len)
{
	struct node *n = xmalloc(sizeof(*n));

	n->left = n->right = NULL;
	n->key = xmalloc(len + 1);
	memcpy(n->key, word, len);
	n->key[len] = '\0';
	n->len = len;
	n->uses = 1;
	return n;
}

static struct node *intern(struct node *root, const char *word, uint32_t len)
{
	struct node **link = &root;

	while (*link) {
		int c = strcmp(word, (*link)->key);

		if (!c) {
			(*link)->uses++;
			return root;
		}
		link = c < 0 ? &(*link)->left : &(*link)->right;
	}
	*link = node_new(word, len);
	return root;
}

static uint64_t tree_free(struct node *n)
{
	uint64_t sum = 0;

	while (n) {
		struct node *right = n->right;

		sum += tree_free(n->left) + n->uses * n->len + (unsigned char)n->key[0];
		free(n->key);
		free(n);
		n = right;
	}
	return sum;
}

/* A token: lower-case letters, 3-24 of them, from a vocabulary of
 * about 60000 words, so most tokens are already interned. */
static uint32_t make_token(char *out)
{
	uint32_t id = rnd_below(60000), len = 3 + id % 22, i;
	uint64_t h = id * 0x9e3779b97f4a7c15ull;

	for (i = 0; i < len; i++) {
		out[i] = (char)('a' + (h >> 58) % 26);
		h = h * 6364136223846793005ull + 1442695040888963407ull;
	}
	out[len] = '\0';
	return len;
}

static void add_token(char ***list, size_t *nr, size_t *alloc, const char *tok, uint32_t len)
{
	char *copy;

	if (*nr == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 16;
		*list = xrealloc(*list, *alloc * sizeof(**list));
	}
	copy = xmalloc(len + 1);
	memcpy(copy, tok, len + 1);
	(*list)[(*nr)++] = copy;
}

static struct node *parse_unit(struct node *root, uint32_t tokens)
{
	char tok[32];
	char **list = NULL;
	size_t nr = 0, alloc = 0, i;

	for (i = 0; i < tokens; i++) {
		uint32_t len = make_token(tok);

		add_token(&list, &nr, &alloc, tok, len);
	}
	for (i = 0; i < nr; i++) {
		root = intern(root, list[i], (uint32_t)strlen(list[i]));
		free(list[i]);
	}
	free(list);
	return root;
}

/* ---- expressions: a recursive-descent parser building a syntax tree ---- */

struct ast {
	struct ast *lhs, *rhs;
	uint32_t op;
	int64_t value;
};

static struct ast *ast_new(uint32_t op, struct ast *lhs, struct ast *rhs)
{
	struct ast *a = xmalloc(sizeof(*a));

	a->op = op;
	a->lhs = lhs;
	a->rhs = rhs;
	a->value = (int64_t)(rnd() >> 40);
	return a;
}

static struct ast *parse_expr(uint32_t depth);

static struct ast *parse_factor(uint32_t depth)
{
	if (depth < 6 && rnd_below(2) == 0)
		return parse_expr(depth + 1);   /* a parenthesised sub-expression */
	return ast_new(0, NULL, NULL);
}

static struct ast *parse_term(uint32_t depth)
{
	struct ast *a = parse_factor(depth);

	while (rnd_below(4) == 0)
		a = ast_new('*', a, parse_factor(depth));
	return a;
}

static struct ast *parse_expr(uint32_t depth)
{
	struct ast *a = parse_term(depth);

	while (rnd_below(3) == 0)
		a = ast_new('+', a, parse_term(depth));
	return a;
}

static int64_t ast_eval_free(struct ast *a)
{
	int64_t v;

	if (!a->op)
		v = a->value;
	else if (a->op == '+')
		v = ast_eval_free(a->lhs) + ast_eval_free(a->rhs);
	else
		v = (ast_eval_free(a->lhs) * ast_eval_free(a->rhs)) % 1000003;
	free(a);
	return v;
}

static void compile_units(uint32_t units)
{
	struct node *root = NULL;
	uint32_t u, e;

	for (u = 0; u < units; u++) {
		root = parse_unit(root, 2000 + rnd_below(2000));
		for (e = 0; e < 300; e++)
			mix((uint64_t)ast_eval_free(parse_expr(0)));
	}
	mix(tree_free(root));
}

/* ---- event lists: small records with payloads, filtered ---- */

static struct event *event_new(uint32_t kind)
{
	uint32_t size = 8 + rnd_below(192);
	struct event *e = xmalloc(sizeof(*e) + size);

	e->kind = kind;
	e->size = size;
	memset(e->payload, (int)kind, size);
	return e;
}

static struct event *filter_events(struct event *head, uint32_t keep_kind)
{
	struct event **link = &head;

	while (*link) {
		struct event *e = *link;

		if (e->kind % 3 == keep_kind) {
			link = &e->next;
			continue;
		}
		mix(e->payload[e->size - 1] + e->size);
		*link = e->next;
		free(e);
	}
	return head;
}

static void process_events(uint32_t nr)
{
	struct event *head = NULL, *e;
	uint32_t i;

	for (i = 0; i < nr; i++) {
		e = event_new(rnd_below(1000));
		e->next = head;
		head = e;
	}
	head = filter_events(head, rnd_below(3));
	while (head) {
		e = head->next;
		mix(head->payload[0] + head->kind);
		free(head);
		head = e;
	}
}

/* ---- a long-lived cache with random eviction ---- */

static void *cache[CACHE_SLOTS];
static uint32_t cache_size[CACHE_SLOTS];

static void cache_churn(uint32_t ops)
{
	uint32_t i;

	for (i = 0; i < ops; i++) {
		uint32_t slot = rnd_below(CACHE_SLOTS);
		uint32_t size = 32 + rnd_below(rnd_below(8) ? 480 : 4000);
		unsigned char *p;

		if (cache[slot]) {
			mix(((unsigned char *)cache[slot])[cache_size[slot] / 2]);
			free(cache[slot]);
		}
		p = xmalloc(size);
		memset(p, (int)(slot + i), size);
		cache[slot] = p;
		cache_size[slot] = size;
	}
}

static void cache_clear(void)
{
	uint32_t i;

	for (i = 0; i < CACHE_SLOTS; i++) {
		free(cache[i]);
		cache[i] = NULL;
	}
}

/* ---- a simulation step: scratch buffers and growing output ---- */

static uint64_t fill_and_sum(unsigned char *buf, size_t n, uint64_t seed)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i += 64) {
		buf[i] = (unsigned char)(seed + i);
		sum += buf[i];
	}
	return sum;
}

static void *scratch(size_t n, int zeroed)
{
	void *p = zeroed ? calloc(1, n) : malloc(n);

	if (!p) {
		fprintf(stderr, "alloc-heavy: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static void vec_push(struct vec *v, uint64_t x)
{
	if (v->nr == v->alloc) {
		v->alloc = v->alloc ? v->alloc + v->alloc / 2 : 8;
		v->v = xrealloc(v->v, v->alloc * sizeof(*v->v));
	}
	v->v[v->nr++] = x;
}

static void step(struct vec *out, uint32_t blocks)
{
	uint32_t b;

	for (b = 0; b < blocks; b++) {
		size_t n = 4096 + rnd_below(60 * 1024);
		unsigned char *buf = scratch(n, b % 4 == 0);

		vec_push(out, fill_and_sum(buf, n, b));
		free(buf);
	}
}

/* A log line grown a few bytes at a time, as text output is built. */
static void build_report(uint32_t lines)
{
	char *text = NULL;
	size_t len = 0, i;
	uint32_t l;

	for (l = 0; l < lines; l++) {
		size_t add = 20 + rnd_below(60);

		text = xrealloc(text, len + add + 1);
		for (i = 0; i < add; i++)
			text[len + i] = (char)('0' + (l + i) % 10);
		len += add;
		text[len] = '\0';
	}
	mix(len + (unsigned char)text[len / 2]);
	free(text);
}

static void simulate(uint32_t steps)
{
	struct vec out = { NULL, 0, 0 };
	uint32_t s;
	size_t i;

	for (s = 0; s < steps; s++)
		step(&out, 40);
	for (i = 0; i < out.nr; i++)
		mix(out.v[i]);
	free(out.v);
}

/* ---- occasionally a large buffer, every page touched ---- */

static void checkpoint(void)
{
	size_t n = ((size_t)4 << 20) + ((size_t)rnd_below(20) << 20);
	unsigned char *big = scratch(n, 0);

	mix(fill_and_sum(big, n, n) + fill_and_sum(big, n / 2, 7));
	free(big);
}

static void run_round(uint32_t r)
{
	compile_units(6);
	process_events(60000);
	cache_churn(60000);
	simulate(20);
	build_report(3000);
	if (r % 3 == 0)
		checkpoint();
}

int main(int argc, char **argv)
{
	uint32_t rounds = 48, r;

	if (argc > 1)
		rounds = (uint32_t)strtoul(argv[1], NULL, 10);
	for (r = 0; r < rounds; r++)
		run_round(r);
	cache_clear();
	printf("alloc-heavy: %u rounds, checksum %016llx\n", rounds,
	       (unsigned long long)checksum);
	return 0;
}
