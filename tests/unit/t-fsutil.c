/*
 * core/base/fsutil: atomic writes through unguessable O_EXCL|O_NOFOLLOW
 * temporary files (a symlink planted at the old predictable name
 * "PATH.tmp.PID" must not be followed), the temporary names push
 * recognises, and the mode the umask gives.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/fsutil.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static char dir[] = "/tmp/t-fsutil.XXXXXX";

static void path_in(struct tk_buf *b, const char *name)
{
	tk_buf_reset(b);
	tk_buf_addf(b, "%s/%s", dir, name);
}

static void symlink_not_followed(void)
{
	struct tk_buf victim = TK_BUF_INIT, target = TK_BUF_INIT, link = TK_BUF_INIT;
	struct tk_buf text = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;

	path_in(&victim, "victim");
	path_in(&target, "rec.json");
	tk_buf_addf(&link, "%s.tmp.%ld", target.buf, (long)getpid());
	tk_write_file_atomic(victim.buf, "secret\n", 7, &err);
	ok(!symlink(victim.buf, link.buf), "a symlink at the predictable name");
	is_int(tk_write_file_atomic(target.buf, "record\n", 7, &err), 0, "the record is written");
	tk_buf_read_file(&text, victim.buf, &err);
	is_str(text.buf, "secret\n", "the file the symlink points to is untouched");
	tk_buf_reset(&text);
	tk_buf_read_file(&text, target.buf, &err);
	is_str(text.buf, "record\n", "the record has its content");
	unlink(link.buf);
	tk_buf_release(&victim);
	tk_buf_release(&target);
	tk_buf_release(&link);
	tk_buf_release(&text);
}

static void tmpfile_names(void)
{
	struct tk_buf p = TK_BUF_INIT, tmp = TK_BUF_INIT, tmp2 = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	const char *name;
	struct stat sb;
	long pid = 0;
	int fd, fd2;

	path_in(&p, "k-1.json");
	fd = tk_tmpfile_beside(p.buf, &tmp, &err);
	fd2 = tk_tmpfile_beside(p.buf, &tmp2, &err);
	ok(fd >= 0 && fd2 >= 0, "two temporary files beside one path");
	ok(strcmp(tmp.buf, tmp2.buf) != 0, "with different names (%s)", tmp.buf);
	name = strrchr(tmp.buf, '/') + 1;
	ok(tk_tmpfile_name_parse(name, "k-1.json", &pid) && pid == (long)getpid(),
	   "the name is recognised, with the writer's pid");
	ok(tk_tmpfile_name_parse(name, NULL, &pid), "as a temporary record of any name");
	ok(!tk_tmpfile_name_parse("k-1.json", NULL, &pid), "a record is not temporary");
	ok(!tk_tmpfile_name_parse("k-1.json.tmp.12", NULL, &pid), "the old name is not ours");
	ok(!tk_tmpfile_name_parse("k.svg.tmp.12.0123456789ab", NULL, &pid),
	   "nor a temporary file of another kind");
	ok(!tk_tmpfile_name_parse("k-1.json.tmp.12.0123456789abX", NULL, &pid),
	   "nor a longer suffix");
	ok(!fstat(fd, &sb) && (sb.st_mode & 0777) == (0666 & ~022), "mode 0666 less the umask");
	close(fd);
	close(fd2);
	unlink(tmp.buf);
	unlink(tmp2.buf);
	tk_buf_release(&p);
	tk_buf_release(&tmp);
	tk_buf_release(&tmp2);
}

static void failure_leaves_nothing(void)
{
	struct tk_buf p = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;

	path_in(&p, "no-such-dir/x.json");
	is_int(tk_write_file_atomic(p.buf, "x", 1, &err), TK_EUNAVAIL,
	       "a file that cannot be created: TK_EUNAVAIL");
	ok(strstr(err.msg, "no-such-dir") != NULL, "naming it: %s", err.msg);
	tk_buf_release(&p);
}

/* A writer that writes, then says what the test asks it to. */
static int writer(FILE *out, void *data, struct tk_err *err)
{
	int ret = *(int *)data;

	fputs("new\n", out);
	return ret ? tk_err_set(err, ret, "the writer says no") : 0;
}

