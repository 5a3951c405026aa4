#ifndef TK_PROFILE_H
#define TK_PROFILE_H
/*
 * The profile model: one merged call tree with interned frame names.
 *
 * Node 0 is the root (no name). Every other node has a parent, a name id
 * and a self weight; tk_profile_finish fills in totals (self plus the
 * totals of the children). Names are interned into an arena, so a name
 * seen a million times is stored once, and a child is found from its
 * (parent, name) pair through a hash table: building is one pass over the
 * input, and memory grows with the number of distinct nodes, not with the
 * size of the input.
 *
 * Weights are doubles: fractional sample counts (flamegraph.pl accepts
 * them) and scaled diffs need them, and a double counts integers exactly
 * up to 2^53. A weight is finite and not negative, and all of them add
 * up to at most TK_PROFILE_MAX_WEIGHT (tk_profile_weight_error): every total and every
 * ratio of totals a renderer computes is then a finite number.
 *
 * Limits that protect against hostile input (importers turn them into
 * TK_EDATA errors naming the place): TK_PROFILE_MAX_NAME bytes per name,
 * TK_PROFILE_MAX_DEPTH frames per stack, TK_PROFILE_MAX_NODES nodes.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/err.h"

#define TK_PROFILE_MAX_NAME (1u << 20)
#define TK_PROFILE_MAX_DEPTH 65536
#define TK_PROFILE_MAX_NODES (1u << 28)
#define TK_PROFILE_ROOT 0u
/* Far below DBL_MAX: diffs scale and add totals without overflowing. */
#define TK_PROFILE_MAX_WEIGHT 1e300

enum tk_unit {
	TK_UNIT_SAMPLES,
	TK_UNIT_NANOSECONDS,
	TK_UNIT_BYTES,
	TK_UNIT_COUNT,
};

const char *tk_unit_name(enum tk_unit u);
int tk_unit_parse(const char *s, enum tk_unit *out);

struct tk_name_slot {
	uint32_t tag;     /* the hash's high 32 bits: spares most compares */
	uint32_t id;      /* name id + 1; 0: an empty slot */
	const char *name; /* names[id] */
};

struct tk_profile_node {
	uint32_t name;         /* name id; 0 for the root */
	uint32_t parent;       /* the root is its own parent */
	uint32_t first_child;  /* 0: none (the root is never a child) */
	uint32_t next_sibling; /* 0: none */
	double self;
	double total;          /* valid after tk_profile_finish */
};

struct tk_profile {
	enum tk_unit unit;
	struct tk_arena arena;
	/* names[0] is "" (the root's); ids are indexes */
	const char **names;
	uint32_t *name_lens;
	uint32_t nr_names, alloc_names;
	/* open addressing over the names; each name's bytes follow its
	 * length (a uint32_t) in the arena, so a lookup touches the slot
	 * and the name, nothing else */
	struct tk_name_slot *name_slots;
	size_t name_mask;
	struct tk_profile_node *nodes;
	uint32_t nr_nodes, alloc_nodes;
	/* open addressing: node id, 0 empty. Only the children of nodes
	 * flagged in child_indexed are in it: a child of a node that has
	 * never been searched is created without hashing (sorted input
	 * creates most nodes under fresh parents), and a node's children
	 * are indexed the first time one of them is searched. */
	uint32_t *child_slots;
	size_t child_mask;
	uint8_t *child_indexed; /* per node, alloc_nodes long */
	uint32_t nr_indexed;    /* nodes in child_slots */
	int finished;
	/* The sum of every weight added so far: a weight whose addition
	 * would make it infinite is refused, so every total is finite. */
	double sum;
	/* Something the importer wants the user told (skipped lines...);
	 * empty when none. */
	char warning[256];
	/* The variance sampling alone gives a frame's weight, per unit of
	 * weight (a frame of weight w varies by about dispersion * w from
	 * run to run), when the profiler knows it: the built-in profiler's
	 * allocation profiles, sampled by bytes. 0: unknown (imported
	 * profiles, CPU profiles, exact ones). */
	double dispersion;
	/* Frame categories per name id (tk_profile_set_category): NULL and
	 * 0 until an importer sets one; nr_cats entries, 0 beyond. */
	uint8_t *name_cats;
	uint32_t nr_cats;
};

