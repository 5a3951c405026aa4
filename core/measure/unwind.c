#include "core/measure/unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/model/profile.h"
#include "core/base/banned.h"

const char *tk_unwind_missing(void)
{
	return NULL;
}

/* ---- the architecture ---- */

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/*
 * The registers sampled, in the order the kernel writes them (ascending
 * perf index), with their DWARF numbers. All the general registers: CFI
 * may define the CFA from any of them (gcc's stack realignment uses r10,
 * for one), and they cost 136 bytes against the stack copy's thousands.
 */
static const struct { unsigned perf; unsigned dwarf; } arch_regs[] = {
	{ PERF_REG_X86_AX, 0 }, { PERF_REG_X86_BX, 3 }, { PERF_REG_X86_CX, 2 },
	{ PERF_REG_X86_DX, 1 }, { PERF_REG_X86_SI, 4 }, { PERF_REG_X86_DI, 5 },
	{ PERF_REG_X86_BP, 6 }, { PERF_REG_X86_SP, 7 }, { PERF_REG_X86_IP, 16 },
	{ PERF_REG_X86_R8, 8 }, { PERF_REG_X86_R9, 9 }, { PERF_REG_X86_R10, 10 },
	{ PERF_REG_X86_R11, 11 }, { PERF_REG_X86_R12, 12 }, { PERF_REG_X86_R13, 13 },
	{ PERF_REG_X86_R14, 14 }, { PERF_REG_X86_R15, 15 },
};
#define NR_ARCH_REGS (sizeof(arch_regs) / sizeof(arch_regs[0]))
#define DWARF_NREGS 17   /* rax..r15 and the return address column */
#define DWARF_SP 7
#define DWARF_PC 16
#define HAVE_UNWIND 1
#else
#define NR_ARCH_REGS 0
#define HAVE_UNWIND 0
#endif

uint64_t tk_unwind_perf_regs(void)
{
#if HAVE_UNWIND
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < NR_ARCH_REGS; i++)
		m |= 1ull << arch_regs[i].perf;
	return m;
#else
	return 0;
#endif
}

/* ---- what is known of each file ---- */

#define MAX_LOADS 16
#define PC_CACHE 1024    /* per space: whether CFI covers a pc */

/*
 * A file, mapped once for the unwinder's lifetime: every space's libdwfl
 * module of it reads this image (no file descriptor per module, so a job
 * of hundreds of processes does not use up tracker's).
 */
struct fileinfo {
	char *path;
	char *image;            /* the file's bytes; NULL: not an ELF file we can read */
	size_t size;
	int mapped;             /* image is an mmap (else malloc'd: the vDSO) */
	int et_exec;
	uint64_t lo, hi;        /* vaddrs of the loaded segments, page aligned at lo */
	unsigned nloads;
	struct { uint64_t off, vaddr, filesz; } loads[MAX_LOADS];
};

struct tk_unwinder {
	struct fileinfo **files;
	size_t nr_files, alloc_files;
	uint32_t *slots;        /* index + 1 by path hash; 0 empty */
	size_t mask;
};

struct pcent {
	uint64_t pc;            /* 0: empty */
	int cfi;
};

/* A module of a space. */
struct spacemod {
	struct fileinfo *fi;
	uint64_t bias;
};

struct tk_unwind_space {
	struct tk_unwinder *u;
	Dwfl *dwfl;
	int attached;
	int any;                /* a module was reported */
	struct spacemod *mods;
	size_t nr_mods;
	/* the sample being unwound */
	const struct tk_unwind_input *in;
	uint64_t sp;
	uint64_t *out;
	uint32_t max, n;
	struct tk_unwind_result *res;
	struct pcent pcs[PC_CACHE];
};

static void read_fileinfo(struct fileinfo *fi)
{
	Elf *elf;
	GElf_Ehdr eh;
	size_t phnum = 0, i;

	elf_version(EV_CURRENT);
	elf = elf_memory(fi->image, fi->size);
	if (!elf)
		return;
	if (gelf_getehdr(elf, &eh) && !elf_getphdrnum(elf, &phnum)) {
		fi->et_exec = eh.e_type == ET_EXEC;
		for (i = 0; i < phnum && fi->nloads < MAX_LOADS; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			/* where libdwfl puts a module: the first segment's
			 * aligned vaddr, to the end of the last */
			if (!fi->nloads)
				fi->lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
			if (ph.p_vaddr + ph.p_memsz > fi->hi)
				fi->hi = ph.p_vaddr + ph.p_memsz;
			fi->loads[fi->nloads].off = ph.p_offset;
			fi->loads[fi->nloads].vaddr = ph.p_vaddr;
			fi->loads[fi->nloads].filesz = ph.p_filesz;
			fi->nloads++;
		}
	}
	elf_end(elf);
}

