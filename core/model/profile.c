#include "core/model/profile.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

static const char *const unit_names[] = {
	[TK_UNIT_SAMPLES] = "samples",
	[TK_UNIT_NANOSECONDS] = "nanoseconds",
	[TK_UNIT_BYTES] = "bytes",
	[TK_UNIT_COUNT] = "count",
};

const char *tk_unit_name(enum tk_unit u)
{
	if ((size_t)u < sizeof(unit_names) / sizeof(unit_names[0]))
		return unit_names[u];
	return "samples";
}

int tk_unit_parse(const char *s, enum tk_unit *out)
{
	size_t i;

	for (i = 0; i < sizeof(unit_names) / sizeof(unit_names[0]); i++)
		if (!strcmp(s, unit_names[i])) {
			*out = (enum tk_unit)i;
			return 0;
		}
	return TK_EUSAGE;
}

uint64_t tk_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = TK_HASH_SEED;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = tk_hash_word(h, w);
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, p + i, len - i);
		h = tk_hash_tail(h, w);
	}
	return tk_hash_end(h, len);
}

static inline uint64_t hash_pair(uint32_t parent, uint32_t name)
{
	return tk_hash_mix(((uint64_t)parent << 32 | name) ^ 0x589965cc75374cc3ull,
			   0x1d8e4e27c47d124full);
}

void tk_profile_init(struct tk_profile *p, enum tk_unit unit)
{
	memset(p, 0, sizeof(*p));
	p->unit = unit;
	p->name_mask = 1023;
	p->name_slots = tk_xcalloc(p->name_mask + 1, sizeof(*p->name_slots));
	p->child_mask = 1023;
	p->child_slots = tk_xcalloc(p->child_mask + 1, sizeof(uint32_t));
	tk_profile_intern(p, "", 0);
	TK_ALLOC_GROW(p->nodes, 1, p->alloc_nodes);
	p->child_indexed = tk_xcalloc(p->alloc_nodes, 1);
	memset(&p->nodes[0], 0, sizeof(p->nodes[0]));
	p->nr_nodes = 1;
}

void tk_profile_release(struct tk_profile *p)
{
	tk_arena_release(&p->arena);
	free(p->names);
	free(p->name_lens);
	free(p->name_slots);
	free(p->nodes);
	free(p->child_slots);
	free(p->child_indexed);
	free(p->name_cats);
	memset(p, 0, sizeof(*p));
}

static const char *const category_names[TK_CAT_NR] = {
	"", "runtime dispatch", "GC", "compilation", "task", "kernel", "JIT",
};
static const char *const category_keys[TK_CAT_NR] = {
	"", "dispatch", "gc", "compilation", "task", "kernel", "jit",
};
/* Which category wins when a name is flagged twice (higher wins). */
static const uint8_t category_rank[TK_CAT_NR] = { 0, 3, 4, 2, 1, 1, 1 };

const char *tk_category_name(enum tk_category c)
{
	return (unsigned)c < TK_CAT_NR ? category_names[c] : "";
}

const char *tk_category_key(enum tk_category c)
{
	return (unsigned)c < TK_CAT_NR ? category_keys[c] : "";
}

int tk_category_parse(const char *s, enum tk_category *out)
{
	int c;

	for (c = 1; c < TK_CAT_NR; c++)
		if (!strcasecmp(s, category_keys[c])) {
			*out = (enum tk_category)c;
			return 0;
		}
	return -1;
}

void tk_profile_set_category(struct tk_profile *p, uint32_t name, enum tk_category c)
{
	if (!c || (unsigned)c >= TK_CAT_NR || name >= p->nr_names)
		return;
	if (name >= p->nr_cats) {
		uint32_t n = p->nr_names > name + 1 ? p->nr_names : name + 1;

		p->name_cats = tk_realloc_array(p->name_cats, n, 1);
		memset(p->name_cats + p->nr_cats, 0, n - p->nr_cats);
		p->nr_cats = n;
	}
	if (category_rank[c] > category_rank[p->name_cats[name]])
		p->name_cats[name] = (uint8_t)c;
}

enum tk_category tk_profile_category(const struct tk_profile *p, uint32_t name)
{
	size_t len;

	if (p->name_cats && name < p->nr_cats && p->name_cats[name])
		return (enum tk_category)p->name_cats[name];
	if (name >= p->nr_names)
		return TK_CAT_NONE;
	len = p->name_lens[name];
	if (len > 4 && !memcmp(p->names[name] + len - 4, "_[k]", 4))
		return TK_CAT_KERNEL;
	if (len > 4 && !memcmp(p->names[name] + len - 4, "_[j]", 4))
		return TK_CAT_JIT;
	return TK_CAT_NONE;
}

