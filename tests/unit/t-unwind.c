/*
 * core/measure/unwind: call chains from a sample's registers and stack copy.
 *
 * The sample is real: this process captures its own registers (getcontext)
 * three calls deep in functions built without frame pointers, and copies
 * its stack from there up, as PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER would give them; the maps are its own
 * /proc/self/maps. Then the copy is cut short, and the kernel's chain is
 * imitated, to check the splice and the partial case.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "core/base/buf.h"
#include "core/measure/rawprof.h"
#include "core/measure/unwind.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

#if defined(__x86_64__)

#ifdef __clang__
/* (clang has no per-function optimize: its -O2 omits frame pointers) */
#define NOFP __attribute__((noinline))
#else
#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))
#endif
#define COPY_MAX 32768

static uint64_t regs[17];
static unsigned char stack_copy[COPY_MAX];
static size_t stack_len;
static volatile int sink;

/* The registers in perf's order (tk_unwind_perf_regs): ax bx cx dx si di
 * bp sp ip r8..r15. */
static void take_regs(const ucontext_t *uc)
{
	static const int order[17] = {
		REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP, REG_RSP, REG_RIP,
		REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
	};
	int i;

	for (i = 0; i < 17; i++)
		regs[i] = (uint64_t)uc->uc_mcontext.gregs[order[i]];
}

/* The top of the stack this thread runs on, from /proc/self/maps. */
static uint64_t stack_end(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	uint64_t end = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && sp >= s && sp < e) {
			end = e;
			break;
		}
	}
	fclose(f);
	return end;
}

/* Reads a stack as the kernel does, without a sanitizer's view of
 * which parts of it are whose. */