/*
 * The vDSO is not a file: the process's own is mapped at AT_SYSINFO_EHDR,
 * and the kernel gives every process of this architecture the same one.
 */
static void copy_vdso(struct fileinfo *fi)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct tk_buf maps = TK_BUF_INIT;
	const char *p;
	uint64_t size = 0;

	if (!base || tk_buf_read_file(&maps, "/proc/self/maps", NULL))
		goto out;
	for (p = maps.buf; *p; ) {
		const char *eol = strchr(p, '\n');
		unsigned long long s, e;

		if (sscanf(p, "%llx-%llx", &s, &e) == 2 && s == base) {
			size = e - s;
			break;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	if (!size || size > (64u << 20))
		goto out;
	fi->image = tk_xmalloc(size);
	memcpy(fi->image, (const void *)base, size);
	fi->size = size;
out:
	tk_buf_release(&maps);
}

static void map_file(struct fileinfo *fi)
{
	struct stat st;
	void *m;
	int fd = open(fi->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	/* private and writable, as libelf may write into an image it is
	 * given (it does not for the files we read) */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			fi->image = m;
			fi->size = (size_t)st.st_size;
			fi->mapped = 1;
		}
	}
	close(fd);
}

static void rehash_files(struct tk_unwinder *u)
{
	size_t i, mask = u->mask ? u->mask * 2 + 1 : 63;
	uint32_t *slots = tk_xcalloc(mask + 1, sizeof(*slots));

	for (i = 0; i < u->nr_files; i++) {
		const char *p = u->files[i]->path;
		size_t h = tk_hash_bytes(p, strlen(p)) & mask;

		while (slots[h])
			h = (h + 1) & mask;
		slots[h] = (uint32_t)i + 1;
	}
	free(u->slots);
	u->slots = slots;
	u->mask = mask;
}

static struct fileinfo *file_info(struct tk_unwinder *u, const char *path)
{
	size_t h = tk_hash_bytes(path, strlen(path)) & u->mask;
	struct fileinfo *fi;

	while (u->slots[h]) {
		fi = u->files[u->slots[h] - 1];
		if (!strcmp(fi->path, path))
			return fi;
		h = (h + 1) & u->mask;
	}
	fi = tk_xcalloc(1, sizeof(*fi));
	fi->path = tk_xstrdup(path);
	if (!strcmp(path, "[vdso]"))
		copy_vdso(fi);
	else if (path[0] == '/')
		map_file(fi);
	if (fi->image)
		read_fileinfo(fi);
	TK_ALLOC_GROW(u->files, u->nr_files + 1, u->alloc_files);
	u->files[u->nr_files] = fi;
	u->slots[h] = (uint32_t)++u->nr_files;
	if (u->nr_files * 2 > u->mask)
		rehash_files(u);
	return fi;
}

struct tk_unwinder *tk_unwinder_new(void)
{
	struct tk_unwinder *u = tk_xcalloc(1, sizeof(*u));

	rehash_files(u);
	return u;
}

void tk_unwinder_free(struct tk_unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nr_files; i++) {
		struct fileinfo *fi = u->files[i];

		if (fi->mapped)
			munmap(fi->image, fi->size);
		else
			free(fi->image);
		free(fi->path);
		free(fi);
	}
	free(u->files);
	free(u->slots);
	free(u);
}

/*
 * Where the file's vaddrs landed: the load segment holding the mapping's
 * file offset gives runtime address - vaddr (ET_EXEC files load at their
 * vaddrs). libdwfl calls this the module's bias.
 */
static int file_bias(const struct fileinfo *fi, const struct tk_rawmap *m, uint64_t *bias)
{
	unsigned i;

	if (fi->et_exec) {
		*bias = 0;
		return 0;
	}
	for (i = 0; i < fi->nloads; i++) {
		uint64_t page = fi->loads[i].off & ~(uint64_t)4095;

		if (m->pgoff >= page && m->pgoff < fi->loads[i].off + fi->loads[i].filesz) {
			*bias = m->start - m->pgoff + fi->loads[i].off - fi->loads[i].vaddr;
			return 0;
		}
	}
	return -1;
}

/* ---- libdwfl's callbacks ---- */

/* A module's ELF: an Elf over the unwinder's image of the file (the
 * module's userdata). */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct fileinfo *fi = *userdata;

	if (!fi || !fi->image)
		return -1;
	*elfp = elf_memory(fi->image, fi->size);
	if (*elfp && !*file_name)
		*file_name = strdup(fi->path);
	return -1;
}

