#ifndef TK_NORMALIZE_H
#define TK_NORMALIZE_H
/*
 * Frame-name normalizers: rewrite the parts of a frame name that change
 * from build to build without the code changing, so that a profile can be
 * matched against a baseline from another build (diff flame graphs).
 * Each flag is one rewrite; see docs/normalize.md for the exact rules.
 *
 *   TK_NORM_HEX        0x7f3a12 -> 0x...; "+0x1a" and "+0x1a/0x40" offsets
 *                      and Rust "::h<16 hex>" hashes dropped
 *   TK_NORM_TEMPLATES  foo<int, bar<x>>::f -> foo<>::f (not operator<, <module>)
 *   TK_NORM_LAMBDAS    {lambda()#3} -> {lambda()#N}, $_12 -> $_N, Java $1 ->
 *                      $N, Go .func3.2 -> .funcN.N ({{closure}} is kept)
 *   TK_NORM_JULIA      #foo#12 -> #foo#N, #12 -> #N, julia_foo_1234 ->
 *                      julia_foo_N (also j_, jfptr_, japi1_, ...)
 *   TK_NORM_LINES      file.jl:123 -> file.jl, a.py:4:7 -> a.py
 *
 * The rewrites run in the order templates, lambdas, julia, hex, lines. A
 * name without anything to rewrite comes out unchanged; bytes that are
 * not part of a rewrite (invalid UTF-8 included) are copied as they are.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"

enum {
	TK_NORM_HEX = 1u << 0,
	TK_NORM_TEMPLATES = 1u << 1,
	TK_NORM_LAMBDAS = 1u << 2,
	TK_NORM_JULIA = 1u << 3,
	TK_NORM_LINES = 1u << 4,
	TK_NORM_ALL = (1u << 5) - 1,
};

/*
 * Appends the normalized form of in[0..len) to out. Returns 0, or
 * TK_EDATA when out's cap would be passed (out then holds a prefix).
 * With flags 0 the name is copied.
 */
int tk_normalize_name(const char *in, size_t len, unsigned flags, struct tk_buf *out);

/*
 * Parses a comma-separated list of flag names: hex, templates, lambdas,
 * julia, lines, all, none. TK_EUSAGE (err names the word) for others.
 */
int tk_normalize_parse(const char *spec, unsigned *flags, struct tk_err *err);

#endif
