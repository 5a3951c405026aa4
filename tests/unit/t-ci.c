/*
 * CI providers: fixture environments (fixtures/env/<provider>-<case>.env)
 * through tk_ci_collect, the local git provider on repository layouts made
 * by hand, the precedence between providers, and the run key.
 *
 * Fixture paths are relative to the top of the tree ($TRACKER_ROOT, else
 * the working directory, which is where prove runs).
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ci/ci.h"
#include "core/base/fsutil.h"
#include "plugins/ci/providers.h"
#include "tests/unit/tap.h"

/* ---- an environment table from a KEY=VALUE file ---- */

struct fake_env {
	struct tk_kvlist vars;
};

static const char *fake_get(void *data, const char *name)
{
	struct fake_env *fe = data;

	return tk_kvlist_get(&fe->vars, name);
}

static int fake_each(void *data,
		     int (*fn)(const char *name, const char *value, void *arg),
		     void *arg)
{
	struct fake_env *fe = data;
	size_t i;
	int ret;

	for (i = 0; i < fe->vars.nr; i++) {
		ret = fn(fe->vars.items[i].key, fe->vars.items[i].value, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static const char *root(void)
{
	const char *r = getenv("TRACKER_ROOT");

	return r && *r ? r : ".";
}

static char *fixture_path(const char *name)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_addf(&b, "%s/fixtures/env/%s", root(), name);
	return tk_buf_detach(&b, NULL);
}

/* "NAME=VALUE"; "@ENV@/x" in VALUE stands for the fixtures/env directory. */
static void fake_set(struct fake_env *fe, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	char *name;

	if (!eq)
		return;
	name = tk_xstrndup(assignment, (size_t)(eq - assignment));
	if (!strncmp(eq + 1, "@ENV@/", 6)) {
		char *p = fixture_path(eq + 7);

		tk_kvlist_set(&fe->vars, name, p);
		free(p);
	} else {
		tk_kvlist_set(&fe->vars, name, eq + 1);
	}
	free(name);
}

static int fake_load(struct fake_env *fe, const char *file)
{
	struct tk_buf b = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	char *path = fixture_path(file);
	char *line, *nl;

	if (tk_buf_read_file(&b, path, &err)) {
		printf("# %s\n", err.msg);
		free(path);
		return -1;
	}
	free(path);
	for (line = b.buf; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (*line && *line != '#')
			fake_set(fe, line);
	}
	tk_buf_release(&b);
	return 0;
}

static struct tk_env env_of(struct fake_env *fe, const char *workdir)
{
	struct tk_env e = { fake_get, fe, workdir, fake_each };

	return e;
}

/* ---- naming the fields of a context ---- */

static char **field(struct tk_ci_context *c, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(x) { #x, offsetof(struct tk_ci_context, x) }
		F(provider), F(organization), F(pipeline), F(branch), F(commit),
		F(build_number), F(build_url), F(job_id), F(step_key),
		F(step_label), F(base_branch), F(base_commit), F(head_commit),
		F(default_branch), F(host), F(slurm_job_id), F(slurm_step_id),
		F(slurm_procid), F(slurm_nodelist), F(slurm_partition),
#undef F
	};
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].name, name))
			return (char **)((char *)c + fields[i].off);
	return NULL;
}

static const char *const all_fields[] = {
	"provider", "organization", "pipeline", "branch", "commit",
	"build_number", "build_url", "job_id", "step_key", "step_label",
	"base_branch", "base_commit", "head_commit", "default_branch", "host",
	"slurm_job_id", "slurm_step_id", "slurm_procid", "slurm_nodelist",
	"slurm_partition", NULL,
};

#define MAX_EXPECT 32

struct ci_case {
	const char *name;
	const char *file;         /* NULL: an empty environment */
	const char *set[4];       /* extra NAME=VALUE after the file */
	const char *expect[MAX_EXPECT]; /* field=value, tag:key=value */
	int ntasks, cpus;
	int check_host;           /* 0: host is whatever gethostname says */
};

static const char *expected(const struct ci_case *tc, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < MAX_EXPECT && tc->expect[i]; i++)
		if (!strncmp(tc->expect[i], name, n) && tc->expect[i][n] == '=')
			return tc->expect[i] + n + 1;
	return NULL;
}

/*
 * Every named field must have its value, every other field must be empty
 * (so a provider filling something it should not is caught), and the
 * agent tags must be exactly the tag: entries.
 */
static void check_context(const struct ci_case *tc, struct tk_ci_context *c)
{
	struct tk_buf extra = TK_BUF_INIT;
	size_t ntags = 0, i;
	int k;

	for (k = 0; all_fields[k]; k++) {
		const char *want = expected(tc, all_fields[k]);
		char *got = *field(c, all_fields[k]);

		if (want)
			is_str(got, want, "%s: %s", tc->name, all_fields[k]);
		else if (got && (strcmp(all_fields[k], "host") || tc->check_host))
			tk_buf_addf(&extra, " %s='%s'", all_fields[k], got);
	}
	ok(extra.len == 0, "%s: no other field set", tc->name);
	if (extra.len)
		printf("#   also set:%s\n", extra.buf);
	tk_buf_release(&extra);

	for (k = 0; k < MAX_EXPECT && tc->expect[k]; k++) {
		const char *e = tc->expect[k];
		const char *eq = strchr(e, '=');
		char *key;

		if (strncmp(e, "tag:", 4) || !eq)
			continue;
		ntags++;
		key = tk_xstrndup(e + 4, (size_t)(eq - e - 4));
		is_str(tk_kvlist_get(&c->agent_tags, key), eq + 1,
		       "%s: agent tag %s", tc->name, key);
		free(key);
	}
	is_int(c->agent_tags.nr, ntags, "%s: number of agent tags", tc->name);
	if (c->agent_tags.nr != ntags)
		for (i = 0; i < c->agent_tags.nr; i++)
			printf("#   tag %s=%s\n", c->agent_tags.items[i].key,
			       c->agent_tags.items[i].value);
	is_int(c->slurm_ntasks, tc->ntasks, "%s: slurm_ntasks", tc->name);
	is_int(c->slurm_cpus_per_task, tc->cpus, "%s: slurm_cpus_per_task", tc->name);
	if (!tc->check_host)
		ok(c->host != NULL, "%s: host from gethostname", tc->name);
}