/* Separate debug files (for .debug_frame) by build id only
 * (/usr/lib/debug/.build-id): the standard search would also ask
 * debuginfod servers, while the job runs. */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct tk_unwind_space *s = arg;
	uint64_t off = addr - s->sp;

	if (addr < s->sp || off > s->in->stack_len || s->in->stack_len - off < sizeof(*result)) {
		if (addr >= s->sp)
			s->res->past_copy = 1;
		return false;
	}
	memcpy(result, s->in->stack + off, sizeof(*result));
	if (off + sizeof(*result) > s->res->stack_used)
		s->res->stack_used = off + sizeof(*result);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
#if HAVE_UNWIND
	struct tk_unwind_space *s = arg;
	Dwarf_Word regs[DWARF_NREGS];
	size_t i;

	memset(regs, 0, sizeof(regs));
	for (i = 0; i < NR_ARCH_REGS && i < s->in->nregs; i++)
		regs[arch_regs[i].dwarf] = s->in->regs[i];
	if (!dwfl_thread_state_registers(thread, 0, DWARF_NREGS, regs))
		return false;
	dwfl_thread_state_register_pc(thread, regs[DWARF_PC]);
	return true;
#else
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* The modules a space should have: one per file, at its bias. */
static size_t wanted_modules(struct tk_unwinder *u, const struct tk_rawmap *maps, size_t nr,
			     struct spacemod **out)
{
	struct spacemod *w = NULL;
	size_t nw = 0, alloc = 0, i, j;

	for (i = 0; i < nr; i++) {
		const struct tk_rawmap *m = &maps[i];
		struct fileinfo *fi;
		uint64_t bias;
		int dup_of = 0;

		if (!m->path || (m->path[0] != '/' && strcmp(m->path, "[vdso]")))
			continue;
		fi = file_info(u, m->path);
		/* one module per file: its other mappings are its other segments */
		for (j = 0; j < nw && !dup_of; j++)
			dup_of = w[j].fi == fi;
		if (dup_of || !fi->nloads || file_bias(fi, m, &bias))
			continue;
		TK_ALLOC_GROW(w, nw + 1, alloc);
		w[nw].fi = fi;
		w[nw].bias = bias;
		nw++;
	}
	*out = w;
	return nw;
}

static void report(struct tk_unwind_space *s, const struct spacemod *m)
{
	const char *slash = strrchr(m->fi->path, '/');
	Dwfl_Module *mod;
	void **ud;

	/* a module overlapping another (a stale mapping) is refused by
	 * libdwfl, and the others stay; its ELF is opened on first use,
	 * through find_elf */
	mod = dwfl_report_module(s->dwfl, slash ? slash + 1 : m->fi->path, m->bias + m->fi->lo,
				 m->bias + m->fi->hi);
	if (!mod)
		return;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = m->fi;
	s->any = 1;
}

static void space_reset(struct tk_unwind_space *s)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->dwfl = NULL;
	s->attached = 0;
	s->any = 0;
	free(s->mods);
	s->mods = NULL;
	s->nr_mods = 0;
	memset(s->pcs, 0, sizeof(s->pcs));
}

void tk_unwind_space_update(struct tk_unwind_space *s, const struct tk_rawmap *maps, size_t nr)
{
	struct spacemod *w;
	size_t nw, i, j, kept = 0;

	if (!HAVE_UNWIND)
		return;
	nw = wanted_modules(s->u, maps, nr, &w);
	/* Mappings are only ever added: when every module is still where it
	 * was, the new ones join the session (libdwfl keeps the CFI it has
	 * parsed); a file gone or moved starts a new session. */
	for (i = 0; i < s->nr_mods; i++)
		for (j = 0; j < nw; j++)
			if (w[j].fi == s->mods[i].fi && w[j].bias == s->mods[i].bias) {
				kept++;
				break;
			}
	if (kept != s->nr_mods || !s->dwfl) {
		space_reset(s);
		s->dwfl = dwfl_begin(&dwfl_callbacks);
		if (!s->dwfl) {
			free(w);
			return;
		}
		dwfl_report_begin(s->dwfl);
	} else if (nw == s->nr_mods) {
		free(w);
		return;
	} else {
		dwfl_report_begin_add(s->dwfl);
		/* "no module here" answers may be stale now */
		memset(s->pcs, 0, sizeof(s->pcs));
	}
	for (j = 0; j < nw; j++) {
		int have = 0;

		for (i = 0; i < s->nr_mods && !have; i++)
			have = w[j].fi == s->mods[i].fi;
		if (!have)
			report(s, &w[j]);
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	free(s->mods);
	s->mods = w;
	s->nr_mods = nw;
	/* the machine comes from the modules: attach once there is one */
	if (!s->attached && s->any && dwfl_attach_state(s->dwfl, NULL, 1, &thread_callbacks, s))
		s->attached = 1;
}

struct tk_unwind_space *tk_unwind_space_new(struct tk_unwinder *u)
{
	struct tk_unwind_space *s = tk_xcalloc(1, sizeof(*s));

	s->u = u;
	return s;
}

void tk_unwind_space_free(struct tk_unwind_space *s)
{
	if (!s)
		return;
	space_reset(s);
	free(s);
}

/* ---- one sample ---- */

static int lookup_cfi(Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr;

	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		free(fr);
		return 1;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		free(fr);
		return 1;
	}
	return 0;
}

