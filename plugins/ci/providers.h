#ifndef TK_PLUGINS_CI_PROVIDERS_H
#define TK_PLUGINS_CI_PROVIDERS_H
/*
 * The CI providers: each a const struct tk_ci_provider (core/ci/ci.h) in a
 * file of this folder that exports only it. The table of them is in
 * providers.c, the one file that names them: core/ and cmd/ reach them
 * only through the lookups core/ci/ci.h declares. To add one, write the
 * file, declare it here, list it in the table, and test it
 * (plugins/README.md).
 */
#include "core/ci/ci.h"

extern const struct tk_ci_provider tk_ci_buildkite;
extern const struct tk_ci_provider tk_ci_github;
extern const struct tk_ci_provider tk_ci_gitlab;
extern const struct tk_ci_provider tk_ci_slurm;
extern const struct tk_ci_provider tk_ci_local;

#endif
