/*
 * local: the git checkout the job runs in. Always detects, and runs last,
 * so it only fills the branch and commit no CI variable gave (and names
 * the provider "local" when nothing else detected itself).
 *
 * It reads the repository files directly instead of running git: a job
 * step must not depend on git being installed, on its version, or on what
 * a hook or config in the checkout makes it do. What it understands:
 *   - a .git directory, or a .git file "gitdir: PATH" (worktrees,
 *     submodules), found from the working directory upward;
 *   - "commondir" in a worktree's git dir, where the shared refs live;
 *   - HEAD as "ref: refs/heads/NAME" (the branch) or a bare object name
 *     (detached: commit only);
 *   - the ref as a loose file (possibly itself a symbolic ref) or a line
 *     of packed-refs.
 * Repositories using the reftable backend (HEAD says refs/heads/.invalid)
 * give nothing. No failure here is an error: no repository just means
 * nothing to add.
 */
#include "plugins/ci/providers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/banned.h"

/* HEAD, loose refs, .git and commondir files are one short line. */
#define SMALL_FILE_MAX 4096
#define SYMREF_DEPTH 5
#define PACKED_LINE_MAX 4096

struct repo {
	struct tk_buf gitdir;    /* HEAD lives here */
	struct tk_buf commondir; /* refs and packed-refs live here */
};

static int detect(const struct tk_env *env)
{
	return 1;
}