int tk_profile_has_categories(const struct tk_profile *p)
{
	uint32_t i;

	for (i = 0; p->name_cats && i < p->nr_cats; i++)
		if (p->name_cats[i])
			return 1;
	return 0;
}

static void grow_names(struct tk_profile *p)
{
	size_t n = (p->name_mask + 1) * 2, i;
	struct tk_name_slot *slots = tk_xcalloc(n, sizeof(*slots));

	for (i = 0; i < p->nr_names; i++) {
		uint64_t h = tk_hash_bytes(p->names[i], p->name_lens[i]);
		size_t s = h & (n - 1);

		while (slots[s].id)
			s = (s + 1) & (n - 1);
		slots[s].tag = (uint32_t)(h >> 32);
		slots[s].id = (uint32_t)i + 1;
		slots[s].name = p->names[i];
	}
	free(p->name_slots);
	p->name_slots = slots;
	p->name_mask = n - 1;
}

/* Names are C strings to every writer: a NUL would cut one short. */
static uint32_t intern_nul(struct tk_profile *p, const char *s, size_t len)
{
	struct tk_buf b = TK_BUF_INIT;
	uint32_t id;
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i])
			tk_buf_addch(&b, s[i]);
		else
			tk_buf_add(&b, "\\0", 2);
	id = tk_profile_intern(p, b.buf, b.len);
	tk_buf_release(&b);
	return id;
}

static inline uint32_t stored_len(const char *name)
{
	uint32_t len;

	memcpy(&len, name - sizeof(len), sizeof(len));
	return len;
}

/* memcmp(a, b, len) == 0 for names: short, so no call, a word at a time. */
static inline int same_bytes(const char *a, const char *b, size_t len)
{
	uint64_t x, y;
	size_t i;

	if (len < 8) {
		for (i = 0; i < len; i++)
			if (a[i] != b[i])
				return 0;
		return 1;
	}
	for (i = 0; i + 8 < len; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	/* the last word, overlapping the one before */
	memcpy(&x, a + len - 8, 8);
	memcpy(&y, b + len - 8, 8);
	return x == y;
}

/* The id of s[0..len) (no NUL in it) whose hash is h. */
static uint32_t intern_hashed(struct tk_profile *p, const char *s, size_t len, uint64_t h)
{
	uint32_t tag = (uint32_t)(h >> 32), id, len32 = (uint32_t)len;
	size_t slot = h & p->name_mask;
	char *name;

	for (;;) {
		const struct tk_name_slot *v = &p->name_slots[slot];

		if (!v->id)
			break;
		if (v->tag == tag && stored_len(v->name) == len && same_bytes(v->name, s, len))
			return v->id - 1;
		slot = (slot + 1) & p->name_mask;
	}
	id = p->nr_names++;
	if (p->nr_names > p->alloc_names) {
		TK_ALLOC_GROW(p->names, p->nr_names, p->alloc_names);
		p->name_lens = tk_realloc_array(p->name_lens, p->alloc_names, sizeof(uint32_t));
	}
	name = tk_arena_alloc(&p->arena, sizeof(len32) + len + 1, sizeof(len32));
	memcpy(name, &len32, sizeof(len32));
	name += sizeof(len32);
	memcpy(name, s, len);
	name[len] = '\0';
	p->names[id] = name;
	p->name_lens[id] = len32;
	p->name_slots[slot].tag = tag;
	p->name_slots[slot].id = id + 1;
	p->name_slots[slot].name = name;
	if ((size_t)p->nr_names * 2 > p->name_mask)
		grow_names(p);
	return id;
}

uint32_t tk_profile_intern(struct tk_profile *p, const char *s, size_t len)
{
	if (len && memchr(s, '\0', len))
		return intern_nul(p, s, len);
	return intern_hashed(p, s, len, tk_hash_bytes(s, len));
}

/* Names looked up at once: enough to overlap the misses, few enough
 * for the stack. */
#define INTERN_BATCH 32

void tk_profile_intern_many(struct tk_profile *p, const char *const *s, const size_t *lens,
			    const uint64_t *hashes, size_t n, uint32_t *ids)
{
	size_t i, k;

	for (; n; n -= k, s += k, lens += k, hashes += k, ids += k) {
		k = n < INTERN_BATCH ? n : INTERN_BATCH;
		for (i = 0; i < k; i++)
			__builtin_prefetch(&p->name_slots[hashes[i] & p->name_mask]);
		/* the name a slot points to is the next miss */
		for (i = 0; i < k; i++) {
			const struct tk_name_slot *v = &p->name_slots[hashes[i] & p->name_mask];

			if (v->id)
				__builtin_prefetch(v->name - sizeof(uint32_t));
		}
		for (i = 0; i < k; i++)
			ids[i] = intern_hashed(p, s[i], lens[i], hashes[i]);
	}
}

static void grow_children(struct tk_profile *p)
{
	size_t n = (p->child_mask + 1) * 2, i;
	uint32_t *slots = tk_xcalloc(n, sizeof(uint32_t));

	/* the nodes in the table, not every node: the table is a few
	 * percent of a large tree */
	for (i = 0; i <= p->child_mask; i++) {
		uint32_t id = p->child_slots[i];
		size_t s;

		if (!id)
			continue;
		s = hash_pair(p->nodes[id].parent, p->nodes[id].name) & (n - 1);
		while (slots[s])
			s = (s + 1) & (n - 1);
		slots[s] = id;
	}
	free(p->child_slots);
	p->child_slots = slots;
	p->child_mask = n - 1;
}

static void index_node(struct tk_profile *p, uint32_t id)
{
	size_t slot = hash_pair(p->nodes[id].parent, p->nodes[id].name) & p->child_mask;

	while (p->child_slots[slot])
		slot = (slot + 1) & p->child_mask;
	p->child_slots[slot] = id;
	p->nr_indexed++;
}

/* Puts every child of parent in the hash and flags parent. */
static void index_children(struct tk_profile *p, uint32_t parent)
{
	uint32_t c, k = 0;

	for (c = p->nodes[parent].first_child; c; c = p->nodes[c].next_sibling)
		k++;
	/* grow first: growing rehashes the children of flagged nodes only */
	while ((size_t)(p->nr_indexed + k + 1) * 2 > p->child_mask)
		grow_children(p);
	p->child_indexed[parent] = 1;
	for (c = p->nodes[parent].first_child; c; c = p->nodes[c].next_sibling)
		index_node(p, c);
}

/*
 * Maps the pages of memory about to be written all at once: one call
 * instead of a page fault every 4 KiB, which is most of the time of
 * loading a stored tree of millions of nodes. Only whole pages inside
 * mem are touched; where the system cannot, the faults come as before.
 */
static void populate(void *mem, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t page = 4096;
	uintptr_t start = ((uintptr_t)mem + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)mem + bytes) & ~(page - 1);

	if (bytes >= (1u << 20) && end > start) {
		madvise((void *)start, end - start, MADV_HUGEPAGE);
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
	}
#else
	(void)mem;
	(void)bytes;
#endif
}

