#ifndef TK_PROFCODEC_H
#define TK_PROFCODEC_H
/*
 * The compact stored form of a profile: what the store keeps in a BLOB and
 * `tracker run` writes next to a record file (*.tkprof).
 *
 *   the raw length (8 bytes, LE)
 *   zlib( "TKPF" version(1) unit(1)
 *         varint nr_names, then per name: varint len, bytes
 *         varint nr_nodes, then per node in id order:
 *             varint (id - parent), varint name,
 *             weight: varint (2 * w) for an integral w in [0, 2^52),
 *                     else varint 1 followed by 8 bytes (IEEE double, LE) )
 *   [ "TKC1" length (4 LE) payload crc32 of all three (4 LE) ]
 *   [ "TKD1" dispersion (8 bytes, IEEE double, LE) crc32 of those 12 (4 LE) ]
 *
 * The categories trailer, only for a profile with frame categories
 * (core/model/profile.h), holds varint count, then per name: varint name
 * id (its place in the names above, from 1), one byte category.
 *
 * The trailer, only for a profile whose sampling dispersion is known
 * (core/model/profile.h), follows the stream, where trackers that predate it do
 * not look: zlib's uncompress stops at the stream's end, so they read the
 * profile as before, without it. Names and nodes exclude the root. A
 * node's parent always has a smaller
 * id (tk_profile_child creates parents first), so a delta is small and
 * decoding is one pass. Decoding bounds every count and length by the
 * input, so a corrupt blob is an error (TK_EDATA naming `name` and the
 * byte offset), never a crash.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/profile.h"

#define TK_PROFCODEC_EXT ".tkprof"

int tk_profile_encode(const struct tk_profile *p, struct tk_buf *out, struct tk_err *err);
/*
 * The first check tk_profile_decode makes, on the first head_len (>= 8)
 * bytes of a stored profile of len bytes: its declared raw size is
 * possible for a profile and for len. A file that fails it (junk, a
 * file of another format) can be refused before the rest is read.
 * Returns 0 or TK_EDATA naming name, as tk_profile_decode would.
 */
int tk_profile_check_head(const void *head, size_t head_len, uint64_t len, const char *name,
			  struct tk_err *err);
/*
 * out must be initialised (tk_profile_init); it is finished on return.
 * A blob of 1 MiB or more is inflated on a second thread while the first
 * decodes, with ISA-L where the build has it (TK_WITH_ISAL) and
 * libisal.so.2 loads, else with zlib: the same streams, the same checks,
 * the same profile, ISA-L at about twice the speed. (One difference
 * remains: ISA-L takes a deflate block whose Huffman code is incomplete,
 * which zlib refuses; tracker never writes one, and the stream's adler32
 * and every check of the decoder still apply.)
 */
int tk_profile_decode(const void *data, size_t len, const char *name,
		      struct tk_profile *out, struct tk_err *err);
/* 1 when tk_profile_decode can inflate with ISA-L here. */
int tk_profile_isal_available(void);
/* For tests and benchmarks: 0 makes tk_profile_decode inflate with zlib
 * even where ISA-L is available, 1 (the default) lets it use ISA-L. */
void tk_profile_decode_use_isal(int on);

#endif