static const struct ci_case cases[] = {
	{ "buildkite push", "buildkite-push.env", { NULL }, {
		"provider=buildkite", "organization=clima",
		"pipeline=climaatmos-ci", "branch=staging",
		"commit=4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
		"build_number=18734",
		"build_url=https://buildkite.com/clima/climaatmos-ci/builds/18734",
		"job_id=0190a2c4-6f2d-4c11-8a9b-7e3f5d2c1b08",
		"step_key=amip", "step_label=:earth_africa: AMIP",
		"default_branch=main",
		"tag:queue=central", "tag:arch=x86_64", NULL }, -1, -1, 0 },
	{ "buildkite pull request", "buildkite-pr.env", { NULL }, {
		"provider=buildkite", "organization=clima",
		"pipeline=climaatmos-ci", "branch=ck/faster-radiation",
		"commit=9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c",
		"build_number=18741",
		"build_url=https://buildkite.com/clima/climaatmos-ci/builds/18741",
		"job_id=0190a2d9-1a2b-4c3d-8e4f-5a6b7c8d9e0f",
		"step_key=amip", "step_label=AMIP (gpu)",
		"base_branch=main", "default_branch=main",
		"tag:queue=clima", "tag:slurm_ntasks=4",
		"tag:slurm_gpus_per_task=1", "tag:slurm_mem=64G", NULL }, -1, -1, 0 },
	{ "buildkite PR base ignored outside a PR", "buildkite-push.env",
	  { "BUILDKITE_PULL_REQUEST_BASE_BRANCH=main", NULL }, {
		"provider=buildkite", "organization=clima",
		"pipeline=climaatmos-ci", "branch=staging",
		"commit=4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
		"build_number=18734",
		"build_url=https://buildkite.com/clima/climaatmos-ci/builds/18734",
		"job_id=0190a2c4-6f2d-4c11-8a9b-7e3f5d2c1b08",
		"step_key=amip", "step_label=:earth_africa: AMIP",
		"default_branch=main",
		"tag:queue=central", "tag:arch=x86_64", NULL }, -1, -1, 0 },
	{ "buildkite on slurm", "buildkite-on-slurm.env", { NULL }, {
		"provider=buildkite", "organization=clima",
		"pipeline=climacoupler-ci", "branch=main",
		/* BUILDKITE_COMMIT=HEAD is not recorded; no git here */
		"build_number=5120",
		"build_url=https://buildkite.com/clima/climacoupler-ci/builds/5120",
		"job_id=0190a3e0-aaaa-4bbb-8ccc-dddddddddddd",
		"step_label=coupled AMIP", "default_branch=main",
		"host=hpc-92-10", "slurm_job_id=48213377", "slurm_step_id=0",
		"slurm_procid=0", "slurm_nodelist=hpc-92-[10-11]",
		"slurm_partition=expansion",
		"tag:queue=central", "tag:slurm_ntasks=8", NULL }, 8, 4, 1 },
	{ "github push", "github-push.env", { NULL }, {
		"provider=github", "organization=CliMA",
		"pipeline=CliMA/ClimaAtmos.jl", "branch=main",
		"commit=1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
		"build_number=412",
		"build_url=https://github.com/CliMA/ClimaAtmos.jl/actions/runs/9876543210",
		"job_id=benchmark", "step_key=benchmark",
		"step_label=Benchmarks", NULL }, -1, -1, 0 },
	{ "github push on a GitHub-hosted runner", "github-push.env",
	  { "RUNNER_ENVIRONMENT=github-hosted", "ImageOS=ubuntu22", "RUNNER_ARCH=X64", NULL }, {
		"provider=github", "organization=CliMA",
		"pipeline=CliMA/ClimaAtmos.jl", "branch=main",
		"commit=1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
		"build_number=412",
		"build_url=https://github.com/CliMA/ClimaAtmos.jl/actions/runs/9876543210",
		"job_id=benchmark", "step_key=benchmark",
		"step_label=Benchmarks", "tag:runner_environment=github-hosted",
		"tag:image_os=ubuntu22", "tag:runner_os=Linux", "tag:runner_arch=X64",
		NULL }, -1, -1, 0 },
	{ "github tag push", "github-push.env",
	  { "GITHUB_REF_TYPE=tag", "GITHUB_REF_NAME=v0.27.0", NULL }, {
		"provider=github", "organization=CliMA",
		"pipeline=CliMA/ClimaAtmos.jl",
		"commit=1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
		"build_number=412",
		"build_url=https://github.com/CliMA/ClimaAtmos.jl/actions/runs/9876543210",
		"job_id=benchmark", "step_key=benchmark",
		"step_label=Benchmarks", NULL }, -1, -1, 0 },
	{ "github pull request", "github-pull-request.env",
	  { "GITHUB_EVENT_PATH=@ENV@/github-event-pull-request.json", NULL }, {
		"provider=github", "organization=CliMA",
		"pipeline=CliMA/ClimaAtmos.jl", "branch=ck/faster-radiation",
		"commit=c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00",
		"base_commit=ba5eba11ba5eba11ba5eba11ba5eba11ba5eba11",
		"base_branch=main", "default_branch=main",
		"build_number=413",
		"build_url=https://github.com/CliMA/ClimaAtmos.jl/actions/runs/9876549999",
		"job_id=benchmark", "step_key=benchmark",
		"step_label=Benchmarks", NULL }, -1, -1, 0 },
	{ "github pull request, malformed payload", "github-pull-request.env",
	  { "GITHUB_EVENT_PATH=@ENV@/github-event-malformed.json", NULL }, {
		"provider=github", "organization=CliMA",
		"pipeline=CliMA/ClimaAtmos.jl", "branch=ck/faster-radiation",
		"commit=e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3",
		"base_branch=main", "build_number=413",
		"build_url=https://github.com/CliMA/ClimaAtmos.jl/actions/runs/9876549999",
		"job_id=benchmark", "step_key=benchmark",
		"step_label=Benchmarks", NULL }, -1, -1, 0 },
	{ "github pull request, missing payload", "github-pull-request.env",
	  { "GITHUB_EVENT_PATH=@ENV@/no-such-event.json", NULL }, {
		"provider=github", "organization=CliMA",
		"pipeline=CliMA/ClimaAtmos.jl", "branch=ck/faster-radiation",
		"commit=e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3",
		"base_branch=main", "build_number=413",
		"build_url=https://github.com/CliMA/ClimaAtmos.jl/actions/runs/9876549999",
		"job_id=benchmark", "step_key=benchmark",
		"step_label=Benchmarks", NULL }, -1, -1, 0 },
	{ "gitlab push", "gitlab-push.env", { NULL }, {
		"provider=gitlab", "organization=climate/models",
		"pipeline=climate/models/icon-lite", "branch=main",
		"commit=a1b2c3d4e5f60718293a4b5c6d7e8f9010203040",
		"build_number=857",
		"build_url=https://gitlab.com/climate/models/icon-lite/-/pipelines/1288431",
		"job_id=7730112", "step_key=perf:r2b4", "step_label=perf:r2b4",
		"default_branch=main", NULL }, -1, -1, 0 },
	{ "gitlab merge request", "gitlab-merge-request.env", { NULL }, {
		"provider=gitlab", "organization=climate/models",
		"pipeline=climate/models/icon-lite",
		"branch=feature/openacc-dycore",
		"commit=6666666666666666666666666666666666666666",
		"base_commit=8888888888888888888888888888888888888888",
		"base_branch=develop", "build_number=858",
		"build_url=https://gitlab.com/climate/models/icon-lite/-/pipelines/1288502",
		"job_id=7730240", "step_key=perf:r2b4", "step_label=perf:r2b4",
		"default_branch=main", NULL }, -1, -1, 0 },
	{ "gitlab tag pipeline", "gitlab-push.env",
	  { "CI_COMMIT_TAG=v2.1", "CI_COMMIT_REF_NAME=v2.1", "CI_COMMIT_BRANCH=", NULL }, {
		"provider=gitlab", "organization=climate/models",
		"pipeline=climate/models/icon-lite",
		"commit=a1b2c3d4e5f60718293a4b5c6d7e8f9010203040",
		"build_number=857",
		"build_url=https://gitlab.com/climate/models/icon-lite/-/pipelines/1288431",
		"job_id=7730112", "step_key=perf:r2b4", "step_label=perf:r2b4",
		"default_branch=main", NULL }, -1, -1, 0 },
	{ "slurm srun task", "slurm-srun.env", { NULL }, {
		"provider=slurm", "job_id=48213400", "host=hpc-34-02",
		"slurm_job_id=48213400", "slurm_step_id=2", "slurm_procid=3",
		"slurm_nodelist=hpc-34-[01-08]", "slurm_partition=expansion",
		NULL }, 16, 2, 1 },
	{ "slurm sbatch script", "slurm-sbatch.env", { NULL }, {
		"provider=slurm", "job_id=48213511", "host=hpc-34-01",
		"slurm_job_id=48213511", "slurm_nodelist=hpc-34-[01-04]",
		"slurm_partition=expansion", NULL }, 16, 2, 1 },
	{ "buildkite step without a key", "buildkite-unkeyed.env", { NULL }, {
		"provider=buildkite", "organization=clima",
		"pipeline=climaatmos-ci", "branch=main",
		"commit=7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b",
		"build_number=18802",
		"build_url=https://buildkite.com/clima/climaatmos-ci/builds/18802",
		"job_id=0190a5d1-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
		"step_label=:earth_africa::julia: AMIP (low res)",
		"default_branch=main", "tag:queue=central", NULL }, -1, -1, 0 },
	{ "slurm old spellings, garbage count", "slurm-sbatch-old.env", { NULL }, {
		"provider=slurm", "job_id=1200", "host=node001",
		"slurm_job_id=1200", "slurm_nodelist=node[001-004]",
		NULL }, 32, -1, 1 },
	{ "slurm negative and overflowing counts", "slurm-srun.env",
	  { "SLURM_NTASKS=-4", "SLURM_CPUS_PER_TASK=99999999999", NULL }, {
		"provider=slurm", "job_id=48213400", "host=hpc-34-02",
		"slurm_job_id=48213400", "slurm_step_id=2", "slurm_procid=3",
		"slurm_nodelist=hpc-34-[01-08]", "slurm_partition=expansion",
		NULL }, -1, -1, 1 },
	{ "no CI at all", NULL, { NULL }, { "provider=local", NULL }, -1, -1, 0 },
	{ "BUILDKITE not true", "buildkite-push.env", { "BUILDKITE=false", NULL },
	  { "provider=local", NULL }, -1, -1, 0 },
};

