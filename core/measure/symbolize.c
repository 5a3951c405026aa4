#include "core/measure/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/arena.h"
#include "core/base/buf.h"
#include "core/model/demangle.h"
#include "core/base/banned.h"

/* Inlined functions kept per address (the outermost ones win) and bytes
 * per name: bounds against damaged debug info. */
#define MAX_INLINE 64
#define MAX_NAME 4096

/* A function symbol, for the addresses DWARF does not name. */
struct msym {
	uint64_t addr, size;    /* module addresses */
	const char *name;       /* in the ELF file's string table */
	int rank;
};

/* A function or inlined instance of one CU; parent: the function it
 * sits in (index), -1 for none. */
struct dfunc {
	const char *name;
	const char *call_file;  /* where the inlined instance was called */
	int call_line;
	int32_t parent;
};

/* A piece of a CU's code and the innermost function covering it. */
struct dseg {
	uint64_t lo, hi;        /* DWARF addresses, [lo, hi) */
	uint32_t func;
};

/* A compile unit's code indexed once (dwarf_getscopes walks the CU's DIE
 * tree from the top on every call). */
struct dcu {
	Dwarf_Off off;
	Dwarf_Die die;
	struct dfunc *funcs;
	size_t nr_funcs, alloc_funcs;
	struct dseg *segs;
	size_t nr_segs;
	int assembler;          /* from a .S file: labels, not functions */
};

/* One ELF file, opened on first use; every mapping of it shares it. */
struct module {
	char *path;
	const char *base;       /* basename of path */
	Dwfl *dwfl;             /* a session of its own: addresses are file vaddrs */
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr mbias;        /* module address = file vaddr + mbias */
	int state;              /* 0: not tried, 1: open, -1: cannot be read */
	int et_exec;
	int own_dwarf;          /* the file itself carries .debug_info */
	struct msym *syms;      /* sorted by addr, one per address */
	size_t nr_syms;
	int syms_loaded;
	struct dcu *cus;
	size_t nr_cus, alloc_cus;
	uint32_t *cu_slots;     /* index + 1, by CU offset; 0 empty */
	size_t cu_mask;
};

/* A mapping of the image being named, with its load bias once known. */
struct lmap {
	uint64_t start, end, pgoff;
	const char *path;
	uint32_t module;        /* index + 1; 0: not looked up yet */
	int bias_known;
	uint64_t bias;          /* runtime address - file vaddr (mod 2^64) */
};

/* A frame name, interned lazily into each profile. */
struct fname {
	const char *s;
	uint32_t len;
	uint32_t id[TK_RAW_NVALUES];    /* 0: not interned yet */
};

/* The names of one address: fnames[first .. first + n), outermost first. */
struct entry {
	uint32_t module;
	uint64_t key;
	uint32_t first, n;
};

