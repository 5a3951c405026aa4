/*
 * Machine classes (contract in core/model/machine.h).
 */
#include "core/model/machine.h"

#include <string.h>

#include "core/model/config.h"
#include "core/base/banned.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_sep(char c)
{
	return c == '-' || c == '_';
}

void tk_machine_host_group(const char *host, struct tk_buf *out)
{
	size_t len, end, e, p;

	if (!host || !*host)
		return;
	len = strcspn(host, ".");
	end = len;
	/* every trailing part that is a number: "ip-10-0-1-23" -> "ip" */
	for (;;) {
		for (e = end; e > 0 && is_digit(host[e - 1]); e--)
			;
		if (e == end || e < 2 || !is_sep(host[e - 1]))
			break;
		end = e - 1;
	}
	/* then the digits glued to the last part ("node0123" -> "node",
	 * "fv-az123" -> "fv-az"), but not a one-letter model after a
	 * separator ("gpu-a100" stays) */
	for (e = end; e > 0 && is_digit(host[e - 1]); e--)
		;
	if (e < end && e > 0 && !is_sep(host[e - 1])) {
		for (p = e; p > 0 && !is_sep(host[p - 1]); p--)
			;
		if (!(p > 0 && e - p == 1))
			end = e;
	}
	/* keep a name that is all digits */
	if (!end)
		end = len;
	tk_buf_add(out, host, end);
}

/* "github-hosted-ubuntu22-x64" for a GitHub-hosted runner (agent tags
 * of plugins/ci/github.c), lower-cased; nothing otherwise. */
static void github_hosted(const struct tk_ci_context *ci, struct tk_buf *out)
{
	const char *env = tk_kvlist_get(&ci->agent_tags, "runner_environment");
	const char *os = tk_kvlist_get(&ci->agent_tags, "image_os");
	const char *arch = tk_kvlist_get(&ci->agent_tags, "runner_arch");
	size_t i;

	if (!env || strcmp(env, "github-hosted"))
		return;
	if (!os || !*os)
		os = tk_kvlist_get(&ci->agent_tags, "runner_os");
	tk_buf_adds(out, "github-hosted");
	if (os && *os)
		tk_buf_addf(out, "-%s", os);
	if (arch && *arch)
		tk_buf_addf(out, "-%s", arch);
	for (i = 0; i < out->len; i++)
		if (out->buf[i] >= 'A' && out->buf[i] <= 'Z')
			out->buf[i] = (char)(out->buf[i] - 'A' + 'a');
}

static char *clean(const char *s)
{
	struct tk_buf b = TK_BUF_INIT;
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p && b.len < TK_MACHINE_CLASS_MAX; p++)
		if (*p >= 0x20 && *p != 0x7f)
			tk_buf_addch(&b, *p);
	if (!b.len) {
		tk_buf_release(&b);
		return NULL;
	}
	return tk_buf_detach(&b, NULL);
}

char *tk_machine_class(const char *named, const struct tk_ci_context *ci)
{
	struct tk_buf group = TK_BUF_INIT;
	const char *queue;
	char *ret;

	if (named && *named)
		return clean(named);
	if (!ci)
		return NULL;
	queue = tk_kvlist_get(&ci->agent_tags, "queue");
	if (queue && *queue)
		return clean(queue);
	if (ci->slurm_partition && *ci->slurm_partition)
		return clean(ci->slurm_partition);
	github_hosted(ci, &group);
	if (!group.len)
		tk_machine_host_group(ci->host, &group);
	ret = group.len ? clean(group.buf) : NULL;
	tk_buf_release(&group);
	return ret;
}

char *tk_machine_class_for(const char *named, const struct tk_config *cfg, const char *key,
			   const struct tk_ci_context *ci)
{
	const struct tk_key_config *kc = cfg ? tk_config_key(cfg, key) : NULL;

	if (!(named && *named) && kc && kc->machine_class)
		named = kc->machine_class;
	if (!(named && *named) && cfg)
		named = cfg->machine_class;
	return tk_machine_class(named, ci);
}