/* ---- scratch directories ---- */

static char scratch[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	return remove(path);
}

static void write_file(const char *rel, const char *content)
{
	struct tk_buf p = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	char *slash;
	FILE *f;

	tk_buf_addf(&p, "%s/%s", scratch, rel);
	slash = strrchr(p.buf, '/');
	*slash = '\0';
	if (tk_mkdir_p(p.buf, &err))
		printf("# %s\n", err.msg);
	*slash = '/';
	f = fopen(p.buf, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	} else {
		printf("# cannot write %s\n", p.buf);
	}
	tk_buf_release(&p);
}

static char *spath(const char *rel)
{
	struct tk_buf p = TK_BUF_INIT;

	tk_buf_addf(&p, "%s/%s", scratch, rel);
	return tk_buf_detach(&p, NULL);
}

static void make_dir(const char *rel)
{
	char *p = spath(rel);
	struct tk_err err = TK_ERR_INIT;

	if (tk_mkdir_p(p, &err))
		printf("# %s\n", err.msg);
	free(p);
}

#define SHA1 "1111111111111111111111111111111111111111"
#define SHA2 "2222222222222222222222222222222222222222"
#define SHA3 "3333333333333333333333333333333333333333"
#define SHA4 "4444444444444444444444444444444444444444"
#define SHA5 "5555555555555555555555555555555555555555"
#define SHA256 "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"

