#ifndef TK_FSUTIL_H
#define TK_FSUTIL_H
/*
 * Small filesystem helpers with tk_err reporting.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/err.h"

/* mkdir -p; TK_EUNAVAIL naming the directory on failure. */
int tk_mkdir_p(const char *dir, struct tk_err *err);

/*
 * Creates a new, empty temporary file beside path, named
 * "<path>.tmp.<pid>.<12 random hex digits>", with O_CREAT | O_EXCL |
 * O_NOFOLLOW and mode 0666 less the umask, and appends its name to tmp.
 * The name cannot be guessed and the open never follows a symlink or
 * reuses a file someone else created, so writing in a directory others
 * may write to (a shared artifacts directory) cannot be turned against
 * another file. Returns the descriptor (O_CLOEXEC), or -1 with err set
 * (TK_EUNAVAIL, naming path).
 */
int tk_tmpfile_beside(const char *path, struct tk_buf *tmp, struct tk_err *err);

/*
 * Whether name (a file name, no directory) is one tk_tmpfile_beside made
 * for a file named `base`: "<base>.tmp.<pid>.<12 hex digits>". Fills *pid
 * with the pid of its writer. base NULL: any base ending in ".json".
 */
int tk_tmpfile_name_parse(const char *name, const char *base, long *pid);

/*
 * The one way tracker writes an output file so that it is never seen
 * half written: fn writes to a temporary file beside path
 * (tk_tmpfile_beside), which is flushed, fsynced (unless flags has
 * TK_WRITE_NO_FSYNC: the data reaches the file and survives the writer
 * being killed, but is not forced to the disk) and renamed over path
 * when fn returns 0; otherwise, and on any failure, the temporary file is
 * removed and path is left as it was. A write the file size limit
 * refuses (EFBIG, with SIGXFSZ ignored) is an ordinary write error.
 *
 * Returns 0; fn's own TK_EDATA or TK_EUSAGE (or TK_EINTERNAL) with its
 * message; or TK_EUNAVAIL "cannot write 'PATH': ..." when the file
 * cannot be made, written or renamed, or fn says TK_EUNAVAIL (its words
 * and the system's are kept in the message).
 */
typedef int (*tk_write_fn)(FILE *out, void *data, struct tk_err *err);
enum { TK_WRITE_NO_FSYNC = 1 << 0 };
int tk_write_file_stream(const char *path, tk_write_fn fn, void *data, unsigned flags,
			 struct tk_err *err);
/* data[0..len) as the file's content, the same way. */
int tk_write_file_atomic(const char *path, const void *data, size_t len,
			 struct tk_err *err);
int tk_write_file_atomic_flags(const char *path, const void *data, size_t len,
			       unsigned flags, struct tk_err *err);

/*
 * Opens path for reading when it lies where others may write (the
 * records push reads from a shared artifacts directory,
 * GITHUB_EVENT_PATH, --profile-file): never through a symbolic link
 * (O_NOFOLLOW: a link planted in the directory cannot make tracker read
 * /etc/shadow), only a regular file (opened O_NONBLOCK first, so a FIFO
 * cannot block tracker, then refused, as a device or directory is), and
 * at most max bytes (0: any size), checked before a byte is read.
 * Returns the descriptor (O_CLOEXEC, blocking), or -1 with err set:
 * TK_EDATA "'PATH' is a symbolic link" / "is not a regular file" / "is
 * larger than N bytes"; TK_EUNAVAIL "cannot open 'PATH': ..." else.
 */
int tk_open_shared(const char *path, uint64_t max, struct tk_err *err);

/* tk_buf_read_file for such a file: opened by tk_open_shared with b->cap
 * (0: none) as its bound, appended to b; the same errors. */
int tk_read_shared_file(struct tk_buf *b, const char *path, struct tk_err *err);

/*
 * Whether the filesystem holding path is a network filesystem (NFS, CIFS,
 * Lustre, GPFS, BeeGFS, ...), where SQLite's WAL mode does not work.
 * Returns 1, 0, or 0 when it cannot tell.
 */
int tk_is_network_fs(const char *path);

#endif