/*
 * Frame categories: what kind of work a frame is, when the profiler says
 * so. Julia's profiles (ProfileCanvas pages) flag frames as runtime
 * dispatch, garbage collection, compilation or task switches; an importer
 * stores that per frame name with tk_profile_set_category, and it is kept
 * wherever names are copied (merging, reversing, transforms, diffs,
 * demangling) and stored with the profile (core/model/profcodec.h).
 * perf's annotations need no storage: a name ending in "_[k]" (kernel)
 * or "_[j]" (JIT-compiled code), as stackcollapse-perf.pl --all writes
 * them, is of that category (tk_profile_category says so).
 */
enum tk_category {
	TK_CAT_NONE,
	TK_CAT_DISPATCH,    /* Julia runtime dispatch (ProfileCanvas flag 0x01) */
	TK_CAT_GC,          /* garbage collection (0x02) */
	TK_CAT_COMPILATION, /* compilation (0x08) */
	TK_CAT_TASK,        /* task switches (0x10) */
	TK_CAT_KERNEL,      /* perf: "_[k]" */
	TK_CAT_JIT,         /* perf: "_[j]" */
	TK_CAT_NR,
};

/* "runtime dispatch", "GC", "compilation", "task", "kernel", "JIT";
 * "" for none. */
const char *tk_category_name(enum tk_category c);
/* The option word: dispatch, gc, compilation, task, kernel, jit. */
const char *tk_category_key(enum tk_category c);
/* 0 and *out for a key (case-insensitive), -1 otherwise. */
int tk_category_parse(const char *s, enum tk_category *out);

/* Stores name id's category (the stronger one when a name is set twice:
 * GC, then dispatch, compilation, task). */
void tk_profile_set_category(struct tk_profile *p, uint32_t name, enum tk_category c);
/* The stored category of name id, else the perf annotation's, else none. */
enum tk_category tk_profile_category(const struct tk_profile *p, uint32_t name);
/* 1 when an importer stored a category for some name. */
int tk_profile_has_categories(const struct tk_profile *p);
/* to_name of `to` gets the stored category of from_name of `from`. */
static inline void tk_profile_copy_category(struct tk_profile *to, uint32_t to_name,
					    const struct tk_profile *from, uint32_t from_name)
{
	if (from->name_cats && from_name < from->nr_cats && from->name_cats[from_name])
		tk_profile_set_category(to, to_name, (enum tk_category)from->name_cats[from_name]);
}

void tk_profile_init(struct tk_profile *p, enum tk_unit unit);
void tk_profile_release(struct tk_profile *p);

/* The id of name s[0..len), interning it on first sight. A NUL byte in
 * it becomes the two characters "\0": every name is a C string. */
uint32_t tk_profile_intern(struct tk_profile *p, const char *s, size_t len);

/*
 * ids[i] = tk_profile_intern(p, s[i], lens[i]) for each i < n, in order,
 * but faster for many names: hashes[i] is tk_hash_bytes(s[i], lens[i]),
 * computed by the caller while it scanned the name, and the table's
 * memory for all of them is fetched before any is looked up, so the
 * cache misses overlap. The names hold no NUL byte (the caller checks).
 */
void tk_profile_intern_many(struct tk_profile *p, const char *const *s, const size_t *lens,
			    const uint64_t *hashes, size_t n, uint32_t *ids);

/* The child of parent with name id `name`, created on first sight.
 * Returns 0 when the node limit is reached (the root is never a child). */
uint32_t tk_profile_child(struct tk_profile *p, uint32_t parent, uint32_t name);

/*
 * A new child of parent without looking for an existing one: for readers
 * of a tree that is merged already (the stored form), where the lookup is
 * wasted work. The caller promises the (parent, name) pair is new; if it
 * is not, the tree gets two siblings of that name, nothing worse.
 * Returns 0 when the node limit is reached.
 */
uint32_t tk_profile_new_child(struct tk_profile *p, uint32_t parent, uint32_t name);

/* Makes room for `nodes` nodes in all (a hint: growing still works).
 * The memory is mapped as it is first written, so an upper bound costs
 * only what is used. */
void tk_profile_reserve(struct tk_profile *p, size_t nodes);
/* The same for a caller that will create every one of those nodes (a
 * reader of a stored tree): their memory is mapped at once, faster than
 * a page fault every 4 KiB. */
void tk_profile_reserve_all(struct tk_profile *p, size_t nodes);