static void make_repos(void)
{
	/* loose ref, searched from a subdirectory */
	write_file("loose/.git/HEAD", "ref: refs/heads/main\n");
	write_file("loose/.git/refs/heads/main", SHA1 "\n");
	make_dir("loose/src/deep");
	/* packed-refs only, with a header, other refs and a peeled tag */
	write_file("packed/.git/HEAD", "ref: refs/heads/feature/x\n");
	write_file("packed/.git/packed-refs",
		   "# pack-refs with: peeled fully-peeled sorted \n"
		   SHA1 " refs/heads/feature/xy\n"
		   SHA2 " refs/heads/feature/x\n"
		   SHA3 " refs/tags/v1\n"
		   "^" SHA4 "\n");
	make_dir("packed/.git/refs/heads");
	/* detached HEAD */
	write_file("detached/.git/HEAD", SHA3 "\n");
	/* SHA-256 repository */
	write_file("sha256/.git/HEAD", SHA256 "\n");
	/* a linked worktree: .git file with an absolute gitdir, commondir */
	write_file("main/.git/HEAD", "ref: refs/heads/main\n");
	write_file("main/.git/refs/heads/main", SHA1 "\n");
	write_file("main/.git/refs/heads/topic", SHA4 "\n");
	write_file("main/.git/worktrees/wt/HEAD", "ref: refs/heads/topic\n");
	write_file("main/.git/worktrees/wt/commondir", "../..\n");
	{
		struct tk_buf b = TK_BUF_INIT;

		tk_buf_addf(&b, "gitdir: %s/main/.git/worktrees/wt\n", scratch);
		write_file("wt/.git", b.buf);
		tk_buf_release(&b);
	}
	/* a submodule: relative gitdir, ref only in the module's packed-refs */
	write_file("super/.git/HEAD", "ref: refs/heads/main\n");
	write_file("super/.git/refs/heads/main", SHA1 "\n");
	write_file("super/.git/modules/sub/HEAD", "ref: refs/heads/dev\n");
	write_file("super/.git/modules/sub/packed-refs", SHA5 " refs/heads/dev\n");
	write_file("super/sub/.git", "gitdir: ../.git/modules/sub\n");
	/* unborn branch */
	write_file("unborn/.git/HEAD", "ref: refs/heads/trunk\n");
	make_dir("unborn/.git/refs/heads");
	/* symbolic loose ref */
	write_file("symref/.git/HEAD", "ref: refs/heads/alias\n");
	write_file("symref/.git/refs/heads/alias", "ref: refs/heads/real\n");
	write_file("symref/.git/refs/heads/real", SHA2 "\n");
	/* HEAD trying to leave the git dir */
	write_file("evil/.git/HEAD", "ref: refs/heads/../../../../etc/passwd\n");
	/* broken .git file: does not fall through to an outer repository */
	write_file("loose/broken/.git", "this is not a gitfile\n");
	/* a .git directory without HEAD is not a repository: keep looking up */
	make_dir("loose/nohead/.git/refs");
	/* reftable repositories */
	write_file("reftable/.git/HEAD", "ref: refs/heads/.invalid\n");
	/* no repository at all */
	make_dir("plain");
}

struct local_case {
	const char *name;
	const char *dir;
	const char *branch, *commit;
};

