/*
 * gen-folded: a large, realistic folded-stacks file for the flame graph
 * benchmarks.
 *
 *   gen-folded [-n STACKS] [-s SEED] [-p PERTURB] > big.folded
 *
 * STACKS distinct stacks (default 200000), depths 5 to 60, frame names
 * drawn from a vocabulary of C++, Julia, Python and kernel-style names,
 * stacks sharing prefixes the way real call trees do, sample counts
 * Zipf-distributed (s = 1.1), output sorted like stackcollapse output.
 * With 200000 stacks the file is about 260 MB.
 *
 * -p PERTURB writes a perturbed profile of the same seed for diff
 * benchmarks: PERTURB percent of the stacks vanish, as many new ones
 * appear, another PERTURB percent regress (x2) or improve (x0.5), and the
 * total changes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: fast, deterministic across platforms. */
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dull;
}

static size_t below(size_t n)
{
	return (size_t)(rnd() % n);
}

static const char *const ns[] = { "ClimaCore", "ClimaAtmos", "Oceananigans", "std", "Eigen",
	"boost::asio", "mpi", "hdf5", "numpy.core", "torch" };
static const char *const verbs[] = { "compute", "apply", "update", "solve", "step",
	"assemble", "interpolate", "reduce", "broadcast", "allocate", "copyto", "getindex",
	"setindex", "materialize", "launch", "wait", "pack", "unpack", "flux", "tendency" };
static const char *const nouns[] = { "field", "stencil", "operator", "matrix", "vector",
	"column", "level", "tracer", "momentum", "energy", "state", "cache", "buffer",
	"jacobian", "tendencies", "boundary", "halo", "spectral", "grid", "timestep" };

static char **vocab;
static size_t vocab_n;

static void make_vocab(size_t n)
{
	char buf[256];
	size_t i;

	vocab = calloc(n, sizeof(char *));
	vocab_n = n;
	for (i = 0; i < n; i++) {
		const char *a = ns[below(10)], *v = verbs[below(20)], *o = nouns[below(20)];

		switch (below(5)) {
		case 0:
			snprintf(buf, sizeof(buf), "%s::%s_%s<double, 3ul>(%s const&, int)", a, v,
				 o, o);
			break;
		case 1:
			snprintf(buf, sizeof(buf), "julia_%s_%s!_%zu (%s.jl)", v, o, 1000 + i, o);
			break;
		case 2:
			snprintf(buf, sizeof(buf), "%s (%s/%s/core.py:%zu)", v, a, o, 10 + i % 900);
			break;
		case 3:
			snprintf(buf, sizeof(buf), "%s_%s_%zu_[k]", v, o, i);
			break;
		default:
			snprintf(buf, sizeof(buf), "%s.%s_%s#%zu::Float64", a, v, o, i);
			break;
		}
		vocab[i] = strdup(buf);
	}
}

struct line {
	char *text;
	size_t len;
};

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

int main(int argc, char **argv)
{
	size_t n = 200000, i, d, perturb = 0;
	uint64_t seed = 1;
	size_t (*paths)[60];
	size_t *depth;
	struct line *lines;
	double *count;
	int c;

	while ((c = getopt(argc, argv, "n:s:p:")) != -1) {
		if (c == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (c == 's')
			seed = strtoull(optarg, NULL, 10);
		else if (c == 'p')
			perturb = strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: gen-folded [-n STACKS] [-s SEED] [-p PERTURB]\n");
			return 2;
		}
	}
	state = 0x853c49e6748fea9bull ^ (seed * 0x9e3779b97f4a7c15ull);
	if (!state)
		state = 1;
	make_vocab(20000);
	paths = calloc(n + n, sizeof(*paths));
	depth = calloc(n + n, sizeof(size_t));
	count = calloc(n + n, sizeof(double));
	lines = calloc(n + n, sizeof(*lines));
	for (i = 0; i < n + n; i++) {
		/* Share a prefix with an earlier stack, then grow fresh frames. */
		size_t keep = 0;

		depth[i] = 5 + below(56);
		if (i && below(10)) {
			size_t j = below(i);

			keep = below(depth[j] < depth[i] ? depth[j] : depth[i]);
			memcpy(paths[i], paths[j], keep * sizeof(size_t));
		}
		for (d = keep; d < depth[i]; d++)
			paths[i][d] = below(vocab_n);
		count[i] = floor(1e6 / pow((double)(i + 1), 1.1)) + 1;
	}
	/* Shuffle which stacks are hot, so counts are not tied to prefixes. */
	for (i = n - 1; i > 0; i--) {
		size_t j = below(i + 1);
		double t = count[i];

		count[i] = count[j];
		count[j] = t;
	}
	if (perturb) {
		size_t k = n * perturb / 100;

		for (i = 0; i < k; i++)
			count[below(n)] = 0;                  /* vanished */
		for (i = 0; i < k; i++)
			count[n + i] = count[below(n)] + 1;  /* new */
		for (i = 0; i < k; i++)
			count[below(n)] *= 2;                 /* regressed */
		for (i = 0; i < k; i++)
			count[below(n)] = floor(count[below(n)] / 2) + 1; /* improved */
	}
	{
		size_t total = perturb ? n + n * perturb / 100 : n, nl = 0;
		char *buf = malloc(60 * 300);

		for (i = 0; i < total; i++) {
			size_t len = 0;

			if (count[i] <= 0)
				continue;
			for (d = 0; d < depth[i]; d++) {
				size_t l = strlen(vocab[paths[i][d]]);

				if (d)
					buf[len++] = ';';
				memcpy(buf + len, vocab[paths[i][d]], l);
				len += l;
			}
			len += (size_t)snprintf(buf + len, 64, " %.0f", count[i]);
			lines[nl].text = malloc(len);
			memcpy(lines[nl].text, buf, len);
			lines[nl].len = len;
			nl++;
		}
		qsort(lines, nl, sizeof(*lines), cmp_line);
		for (i = 0; i < nl; i++) {
			fwrite(lines[i].text, 1, lines[i].len, stdout);
			putchar('\n');
		}
		free(buf);
	}
	return ferror(stdout) ? 1 : 0;
}