struct symbolizer {
	int lines;
	struct module *mods;
	size_t nr_mods, alloc_mods;
	uint32_t *mod_slots;            /* index + 1, by path; 0 empty */
	size_t mod_mask;
	struct entry *ents;
	size_t nr_ents, alloc_ents;
	uint32_t *ent_slots;            /* index + 1, by (module, key); 0 empty */
	size_t ent_mask;
	struct fname *names;
	size_t nr_names, alloc_names;
	uint32_t unknown;               /* the fname "[unknown]" */
	struct tk_arena arena;
	struct tk_buf tmp;
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static uint32_t add_name(struct symbolizer *sy, const char *s, size_t len)
{
	struct fname *f;

	if (len > MAX_NAME)
		len = MAX_NAME;
	TK_ALLOC_GROW(sy->names, sy->nr_names + 1, sy->alloc_names);
	f = &sy->names[sy->nr_names];
	memset(f, 0, sizeof(*f));
	f->s = tk_arena_strndup(&sy->arena, s, len);
	f->len = (uint32_t)len;
	return (uint32_t)sy->nr_names++;
}

static void symbolizer_init(struct symbolizer *sy, const struct tk_symbolize_opts *opts)
{
	memset(sy, 0, sizeof(*sy));
	sy->lines = opts && opts->lines;
	sy->mod_mask = 255;
	sy->mod_slots = tk_xcalloc(sy->mod_mask + 1, sizeof(*sy->mod_slots));
	sy->ent_mask = 4095;
	sy->ent_slots = tk_xcalloc(sy->ent_mask + 1, sizeof(*sy->ent_slots));
	tk_buf_init(&sy->tmp, 256);
	sy->unknown = add_name(sy, "[unknown]", 9);
}

static void symbolizer_release(struct symbolizer *sy)
{
	size_t i;

	for (i = 0; i < sy->nr_mods; i++) {
		struct module *m = &sy->mods[i];
		size_t j;

		if (m->dwfl)
			dwfl_end(m->dwfl);
		free(m->syms);
		for (j = 0; j < m->nr_cus; j++) {
			free(m->cus[j].funcs);
			free(m->cus[j].segs);
		}
		free(m->cus);
		free(m->cu_slots);
		free(sy->mods[i].path);
	}
	free(sy->mods);
	free(sy->mod_slots);
	free(sy->ents);
	free(sy->ent_slots);
	free(sy->names);
	tk_arena_release(&sy->arena);
	tk_buf_release(&sy->tmp);
}

/* ---- modules ---- */

static void rehash_mods(struct symbolizer *sy)
{
	size_t i, mask = sy->mod_mask * 2 + 1;
	uint32_t *slots = tk_xcalloc(mask + 1, sizeof(*slots));

	for (i = 0; i < sy->nr_mods; i++) {
		const char *p = sy->mods[i].path;
		size_t h = tk_hash_bytes(p, strlen(p)) & mask;

		while (slots[h])
			h = (h + 1) & mask;
		slots[h] = (uint32_t)i + 1;
	}
	free(sy->mod_slots);
	sy->mod_slots = slots;
	sy->mod_mask = mask;
}

/* The module of path, created (not opened) on first sight. */
static uint32_t find_module(struct symbolizer *sy, const char *path)
{
	size_t len = strlen(path), h = tk_hash_bytes(path, len) & sy->mod_mask;
	struct module *m;

	while (sy->mod_slots[h]) {
		uint32_t i = sy->mod_slots[h] - 1;

		if (!strcmp(sy->mods[i].path, path))
			return i;
		h = (h + 1) & sy->mod_mask;
	}
	TK_ALLOC_GROW(sy->mods, sy->nr_mods + 1, sy->alloc_mods);
	m = &sy->mods[sy->nr_mods];
	memset(m, 0, sizeof(*m));
	m->path = tk_xstrdup(path);
	m->base = base_name(m->path);
	/* pseudo-files such as [vdso] have nothing to open */
	if (path[0] != '/')
		m->state = -1;
	sy->mod_slots[h] = (uint32_t)++sy->nr_mods;
	if (sy->nr_mods * 2 > sy->mod_mask)
		rehash_mods(sy);
	return (uint32_t)sy->nr_mods - 1;
}

/*
 * Whether the file has DWARF of its own. Separate debug files (the -dbg
 * packages in /usr/lib/debug) are compressed and large: libc's costs tens
 * of milliseconds to inflate, for the few libc frames a profile has. They
 * give their symbol tables (names of static functions too) but their
 * DWARF is read only when lines are asked for.
 */
static int has_debug_info(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return 1;
	}
	return 0;
}

/* Opens the module's file; a file that cannot be read is not an error:
 * its frames get unknown names. */
static void open_module(struct module *m)
{
	GElf_Ehdr ehdr;

	m->state = -1;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	/* base 0 relative to p_vaddr: module addresses are the file's own */
	m->mod = dwfl_report_elf(m->dwfl, m->base, m->path, -1, 0, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod)
		return;
	m->elf = dwfl_module_getelf(m->mod, &m->mbias);
	if (!m->elf || !gelf_getehdr(m->elf, &ehdr))
		return;
	m->et_exec = ehdr.e_type == ET_EXEC;
	m->own_dwarf = has_debug_info(m->elf);
	m->state = 1;
}

/*
 * The load bias of a mapping: the PT_LOAD segment whose page-aligned file
 * offset is where the mapping starts tells where the file's vaddrs landed.
 * Failing that, any segment holding that file offset, then the
 * assumption that vaddrs are file offsets.
 */