/* Whether pc (the address to look up: a return address minus one) is in a
 * file whose CFI covers it; 1 too for memory no file backs (JIT code). */
static int has_cfi(struct tk_unwind_space *s, uint64_t pc)
{
	struct pcent *e = &s->pcs[(pc ^ pc >> 12) & (PC_CACHE - 1)];
	Dwfl_Module *mod;

	if (e->pc == pc)
		return e->cfi;
	mod = dwfl_addrmodule(s->dwfl, pc);
	e->pc = pc;
	e->cfi = mod ? lookup_cfi(mod, pc) : 1;
	return e->cfi;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct tk_unwind_space *s = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	if (s->n == s->max) {
		s->res->cut = 1;
		return DWARF_CB_ABORT;
	}
	s->out[s->n++] = pc;
	return DWARF_CB_OK;
}

/*
 * Where the walk's frames out[0..n) meet the kernel's chain: the
 * outermost frame i >= 1 that the chain has too, at j; the k-th time an
 * address recurs in the walk is matched with its k-th time in the chain.
 * Returns i, or 0 when they meet nowhere.
 */
static uint32_t meet(const uint64_t *out, uint32_t n, const uint64_t *chain, uint32_t nchain,
		     uint32_t *at)
{
	uint32_t i, j, k;

	for (i = n; i-- > 1;) {
		uint32_t want = 0, seen = 0, last = 0;

		for (k = 1; k <= i; k++)
			want += out[k] == out[i];
		for (j = 1; j < nchain; j++) {
			if (chain[j] != out[i])
				continue;
			last = j;
			if (++seen == want)
				break;
		}
		if (last) {
			*at = seen == want ? j : last;
			return i;
		}
	}
	return 0;
}

static uint32_t use_chain(const struct tk_unwind_input *in, uint64_t *out, uint32_t max,
			  struct tk_unwind_result *res)
{
	uint32_t n = in->nchain < max ? in->nchain : max;

	if (in->nchain > max)
		res->cut = 1;
	if (n)
		memcpy(out, in->chain, n * sizeof(*out));
	return n;
}

uint32_t tk_unwind(struct tk_unwind_space *s, const struct tk_unwind_input *in, uint64_t *out,
		   uint32_t max, struct tk_unwind_result *res)
{
	uint32_t i, j = 0, n;
	int rc;

	memset(res, 0, sizeof(*res));
	res->how = TK_UNWIND_CHAIN;
	if (!max)
		return 0;
	if (!s->attached || in->nregs < NR_ARCH_REGS)
		return use_chain(in, out, max, res);
#if HAVE_UNWIND
	s->in = in;
	s->res = res;
	s->out = out;
	s->max = max;
	s->n = 0;
	for (i = 0; i < NR_ARCH_REGS; i++)
		if (arch_regs[i].dwarf == DWARF_SP)
			s->sp = in->regs[i];
	rc = dwfl_getthread_frames(s->dwfl, 1, frame_cb, s);
	n = s->n;
	res->cfi_frames = n;
	s->in = NULL;
	/* libdwfl ends a walk without an error where the return address
	 * cannot be read, as at the thread's first frame, where CFI says it
	 * is undefined: only a walk that never wanted more than the copy has
	 * reached that frame */
	if (res->cut || (rc == 0 && !res->past_copy)) {
		res->how = TK_UNWIND_COMPLETE;
		return n;
	}
	/* why it stopped: code without unwind tables on the way? (asked only
	 * here: most walks complete, and this costs a lookup per frame) */
	for (i = 0; i < n && !res->no_cfi; i++)
		res->no_cfi = !has_cfi(s, i ? out[i] - 1 : out[i]);
	if (n && in->nchain > 1) {
		i = meet(out, n, in->chain, in->nchain, &j);
		if (i) {
			uint32_t rest = in->nchain - (j + 1);

			n = i + 1;
			if (rest > max - n) {
				rest = max - n;
				res->cut = 1;
			}
			memcpy(out + n, in->chain + j + 1, rest * sizeof(*out));
			res->how = TK_UNWIND_SPLICED;
			return n + rest;
		}
	}
	res->how = TK_UNWIND_PARTIAL;
	/* the walk found no more than the sampled instruction: the chain
	 * has that and maybe more */
	if (n <= 1 && in->nchain)
		return use_chain(in, out, max, res);
	return n;
#else
	(void)i;
	(void)j;
	(void)n;
	(void)rc;
	return use_chain(in, out, max, res);
#endif
}
