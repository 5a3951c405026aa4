/*
 * timeit: interleaved wall-clock timing of several commands.
 *
 *   timeit N LABEL CMD... :: LABEL CMD... [:: ...]
 *
 * Runs each command N times, round-robin so machine noise spreads evenly,
 * with stdin/stdout/stderr on /dev/null, and prints one line per command:
 * label, median and minimum seconds, and the median's ratio to the first
 * command's median. Fails when any run exits non-zero.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 8

struct cmd {
	const char *label;
	char **argv;
	double *t;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double run_once(char **argv)
{
	double t0 = now();
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("timeit: fork");
		exit(1);
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "timeit: '%s' failed (status %d)\n", argv[0], status);
		exit(1);
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	struct cmd cmds[MAX_CMDS];
	int n, nr = 0, i, r;

	if (argc < 4) {
		fprintf(stderr, "usage: timeit N LABEL CMD... [:: LABEL CMD...]\n");
		return 2;
	}
	n = (int)strtol(argv[1], NULL, 10);
	if (n < 1)
		n = 1;
	for (i = 2; i < argc && nr < MAX_CMDS;) {
		cmds[nr].label = argv[i++];
		cmds[nr].argv = argv + i;
		while (i < argc && strcmp(argv[i], "::"))
			i++;
		if (i < argc)
			argv[i++] = NULL;
		cmds[nr].t = calloc((size_t)n, sizeof(double));
		nr++;
	}
	/* One warm-up of each, not counted: page cache, dynamic loader. */
	for (i = 0; i < nr; i++)
		run_once(cmds[i].argv);
	for (r = 0; r < n; r++)
		for (i = 0; i < nr; i++)
			cmds[(i + r) % nr].t[r] = run_once(cmds[(i + r) % nr].argv);
	for (i = 0; i < nr; i++)
		qsort(cmds[i].t, (size_t)n, sizeof(double), cmp_double);
	for (i = 0; i < nr; i++) {
		double med = cmds[i].t[n / 2], base = cmds[0].t[n / 2];

		printf("  %-28s median %9.4f s  min %9.4f s  ratio %.3f\n", cmds[i].label,
		       med, cmds[i].t[0], med / base);
	}
	return 0;
}
