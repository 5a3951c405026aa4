#include "core/model/context.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

void tk_set_once(char **field, const char *value)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t len;

	if (*field || !value || !*value)
		return;
	len = strlen(value);
	if (tk_utf8_valid(value, len)) {
		*field = tk_xstrdup(value);
		return;
	}
	tk_utf8_sanitize(&b, value, len);
	*field = tk_buf_detach(&b, NULL);
}

void tk_ci_context_init(struct tk_ci_context *c)
{
	memset(c, 0, sizeof(*c));
	c->slurm_ntasks = -1;
	c->slurm_cpus_per_task = -1;
}

void tk_ci_context_release(struct tk_ci_context *c)
{
	free(c->provider);
	free(c->organization);
	free(c->pipeline);
	free(c->branch);
	free(c->commit);
	free(c->build_number);
	free(c->build_url);
	free(c->job_id);
	free(c->step_key);
	free(c->step_label);
	free(c->base_branch);
	free(c->base_commit);
	free(c->head_commit);
	free(c->default_branch);
	free(c->host);
	tk_kvlist_release(&c->agent_tags);
	free(c->slurm_job_id);
	free(c->slurm_step_id);
	free(c->slurm_procid);
	free(c->slurm_nodelist);
	free(c->slurm_partition);
	tk_ci_context_init(c);
}
