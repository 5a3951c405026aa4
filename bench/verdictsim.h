/*
 * Synthetic histories for measuring verdicts and change points; used by
 * bench/verdicts.c (the full table) and tests/unit/t-verdict.c (a small
 * run asserting the calibration bounds). Deterministic: every draw comes
 * from a splitmix64 generator seeded by the caller.
 *
 * A history is runs of a key whose figure is exp(noise) times 1, with
 *   noise   normal with sd `sigma` (log-normal noise of about sigma x 100%),
 *           or Student t with 3 degrees of freedom scaled to sd sigma
 *           (heavy tails);
 *   outliers  each run, with probability `p_outlier`, x1.5;
 *   bimodal   each run, with probability `p_slow`, x1.3 (a machine that
 *           is sometimes slower: both modes are normal);
 *   drift   x exp(drift x i) for run i (slow drift, no step);
 *   step    the current runs x (1 + step).
 */
#ifndef TK_VERDICTSIM_H
#define TK_VERDICTSIM_H

#include <math.h>
#include <stdint.h>
#include <stddef.h>

struct sim_rng {
	uint64_t s;
};

static __attribute__((unused)) uint64_t sim_next(struct sim_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __attribute__((unused)) double sim_uniform(struct sim_rng *r)
{
	return ((double)(sim_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static __attribute__((unused)) double sim_normal(struct sim_rng *r)
{
	double u = sim_uniform(r), v = sim_uniform(r);

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

struct sim_scenario {
	const char *name;
	double sigma;
	int t3;           /* Student t, 3 df, scaled to sd sigma */
	double p_outlier; /* x1.5 */
	double p_slow;    /* x1.3 */
	double drift;     /* per run, in log units */
};

static __attribute__((unused)) double sim_noise(struct sim_rng *r, const struct sim_scenario *sc)
{
	double e;

	if (sc->t3) {
		double c = 0, z;
		int k;

		for (k = 0; k < 3; k++) {
			z = sim_normal(r);
			c += z * z;
		}
		/* t3 has variance 3: scale to sd sigma */
		e = sim_normal(r) / sqrt(c / 3) / sqrt(3.0) * sc->sigma;
	} else {
		e = sim_normal(r) * sc->sigma;
	}
	if (sc->p_outlier > 0 && sim_uniform(r) < sc->p_outlier)
		e += log(1.5);
	if (sc->p_slow > 0 && sim_uniform(r) < sc->p_slow)
		e += log(1.3);
	return e;
}

/* n baseline runs then nc current runs (x (1 + step)), oldest first. */
static __attribute__((unused)) void sim_history(struct sim_rng *r, const struct sim_scenario *sc, size_t n,
			double *base, size_t nc, double *cur, double step)
{
	size_t i;

	for (i = 0; i < n; i++)
		base[i] = exp(sim_noise(r, sc) + sc->drift * (double)i);
	for (i = 0; i < nc; i++)
		cur[i] = (1 + step) * exp(sim_noise(r, sc) + sc->drift * (double)(n + i));
}

#endif