/*
 * Adds weight to the leaf of a stack given root-first as name ids.
 * Returns 0, or TK_EDATA when the node limit is reached or the weight is
 * refused (tk_profile_weight_error; checked first, so nothing is added).
 */
int tk_profile_add_stack(struct tk_profile *p, const uint32_t *names, size_t depth,
			 double weight);

/*
 * Why w cannot be added to p as a weight: "is not a number", "is
 * negative", "is too large" (over TK_PROFILE_MAX_WEIGHT, infinities
 * included) or "makes the total too large" (the sum of all weights would
 * pass TK_PROFILE_MAX_WEIGHT); NULL when it can. Importers call it first
 * to name the place in their message; the add functions refuse the same
 * weights, so no profile ever holds one.
 */
const char *tk_profile_weight_error(const struct tk_profile *p, double w);
/* The same against a running sum kept elsewhere: an importer that builds
 * the tree on another thread checks each weight as it reads it, against
 * the sum the tree will have when the weight is added. */
const char *tk_weight_error(double sum, double w);

/*
 * p takes from's names (from must be a profile that only interned names:
 * no node but the root; p one with no name but the root's, so the ids
 * from gave are p's). from is released. For an importer that interns on
 * one thread while another builds p's tree from the ids.
 */
void tk_profile_take_names(struct tk_profile *p, struct tk_profile *from);

/*
 * Adds w to node's self weight. TK_EDATA, the node unchanged, for a
 * weight tk_profile_weight_error refuses.
 */
static inline int tk_profile_add_self(struct tk_profile *p, uint32_t node, double w)
{
	if (!(w >= 0 && w <= TK_PROFILE_MAX_WEIGHT && p->sum + w <= TK_PROFILE_MAX_WEIGHT))
		return TK_EDATA;
	p->nodes[node].self += w;
	p->sum += w;
	p->finished = 0;
	return 0;
}

/* The number of frames on the deepest stack (0 for an empty profile), or
 * TK_PROFILE_MAX_DEPTH + 1 for any deeper one: it counts in 2 bytes a
 * node, not 4, as it runs on every imported tree. */
uint32_t tk_profile_depth(const struct tk_profile *p);

/*
 * 1 when a stack of p is deeper than max frames, else 0. Allocates
 * nothing: it counts in the nodes' totals, so p is left unfinished
 * (tk_profile_finish computes them again).
 */
int tk_profile_deeper_than(struct tk_profile *p, uint32_t max);

/* Computes totals. Idempotent; cheap when nothing changed. */
void tk_profile_finish(struct tk_profile *p);
/*
 * tk_profile_finish for a builder that has set every node's total to its
 * self weight as it made the node (the decoder of a stored profile does,
 * while the node is in the cache): one pass over the nodes, not two. The
 * children are added in tk_profile_finish's order, so the totals are the
 * same to the bit.
 */
void tk_profile_finish_preset(struct tk_profile *p);

static inline double tk_profile_total(const struct tk_profile *p)
{
	return p->nodes[0].total;
}

static inline const char *tk_profile_name(const struct tk_profile *p, uint32_t node)
{
	return p->names[p->nodes[node].name];
}

/* A fast 64-bit hash of bytes (not cryptographic). */
uint64_t tk_hash_bytes(const void *data, size_t len);

/*
 * Its steps, for a scanner that hashes a name while it looks for the
 * name's end: start with TK_HASH_SEED, add each whole 8-byte word (as
 * memcpy reads it), then the last 1 to 7 bytes zero-padded as a tail word,
 * and end with the length. The result equals tk_hash_bytes of the bytes.
 */
#define TK_HASH_SEED 0x9e3779b97f4a7c15ull

/* 64-bit multiply-mix (in the spirit of wyhash). */
static inline uint64_t tk_hash_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t tk_hash_word(uint64_t h, uint64_t w)
{
	return tk_hash_mix(h ^ w, 0xa0761d6478bd642full);
}

static inline uint64_t tk_hash_tail(uint64_t h, uint64_t w)
{
	return tk_hash_mix(h ^ w, 0xe7037ed1a0b428dbull);
}

static inline uint64_t tk_hash_end(uint64_t h, size_t len)
{
	return tk_hash_mix(h ^ (uint64_t)len, 0x8ebc6af09c88c6e3ull);
}

#endif
