#include "core/model/profile.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* 64-bit multiply-mix over 8-byte words (in the spirit of wyhash). */
static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t tk_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = mix(h ^ w, 0xa0761d6478bd642full);
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, p + i, len - i);
		h = mix(h ^ w, 0xe7037ed1a0b428dbull);
	}
	return mix(h, 0x8ebc6af09c88c6e3ull);
}

static inline uint64_t hash_pair(uint32_t parent, uint32_t name)
{
	return mix(((uint64_t)parent << 32 | name) ^ 0x589965cc75374cc3ull,
		   0x1d8e4e27c47d124full);
}

void tk_profile_init(struct tk_profile *p, enum tk_unit unit)
{
	memset(p, 0, sizeof(*p));
	p->unit = unit;
	p->name_mask = 1023;
	p->name_slots = tk_xcalloc(p->name_mask + 1, sizeof(uint64_t));
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
	uint64_t *slots = tk_xcalloc(n, sizeof(uint64_t));

	for (i = 0; i < p->nr_names; i++) {
		uint64_t h = tk_hash_bytes(p->names[i], p->name_lens[i]);
		size_t s = h & (n - 1);

		while (slots[s])
			s = (s + 1) & (n - 1);
		slots[s] = (h & 0xffffffff00000000ull) | ((uint64_t)i + 1);
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

uint32_t tk_profile_intern(struct tk_profile *p, const char *s, size_t len)
{
	uint64_t h, tag;
	size_t slot;
	uint32_t id;

	if (len && memchr(s, '\0', len))
		return intern_nul(p, s, len);
	h = tk_hash_bytes(s, len);
	tag = h & 0xffffffff00000000ull;
	slot = h & p->name_mask;

	for (;;) {
		uint64_t v = p->name_slots[slot];

		if (!v)
			break;
		if ((v & 0xffffffff00000000ull) == tag) {
			id = (uint32_t)v - 1;
			if (p->name_lens[id] == len && !memcmp(p->names[id], s, len))
				return id;
		}
		slot = (slot + 1) & p->name_mask;
	}
	id = p->nr_names++;
	if (p->nr_names > p->alloc_names) {
		TK_ALLOC_GROW(p->names, p->nr_names, p->alloc_names);
		p->name_lens = tk_realloc_array(p->name_lens, p->alloc_names, sizeof(uint32_t));
	}
	p->names[id] = tk_arena_strndup(&p->arena, s, len);
	p->name_lens[id] = (uint32_t)len;
	p->name_slots[slot] = tag | ((uint64_t)id + 1);
	if ((size_t)p->nr_names * 2 > p->name_mask)
		grow_names(p);
	return id;
}

static void grow_children(struct tk_profile *p)
{
	size_t n = (p->child_mask + 1) * 2;
	uint32_t *slots = tk_xcalloc(n, sizeof(uint32_t)), i;

	for (i = 1; i < p->nr_nodes; i++) {
		size_t s;

		if (!p->child_indexed[p->nodes[i].parent])
			continue;
		s = hash_pair(p->nodes[i].parent, p->nodes[i].name) & (n - 1);
		while (slots[s])
			s = (s + 1) & (n - 1);
		slots[s] = i;
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

const char *tk_profile_weight_error(const struct tk_profile *p, double w)
{
	if (w != w)
		return "is not a number";
	if (w < 0)
		return "is negative";
	if (w > TK_PROFILE_MAX_WEIGHT)
		return "is too large";
	if (p->sum + w > TK_PROFILE_MAX_WEIGHT)
		return "makes the total too large";
	return NULL;
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
	uint32_t *depth = tk_xcalloc(p->nr_nodes ? p->nr_nodes : 1, sizeof(*depth));
	uint32_t i, max = 0;

	/* a child's id is always above its parent's */
	for (i = 1; i < p->nr_nodes; i++) {
		depth[i] = depth[p->nodes[i].parent] + 1;
		if (depth[i] > max)
			max = depth[i];
	}
	free(depth);
	return max;
}

void tk_profile_finish(struct tk_profile *p)
{
	uint32_t i;

	if (p->finished)
		return;
	/* Children are always created after their parent, so a reverse walk
	 * visits every child before its parent. */
	for (i = 0; i < p->nr_nodes; i++)
		p->nodes[i].total = p->nodes[i].self;
	for (i = p->nr_nodes - 1; i > 0; i--)
		p->nodes[p->nodes[i].parent].total += p->nodes[i].total;
	p->finished = 1;
}
