/*
 * Machine classes (contract in core/machine.h).
 */
#include "core/machine.h"

#include <string.h>

#include "core/config.h"
#include "core/banned.h"

void tk_machine_host_group(const char *host, struct tk_buf *out)
{
	size_t len, end;

	if (!host || !*host)
		return;
	len = strcspn(host, ".");
	end = len;
	while (end > 0 && host[end - 1] >= '0' && host[end - 1] <= '9')
		end--;
	/* "gpu-07" -> "gpu", but keep a name that is all digits */
	if (end < len && end > 1 && (host[end - 1] == '-' || host[end - 1] == '_'))
		end--;
	if (!end)
		end = len;
	tk_buf_add(out, host, end);
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
