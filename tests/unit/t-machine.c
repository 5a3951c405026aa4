/*
 * core/model/machine: the machine class of a run, in its order of precedence
 * (named, the key's then the file's machine_class, the Buildkite queue,
 * the SLURM partition, the host group), and the host groups.
 */
#include <stdlib.h>
#include <string.h>

#include "core/model/config.h"
#include "core/model/machine.h"
#include "tests/unit/tap.h"

static void group(const char *host, const char *want)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_machine_host_group(host, &b);
	is_str(b.buf, want, "host group of '%s' is '%s'", host ? host : "(null)", want);
	tk_buf_release(&b);
}

static void class_is(char *got, const char *want, const char *what)
{
	is_str(got, want, "%s", what);
	free(got);
}

int main(void)
{
	struct tk_ci_context ci;
	struct tk_config cfg;
	struct tk_err err = TK_ERR_INIT;
	static const char yml[] = "machine_class: big\n"
				  "keys:\n  amip:\n    machine_class: gpu-a100\n  ocean:\n";

	group("node0123", "node");
	group("gpu-a100-07", "gpu-a100");
	group("ci-runner-3.example.org", "ci-runner");
	group("clima_12", "clima");
	group("vm", "vm");
	group("12345", "12345");
	/* cloud VMs: every trailing number goes, so one class, not one per VM */
	group("ip-10-0-1-23", "ip");
	group("ip-10-0-1-23.ec2.internal", "ip");
	group("fv-az123-456", "fv-az");
	group("fv-az507-143", "fv-az");
	group("n01", "n");
	group("gpu-h100-3", "gpu-h100");
	group("", "");
	group(NULL, "");

	tk_ci_context_init(&ci);
	class_is(tk_machine_class(NULL, &ci), NULL, "nothing known: no class");
	ci.host = strdup("clima-node-07.caltech.edu");
	class_is(tk_machine_class(NULL, &ci), "clima-node", "the host group");
	ci.slurm_partition = strdup("expansion");
	class_is(tk_machine_class(NULL, &ci), "expansion", "the SLURM partition before the host");
	tk_kvlist_set(&ci.agent_tags, "runner_environment", "self-hosted");
	tk_kvlist_set(&ci.agent_tags, "image_os", "ubuntu22");
	class_is(tk_machine_class(NULL, &ci), "expansion", "a self-hosted runner: no runner class");
	free(ci.slurm_partition);
	ci.slurm_partition = NULL;
	free(ci.host);
	ci.host = strdup("fv-az507-143");
	tk_kvlist_set(&ci.agent_tags, "runner_environment", "github-hosted");
	tk_kvlist_set(&ci.agent_tags, "runner_os", "Linux");
	tk_kvlist_set(&ci.agent_tags, "runner_arch", "X64");
	class_is(tk_machine_class(NULL, &ci), "github-hosted-ubuntu22-x64",
		 "a GitHub-hosted runner: its image and arch, not its VM's host name");
	tk_kvlist_set(&ci.agent_tags, "image_os", "");
	class_is(tk_machine_class(NULL, &ci), "github-hosted-linux-x64",
		 "no ImageOS: the runner's OS");
	tk_kvlist_set(&ci.agent_tags, "runner_environment", "self-hosted");
	class_is(tk_machine_class(NULL, &ci), "fv-az", "self-hosted: the host group");
	ci.slurm_partition = strdup("expansion");
	tk_kvlist_set(&ci.agent_tags, "queue", "new-central");
	class_is(tk_machine_class(NULL, &ci), "new-central", "the Buildkite queue before that");
	class_is(tk_machine_class("a\x1b[31mb\n", &ci), "a[31mb", "named first, control "
		 "characters dropped");

	tk_config_init(&cfg);
	ok(!tk_config_parse(yml, strlen(yml), "t.yml", &cfg, &err) && !cfg.nr_warnings,
	   "machine_class in the config parses");
	class_is(tk_machine_class_for("cli", &cfg, "amip", &ci), "cli", "--machine-class wins");
	class_is(tk_machine_class_for(NULL, &cfg, "amip", &ci), "gpu-a100", "then the key's");
	class_is(tk_machine_class_for(NULL, &cfg, "ocean", &ci), "big", "then the file's");
	class_is(tk_machine_class_for(NULL, NULL, "ocean", &ci), "new-central", "no config: CI");
	tk_config_release(&cfg);
	tk_ci_context_release(&ci);
	return done_testing();
}
