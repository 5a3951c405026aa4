/*
 * The CI context: the process environment as a struct tk_env, the walk
 * over the providers, and the run key.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/ci/ci.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

int tk_ci_is_sha(const char *s)
{
	size_t n = 0;

	if (!s)
		return 0;
	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n == 40 || n == 64;
}

static void fill_host(struct tk_ci_context *ctx)
{
	char name[HOST_NAME_MAX + 1];

	if (ctx->host)
		return;
	if (gethostname(name, sizeof(name)))
		return;
	name[sizeof(name) - 1] = '\0';
	tk_set_once(&ctx->host, name);
}

int tk_ci_collect(const struct tk_env *env, struct tk_ci_context *ctx,
		  struct tk_err *err)
{
	const struct tk_ci_provider *p;
	size_t i;
	struct tk_err one = TK_ERR_INIT;
	int first = 0;

	for (i = 0; (p = tk_ci_provider_at(i)); i++) {
		int ret;

		if (!p->detect(env))
			continue;
		tk_set_once(&ctx->provider, p->name);
		ret = p->collect(env, ctx, first ? &one : err);
		if (ret && !first)
			first = ret;
	}
	fill_host(ctx);
	return first;
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/*
 * Appends "[JOB/COUNT]" to the key that starts at b->buf + start in a job
 * of a Buildkite step with parallelism (BUILDKITE_PARALLEL_JOB of
 * BUILDKITE_PARALLEL_JOB_COUNT); returns 1 then, else 0. A valid key
 * too long to take it within TK_RUN_KEY_MAX bytes loses its end first,
 * at a character boundary, to the room the longest suffix of the count
 * needs ("[9/12]" and "[10/12]" cut it alike); a key already too long is
 * left for the key check to refuse.
 */
static int add_parallel_suffix(const struct tk_env *env, struct tk_buf *b, size_t start)
{
	const char *job = nonempty(tk_env_get(env, "BUILDKITE_PARALLEL_JOB"));
	const char *count = nonempty(tk_env_get(env, "BUILDKITE_PARALLEL_JOB_COUNT"));
	char suffix[64], longest[64];
	size_t len;
	long j, c;

	if (!job || !count || tk_parse_long(job, &j) || tk_parse_long(count, &c) ||
	    c < 2 || j < 0 || j >= c)
		return 0;
	snprintf(suffix, sizeof(suffix), "[%ld/%ld]", j, c);
	len = (size_t)snprintf(longest, sizeof(longest), "[%ld/%ld]", c - 1, c);
	while (b->len - start <= TK_RUN_KEY_MAX && b->len > start &&
	       b->len - start + len > TK_RUN_KEY_MAX) {
		size_t n = b->len - 1;

		while (n > start && ((unsigned char)b->buf[n] & 0xc0) == 0x80)
			n--;
		tk_buf_setlen(b, n);
	}
	tk_buf_adds(b, suffix);
	return 1;
}

/*
 * k with "[JOB/COUNT]" appended in a job of a step with parallelism: each
 * job of such a step runs its own share of the work, so each is a series
 * of its own. k itself otherwise.
 */
static const char *parallel_key(const struct tk_env *env, const char *k, struct tk_buf *buf)
{
	tk_buf_reset(buf);
	tk_buf_adds(buf, k);
	return add_parallel_suffix(env, buf, 0) ? buf->buf : k;
}

const char *tk_ci_key(const struct tk_env *env, const char *explicit_key, struct tk_buf *buf)
{
	const char *k;

	k = nonempty(explicit_key);
	if (!k)
		k = nonempty(tk_env_get(env, "TRACKER_KEY"));
	if (!k)
		k = nonempty(tk_env_get(env, "BUILDKITE_STEP_KEY"));
	return k ? parallel_key(env, k, buf) : NULL;
}

const struct tk_ci_provider *tk_ci_system(const struct tk_env *env)
{
	const struct tk_ci_provider *p;
	size_t i;

	for (i = 0; (p = tk_ci_provider_at(i)); i++)
		if (p->step_var && p->detect(env))
			return p;
	return NULL;
}

int tk_ci_detected(const struct tk_env *env)
{
	const struct tk_ci_provider *p;
	size_t i;
	const char *ci = tk_env_get(env, "CI");

	for (i = 0; (p = tk_ci_provider_at(i)); i++)
		if (p->step_var && p->detect(env))
			return 1;
	return ci && *ci && strcmp(ci, "0") && strcmp(ci, "false");
}

static int slug_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
}

/*
 * The length of the emoji shortcode at s (":earth_africa:", ":+1:"), or 0.
 * Buildkite draws any :name: as an emoji, but "test:unit:fast" is a name
 * with colons: a shortcode counts only as a word of its own, ending the
 * string or followed by a space or another shortcode.
 */
static size_t shortcode_len(const char *s)
{
	size_t n = 1;

	if (s[0] != ':')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '-' || s[n] == '+')
		n++;
	if (n == 1 || s[n] != ':')
		return 0;
	n++;
	if (s[n] && !isspace((unsigned char)s[n]) && s[n] != ':')
		return 0;
	return n;
}

void tk_ci_slug(const char *name, struct tk_buf *out)
{
	size_t start = out->len, i = 0;
	int word_start = 1, dash = 0;

	while (name[i]) {
		size_t sc = word_start ? shortcode_len(name + i) : 0;
		int c = (unsigned char)name[i];

		if (sc) {
			i += sc;
			dash = 1;
			continue; /* the next shortcode may follow at once */
		}
		word_start = isspace(c);
		c = c < 0x80 ? tolower(c) : c;
		if (slug_char(c)) {
			dash = dash && out->len > start;
			if (out->len - start + (size_t)dash + 1 > TK_CI_SLUG_MAX)
				break;
			if (dash)
				tk_buf_addch(out, '-');
			dash = 0;
			tk_buf_addch(out, c);
		} else {
			dash = 1;
		}
		i++;
	}
	while (out->len > start && strchr("-._", out->buf[out->len - 1]))
		tk_buf_setlen(out, out->len - 1);
	/* A leading '.' or '_' (a '-' is never added first). */
	for (i = start; i < out->len && strchr("._", out->buf[i]); i++)
		;
	if (i > start) {
		memmove(out->buf + start, out->buf + i, out->len - i);
		tk_buf_setlen(out, out->len - (i - start));
	}
}

int tk_ci_derive_key(const struct tk_env *env, const char *command,
		     struct tk_buf *key, struct tk_buf *from, struct tk_err *err)
{
	const struct tk_ci_provider *p;
	size_t i;
	size_t start = key->len;
	const char *base;

	for (i = 0; (p = tk_ci_provider_at(i)); i++) {
		const char *name;

		if (!p->step_var || !p->detect(env))
			continue;
		name = tk_env_get(env, p->step_var);
		if (!name || !*name)
			continue;
		tk_ci_slug(name, key);
		if (key->len == start)
			continue;
		add_parallel_suffix(env, key, start);
		if (from)
			tk_buf_addf(from, "%s '%s'", p->step_what, name);
		return 0;
	}
	if (tk_ci_detected(env) && command && *command) {
		base = strrchr(command, '/');
		base = base ? base + 1 : command;
		tk_ci_slug(base, key);
		if (key->len > start) {
			add_parallel_suffix(env, key, start);
			if (from)
				tk_buf_addf(from, "the command '%s'", base);
			return 0;
		}
	}
	return tk_err_set(err, TK_EUSAGE, "no key for this run: name it with --key K "
			  "or $TRACKER_KEY (under CI, tracker derives one from the step)");
}