static int no_tmp_left(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)))
		found |= strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return d && !found;
}

static void stream_writer(void)
{
	struct tk_buf p = TK_BUF_INIT, text = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int says;

	path_in(&p, "out.svg");
	is_int(tk_write_file_atomic(p.buf, "old\n", 4, &err), 0, "an output written");
	says = TK_EDATA;
	is_int(tk_write_file_stream(p.buf, writer, &says, TK_WRITE_NO_FSYNC, &err), TK_EDATA,
	       "the writer's own error comes back");
	is_str(err.msg, "the writer says no", "with its message");
	tk_buf_read_file(&text, p.buf, &err);
	is_str(text.buf, "old\n", "the file is left as it was");
	ok(no_tmp_left(), "and no temporary file is left");
	says = TK_EUNAVAIL;
	is_int(tk_write_file_stream(p.buf, writer, &says, 0, &err), TK_EUNAVAIL,
	       "a writer's TK_EUNAVAIL is a write error");
	ok(strstr(err.msg, "cannot write '") && strstr(err.msg, "the writer says no"),
	   "naming the file, with the writer's words: %s", err.msg);
	ok(no_tmp_left(), "no temporary file is left");
	says = 0;
	is_int(tk_write_file_stream(p.buf, writer, &says, 0, &err), 0, "a write that succeeds");
	tk_buf_reset(&text);
	tk_buf_read_file(&text, p.buf, &err);
	is_str(text.buf, "new\n", "replaces the file");
	unlink(p.buf);
	tk_buf_release(&p);
	tk_buf_release(&text);
}

/* tk_open_shared / tk_read_shared_file: what a shared directory may hold */
static void shared_reads(void)
{
	struct tk_buf reg = TK_BUF_INIT, link = TK_BUF_INIT, fifo = TK_BUF_INIT;
	struct tk_buf text = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	FILE *f;

	path_in(&reg, "shared.json");
	path_in(&link, "shared-link.json");
	path_in(&fifo, "shared-fifo.json");
	f = fopen(reg.buf, "w");
	fputs("0123456789", f);
	fclose(f);
	ok(!symlink(reg.buf, link.buf) && !mkfifo(fifo.buf, 0600), "setup");

	is_int(tk_read_shared_file(&text, reg.buf, &err), 0, "a regular file is read");
	is_str(text.buf, "0123456789", "whole");
	tk_buf_reset(&text);
	text.cap = 9;
	is_int(tk_read_shared_file(&text, reg.buf, &err), TK_EDATA, "over the cap: refused");
	ok(strstr(err.msg, "is larger than 9 bytes") != NULL, "naming the cap: %s", err.msg);
	is_int((int)text.len, 0, "before a byte is read");
	text.cap = 0;
	is_int(tk_read_shared_file(&text, link.buf, &err), TK_EDATA, "a link: refused");
	ok(strstr(err.msg, "is a symbolic link") != NULL, "saying so: %s", err.msg);
	is_int(tk_read_shared_file(&text, fifo.buf, &err), TK_EDATA,
	       "a FIFO with no writer: refused, not waited on");
	ok(strstr(err.msg, "is not a regular file") != NULL, "saying so: %s", err.msg);
	is_int(tk_open_shared(dir, 0, &err), -1, "a directory: refused");
	is_int(err.code, TK_EDATA, "as bad input");
	path_in(&text, "nonexistent");
	is_int(tk_open_shared(text.buf, 0, &err), -1, "a missing file");
	is_int(err.code, TK_EUNAVAIL, "is unavailable, as tk_buf_read_file says");
	unlink(reg.buf);
	unlink(link.buf);
	unlink(fifo.buf);
	tk_buf_release(&reg);
	tk_buf_release(&link);
	tk_buf_release(&fifo);
	tk_buf_release(&text);
}

int main(void)
{
	umask(022);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	symlink_not_followed();
	tmpfile_names();
	failure_leaves_nothing();
	stream_writer();
	shared_reads();
	{
		struct tk_buf cmd = TK_BUF_INIT;

		path_in(&cmd, "victim");
		unlink(cmd.buf);
		path_in(&cmd, "rec.json");
		unlink(cmd.buf);
		rmdir(dir);
		tk_buf_release(&cmd);
	}
	return done_testing();
}
