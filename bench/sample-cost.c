/*
 * sample-cost: what one tree-RSS sample costs (core/measure/proctree.c), for trees
 * of 1, 10 and 100 processes, each process with 4 threads' worth of
 * /proc/PID/task entries avoided (single-threaded sleepers).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/measure/proctree.h"
#include "core/base/timeutil.h"

static void measure(int nprocs, int iterations)
{
	struct tk_proctree t;
	struct tk_tree_sample s;
	pid_t *kids = calloc((size_t)nprocs, sizeof(pid_t));
	double t0, el;
	int i;

	for (i = 0; i < nprocs; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
	}
	tk_proctree_init(&t, getpid());
	tk_proctree_sample(&t, &s);
	t0 = tk_mono_s();
	for (i = 0; i < iterations; i++)
		tk_proctree_sample(&t, &s);
	el = tk_mono_s() - t0;
	printf("  tree of %3d processes: %7.1f us per sample (%s), %d seen\n", nprocs,
	       el / iterations * 1e6, t.use_children ? "children files" : "/proc scan",
	       s.nprocs);
	tk_proctree_release(&t);
	for (i = 0; i < nprocs; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	free(kids);
}

int main(void)
{
	measure(1, 2000);
	measure(10, 1000);
	measure(100, 200);
	return 0;
}