static uint64_t mapping_bias(const struct module *m, const struct lmap *lm)
{
	size_t phnum = 0, i;
	int pass;

	if (m->et_exec)
		return 0;
	if (elf_getphdrnum(m->elf, &phnum))
		phnum = 0;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			uint64_t page;

			if (!gelf_getphdr(m->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			page = ph.p_offset & ~(uint64_t)4095;
			if (pass == 0 ? page == lm->pgoff :
			    lm->pgoff >= page && lm->pgoff < ph.p_offset + ph.p_filesz)
				return lm->start - lm->pgoff + ph.p_offset - ph.p_vaddr;
		}
	return lm->start - lm->pgoff;
}

/* ---- ELF symbols ---- */

static int cmp_msym(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->rank - x->rank;
}

/*
 * The module's function symbols (symtab, else dynsym, as libdwfl finds
 * them), sorted once: dwfl_module_addrinfo scans the whole table on every
 * call. Where several share an address, a sized global one wins (glibc's
 * "abort" over its alias "__GI_abort").
 */
static void load_syms(struct module *m)
{
	int n = dwfl_module_getsymtab(m->mod), i;
	size_t nr = 0, j;

	m->syms_loaded = 1;
	if (n <= 1)
		return;
	m->syms = tk_realloc_array(NULL, (size_t)n, sizeof(*m->syms));
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, NULL,
							   NULL);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

		if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    shndx == SHN_UNDEF || !addr)
			continue;
		m->syms[nr].addr = addr;
		m->syms[nr].size = sym.st_size;
		m->syms[nr].name = name;
		m->syms[nr].rank = (sym.st_size ? 4 : 0) +
			(bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0);
		nr++;
	}
	if (nr)
		qsort(m->syms, nr, sizeof(*m->syms), cmp_msym);
	for (i = 0, j = 0; (size_t)i < nr; i++)
		if (!j || m->syms[i].addr != m->syms[j - 1].addr)
			m->syms[j++] = m->syms[i];
	m->nr_syms = j;
}

/* The function symbol holding addr (or the nearest unsized one below). */
static const char *find_sym(struct module *m, uint64_t addr)
{
	size_t lo = 0, hi;
	const struct msym *s;

	if (!m->syms_loaded)
		load_syms(m);
	hi = m->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &m->syms[lo - 1];
	if (s->size && addr - s->addr >= s->size)
		return NULL;
	return s->name;
}

/* ---- naming one address ---- */

static uint32_t push_name(struct symbolizer *sy, const char *func, const char *file,
			  int line)
{
	tk_buf_reset(&sy->tmp);
	tk_buf_adds(&sy->tmp, func);
	if (sy->lines && file && line > 0)
		tk_buf_addf(&sy->tmp, " %s:%d", base_name(file), line);
	return add_name(sy, sy->tmp.buf, sy->tmp.len);
}

static int is_mangled(const char *n)
{
	return n && n[0] == '_' && (n[1] == 'Z' || n[1] == 'R');
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	/* A mangled linkage name, as the ELF symbols have it: C++ and Rust
	 * frames then read the same with or without debug info. Other
	 * linkage names are asm labels (glibc's __GI_abort for abort), so C
	 * keeps its DW_AT_name. */
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!is_mangled(n) && dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!is_mangled(n))
		n = dwarf_diename(die);
	return n;
}

static const char *call_site(Dwarf_Die *inl, Dwarf_Files *files, size_t nfiles, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	const char *file = NULL;

	*line = 0;
	if (files && dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &w) == 0 &&
	    w < nfiles)
		file = dwarf_filesrc(files, w, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &w) == 0 && w < 1u << 30)
		*line = (int)w;
	return file;
}

/* A function's range while indexing, with its nesting depth. */
struct ivl {
	uint64_t lo, hi;
	uint32_t func, depth;
};

struct cu_walk {
	struct dcu *cu;
	Dwarf_Files *files;
	size_t nfiles;
	struct ivl *iv;
	size_t nr_iv, alloc_iv;
};

#define MAX_DIE_DEPTH 256