static const struct local_case local_cases[] = {
	{ "loose ref from a subdirectory", "loose/src/deep", "main", SHA1 },
	{ "packed-refs only", "packed", "feature/x", SHA2 },
	{ "detached HEAD", "detached", NULL, SHA3 },
	{ "SHA-256 object names", "sha256", NULL, SHA256 },
	{ "worktree .git file and commondir", "wt", "topic", SHA4 },
	{ "submodule with relative gitdir", "super/sub", "dev", SHA5 },
	{ "unborn branch", "unborn", "trunk", NULL },
	{ "symbolic loose ref", "symref", "alias", SHA2 },
	{ "ref name escaping the git dir", "evil", NULL, NULL },
	{ "malformed .git file stops the search", "loose/broken", NULL, NULL },
	{ ".git without HEAD is skipped", "loose/nohead", "main", SHA1 },
	{ "reftable HEAD", "reftable", NULL, NULL },
	{ "no repository", "plain", NULL, NULL },
};

/* The scratch directory must not sit inside some other checkout. */
static int in_no_repository(void)
{
	struct fake_env fe = { { NULL, 0, 0 } };
	struct tk_env env = env_of(&fe, scratch);
	struct tk_ci_context c;
	int none;

	tk_ci_context_init(&c);
	tk_ci_local.collect(&env, &c, NULL);
	none = !c.branch && !c.commit;
	tk_ci_context_release(&c);
	return none;
}

static void test_local(void)
{
	size_t i;

	for (i = 0; i < sizeof(local_cases) / sizeof(local_cases[0]); i++) {
		const struct local_case *lc = &local_cases[i];
		struct fake_env fe = { { NULL, 0, 0 } };
		char *dir = spath(lc->dir);
		struct tk_env env = env_of(&fe, dir);
		struct tk_ci_context c;
		struct tk_err err = TK_ERR_INIT;

		tk_ci_context_init(&c);
		is_int(tk_ci_local.collect(&env, &c, &err), 0, "local %s: collect", lc->name);
		is_str(c.branch, lc->branch, "local %s: branch", lc->name);
		is_str(c.commit, lc->commit, "local %s: commit", lc->name);
		tk_ci_context_release(&c);
		free(dir);
	}

	/* relative workdir, resolved against the current directory */
	{
		struct fake_env fe = { { NULL, 0, 0 } };
		struct tk_env env = env_of(&fe, "packed");
		struct tk_ci_context c;
		char *cwd = getcwd(NULL, 0);

		tk_ci_context_init(&c);
		if (chdir(scratch) == 0) {
			tk_ci_local.collect(&env, &c, NULL);
			if (cwd && chdir(cwd))
				printf("# cannot return to %s\n", cwd);
		}
		is_str(c.branch, "feature/x", "local: relative workdir");
		tk_ci_context_release(&c);
		free(cwd);
	}
}

/* Whole-chain precedence: CI variables first, git fills the gaps. */
static void test_precedence(void)
{
	struct tk_ci_context c;
	struct fake_env fe = { { NULL, 0, 0 } };
	char *dir = spath("packed");
	struct tk_env env = env_of(&fe, dir);

	/* SLURM alone has no branch or commit: git gives both. */
	fake_load(&fe, "slurm-srun.env");
	tk_ci_context_init(&c);
	tk_ci_collect(&env, &c, NULL);
	is_str(c.provider, "slurm", "slurm in a checkout: provider");
	is_str(c.branch, "feature/x", "slurm in a checkout: branch from git");
	is_str(c.commit, SHA2, "slurm in a checkout: commit from git");
	tk_ci_context_release(&c);
	tk_kvlist_release(&fe.vars);

	/* Buildkite's branch wins over git's; its "HEAD" commit does not. */
	fake_load(&fe, "buildkite-on-slurm.env");
	tk_ci_context_init(&c);
	tk_ci_collect(&env, &c, NULL);
	is_str(c.provider, "buildkite", "buildkite in a checkout: provider");
	is_str(c.branch, "main", "buildkite in a checkout: CI branch wins");
	is_str(c.commit, SHA2, "buildkite in a checkout: commit from git");
	is_str(c.job_id, "0190a3e0-aaaa-4bbb-8ccc-dddddddddddd",
	       "buildkite in a checkout: buildkite job id wins over slurm's");
	is_str(c.slurm_job_id, "48213377", "buildkite in a checkout: slurm job id");
	tk_ci_context_release(&c);
	tk_kvlist_release(&fe.vars);

	/* A full SHA from the CI is not replaced by the checkout's. */
	fake_load(&fe, "github-push.env");
	tk_ci_context_init(&c);
	tk_ci_collect(&env, &c, NULL);
	is_str(c.commit, "1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
	       "github in a checkout: CI commit wins");
	is_str(c.branch, "main", "github in a checkout: CI branch wins");
	tk_ci_context_release(&c);
	tk_kvlist_release(&fe.vars);

	/* Fields the caller set are kept. */
	fake_load(&fe, "gitlab-push.env");
	tk_ci_context_init(&c);
	tk_set_once(&c.provider, "manual");
	tk_set_once(&c.branch, "release-1.x");
	tk_ci_collect(&env, &c, NULL);
	is_str(c.provider, "manual", "preset provider kept");
	is_str(c.branch, "release-1.x", "preset branch kept");
	is_str(c.pipeline, "climate/models/icon-lite", "preset: the rest still filled");
	tk_ci_context_release(&c);
	tk_kvlist_release(&fe.vars);
	free(dir);
}

