#ifndef TK_FSUTIL_H
#define TK_FSUTIL_H
/*
 * Small filesystem helpers with tk_err reporting.
 */
#include <stddef.h>

#include "core/err.h"

/* mkdir -p; TK_EUNAVAIL naming the directory on failure. */
int tk_mkdir_p(const char *dir, struct tk_err *err);

/* Writes data to path.tmp.<pid>, fsyncs and renames it over path, so a
 * reader sees either the old file or the whole new one. */
int tk_write_file_atomic(const char *path, const void *data, size_t len,
			 struct tk_err *err);

/*
 * Whether the filesystem holding path is a network filesystem (NFS, CIFS,
 * Lustre, GPFS, BeeGFS, ...), where SQLite's WAL mode does not work.
 * Returns 1, 0, or 0 when it cannot tell.
 */
int tk_is_network_fs(const char *path);

#endif
