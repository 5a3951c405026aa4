#include "core/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/banned.h"

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

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tk_write_file_atomic(const char *path, const void *data, size_t len,
			 struct tk_err *err)
{
	struct tk_buf tmp = TK_BUF_INIT;
	int fd, ret = 0;

	tk_buf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot create '%s': %s",
				 tmp.buf, strerror(errno));
		goto out;
	}
	if (write_all(fd, data, len) || fsync(fd)) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s",
				 tmp.buf, strerror(errno));
		close(fd);
		unlink(tmp.buf);
		goto out;
	}
	if (close(fd) || rename(tmp.buf, path)) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s",
				 path, strerror(errno));
		unlink(tmp.buf);
	}
out:
	tk_buf_release(&tmp);
	return ret;
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