static void test_key(void)
{
	struct fake_env fe = { { NULL, 0, 0 } };
	struct tk_env env = env_of(&fe, NULL);
	struct tk_buf b = TK_BUF_INIT;

	ok(tk_ci_key(&env, NULL, &b) == NULL, "key: none anywhere gives NULL");
	fake_set(&fe, "BUILDKITE_STEP_KEY=amip");
	is_str(tk_ci_key(&env, NULL, &b), "amip", "key: BUILDKITE_STEP_KEY last");
	fake_set(&fe, "TRACKER_KEY=");
	is_str(tk_ci_key(&env, NULL, &b), "amip", "key: empty TRACKER_KEY is unset");
	fake_set(&fe, "TRACKER_KEY=nightly");
	is_str(tk_ci_key(&env, NULL, &b), "nightly", "key: TRACKER_KEY over the step key");
	is_str(tk_ci_key(&env, "cli", &b), "cli", "key: --key over everything");
	is_str(tk_ci_key(&env, "", &b), "nightly", "key: empty --key is unset");
	fake_set(&fe, "TRACKER_KEY=");
	fake_set(&fe, "BUILDKITE_STEP_KEY=");
	ok(tk_ci_key(&env, "", &b) == NULL, "key: all empty gives NULL");

	/* a step with parallelism: each job its own key */
	fake_set(&fe, "BUILDKITE_STEP_KEY=tests");
	fake_set(&fe, "BUILDKITE_PARALLEL_JOB=2");
	fake_set(&fe, "BUILDKITE_PARALLEL_JOB_COUNT=4");
	is_str(tk_ci_key(&env, NULL, &b), "tests[2/4]", "key: a parallel job's index and count");
	is_str(tk_ci_key(&env, "cli", &b), "cli[2/4]", "key: --key in a parallel job too");
	fake_set(&fe, "BUILDKITE_PARALLEL_JOB_COUNT=1");
	is_str(tk_ci_key(&env, NULL, &b), "tests", "key: parallelism 1 is no suffix");
	fake_set(&fe, "BUILDKITE_PARALLEL_JOB_COUNT=x");
	is_str(tk_ci_key(&env, NULL, &b), "tests", "key: a count that is no number is ignored");
	fake_set(&fe, "BUILDKITE_PARALLEL_JOB_COUNT=4");
	fake_set(&fe, "BUILDKITE_PARALLEL_JOB=4");
	is_str(tk_ci_key(&env, NULL, &b), "tests", "key: a job index past the count is ignored");
	/* a key derived from the label gets the suffix too */
	fake_set(&fe, "BUILDKITE_PARALLEL_JOB=1");
	fake_set(&fe, "BUILDKITE=true");
	fake_set(&fe, "BUILDKITE_LABEL=:test_tube: Unit tests");
	tk_buf_reset(&b);
	ok(!tk_ci_derive_key(&env, "/bin/true", &b, NULL, NULL) && !strcmp(b.buf, "unit-tests[1/4]"),
	   "derived key: a parallel job's index and count (%s)", b.buf);
	/* a key at the length limit makes room for the suffix, at a character */
	{
		char longest[TK_RUN_KEY_MAX + 1], want[TK_RUN_KEY_MAX + 1];
		struct tk_err err = TK_ERR_INIT;
		const char *k;

		memset(longest, 'a', TK_RUN_KEY_MAX);
		longest[TK_RUN_KEY_MAX] = '\0';
		memcpy(longest + TK_RUN_KEY_MAX - 7, "\xc3\xa9\xc3\xa9", 4); /* "éé" */
		k = tk_ci_key(&env, longest, &b);
		memcpy(want, longest, TK_RUN_KEY_MAX - 7);
		memcpy(want + TK_RUN_KEY_MAX - 7, "\xc3\xa9[1/4]", 8); /* ...é[1/4] */
		is_str(k, want, "key: a 200-byte key loses its end, a whole character, to fit "
		       "[1/4]");
		ok(strlen(k) <= TK_RUN_KEY_MAX && !tk_run_check_key(k, &err),
		   "and is a valid key (%zu bytes) %s", strlen(k), err.msg);
		/* jobs 9 and 10 of 12 cut it alike */
		memset(longest, 'b', TK_RUN_KEY_MAX);
		fake_set(&fe, "BUILDKITE_PARALLEL_JOB_COUNT=12");
		fake_set(&fe, "BUILDKITE_PARALLEL_JOB=9");
		k = tk_ci_key(&env, longest, &b);
		ok(k && strlen(k) == TK_RUN_KEY_MAX - 1 && !strcmp(k + strlen(k) - 6, "[9/12]"),
		   "job 9 of 12 keeps room for [11/12] (%zu bytes)", strlen(k));
		fake_set(&fe, "BUILDKITE_PARALLEL_JOB=10");
		k = tk_ci_key(&env, longest, &b);
		ok(k && strlen(k) == TK_RUN_KEY_MAX && !strncmp(k, longest, TK_RUN_KEY_MAX - 7),
		   "job 10 of 12: the same key before its suffix");
		/* a key over the limit is not cut: the key check refuses it */
		{
			char over[TK_RUN_KEY_MAX + 11];

			memset(over, 'c', sizeof(over) - 1);
			over[sizeof(over) - 1] = '\0';
			k = tk_ci_key(&env, over, &b);
			ok(k && strlen(k) > TK_RUN_KEY_MAX && tk_run_check_key(k, &err),
			   "a key already over the limit stays so, and is refused");
		}
	}
	tk_buf_release(&b);
	tk_kvlist_release(&fe.vars);
}

