/*
 * The table of CI providers and its lookups (core/ci/ci.h). The i-th
 * descriptor is the i-th listed with this interface's version
 * (TK_CI_PROVIDER_VERSION): one of another version is skipped, as if it
 * were not listed.
 */
#include "plugins/ci/providers.h"

#include <stddef.h>

#include "core/base/banned.h"

/* Order matters: the first provider that detects itself names the CI. */
static const struct tk_ci_provider *const tk_ci_providers[] = {
	&tk_ci_buildkite,
	&tk_ci_github,
	&tk_ci_gitlab,
	&tk_ci_slurm,
	&tk_ci_local,
};

#define NR (sizeof(tk_ci_providers) / sizeof(tk_ci_providers[0]))

const struct tk_ci_provider *tk_ci_provider_at(size_t i)
{
	size_t k;

	for (k = 0; k < NR; k++)
		if (tk_ci_providers[k]->version == TK_CI_PROVIDER_VERSION && !i--)
			return tk_ci_providers[k];
	return NULL;
}