void tk_profile_reserve(struct tk_profile *p, size_t nodes)
{
	size_t old = p->alloc_nodes;

	if (nodes <= old || nodes > TK_PROFILE_MAX_NODES)
		return;
	p->nodes = tk_realloc_array(p->nodes, nodes, sizeof(*p->nodes));
	p->child_indexed = tk_realloc_array(p->child_indexed, nodes, 1);
	memset(p->child_indexed + old, 0, nodes - old);
	p->alloc_nodes = (uint32_t)nodes;
}

void tk_profile_reserve_all(struct tk_profile *p, size_t nodes)
{
	size_t old = p->alloc_nodes;

	tk_profile_reserve(p, nodes);
	if (p->alloc_nodes > old)
		populate(p->nodes + old, (p->alloc_nodes - old) * sizeof(*p->nodes));
}

static uint32_t new_node(struct tk_profile *p, uint32_t parent, uint32_t name)
{
	struct tk_profile_node *n;
	uint32_t id;

	if (p->nr_nodes >= TK_PROFILE_MAX_NODES)
		return 0;
	id = p->nr_nodes++;
	if (p->nr_nodes > p->alloc_nodes) {
		size_t old = p->alloc_nodes;

		TK_ALLOC_GROW(p->nodes, p->nr_nodes, p->alloc_nodes);
		p->child_indexed = tk_realloc_array(p->child_indexed, p->alloc_nodes, 1);
		memset(p->child_indexed + old, 0, p->alloc_nodes - old);
	}
	n = &p->nodes[id];
	n->name = name;
	n->parent = parent;
	n->first_child = 0;
	n->next_sibling = p->nodes[parent].first_child;
	n->self = 0;
	n->total = 0;
	p->nodes[parent].first_child = id;
	p->finished = 0;
	return id;
}

uint32_t tk_profile_new_child(struct tk_profile *p, uint32_t parent, uint32_t name)
{
	/* A parent whose children are in the hash must keep them all there. */
	if (p->child_indexed[parent])
		return tk_profile_child(p, parent, name);
	return new_node(p, parent, name);
}

