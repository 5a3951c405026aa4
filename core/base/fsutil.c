#include "core/base/fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

int tk_mkdir_p(const char *dir, struct tk_err *err)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t i;
	int ret = 0;

	tk_buf_adds(&b, dir);
	for (i = 1; i <= b.len; i++) {
		char c = b.buf[i];

		if (c != '/' && c != '\0')
			continue;
		b.buf[i] = '\0';
		if (mkdir(b.buf, 0777) && errno != EEXIST) {
			ret = tk_err_set(err, TK_EUNAVAIL, "cannot create directory '%s': %s",
					 b.buf, strerror(errno));
			break;
		}
		b.buf[i] = c;
	}
	tk_buf_release(&b);
	return ret;
}

int tk_tmpfile_beside(const char *path, struct tk_buf *tmp, struct tk_err *err)
{
	size_t base = tmp->len;
	int attempt, fd = -1, e = EEXIST;

	for (attempt = 0; attempt < 100 && fd < 0 && e == EEXIST; attempt++) {
		unsigned char r[6];
		size_t got = 0, i;

		while (got < sizeof(r)) {
			ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return tk_err_set(err, TK_EUNAVAIL, "cannot create a file beside "
						  "'%s': no random bytes: %s", path,
						  strerror(errno));
			got += (size_t)n;
		}
		tk_buf_setlen(tmp, base);
		tk_buf_addf(tmp, "%s.tmp.%ld.", path, (long)getpid());
		for (i = 0; i < sizeof(r); i++)
			tk_buf_addf(tmp, "%02x", r[i]);
		fd = open(tmp->buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0)
			e = errno;
	}
	if (fd < 0)
		tk_err_set(err, TK_EUNAVAIL, "cannot create '%s': %s", tmp->buf, strerror(e));
	return fd;
}

int tk_tmpfile_name_parse(const char *name, const char *base, long *pid)
{
	const char *t = strstr(name, ".tmp.");
	const char *p;
	char *end;
	size_t i;

	/* the last ".tmp." (a key may hold one) */
	while (t && strstr(t + 1, ".tmp."))
		t = strstr(t + 1, ".tmp.");
	if (!t || t == name)
		return 0;
	if (base && (strlen(base) != (size_t)(t - name) || strncmp(name, base, strlen(base))))
		return 0;
	if (!base && (t - name < 6 || strncmp(t - 5, ".json", 5)))
		return 0;
	p = t + 5;
	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	*pid = strtol(p, &end, 10);
	if (errno || *end != '.' || *pid <= 0)
		return 0;
	for (i = 1; i <= 12; i++)
		if (!isxdigit((unsigned char)end[i]))
			return 0;
	return end[13] == '\0';
}

int tk_write_file_stream(const char *path, tk_write_fn fn, void *data, unsigned flags,
			 struct tk_err *err)
{
	struct tk_err werr = TK_ERR_INIT;
	struct tk_buf tmp = TK_BUF_INIT;
	FILE *out;
	int fd, ret, failed;

	fd = tk_tmpfile_beside(path, &tmp, &werr);
	if (fd < 0) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s", path, werr.msg);
		tk_buf_release(&tmp);
		return ret;
	}
	out = fdopen(fd, "w");
	if (!out) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	errno = 0;
	ret = fn(out, data, &werr);
	failed = fflush(out) || ferror(out) ||
		 (!(flags & TK_WRITE_NO_FSYNC) && !ret && fsync(fileno(out)));
	failed |= fclose(out) != 0;
	/* a writer's TK_EUNAVAIL is a write error too: name the file, with
	 * the writer's words (a cairo status, a library it could not load)
	 * and the system's */
	if ((failed || ret == TK_EUNAVAIL) && ret != TK_EDATA && ret != TK_EUSAGE) {
		if (ret == TK_EUNAVAIL && werr.msg[0] && errno)
			ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s (%s)", path,
					 werr.msg, strerror(errno));
		else if (ret == TK_EUNAVAIL && werr.msg[0])
			ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s", path, werr.msg);
		else
			ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s", path,
					 errno ? strerror(errno) : "write error");
		goto fail;
	}
	if (ret) {
		if (err)
			*err = werr;
		goto fail;
	}
	if (rename(tmp.buf, path)) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot rename '%s' to '%s': %s", tmp.buf, path,
				 strerror(errno));
		goto fail;
	}
	tk_buf_release(&tmp);
	return 0;
fail:
	unlink(tmp.buf);
	tk_buf_release(&tmp);
	return ret;
}

struct bytes {
	const void *data;
	size_t len;
};

static int write_bytes(FILE *out, void *data, struct tk_err *err)
{
	const struct bytes *b = data;

	(void)err;
	return b->len && fwrite(b->data, 1, b->len, out) != b->len ? TK_EUNAVAIL : 0;
}

int tk_write_file_atomic_flags(const char *path, const void *data, size_t len,
			       unsigned flags, struct tk_err *err)
{
	struct bytes b = { data, len };

	return tk_write_file_stream(path, write_bytes, &b, flags, err);
}

int tk_write_file_atomic(const char *path, const void *data, size_t len,
			 struct tk_err *err)
{
	return tk_write_file_atomic_flags(path, data, len, 0, err);
}

/* Magic numbers from statfs(2) / linux/magic.h, and Lustre, GPFS, BeeGFS. */
int tk_is_network_fs(const char *path)
{
	static const unsigned long magics[] = {
		0x6969,     /* NFS */
		0xFF534D42, /* CIFS */
		0xFE534D42, /* SMB2 */
		0x517B,     /* SMB */
		0x0BD00BD0, /* Lustre */
		0x47504653, /* GPFS */
		0x19830326, /* BeeGFS */
		0x65735546, /* FUSE (sshfs and friends) */
		0x564C,     /* NCP */
		0x6B414653, /* AFS */
		0x00C36400, /* Ceph */
	};
	struct statfs st;
	size_t i;

	if (statfs(path, &st))
		return 0;
	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if ((unsigned long)st.f_type == magics[i])
			return 1;
	return 0;
}

int tk_open_shared(const char *path, uint64_t max, struct tk_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		if (errno == ELOOP)
			tk_err_set(err, TK_EDATA, "'%s' is a symbolic link", path);
		else
			tk_err_set(err, TK_EUNAVAIL, "cannot open '%s': %s", path,
				   strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		tk_err_set(err, TK_EUNAVAIL, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		tk_err_set(err, TK_EDATA, "'%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	if (max && (uint64_t)st.st_size > max) {
		tk_err_set(err, TK_EDATA, "'%s' is larger than %llu bytes", path,
			   (unsigned long long)max);
		close(fd);
		return -1;
	}
	/* a regular file never blocks; reads see no EAGAIN either way */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int tk_read_shared_file(struct tk_buf *b, const char *path, struct tk_err *err)
{
	struct tk_err local = TK_ERR_INIT;
	char chunk[65536];
	int fd = tk_open_shared(path, b->cap, err ? err : &local);

	if (fd < 0)
		return err ? err->code : local.code;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return tk_err_set(err, TK_EUNAVAIL, "cannot read '%s': %s", path,
					  strerror(e));
		}
		if (n == 0)
			break;
		/* the file may have grown since fstat */
		if (tk_buf_add(b, chunk, (size_t)n)) {
			close(fd);
			return tk_err_set(err, TK_EDATA, "'%s' is larger than %zu bytes", path,
					  b->cap);
		}
	}
	close(fd);
	return 0;
}
