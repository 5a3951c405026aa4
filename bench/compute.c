/*
 * compute: a compute-bound program for the profiler benchmark.
 *
 *   compute [ROUNDS]
 *
 * Numerical loops of the kinds scientific codes spend their time in — a
 * blocked matrix product, a Jacobi stencil sweep over a 2-D grid and an
 * O(n^2) particle interaction with a square root — with the occasional
 * allocation a real code makes between them: a fresh work grid and matrix
 * per round, a small per-round record, a diagnostics array grown with
 * realloc. A few thousand allocations in all, so an allocation profiler
 * should cost it next to nothing and a CPU profiler only its sampling.
 * Deterministic; prints a checksum. About 1.1 s with the default 25 rounds
 * on the 2-core development machine.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAT_N 192
#define GRID_N 512
#define PARTICLES 1200
#define BLOCK 32

struct particle {
	double x, y, z, fx, fy, fz;
};

struct round_stats {
	double energy, residual, trace;
	char label[40];
};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static double rnd_unit(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fprintf(stderr, "compute: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static void *xcalloc(size_t nr, size_t n)
{
	void *p = calloc(nr, n);

	if (!p) {
		fprintf(stderr, "compute: out of memory (%zu bytes)\n", nr * n);
		exit(1);
	}
	return p;
}

/* ---- blocked matrix product c = a * b ---- */

static void matmul(const double *a, const double *b, double *c, int n)
{
	int ii, jj, kk, i, j, k;

	memset(c, 0, (size_t)n * (size_t)n * sizeof(*c));
	for (ii = 0; ii < n; ii += BLOCK)
		for (kk = 0; kk < n; kk += BLOCK)
			for (jj = 0; jj < n; jj += BLOCK)
				for (i = ii; i < ii + BLOCK; i++)
					for (k = kk; k < kk + BLOCK; k++) {
						double aik = a[i * n + k];

						for (j = jj; j < jj + BLOCK; j++)
							c[i * n + j] += aik * b[k * n + j];
					}
}

static double matrix_round(void)
{
	size_t bytes = (size_t)MAT_N * MAT_N * sizeof(double);
	double *a = xmalloc(bytes), *b = xmalloc(bytes), *c = xmalloc(bytes);
	double trace = 0;
	int i, rep;

	for (i = 0; i < MAT_N * MAT_N; i++) {
		a[i] = rnd_unit() - 0.5;
		b[i] = rnd_unit() - 0.5;
	}
	for (rep = 0; rep < 6; rep++) {
		matmul(a, b, c, MAT_N);
		/* feed the product back, scaled, so nothing is loop-invariant */
		for (i = 0; i < MAT_N * MAT_N; i++)
			a[i] = c[i] * 0.05 + a[i] * 0.5;
	}
	for (i = 0; i < MAT_N; i++)
		trace += c[i * MAT_N + i];
	free(a);
	free(b);
	free(c);
	return trace;
}

/* ---- Jacobi sweeps of a 2-D Laplace problem ---- */

static double jacobi_sweep(const double *u, double *v, int n)
{
	double res = 0;
	int i, j;

	for (i = 1; i < n - 1; i++)
		for (j = 1; j < n - 1; j++) {
			double x = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
					   u[i * n + j - 1] + u[i * n + j + 1]);

			res += fabs(x - u[i * n + j]);
			v[i * n + j] = x;
		}
	return res;
}

static double stencil_round(int sweeps)
{
	size_t cells = (size_t)GRID_N * GRID_N;
	double *u = xcalloc(cells, sizeof(double)), *v = xcalloc(cells, sizeof(double));
	double res = 0;
	int i, s;

	for (i = 0; i < GRID_N; i++) {
		u[i] = v[i] = 1.0;                        /* hot top edge */
		u[i * GRID_N] = v[i * GRID_N] = 0.5 * rnd_unit();
	}
	for (s = 0; s < sweeps; s++) {
		double *t;

		res = jacobi_sweep(u, v, GRID_N);
		t = u;
		u = v;
		v = t;
	}
	free(u);
	free(v);
	return res;
}

/* ---- pairwise forces between particles ---- */

static double forces(struct particle *p, int n)
{
	double energy = 0;
	int i, j;

	for (i = 0; i < n; i++)
		p[i].fx = p[i].fy = p[i].fz = 0;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y, dz = p[i].z - p[j].z;
			double r2 = dx * dx + dy * dy + dz * dz + 1e-3;
			double inv = 1.0 / sqrt(r2), inv3 = inv * inv * inv;

			energy += inv;
			p[i].fx -= dx * inv3;
			p[i].fy -= dy * inv3;
			p[i].fz -= dz * inv3;
			p[j].fx += dx * inv3;
			p[j].fy += dy * inv3;
			p[j].fz += dz * inv3;
		}
	return energy;
}

static double particle_round(int steps)
{
	struct particle *p = xmalloc(PARTICLES * sizeof(*p));
	double energy = 0;
	int i, s;

	for (i = 0; i < PARTICLES; i++) {
		p[i].x = rnd_unit();
		p[i].y = rnd_unit();
		p[i].z = rnd_unit();
	}
	for (s = 0; s < steps; s++) {
		energy = forces(p, PARTICLES);
		for (i = 0; i < PARTICLES; i++) {
			p[i].x += 1e-7 * p[i].fx;
			p[i].y += 1e-7 * p[i].fy;
			p[i].z += 1e-7 * p[i].fz;
		}
	}
	free(p);
	return energy;
}

int main(int argc, char **argv)
{
	struct round_stats **stats = NULL;
	double *diag = NULL, sum = 0;
	size_t ndiag = 0;
	unsigned rounds = 25, r, i;

	if (argc > 1)
		rounds = (unsigned)strtoul(argv[1], NULL, 10);
	stats = xcalloc(rounds + 1, sizeof(*stats));
	for (r = 0; r < rounds; r++) {
		struct round_stats *st = xmalloc(sizeof(*st));

		st->trace = matrix_round();
		st->residual = stencil_round(40);
		st->energy = particle_round(3);
		snprintf(st->label, sizeof(st->label), "round %u", r);
		stats[r] = st;
		/* diagnostics grown a little per round, as codes log them */
		for (i = 0; i < 64; i++) {
			diag = realloc(diag, (ndiag + 1) * sizeof(*diag));
			if (!diag) {
				fprintf(stderr, "compute: out of memory\n");
				return 1;
			}
			diag[ndiag] = st->energy * (double)i + st->residual;
			ndiag++;
		}
	}
	for (r = 0; r < rounds; r++) {
		sum += stats[r]->trace + stats[r]->residual + 1e-6 * stats[r]->energy;
		free(stats[r]);
	}
	for (i = 0; i < ndiag; i++)
		sum += 1e-9 * diag[i];
	free(diag);
	free(stats);
	printf("compute: %u rounds, checksum %.9e\n", rounds, sum);
	return 0;
}