uint32_t tk_profile_child(struct tk_profile *p, uint32_t parent, uint32_t name)
{
	size_t slot;
	uint32_t id;

	if (!p->child_indexed[parent]) {
		/* never searched: with no children the answer is a new node */
		if (!p->nodes[parent].first_child)
			return new_node(p, parent, name);
		index_children(p, parent);
	}
	slot = hash_pair(parent, name) & p->child_mask;
	for (;;) {
		uint32_t v = p->child_slots[slot];

		if (!v)
			break;
		if (p->nodes[v].parent == parent && p->nodes[v].name == name)
			return v;
		slot = (slot + 1) & p->child_mask;
	}
	id = new_node(p, parent, name);
	if (!id)
		return 0;
	p->child_slots[slot] = id;
	p->nr_indexed++;
	if ((size_t)p->nr_indexed * 2 > p->child_mask)
		grow_children(p);
	return id;
}

const char *tk_weight_error(double sum, double w)
{
	if (w != w)
		return "is not a number";
	if (w < 0)
		return "is negative";
	if (w > TK_PROFILE_MAX_WEIGHT)
		return "is too large";
	if (sum + w > TK_PROFILE_MAX_WEIGHT)
		return "makes the total too large";
	return NULL;
}

const char *tk_profile_weight_error(const struct tk_profile *p, double w)
{
	return tk_weight_error(p->sum, w);
}

void tk_profile_take_names(struct tk_profile *p, struct tk_profile *from)
{
	tk_arena_release(&p->arena);
	free(p->names);
	free(p->name_lens);
	free(p->name_slots);
	p->arena = from->arena;
	p->names = from->names;
	p->name_lens = from->name_lens;
	p->nr_names = from->nr_names;
	p->alloc_names = from->alloc_names;
	p->name_slots = from->name_slots;
	p->name_mask = from->name_mask;
	memset(&from->arena, 0, sizeof(from->arena));
	from->names = NULL;
	from->name_lens = NULL;
	from->name_slots = NULL;
	tk_profile_release(from);
}

int tk_profile_add_stack(struct tk_profile *p, const uint32_t *names, size_t depth,
			 double weight)
{
	uint32_t node = TK_PROFILE_ROOT;
	size_t i;

	if (tk_profile_weight_error(p, weight))
		return TK_EDATA;
	for (i = 0; i < depth; i++) {
		node = tk_profile_child(p, node, names[i]);
		if (!node)
			return TK_EDATA;
	}
	return tk_profile_add_self(p, node, weight);
}

uint32_t tk_profile_depth(const struct tk_profile *p)
{
	/* depth - 1 of each node but the root; the cap fits 16 bits */
	uint16_t *less = tk_xmalloc((p->nr_nodes ? p->nr_nodes : 1) * sizeof(*less));
	uint32_t i, max = 0;

	/* a child's id is always above its parent's */
	for (i = 1; i < p->nr_nodes; i++) {
		uint32_t parent = p->nodes[i].parent, d;

		if (parent == TK_PROFILE_ROOT) {
			d = 1;
		} else {
			d = (uint32_t)less[parent] + 2;
			if (d > TK_PROFILE_MAX_DEPTH) {
				max = TK_PROFILE_MAX_DEPTH + 1;
				break;
			}
		}
		less[i] = (uint16_t)(d - 1);
		if (d > max)
			max = d;
	}
	free(less);
	return max;
}

int tk_profile_deeper_than(struct tk_profile *p, uint32_t max)
{
	uint32_t i;

	p->finished = 0;
	if (p->nr_nodes)
		p->nodes[0].total = 0;
	/* a child's id is always above its parent's */
	for (i = 1; i < p->nr_nodes; i++) {
		double d = p->nodes[p->nodes[i].parent].total + 1;

		if (d > max)
			return 1;
		p->nodes[i].total = d;
	}
	return 0;
}

/* Adds every node's total into its parent's. Children are always
 * created after their parent, so a reverse walk visits every child
 * before its parent. */
static void add_up(struct tk_profile *p)
{
	uint32_t i;

	for (i = p->nr_nodes - 1; i > 0; i--)
		p->nodes[p->nodes[i].parent].total += p->nodes[i].total;
	p->finished = 1;
}

void tk_profile_finish(struct tk_profile *p)
{
	uint32_t i;

	if (p->finished)
		return;
	for (i = 0; i < p->nr_nodes; i++)
		p->nodes[i].total = p->nodes[i].self;
	add_up(p);
}

void tk_profile_finish_preset(struct tk_profile *p)
{
	if (!p->finished)
		add_up(p);
}