static void walk_dies(struct cu_walk *w, Dwarf_Die *die, int32_t parent, uint32_t fdepth,
		      int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DIE_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine: {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off;
			struct dfunc *f;
			uint32_t idx = (uint32_t)w->cu->nr_funcs;
			int any = 0;

			for (off = dwarf_ranges(&child, 0, &base, &lo, &hi); off > 0;
			     off = dwarf_ranges(&child, off, &base, &lo, &hi)) {
				if (lo >= hi)
					continue;
				TK_ALLOC_GROW(w->iv, w->nr_iv + 1, w->alloc_iv);
				w->iv[w->nr_iv].lo = lo;
				w->iv[w->nr_iv].hi = hi;
				w->iv[w->nr_iv].func = idx;
				w->iv[w->nr_iv].depth = fdepth;
				w->nr_iv++;
				any = 1;
			}
			/* declarations and abstract instances hold no code */
			if (!any)
				break;
			TK_ALLOC_GROW(w->cu->funcs, idx + 1, w->cu->alloc_funcs);
			f = &w->cu->funcs[idx];
			w->cu->nr_funcs++;
			f->name = die_name(&child);
			f->parent = parent;
			f->call_file = NULL;
			f->call_line = 0;
			if (tag == DW_TAG_inlined_subroutine)
				f->call_file = call_site(&child, w->files, w->nfiles, &f->call_line);
			walk_dies(w, &child, (int32_t)idx, fdepth + 1, depth + 1);
			break;
		}
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			walk_dies(w, &child, parent, fdepth, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_ivl(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return 0;
}

static void add_seg(struct dcu *cu, size_t *alloc, uint64_t lo, uint64_t hi, uint32_t func)
{
	if (lo >= hi)
		return;
	TK_ALLOC_GROW(cu->segs, cu->nr_segs + 1, *alloc);
	cu->segs[cu->nr_segs].lo = lo;
	cu->segs[cu->nr_segs].hi = hi;
	cu->segs[cu->nr_segs].func = func;
	cu->nr_segs++;
}

/*
 * Cuts the CU's function ranges into disjoint segments, each owned by the
 * innermost function covering it. Ranges nest (an inlined instance sits
 * inside its caller's), so a sweep in start order with a stack of open
 * ranges does it; ranges that overlap without nesting (damaged info) give
 * some segment to the later one, nothing worse.
 */
static void index_segments(struct dcu *cu, struct ivl *iv, size_t nr)
{
	struct ivl *stack = tk_realloc_array(NULL, nr ? nr : 1, sizeof(*stack));
	size_t top = 0, i, alloc = 0;
	uint64_t cur = 0;

	if (nr)
		qsort(iv, nr, sizeof(*iv), cmp_ivl);
	for (i = 0; i <= nr; i++) {
		uint64_t at = i < nr ? iv[i].lo : UINT64_MAX;

		while (top && stack[top - 1].hi <= at) {
			if (cur < stack[top - 1].hi) {
				add_seg(cu, &alloc, cur, stack[top - 1].hi, stack[top - 1].func);
				cur = stack[top - 1].hi;
			}
			top--;
		}
		if (i == nr)
			break;
		if (top && cur < at)
			add_seg(cu, &alloc, cur, at, stack[top - 1].func);
		if (cur < at)
			cur = at;
		stack[top++] = iv[i];
	}
	free(stack);
}

static void rehash_cus(struct module *m)
{
	size_t i, mask = m->cu_mask ? m->cu_mask * 2 + 1 : 63;
	uint32_t *slots = tk_xcalloc(mask + 1, sizeof(*slots));

	for (i = 0; i < m->nr_cus; i++) {
		size_t h = mix64(m->cus[i].off) & mask;

		while (slots[h])
			h = (h + 1) & mask;
		slots[h] = (uint32_t)i + 1;
	}
	free(m->cu_slots);
	m->cu_slots = slots;
	m->cu_mask = mask;
}

/* The index of the CU whose DIE is cudie, built on first use. */
static struct dcu *get_cu(struct module *m, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct cu_walk w;
	struct dcu *cu;
	size_t h;

	if (!m->cu_slots)
		rehash_cus(m);
	h = mix64(off) & m->cu_mask;
	while (m->cu_slots[h]) {
		cu = &m->cus[m->cu_slots[h] - 1];
		if (cu->off == off)
			return cu;
		h = (h + 1) & m->cu_mask;
	}
	TK_ALLOC_GROW(m->cus, m->nr_cus + 1, m->alloc_cus);
	cu = &m->cus[m->nr_cus];
	memset(cu, 0, sizeof(*cu));
	cu->off = off;
	cu->die = *cudie;
	cu->assembler = dwarf_srclang(cudie) == DW_LANG_Mips_Assembler;
	memset(&w, 0, sizeof(w));
	w.cu = cu;
	if (dwarf_getsrcfiles(cudie, &w.files, &w.nfiles))
		w.files = NULL;
	walk_dies(&w, cudie, -1, 0, 0);
	index_segments(cu, w.iv, w.nr_iv);
	free(w.iv);
	m->cu_slots[h] = (uint32_t)++m->nr_cus;
	if (m->nr_cus * 2 > m->cu_mask)
		rehash_cus(m);
	return &m->cus[m->nr_cus - 1];
}

static const struct dseg *find_seg(const struct dcu *cu, uint64_t pc)
{
	size_t lo = 0, hi = cu->nr_segs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->segs[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= cu->segs[lo - 1].hi)
		return NULL;
	return &cu->segs[lo - 1];
}

/*
 * Names addr (a module address) from DWARF: the function and the inlined
 * instances around it, outermost first. Returns the number of names
 * pushed, 0 when DWARF does not cover addr.
 */
static uint32_t names_from_dwarf(struct symbolizer *sy, struct module *m, Dwarf_Addr addr)
{
	const struct dfunc *funcs[MAX_INLINE];
	const struct dseg *seg;
	struct dcu *cu;
	Dwarf_Die *cudie;
	Dwarf_Addr cubias;
	int32_t fi;
	int nf = 0, i;
	uint32_t pushed = 0;

	cudie = dwfl_module_addrdie(m->mod, addr, &cubias);
	if (!cudie)
		return 0;
	cu = get_cu(m, cudie);
	seg = find_seg(cu, addr - cubias);
	if (!seg)
		return 0;
	for (fi = (int32_t)seg->func; fi >= 0 && (size_t)fi < cu->nr_funcs;
	     fi = cu->funcs[fi].parent) {
		if (nf == MAX_INLINE)
			funcs[nf - 1] = &cu->funcs[fi];   /* keep the outermost */
		else
			funcs[nf++] = &cu->funcs[fi];
	}
	/* the innermost frame's line is the address's; an outer one's is the
	 * call site of the instance inlined into it */
	for (i = nf - 1; i >= 0; i--) {
		const char *name = funcs[i]->name, *file = NULL;
		int line = 0;

		if (i > 0) {
			file = funcs[i - 1]->call_file;
			line = funcs[i - 1]->call_line;
		} else if (sy->lines) {
			Dwarf_Line *dl = dwarf_getsrc_die(&cu->die, addr - cubias);

			if (dl) {
				file = dwarf_linesrc(dl, NULL, NULL);
				if (dwarf_lineno(dl, &line))
					line = 0;
			}
		}
		/* the assembler names a function after whichever of its
		 * labels it saw (glibc's __GI_acct); the symbol table knows
		 * the public one */
		if (i == nf - 1 && (!name || cu->assembler)) {
			const char *sym = find_sym(m, addr);

			if (sym)
				name = sym;
		}
		if (!name)
			continue;
		push_name(sy, name, file, line);
		pushed++;
	}
	return pushed;
}

static uint32_t names_from_elf(struct symbolizer *sy, struct module *m, Dwarf_Addr addr,
			       const char *name)
{
	const char *file = NULL;
	int line = 0;

	if (!name)
		return 0;
	if (sy->lines) {
		Dwfl_Line *l = dwfl_module_getsrc(m->mod, addr);

		if (l)
			file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	}
	push_name(sy, name, file, line);
	return 1;
}

static void name_unknown(struct symbolizer *sy, const struct module *m, uint64_t fileoff)
{
	tk_buf_reset(&sy->tmp);
	tk_buf_addf(&sy->tmp, "%s+0x%llx", m->base, (unsigned long long)fileoff);
	add_name(sy, sy->tmp.buf, sy->tmp.len);
}

static void rehash_ents(struct symbolizer *sy)
{
	size_t i, mask = sy->ent_mask * 2 + 1;
	uint32_t *slots = tk_xcalloc(mask + 1, sizeof(*slots));

	for (i = 0; i < sy->nr_ents; i++) {
		size_t h = mix64(sy->ents[i].key ^ (uint64_t)sy->ents[i].module << 48) & mask;

		while (slots[h])
			h = (h + 1) & mask;
		slots[h] = (uint32_t)i + 1;
	}
	free(sy->ent_slots);
	sy->ent_slots = slots;
	sy->ent_mask = mask;
}

/* The cached names of (module, key), or NULL with *slot where to add. */
static const struct entry *find_entry(struct symbolizer *sy, uint32_t module, uint64_t key,
				      size_t *slot)
{
	size_t h = mix64(key ^ (uint64_t)module << 48) & sy->ent_mask;

	while (sy->ent_slots[h]) {
		const struct entry *e = &sy->ents[sy->ent_slots[h] - 1];

		if (e->key == key && e->module == module)
			return e;
		h = (h + 1) & sy->ent_mask;
	}
	*slot = h;
	return NULL;
}

static const struct entry *add_entry(struct symbolizer *sy, size_t slot, uint32_t module,
				     uint64_t key, uint32_t first)
{
	struct entry *e;

	TK_ALLOC_GROW(sy->ents, sy->nr_ents + 1, sy->alloc_ents);
	e = &sy->ents[sy->nr_ents];
	e->module = module;
	e->key = key;
	e->first = first;
	e->n = (uint32_t)(sy->nr_names - first);
	sy->ent_slots[slot] = (uint32_t)++sy->nr_ents;
	if (sy->nr_ents * 2 > sy->ent_mask)
		rehash_ents(sy);
	return &sy->ents[sy->nr_ents - 1];
}

static struct lmap *find_lmap(struct lmap *maps, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	/* the last map starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= maps[lo - 1].end)
		return NULL;
	return &maps[lo - 1];
}

/* Names addr of a process whose mappings are maps; *first and *n give the
 * names in sy->names, outermost first. */
static void symbolize(struct symbolizer *sy, struct lmap *maps, size_t nr_maps, uint64_t addr,
		      int leaf, uint32_t *first, uint32_t *n)
{
	struct lmap *lm = find_lmap(maps, nr_maps, addr);
	const struct entry *e;
	struct module *m;
	uint64_t fileoff, key, look;
	uint32_t mi, got = 0, start;
	size_t slot;

	if (!lm) {
		*first = sy->unknown;
		*n = 1;
		return;
	}
	if (!lm->module)
		lm->module = find_module(sy, lm->path) + 1;
	mi = lm->module - 1;
	m = &sy->mods[mi];
	if (m->state == 0)
		open_module(m);
	fileoff = addr - lm->start + lm->pgoff;
	if (m->state > 0) {
		if (!lm->bias_known) {
			lm->bias = mapping_bias(m, lm);
			lm->bias_known = 1;
		}
		/* a return address points after the call */
		look = addr - lm->bias + m->mbias - (leaf ? 0 : 1);
		key = look << 1 | (leaf ? 1 : 0);
	} else {
		look = 0;
		key = fileoff;
	}
	e = find_entry(sy, mi, key, &slot);
	if (e) {
		*first = e->first;
		*n = e->n;
		return;
	}
	start = (uint32_t)sy->nr_names;
	if (m->state > 0) {
		if (m->own_dwarf || sy->lines)
			got = names_from_dwarf(sy, m, look);
		if (!got)
			got = names_from_elf(sy, m, look, find_sym(m, look));
	}
	if (!got)
		name_unknown(sy, m, fileoff);
	e = add_entry(sy, slot, mi, key, start);
	*first = e->first;
	*n = e->n;
}

/* ---- stacks into profiles ---- */

static int cmp_lmap(const void *a, const void *b)
{
	const struct lmap *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* The image's mappings with room for their module and bias, sorted (a
 * producer should have sorted them; this does not rely on it). */
static struct lmap *image_lmaps(const struct tk_rawimage *im, size_t *nr)
{
	struct lmap *maps = tk_xcalloc(im->nr_maps ? im->nr_maps : 1, sizeof(*maps));
	size_t i, j = 0;
	int sorted = 1;

	for (i = 0; i < im->nr_maps; i++) {
		if (!im->maps[i].path || !*im->maps[i].path || im->maps[i].start >= im->maps[i].end)
			continue;
		maps[j].start = im->maps[i].start;
		maps[j].end = im->maps[i].end;
		maps[j].pgoff = im->maps[i].pgoff;
		maps[j].path = im->maps[i].path;
		if (j && maps[j].start < maps[j - 1].end)
			sorted = 0;
		j++;
	}
	if (!sorted)
		qsort(maps, j, sizeof(*maps), cmp_lmap);
	*nr = j;
	return maps;
}

static uint32_t intern(struct symbolizer *sy, struct tk_profile *p, int v, uint32_t name)
{
	struct fname *f = &sy->names[name];

	if (!f->id[v])
		f->id[v] = tk_profile_intern(p, f->s, f->len);
	return f->id[v];
}

static const enum tk_unit units[TK_RAW_NVALUES] = {
	[TK_RAW_ALLOC_BYTES] = TK_UNIT_BYTES,
	[TK_RAW_ALLOC_COUNT] = TK_UNIT_COUNT,
	[TK_RAW_PEAK_LIVE] = TK_UNIT_BYTES,
	[TK_RAW_CPU_NS] = TK_UNIT_NANOSECONDS,
};

int tk_rawset_to_profiles(const struct tk_rawset *s, const struct tk_symbolize_opts *opts,
			  struct tk_profile out[TK_RAW_NVALUES], int have[TK_RAW_NVALUES],
			  struct tk_err *err)
{
	struct symbolizer sy;
	uint32_t *names = NULL, *ids = NULL;
	size_t alloc_names = 0, alloc_ids = 0, i, j;
	int v, ret = 0;

	for (v = 0; v < TK_RAW_NVALUES; v++) {
		tk_profile_init(&out[v], units[v]);
		have[v] = 0;
	}
	symbolizer_init(&sy, opts);
	for (i = 0; i < s->nr_images && !ret; i++) {
		const struct tk_rawimage *im = &s->images[i];
		uint32_t image_name = add_name(&sy, im->name ? im->name : "[unknown]",
					       strlen(im->name ? im->name : "[unknown]"));
		size_t nr_maps;
		struct lmap *maps = image_lmaps(im, &nr_maps);

		for (j = 0; j < im->nr_stacks && !ret; j++) {
			const struct tk_rawstack *st = &im->stacks[j];
			size_t depth = 0, k;
			uint32_t f;

			TK_ALLOC_GROW(names, 1, alloc_names);
			names[depth++] = image_name;
			for (f = st->nframes; f-- > 0;) {
				uint32_t first, n;
				int leaf = f == 0 && (st->flags & TK_RAW_SLOT_LEAF_IP);

				symbolize(&sy, maps, nr_maps, st->frames[f], leaf, &first, &n);
				TK_ALLOC_GROW(names, depth + n, alloc_names);
				for (k = 0; k < n; k++)
					names[depth++] = first + (uint32_t)k;
			}
			if (depth > TK_PROFILE_MAX_DEPTH)
				depth = TK_PROFILE_MAX_DEPTH;
			TK_ALLOC_GROW(ids, depth, alloc_ids);
			for (v = 0; v < TK_RAW_NVALUES; v++) {
				if (st->v[v] == 0)
					continue;
				have[v] = 1;
				for (k = 0; k < depth; k++)
					ids[k] = intern(&sy, &out[v], v, names[k]);
				if (tk_profile_add_stack(&out[v], ids, depth, st->v[v])) {
					ret = tk_err_set(err, TK_EDATA,
							 "cannot add the %s profile of '%s' (pid %d): too many nodes",
							 tk_raw_kind((enum tk_raw_value)v), im->name, im->pid);
					break;
				}
			}
		}
		free(maps);
	}
	for (v = 0; v < TK_RAW_NVALUES; v++) {
		if (!(opts && opts->no_demangle))
			tk_profile_demangle(&out[v], 0);
		tk_profile_finish(&out[v]);
	}
	free(names);
	free(ids);
	symbolizer_release(&sy);
	return ret;
}