#if defined(__SANITIZE_ADDRESS__) || defined(__clang__)
__attribute__((no_sanitize("address")))
#endif
static void copy_stack(unsigned char *dst, const volatile unsigned char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

NOFP static void capture(void)
{
	static ucontext_t uc;
	uint64_t sp, end;

	getcontext(&uc);
	take_regs(&uc);
	sp = regs[7];
	end = stack_end(sp);
	stack_len = end > sp ? end - sp : 0;
	if (stack_len > COPY_MAX)
		stack_len = COPY_MAX;
	copy_stack(stack_copy, (const volatile unsigned char *)(uintptr_t)sp, stack_len);
	sink++;
}

NOFP static void middle(void)
{
	capture();
	sink++;
}

NOFP static void outer(void)
{
	middle();
	sink++;
}

/* Which of the three functions addr is in: the nearest start below it. */
static const char *fn_at(uint64_t addr)
{
	static const struct { const char *name; void (*fn)(void); } fns[] = {
		{ "capture", capture }, { "middle", middle }, { "outer", outer },
	};
	const char *name = "?";
	uint64_t best = 0;
	size_t i;

	for (i = 0; i < 3; i++) {
		uint64_t a = (uint64_t)(uintptr_t)fns[i].fn;

		if (a <= addr && addr - a < 512 && a > best) {
			best = a;
			name = fns[i].name;
		}
	}
	return name;
}

static void load_maps(struct tk_rawimage *im)
{
	struct tk_buf b = TK_BUF_INIT;
	char *p, *eol;

	memset(im, 0, sizeof(*im));
	if (tk_buf_read_file(&b, "/proc/self/maps", NULL))
		return;
	for (p = b.buf; *p; p = eol + 1) {
		uint64_t s, e, off;
		const char *path;

		eol = strchr(p, '\n');
		if (!eol)
			break;
		*eol = '\0';
		if (tk_rawmaps_parse_line(p, &s, &e, &off, &path) == 1)
			tk_rawimage_add_map(im, s, e, off, path);
	}
	tk_buf_release(&b);
}

static void show(const char *what, const uint64_t *f, uint32_t n)
{
	uint32_t i;

	printf("#   %s:", what);
	for (i = 0; i < n && i < 12; i++)
		printf(" %s", fn_at(f[i]));
	printf(" (%u frames)\n", n);
}

int main(void)
{
	struct tk_unwinder *u;
	struct tk_unwind_space *sp, *empty;
	struct tk_unwind_input in;
	struct tk_unwind_result res;
	struct tk_rawimage im;
	uint64_t full[TK_RAW_MAX_FRAMES], out[TK_RAW_MAX_FRAMES], chain[TK_RAW_MAX_FRAMES];
	uint32_t nfull, n = 0, nchain, i;
	size_t cut_len;
	int same;

	outer();
	ok(stack_len > 256, "captured %zu bytes of our own stack", stack_len);
	ok(tk_unwind_perf_regs() == 0xff01ffull, "x86-64: ax..ip and r8..r15 are sampled");

	u = tk_unwinder_new();
	sp = tk_unwind_space_new(u);
	load_maps(&im);
	tk_unwind_space_update(sp, im.maps, im.nr_maps);
	tk_unwind_space_update(sp, im.maps, im.nr_maps); /* nothing new: kept */

	memset(&in, 0, sizeof(in));
	in.regs = regs;
	in.nregs = 17;
	in.stack = stack_copy;
	in.stack_len = stack_len;
	nfull = tk_unwind(sp, &in, full, TK_RAW_MAX_FRAMES, &res);
	show("whole copy", full, nfull);
	is_int(res.how, TK_UNWIND_COMPLETE, "the whole stack: unwound to the first frame");
	ok(nfull >= 5 && !strcmp(fn_at(full[0]), "capture") && !strcmp(fn_at(full[1]), "middle") &&
	   !strcmp(fn_at(full[2]), "outer"),
	   "capture < middle < outer, none of them with a frame pointer");
	ok(full[0] == regs[8], "frame 0 is the sampled instruction");
	ok(!res.no_cfi && !res.past_copy, "every frame had CFI, and the copy was enough");
	ok(res.stack_used > 0 && res.stack_used <= stack_len, "it read %zu bytes of the copy",
	   res.stack_used);

	/* A copy that ends in the middle: the smallest that still gets past
	 * outer, without reaching the first frame. */
	for (cut_len = 8; cut_len < stack_len; cut_len += 8) {
		in.stack_len = cut_len;
		n = tk_unwind(sp, &in, out, TK_RAW_MAX_FRAMES, &res);
		if (n >= 4)
			break;
	}
	show("short copy", out, n);
	ok(n >= 4 && cut_len < stack_len, "a %zu-byte copy gets 4 frames", cut_len);
	is_int(res.how, TK_UNWIND_PARTIAL, "no chain to splice: partial");
	ok(res.past_copy, "and it says the copy was too short");
	ok(n < nfull && !memcmp(out, full, n * sizeof(*out)), "its frames are the first %u", n);

	/* The kernel's chain, as it is for a leaf without a frame: the ip,
	 * then the caller's caller (middle is skipped), then the rest. */
	nchain = 0;
	chain[nchain++] = full[0];
	for (i = 2; i < nfull; i++)
		chain[nchain++] = full[i];
	in.chain = chain;
	in.nchain = nchain;
	n = tk_unwind(sp, &in, out, TK_RAW_MAX_FRAMES, &res);
	show("spliced", out, n);
	is_int(res.how, TK_UNWIND_SPLICED, "with the kernel's chain: spliced");
	same = n == nfull && !memcmp(out, full, n * sizeof(*out));
	ok(same, "the spliced stack is the whole one, middle included");

	/* a chain that agrees nowhere: the walk's frames stay, partial */
	chain[1] = 0x10;
	chain[2] = 0x20;
	in.nchain = 3;
	n = tk_unwind(sp, &in, out, TK_RAW_MAX_FRAMES, &res);
	is_int(res.how, TK_UNWIND_PARTIAL, "a chain that agrees nowhere: partial");
	ok(n >= 4 && !memcmp(out, full, n * sizeof(*out)), "keeping the walk's frames");

	/* cut at max frames */
	in.stack_len = stack_len;
	in.nchain = 0;
	n = tk_unwind(sp, &in, out, 2, &res);
	ok(n == 2 && res.cut && res.how == TK_UNWIND_COMPLETE, "at most max frames, cut counted");

	/* no registers: the chain as it is */
	in.nregs = 0;
	in.chain = full;
	in.nchain = 3;
	n = tk_unwind(sp, &in, out, TK_RAW_MAX_FRAMES, &res);
	ok(n == 3 && res.how == TK_UNWIND_CHAIN && !memcmp(out, full, 3 * sizeof(*out)),
	   "no registers: the kernel's chain");

	/* a space without modules */
	empty = tk_unwind_space_new(u);
	in.nregs = 17;
	n = tk_unwind(empty, &in, out, TK_RAW_MAX_FRAMES, &res);
	ok(n == 3 && res.how == TK_UNWIND_CHAIN, "a space with no module: the kernel's chain");
	tk_unwind_space_update(empty, NULL, 0);
	n = tk_unwind(empty, &in, out, TK_RAW_MAX_FRAMES, &res);
	ok(n == 3 && res.how == TK_UNWIND_CHAIN, "and after an update with no maps");
	tk_unwind_space_free(empty);

	/* the maps moved (another process of the same program): a new session */
	{
		struct tk_rawimage moved;
		size_t k;

		memset(&moved, 0, sizeof(moved));
		for (k = 0; k < im.nr_maps; k++)
			tk_rawimage_add_map(&moved, im.maps[k].start + 0x100000000ull,
					    im.maps[k].end + 0x100000000ull, im.maps[k].pgoff,
					    im.maps[k].path);
		tk_unwind_space_update(sp, moved.maps, moved.nr_maps);
		in.chain = NULL;
		in.nchain = 0;
		n = tk_unwind(sp, &in, out, TK_RAW_MAX_FRAMES, &res);
		ok(res.how != TK_UNWIND_COMPLETE || n < 3,
		   "with every module moved away, the sample no longer unwinds (%u frames)", n);
		tk_unwind_space_update(sp, im.maps, im.nr_maps);
		n = tk_unwind(sp, &in, out, TK_RAW_MAX_FRAMES, &res);
		ok(n == nfull && res.how == TK_UNWIND_COMPLETE, "and back where they were, it does");
		tk_rawimage_release(&moved);
	}

	tk_unwind_space_free(sp);
	tk_rawimage_release(&im);
	tk_unwinder_free(u);
	return done_testing();
}

#else

int main(void)
{
	printf("1..0 # SKIP unwinding is implemented for x86-64 only\n");
	return 0;
}

#endif