static void test_slug(void)
{
	static const struct {
		const char *in, *want;
	} slugs[] = {
		{ ":earth_africa: AMIP", "amip" },
		{ ":earth_africa::julia: AMIP (low res)", "amip-low-res" },
		{ "AMIP :julia:", "amip" },
		{ "test:unit:fast", "test-unit-fast" },
		{ "perf:r2b4", "perf-r2b4" },
		{ "Julia 1.10 / ubuntu", "julia-1.10-ubuntu" },
		{ "  --Weird__ name!!  ", "weird__-name" },
		{ ":rocket:", "" },
		{ ":+1: :skin-tone-2: ok", "ok" },
		{ "Größe", "gr-e" },
		{ "", "" },
		{ "run.sh", "run.sh" },
		{ "_hidden.", "hidden" },
	};
	struct tk_buf b = TK_BUF_INIT, long_name = TK_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(slugs) / sizeof(slugs[0]); i++) {
		tk_buf_reset(&b);
		tk_ci_slug(slugs[i].in, &b);
		is_str(b.buf, slugs[i].want, "slug: '%s'", slugs[i].in);
	}
	for (i = 0; i < 40; i++)
		tk_buf_adds(&long_name, "ab ");
	tk_buf_reset(&b);
	tk_ci_slug(long_name.buf, &b);
	ok(b.len <= TK_CI_SLUG_MAX && b.len >= TK_CI_SLUG_MAX - 3 &&
	   b.buf[b.len - 1] != '-', "slug: capped at %d bytes, no trailing '-' (%zu)",
	   TK_CI_SLUG_MAX, b.len);
	/* appends */
	tk_buf_reset(&b);
	tk_buf_adds(&b, "x:");
	tk_ci_slug("Y", &b);
	is_str(b.buf, "x:y", "slug: appends to what the buffer holds");
	tk_buf_release(&b);
	tk_buf_release(&long_name);
}

/* tk_ci_derive_key on a fixture plus NAME=VALUE settings. */
static void check_derive(const char *file, const char *const *set, const char *command,
			 const char *want, const char *want_from)
{
	struct fake_env fe = { { NULL, 0, 0 } };
	struct tk_env env = env_of(&fe, NULL);
	struct tk_buf key = TK_BUF_INIT, from = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	if (file)
		fake_load(&fe, file);
	for (; set && *set; set++)
		fake_set(&fe, *set);
	ret = tk_ci_derive_key(&env, command, &key, &from, &err);
	if (want) {
		is_int(ret, 0, "derive %s: found", file ? file : "(empty)");
		is_str(key.buf, want, "derive %s: key", file ? file : "(empty)");
		ok(strstr(from.buf, want_from) != NULL, "derive %s: from '%s'",
		   file ? file : "(empty)", from.buf);
	} else {
		is_int(ret, TK_EUSAGE, "derive %s %s: none outside CI",
		       file ? file : "(empty)", set && set[-1] ? set[-1] : "");
		ok(strstr(err.msg, "--key") != NULL, "derive: the error says how to name one");
	}
	tk_buf_release(&key);
	tk_buf_release(&from);
	tk_kvlist_release(&fe.vars);
}

static void test_derive_key(void)
{
	static const char *const slurm_name[] = { "SLURM_JOB_NAME=nightly-run", NULL };
	static const char *const emoji_only[] = { "BUILDKITE_LABEL=:rocket:", NULL };
	static const char *const ci_true[] = { "CI=true", NULL };
	static const char *const ci_false[] = { "CI=false", NULL };
	static const char *const bk_on_slurm[] = { "SLURM_JOB_ID=1", "SLURM_JOB_NAME=sb", NULL };
	static const char *const no_name[] = { "SLURM_JOB_NAME=", NULL };

	check_derive("buildkite-unkeyed.env", NULL, "julia", "amip-low-res",
		     "the Buildkite label ':earth_africa::julia: AMIP (low res)'");
	check_derive("github-push.env", NULL, "make", "benchmark",
		     "the GitHub job 'benchmark'");
	check_derive("gitlab-push.env", NULL, "make", "perf-r2b4",
		     "the GitLab job name 'perf:r2b4'");
	check_derive("slurm-srun.env", NULL, "julia", "amip-scaling",
		     "the SLURM job name 'amip-scaling'");
	check_derive("slurm-sbatch.env", NULL, "julia", "amip-4-nodes",
		     "the SLURM job name 'AMIP 4 nodes'");
	/* order: the Buildkite label before the SLURM job name */
	check_derive("buildkite-unkeyed.env", bk_on_slurm, "julia", "amip-low-res",
		     "Buildkite label");
	/* a label of emoji only slugs to nothing: the next source */
	check_derive("buildkite-unkeyed.env", emoji_only, "/usr/bin/julia", "julia",
		     "the command 'julia'");
	check_derive("slurm-srun.env", emoji_only, "julia", "amip-scaling",
		     "SLURM job name");
	/* SLURM without a job name: SLURM is a batch system, the command */
	check_derive("slurm-srun.env", no_name, "./run.sh", "run.sh", "the command");
	/* a generic CI (CI=true, no provider): the command */
	check_derive(NULL, ci_true, "/usr/bin/make", "make", "the command 'make'");
	check_derive(NULL, slurm_name, "julia", NULL, NULL);
	/* outside CI nothing derives a key */
	check_derive(NULL, NULL, "make", NULL, NULL);
	check_derive(NULL, ci_false, "make", NULL, NULL);
}

