#ifndef TK_DEMANGLE_H
#define TK_DEMANGLE_H
/*
 * Readable frame names: the one pass that turns the linkage names
 * compilers and linkers leave in profiles into the names a programmer
 * wrote. It runs on every profile an importer reads (core/model/import.c) and on
 * every profile the built-in profiler names (core/measure/symbolize.c), unless the
 * caller turns it off (--no-demangle).
 *
 * A name is rewritten only in its leading symbol, the longest prefix of
 * [A-Za-z0-9_.$] characters (after DTrace's "module`", kept); what follows (" file.c:42" from
 * --profile-lines, a " (file.py:10)" location, "_[k]" and friends from
 * stackcollapse-perf) is kept as it is:
 *
 * - a symbol version is dropped: "__libc_start_main@@GLIBC_2.34" and
 *   "memcpy@GLIBC_2.2.5" become "__libc_start_main" and "memcpy". Only
 *   versions that read like ELF version nodes count: an upper-case
 *   letter, then upper-case letters, digits, '_' and '.', with a '_' in
 *   them (GLIBC_2.34, GLIBCXX_3.4.21, GLIBC_PRIVATE, OPENSSL_3.0.0);
 *   "memcpy@plt" and "f@Base" stay;
 * - a symbol that starts with "_Z" (C++, Itanium ABI, and Rust's legacy
 *   mangling) or "_R" (Rust v0) is demangled by libiberty's
 *   cplus_demangle (DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO): C++ frames get
 *   their namespaces, template arguments and parameter types
 *   ("climate::Grid<double>::refine(int)"), Rust frames their path
 *   without the legacy "::h<hash>" ("alloc::oom::oom"). A symbol the
 *   demangler rejects (a Python "_Zone", anything already readable) is
 *   kept, so the pass is idempotent. Symbols longer than
 *   TK_DEMANGLE_MAX_SYMBOL bytes are kept too: libiberty's demangler sizes
 *   its work arrays on the stack by the length of its input.
 *
 * Two frames of one parent can end up with one name (a Rust function
 * seen under two hashes, "f" and "f@GLIBC_2.2.5"); they are merged into
 * one frame, their weights and subtrees added.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/model/profile.h"

#define TK_DEMANGLE_MAX_SYMBOL 16384

/* Flags. NO_PARAMS: C++ functions without their parameter list
 * ("climate::Grid<double>::refine"), for importers whose readable names
 * have none (stackcollapse-perf.pl and stackcollapse.pl cut them). */
#define TK_DEMANGLE_NO_PARAMS 1u

/*
 * The readable form of name s[0..len): returns 1 and sets out to it when
 * it differs from s, 0 (out untouched) when s is readable already.
 */
int tk_demangle_name(const char *s, size_t len, unsigned flags, struct tk_buf *out);

/*
 * Rewrites every name of p as tk_demangle_name does, each distinct name
 * once, merging the siblings that end up with one name. A profile with
 * nothing to rewrite is left exactly as it is (node ids, order, names).
 * When no two names become one, the nodes stay as they are and only name
 * ids change; otherwise the tree is rebuilt: node ids change (the root
 * stays 0, siblings keep their order) and totals are recomputed when p
 * was finished. A demangled name longer than TK_PROFILE_MAX_NAME keeps
 * its raw form. Returns the number of distinct names rewritten.
 */
size_t tk_profile_demangle(struct tk_profile *p, unsigned flags);

#endif