/* Reads a small file into b with trailing whitespace trimmed; 0 or -1. */
static int read_small(const char *path, struct tk_buf *b)
{
	tk_buf_reset(b);
	b->cap = SMALL_FILE_MAX;
	if (tk_buf_read_file(b, path, NULL))
		return -1;
	while (b->len && strchr(" \t\r\n", b->buf[b->len - 1]))
		tk_buf_setlen(b, b->len - 1);
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* out = base/rel, or rel when it is absolute. */
static void join_path(struct tk_buf *out, const char *base, const char *rel)
{
	tk_buf_reset(out);
	if (rel[0] == '/')
		tk_buf_adds(out, rel);
	else
		tk_buf_addf(out, "%s/%s", base, rel);
}

static int has_head(const char *gitdir)
{
	struct tk_buf p = TK_BUF_INIT;
	int ret;

	tk_buf_addf(&p, "%s/HEAD", gitdir);
	ret = is_file(p.buf);
	tk_buf_release(&p);
	return ret;
}

/*
 * Checks dir/.git. Returns 1 with repo->gitdir set when it is a repository,
 * 0 when there is none here (keep looking upward), -1 when there is a .git
 * file we cannot follow (stop: the outer repository is not this one's).
 */
static int try_dir(const char *dir, struct repo *repo)
{
	struct tk_buf dotgit = TK_BUF_INIT, content = TK_BUF_INIT;
	int ret = 0;

	tk_buf_addf(&dotgit, "%s/.git", strcmp(dir, "/") ? dir : "");
	if (is_dir(dotgit.buf)) {
		if (has_head(dotgit.buf)) {
			tk_buf_reset(&repo->gitdir);
			tk_buf_adds(&repo->gitdir, dotgit.buf);
			ret = 1;
		}
	} else if (is_file(dotgit.buf)) {
		ret = -1;
		if (!read_small(dotgit.buf, &content) &&
		    !strncmp(content.buf, "gitdir:", 7)) {
			const char *p = content.buf + 7;

			while (*p == ' ' || *p == '\t')
				p++;
			if (*p) {
				join_path(&repo->gitdir, dir, p);
				if (has_head(repo->gitdir.buf))
					ret = 1;
			}
		}
	}
	tk_buf_release(&dotgit);
	tk_buf_release(&content);
	return ret;
}

/* A linked worktree shares refs with the main repository. */
static void set_commondir(struct repo *repo)
{
	struct tk_buf p = TK_BUF_INIT, c = TK_BUF_INIT;

	tk_buf_addf(&p, "%s/commondir", repo->gitdir.buf);
	tk_buf_reset(&repo->commondir);
	if (!read_small(p.buf, &c) && c.len)
		join_path(&repo->commondir, repo->gitdir.buf, c.buf);
	else
		tk_buf_adds(&repo->commondir, repo->gitdir.buf);
	tk_buf_release(&p);
	tk_buf_release(&c);
}

static int find_repo(const char *start, struct repo *repo)
{
	struct tk_buf dir = TK_BUF_INIT;
	int ret = 0;

	if (start[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		if (!cwd)
			return 0;
		tk_buf_addf(&dir, "%s/%s", cwd, start);
		free(cwd);
	} else {
		tk_buf_adds(&dir, start);
	}
	while (dir.len > 1 && dir.buf[dir.len - 1] == '/')
		tk_buf_setlen(&dir, dir.len - 1);
	for (;;) {
		char *slash;

		ret = try_dir(dir.buf, repo);
		if (ret || !strcmp(dir.buf, "/"))
			break;
		slash = strrchr(dir.buf, '/');
		if (!slash)
			break;
		tk_buf_setlen(&dir, slash == dir.buf ? 1 : (size_t)(slash - dir.buf));
	}
	tk_buf_release(&dir);
	if (ret != 1)
		return 0;
	set_commondir(repo);
	return 1;
}

/* A ref name we are willing to turn into a path under the git dir. */
static int ref_name_ok(const char *name)
{
	const char *p;

	if (strncmp(name, "refs/", 5))
		return 0;
	for (p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
			return 0;
		if (*p == '/' && (p[1] == '/' || p[1] == '.' || p[1] == '\0'))
			return 0;
	}
	return !strstr(name, "..");
}

static char *packed_lookup(const char *commondir, const char *name)
{
	struct tk_buf path = TK_BUF_INIT;
	char line[PACKED_LINE_MAX];
	size_t nlen = strlen(name);
	char *found = NULL;
	FILE *f;

	tk_buf_addf(&path, "%s/packed-refs", commondir);
	f = fopen(path.buf, "re");
	tk_buf_release(&path);
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *sp;

		if (len && line[len - 1] != '\n' && !feof(f)) {
			/* Longer than any real ref line: skip the rest of it. */
			int c;

			do
				c = fgetc(f);
			while (c != EOF && c != '\n');
			continue;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		/* "# pack-refs with: ..." header and "^<peeled>" lines. */
		if (line[0] == '#' || line[0] == '^')
			continue;
		sp = strchr(line, ' ');
		if (!sp || strlen(sp + 1) != nlen || memcmp(sp + 1, name, nlen))
			continue;
		*sp = '\0';
		if (tk_ci_is_sha(line))
			found = tk_xstrdup(line);
	}
	fclose(f);
	return found;
}

/* The object name ref `name` points at, or NULL; the caller frees it. */
static char *resolve_ref(const struct repo *repo, const char *name, int depth)
{
	struct tk_buf path = TK_BUF_INIT, content = TK_BUF_INIT;
	char *sha = NULL;

	if (depth > SYMREF_DEPTH || !ref_name_ok(name))
		return NULL;
	tk_buf_addf(&path, "%s/%s", repo->commondir.buf, name);
	if (!read_small(path.buf, &content)) {
		if (tk_ci_is_sha(content.buf)) {
			sha = tk_xstrdup(content.buf);
		} else if (!strncmp(content.buf, "ref: ", 5)) {
			sha = resolve_ref(repo, content.buf + 5, depth + 1);
			goto out;
		}
	}
	if (!sha)
		sha = packed_lookup(repo->commondir.buf, name);
out:
	tk_buf_release(&path);
	tk_buf_release(&content);
	return sha;
}

static void read_head(const struct repo *repo, struct tk_ci_context *ctx)
{
	struct tk_buf path = TK_BUF_INIT, head = TK_BUF_INIT;

	tk_buf_addf(&path, "%s/HEAD", repo->gitdir.buf);
	if (read_small(path.buf, &head))
		goto out;
	if (!strncmp(head.buf, "ref: ", 5)) {
		const char *ref = head.buf + 5;
		char *sha;

		if (!ref_name_ok(ref) || !strcmp(ref, "refs/heads/.invalid"))
			goto out;
		if (!strncmp(ref, "refs/heads/", 11))
			tk_set_once(&ctx->branch, ref + 11);
		/* An unborn branch has a name and no commit. */
		sha = resolve_ref(repo, ref, 0);
		tk_set_once(&ctx->commit, sha);
		free(sha);
	} else if (tk_ci_is_sha(head.buf)) {
		tk_set_once(&ctx->commit, head.buf);
	}
out:
	tk_buf_release(&path);
	tk_buf_release(&head);
}

static int collect(const struct tk_env *env, struct tk_ci_context *ctx,
		   struct tk_err *err)
{
	struct repo repo = { TK_BUF_INIT, TK_BUF_INIT };
	char *cwd = NULL;
	const char *start = env->workdir;

	if (ctx->branch && ctx->commit)
		return 0;
	if (!start) {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return 0;
		start = cwd;
	}
	if (find_repo(start, &repo))
		read_head(&repo, ctx);
	tk_buf_release(&repo.gitdir);
	tk_buf_release(&repo.commondir);
	free(cwd);
	return 0;
}

const struct tk_ci_provider tk_ci_local = {
	.version = TK_CI_PROVIDER_VERSION,
	.name = "local",
	.detect = detect,
	.collect = collect,
};
