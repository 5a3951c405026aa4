#ifndef TK_MACHINE_H
#define TK_MACHINE_H
/*
 * A run's machine class: the kind of machine it ran on, so that runs of
 * two kinds (a GPU queue and a CPU queue, two SLURM partitions) never form
 * one noisy series. Decided when the run is recorded, first found wins:
 *
 *   1. named: --machine-class, else machine_class of the key in
 *      .tracker.yml, else the file's machine_class (the caller passes
 *      the first of them that is set);
 *   2. the Buildkite agent's `queue` tag (agent tags of the CI context);
 *   3. the SLURM partition;
 *   4. a GitHub-hosted runner (agent tag runner_environment
 *      "github-hosted"): "github-hosted-<image_os, else runner_os>-
 *      <runner_arch>", lower-cased ("github-hosted-ubuntu22-x64"): each
 *      job gets a fresh VM with a host name of its own;
 *   5. the host group: the host name's first label without its trailing
 *      numeric parts ("-N"/"_N", repeated) and then the digits glued to
 *      its last part, unless that part is one letter and digits after a
 *      separator, a model name ("node0123" -> "node", "ip-10-0-1-23" ->
 *      "ip", "fv-az123-456" -> "fv-az", "gpu-a100-07" -> "gpu-a100",
 *      "ci-runner-3.example.org" -> "ci-runner"); a name that is all
 *      digits is kept.
 *
 * Returns a malloc'd string, or NULL when nothing is known. Control
 * characters are dropped and the class is cut at 100 bytes.
 */
#include "core/model/run.h"

#define TK_MACHINE_CLASS_MAX 100

char *tk_machine_class(const char *named, const struct tk_ci_context *ci);

/* The class of a run of key being recorded: named is --machine-class (may
 * be NULL), then the key's and the file's machine_class of cfg (may be
 * NULL), then the CI context as above. */
struct tk_config;
char *tk_machine_class_for(const char *named, const struct tk_config *cfg, const char *key,
			   const struct tk_ci_context *ci);

/* The host group of rule 5, appended to out (nothing for NULL/""). */
void tk_machine_host_group(const char *host, struct tk_buf *out);

#endif
