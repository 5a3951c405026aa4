#ifndef TK_SYMBOLIZE_H
#define TK_SYMBOLIZE_H
/*
 * Names the raw stacks of a rawset (core/measure/rawprof.h) and merges them into
 * one profile per value, outside the profiled process.
 *
 * Every stack becomes, root first: the image's name (the executable's
 * basename, so fork+exec children are told apart), then its frames from
 * the outermost to the innermost. A frame is named from the ELF file its
 * mapping names, through libdwfl, offline:
 *
 * - the function from DWARF when the file or its separate debug file
 *   (found by build-id or debuglink under /usr/lib/debug) has it, else
 *   the ELF symbol (symtab or dynsym);
 * - a frame inside inlined code becomes several frames: the function it
 *   was inlined into, then each inlined function, outermost first;
 * - with opts.lines, " file.c:42" (the file's basename) is appended to
 *   each frame that has a line: the line of the address for the innermost
 *   one, the call site for the functions an inlined one sits in;
 * - names are then made readable (core/model/demangle.h: C++ and Rust
 *   demangled, symbol versions dropped, frames that end up with one name
 *   under one parent merged) unless opts.no_demangle is set: with it, C++
 *   frames keep their linkage names, as the ELF symbols have them;
 * - an address no symbol covers, or in a file that vanished, is not an ELF
 *   file or cannot be read, is "<module basename>+0x<offset into the
 *   file>"; one no mapping covers is "[unknown]".
 *
 * Return addresses (every frame but a TK_RAW_SLOT_LEAF_IP leaf) are looked
 * up one byte back, inside the call instruction. Each file is opened once
 * and each address named once per call, whatever number of processes
 * mapped it and wherever ASLR put it.
 *
 * When DEBUGINFOD_URLS is set in the environment, libdw may fetch debug
 * files from those servers for modules without local ones.
 */
#include "core/base/err.h"
#include "core/model/profile.h"
#include "core/measure/rawprof.h"

struct tk_symbolize_opts {
	int lines;    /* name frames "func file.c:42" */
	int no_demangle; /* keep mangled linkage names */
};

/*
 * Initializes out[v] for every value v (units: bytes, count, bytes,
 * nanoseconds; see tk_raw_kind for the kinds) and adds every stack of s
 * with a nonzero v to out[v]; have[v] is set to 1 when some stack had one,
 * else 0. The caller releases all of out[], whatever the result. opts may
 * be NULL (no lines).
 *
 * Files that cannot be read are not errors: their frames get unknown
 * names. Returns 0, or TK_EDATA when a profile reaches its node limit,
 * or TK_EUNAVAIL when tracker was built without libdw (core/measure/symbolize-none.c:
 * the message says so and what to install).
 */
int tk_rawset_to_profiles(const struct tk_rawset *s, const struct tk_symbolize_opts *opts,
			  struct tk_profile out[TK_RAW_NVALUES], int have[TK_RAW_NVALUES],
			  struct tk_err *err);

#endif