static void test_detected(void)
{
	struct fake_env fe = { { NULL, 0, 0 } };
	struct tk_env env = env_of(&fe, NULL);

	ok(!tk_ci_detected(&env), "detected: not in an empty environment");
	fake_set(&fe, "CI=0");
	ok(!tk_ci_detected(&env), "detected: not with CI=0");
	fake_set(&fe, "CI=1");
	ok(tk_ci_detected(&env), "detected: CI=1");
	fake_set(&fe, "CI=");
	fake_set(&fe, "SLURM_JOB_ID=7");
	ok(tk_ci_detected(&env), "detected: a SLURM allocation");
	tk_kvlist_release(&fe.vars);
}

static int count_prefix(const char *name, const char *value, void *arg)
{
	int *n = arg;

	if (!strcmp(name, "TK_T_CI_PROBE") && !strcmp(value, "a=b"))
		(*n)++;
	return 0;
}

static int stop_at_probe(const char *name, const char *value, void *arg)
{
	return strcmp(name, "TK_T_CI_PROBE") ? 0 : 7;
}

/* The process environment, as `tracker run` uses it. */
static void test_process_env(void)
{
	struct tk_ci_context c;
	struct tk_env env = tk_env_process;
	int n = 0;
	char *dir = spath("plain");

	setenv("TK_T_CI_PROBE", "a=b", 1);
	ok(tk_env_process.each != NULL, "process env can enumerate");
	tk_env_each(&tk_env_process, count_prefix, &n);
	is_int(n, 1, "process env: each sees a variable once, value after the first '='");
	is_int(tk_env_each(&tk_env_process, stop_at_probe, NULL), 7,
	       "process env: each stops and returns fn's value");
	is_str(tk_env_get(&tk_env_process, "TK_T_CI_PROBE"), "a=b", "process env: get");

	setenv("BUILDKITE", "true", 1);
	setenv("BUILDKITE_BRANCH", "staging", 1);
	setenv("BUILDKITE_AGENT_META_DATA_QUEUE", "central", 1);
	setenv("BUILDKITE_AGENT_META_DATA_SLURM_NTASKS", "4", 1);
	env.workdir = dir;
	tk_ci_context_init(&c);
	is_int(tk_ci_collect(&env, &c, NULL), 0, "process env: collect");
	is_str(c.provider, "buildkite", "process env: provider");
	is_str(c.branch, "staging", "process env: branch");
	is_str(tk_kvlist_get(&c.agent_tags, "queue"), "central", "process env: queue tag");
	is_str(tk_kvlist_get(&c.agent_tags, "slurm_ntasks"), "4",
	       "process env: slurm_ntasks tag");
	tk_ci_context_release(&c);

	/* Without each, the tags are skipped and nothing else changes. */
	env.each = NULL;
	tk_ci_context_init(&c);
	tk_ci_collect(&env, &c, NULL);
	is_str(c.branch, "staging", "no enumeration: branch still read");
	is_int(c.agent_tags.nr, 0, "no enumeration: no tags");
	tk_ci_context_release(&c);
	free(dir);
}

static void test_is_sha(void)
{
	ok(tk_ci_is_sha(SHA1), "is_sha: 40 hex");
	ok(tk_ci_is_sha(SHA256), "is_sha: 64 hex");
	ok(tk_ci_is_sha("ABCDEF0123456789ABCDEF0123456789ABCDEF01"), "is_sha: upper case");
	ok(!tk_ci_is_sha("HEAD"), "is_sha: HEAD is not");
	ok(!tk_ci_is_sha("1c2d3e4f"), "is_sha: abbreviated is not");
	ok(!tk_ci_is_sha("g111111111111111111111111111111111111111"), "is_sha: non-hex");
	ok(!tk_ci_is_sha(NULL), "is_sha: NULL");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ci_case *tc = &cases[i];
		struct fake_env fe = { { NULL, 0, 0 } };
		struct tk_env env;
		struct tk_ci_context c;
		struct tk_err err = TK_ERR_INIT;
		int k;

		if (!scratch[0]) {
			snprintf(scratch, sizeof(scratch), "%s/t-ci.XXXXXX",
				 tmp && *tmp ? tmp : "/tmp");
			if (!mkdtemp(scratch)) {
				printf("Bail out! cannot create %s\n", scratch);
				return 1;
			}
			make_repos();
			if (!in_no_repository()) {
				printf("Bail out! %s is inside a git checkout; "
				       "set TMPDIR elsewhere\n", scratch);
				return 1;
			}
		}
		if (tc->file && fake_load(&fe, tc->file)) {
			ok(0, "%s: load %s", tc->name, tc->file);
			continue;
		}
		for (k = 0; k < 4 && tc->set[k]; k++)
			fake_set(&fe, tc->set[k]);
		{
			char *dir = spath("plain");

			env = env_of(&fe, dir);
			tk_ci_context_init(&c);
			is_int(tk_ci_collect(&env, &c, &err), 0, "%s: collect", tc->name);
			check_context(tc, &c);
			tk_ci_context_release(&c);
			free(dir);
		}
		tk_kvlist_release(&fe.vars);
	}
	test_local();
	test_precedence();
	test_key();
	test_slug();
	test_derive_key();
	test_detected();
	test_is_sha();
	test_process_env();
	nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
