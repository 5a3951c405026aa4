#ifndef TK_TEST_PLOT_HISTORY_H
#define TK_TEST_PLOT_HISTORY_H
/*
 * Test helper for history charts: a history of one key, 41 runs a day
 * apart from 2026-01-01, builds 100..140 on staging, walltime 100 s and
 * 200 s from build 130 (1% noise), build 120 on another branch, build
 * 105 failed; what else, as struct plot_history says.
 */
#include <stdio.h>
#include <string.h>

#include "core/pages/histplot.h"

struct plot_history {
	const char *key;                /* NULL: "amip" */
	const char *branch2;            /* build 120's branch */
	const char *cls_odd, *cls_even; /* the machine classes of odd and even
					   builds; NULL: none */
	const char *pipeline;           /* the data's; the runs are "clima" */
	int partial;                    /* builds 105 and 106 partial */
};

static __attribute__((unused)) void plot_history(struct tk_plot_data *d,
						  const struct plot_history *h)
{
	struct tk_run_summary s;
	char id[64], build[32], commit[64];
	int i;

	tk_plot_data_init(d);
	d->pipeline = h->pipeline;
	for (i = 40; i >= 0; i--) {
		memset(&s, 0, sizeof(s));
		snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d", i);
		snprintf(build, sizeof(build), "%d", 100 + i);
		snprintf(commit, sizeof(commit), "%08xabcdef", 0xc0000000u + (unsigned)i);
		s.run_id = id;
		s.key = h->key ? h->key : "amip";
		s.branch = i == 20 ? h->branch2 : "staging";
		s.commit = commit;
		s.build_number = build;
		s.pipeline = "clima";
		s.started_at_us = (int64_t)(1767225600 + i * 86400) * 1000000;
		s.walltime_s = (i >= 30 ? 200 : 100) * (1 + 0.01 * ((i * 7) % 5 - 2));
		s.user_s = s.walltime_s * 0.9;
		s.sys_s = 0.1;
		s.maxrss_bytes = 1000000000 + i * 1000;
		s.tree_rss_bytes = 2000000000;
		s.cgroup_peak_bytes = -1;
		s.slurm_maxrss_bytes = -1;
		s.status = i == 5 ? TK_RUN_FAILED : TK_RUN_OK;
		s.exit_code = i == 5;
		s.partial = h->partial && (i == 5 || i == 6);
		s.rank = -1;
		s.ntasks = -1;
		s.machine_class = i % 2 ? h->cls_odd : h->cls_even;
		tk_plot_data_add(&s, d);
	}
	tk_plot_data_finish(d);
}

#endif
