#ifndef TK_UTF8_H
#define TK_UTF8_H
/*
 * UTF-8 validation for untrusted strings (frame names, arguments, branch
 * names) that must be written where only valid UTF-8 is allowed: JSON,
 * XML, cairo's text API.
 */
#include <stddef.h>

#include "core/base/buf.h"

/* The length (1-4) of the valid UTF-8 sequence at p (left bytes
 * available), or 0 when the byte at p does not start one. Overlong
 * forms, surrogates and code points past U+10FFFF are invalid. */
size_t tk_utf8_seqlen(const unsigned char *p, size_t left);

int tk_utf8_valid(const char *s, size_t len);

/* Appends s[0..len) with each byte that is not part of a valid sequence
 * replaced by U+FFFD. */
void tk_utf8_sanitize(struct tk_buf *out, const char *s, size_t len);

#endif
