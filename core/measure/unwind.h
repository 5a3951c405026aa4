#ifndef TK_UNWIND_H
#define TK_UNWIND_H
/*
 * Call chains of sampled user stacks, found with the modules' unwind
 * tables (CFI: .eh_frame, else .debug_frame), outside the sampled process:
 * what `perf record --call-graph dwarf` does. core/measure/perfrec asks the kernel
 * for the user registers and a copy of the top of the user stack with
 * each sample (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER) and hands
 * them here at drain time; the process may be gone by then, as only the
 * files its mappings name are read.
 *
 * The unwinding itself is elfutils' (libdwfl: dwfl_attach_state and
 * dwfl_getthread_frames, with callbacks that serve memory from the stack
 * copy and the first frame's registers from the sample). Where a function
 * has no CFI, libdwfl follows the frame pointer instead.
 *
 * The copy ends somewhere: when the walk reads past it before reaching the
 * thread's first frame, the rest of the call chain comes from the kernel's
 * frame-pointer chain of the same sample, from the outermost frame both
 * agree on ("spliced"). When they agree nowhere, the frames found are kept
 * and the sample counts as partial.
 *
 * Only x86-64 is supported (tk_unwind_perf_regs returns 0 elsewhere, and
 * the caller keeps the kernel's frame-pointer chains).
 *
 * Caching: a tk_unwinder maps each file once, for its lifetime, and reads
 * its load segments (no file descriptor stays open); a tk_unwind_space is
 * one address space (the file-backed executable mappings of one process
 * image) with a libdwfl module per file, whose ELF and CFI are read from
 * that mapping on first use and kept, so that after the first samples of
 * a process each further one costs microseconds.
 *
 * Not thread-safe: one unwinder and its spaces per thread.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/measure/rawprof.h"

struct tk_unwinder;
struct tk_unwind_space;

/*
 * The perf_event_attr.sample_regs_user mask to sample for unwinding on
 * this architecture (the kernel writes the registers in the order of the
 * mask's bits); 0 when unwinding is not supported here.
 */
uint64_t tk_unwind_perf_regs(void);

/*
 * Why this build cannot unwind with CFI ("tracker was built without
 * libdw"), or NULL when it can. Without it tk_unwind_perf_regs is 0, so
 * perf samples keep the kernel's frame-pointer chains
 * (core/measure/unwind-none.c).
 */
const char *tk_unwind_missing(void);

struct tk_unwinder *tk_unwinder_new(void);
/* Frees u; its spaces must have been freed before. u may be NULL. */
void tk_unwinder_free(struct tk_unwinder *u);

/* An empty space of u (never NULL): until its first update, it unwinds
 * nothing, and samples keep the kernel's chain. */
struct tk_unwind_space *tk_unwind_space_new(struct tk_unwinder *u);

/*
 * Makes the space's modules those of the executable mappings maps[0..nr)
 * (sorted or not; those without a path, and files that cannot be read,
 * are left out; "[vdso]" is this process's own vDSO, the same code the
 * kernel gives every process). Mappings that were there before keep their
 * parsed CFI, unless one moved or vanished.
 */
void tk_unwind_space_update(struct tk_unwind_space *s, const struct tk_rawmap *maps, size_t nr);

void tk_unwind_space_free(struct tk_unwind_space *s);

/* One sample, as the kernel wrote it. */
struct tk_unwind_input {
	const uint64_t *regs;      /* PERF_SAMPLE_REGS_USER values, mask tk_unwind_perf_regs() */
	unsigned nregs;            /* 0: no user registers (then the chain is used) */
	const unsigned char *stack; /* the copy of the stack from the sampled SP up */
	size_t stack_len;          /* its valid bytes (dyn_size) */
	const uint64_t *chain;     /* the kernel's frame-pointer chain, innermost first, */
	uint32_t nchain;           /* chain[0] the sampled instruction; nchain may be 0 */
};

enum tk_unwind_how {
	TK_UNWIND_COMPLETE,  /* CFI (and frame pointers where no CFI) to the first frame */
	TK_UNWIND_SPLICED,   /* CFI through the copy, then the kernel's chain */
	TK_UNWIND_PARTIAL,   /* CFI frames only: the walk stopped, nothing to splice */
	TK_UNWIND_CHAIN,     /* the kernel's chain alone (no module, no registers) */
};

struct tk_unwind_result {
	enum tk_unwind_how how;
	int past_copy;       /* the walk wanted stack beyond the copy */
	int no_cfi;          /* a walk that did not complete went through a frame in a
	                      * file whose unwind tables do not cover it */
	int cut;             /* more than max frames: the outermost were dropped */
	uint32_t cfi_frames; /* frames found by the walk (the rest are the chain's) */
	size_t stack_used;   /* bytes of the copy the walk read, from its start */
};

/*
 * Unwinds in, writing at most max frames into out, innermost first, out[0]
 * the sampled instruction and the others return addresses (as the
 * kernel's chain has them). Returns the number of frames (at least 1 when
 * in has registers or a chain, else 0) and fills *res.
 */
uint32_t tk_unwind(struct tk_unwind_space *s, const struct tk_unwind_input *in, uint64_t *out,
		   uint32_t max, struct tk_unwind_result *res);

#endif
