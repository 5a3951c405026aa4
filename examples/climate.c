/*
 * A toy climate model with a known profile, for the diff's known-answer
 * tests and the demo: every time step runs physics (radiation, then
 * microphysics) and dynamics (advect_tracers). Each of the three leaf
 * routines allocates and computes its own share:
 *
 *   routine          allocates per step        computes (spin units)
 *   radiation        RADIATION x 2 MiB         RADIATION x 4
 *   microphysics     1.5 MiB                   3
 *   advect_tracers   1.25 MiB                  3
 *
 * Three knobs, 1 by default, make the "feature branch" builds:
 *
 *   RADIATION=2        radiation does exactly twice the work (allocations
 *                      and CPU), and nothing else changes (climate-feature)
 *   RADIATION_ALLOC=2  radiation allocates twice as much at once, with the
 *                      same computing (climate-alloc: allocated bytes and
 *                      peak heap +42%; the allocator's and the sampler's
 *                      own work grow a little with them)
 *   ADVECT_CPU=2       advect_tracers computes twice as long with the same
 *                      allocations (climate-cpu: CPU +30%)
 *
 *   climate [STEPS]   (default 128 steps: 608 MiB allocated on main,
 *                      about 1 s of CPU; enough allocation samples at
 *                      the default rate that a frame's sampling noise is
 *                      a few percent)
 *
 * Built with plain -O2 -g, as users build: no frame pointers. Each
 * routine touches `sink` after its last call, so that no call is a tail
 * call: a tail call would leave the caller's frame out of the stack and
 * give the two builds different call paths for the same work.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RADIATION
#define RADIATION 1
#endif
#ifndef RADIATION_ALLOC
#define RADIATION_ALLOC 1
#endif
#ifndef ADVECT_CPU
#define ADVECT_CPU 1
#endif

#define BLOCK (64 * 1024)
#define SPIN_UNIT 600000

static volatile uint64_t sink;

/* Allocates kib KiB (at most 8 MiB) in 64 KiB blocks, touching each, then
 * frees them. */
static __attribute__((noinline)) void churn(unsigned kib)
{
	unsigned i, n = kib / 64;
	char *blocks[128];

	for (i = 0; i < n && i < 128; i++) {
		blocks[i] = malloc(BLOCK);
		if (!blocks[i])
			abort();
		memset(blocks[i], (int)i, 64);
		sink += (unsigned char)blocks[i][i % 64];
	}
	while (i--)
		free(blocks[i]);
}

static __attribute__((noinline)) void spin(unsigned units)
{
	uint64_t x = sink | 1, k;

	for (k = 0; k < (uint64_t)units * SPIN_UNIT; k++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

/* The three routines call spin and churn from their own frames; noinline
 * keeps the call paths the test expects exact. */
static __attribute__((noinline)) void radiation(void)
{
	int r;

	for (r = 0; r < RADIATION; r++) {
		churn(2048 * RADIATION_ALLOC);
		spin(4);
	}
	sink++;
}

static __attribute__((noinline)) void microphysics(void)
{
	churn(1536);
	spin(3);
	sink++;
}

static __attribute__((noinline)) void advect_tracers(void)
{
	churn(1280);
	spin(3 * ADVECT_CPU);
	sink++;
}

static __attribute__((noinline)) void physics(void)
{
	radiation();
	microphysics();
	sink++;
}

static __attribute__((noinline)) void dynamics(void)
{
	advect_tracers();
	sink++;
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 128, s;

	if (steps < 1) {
		fprintf(stderr, "usage: climate [STEPS]\n");
		return 2;
	}
	for (s = 0; s < steps; s++) {
		physics();
		dynamics();
	}
	printf("climate: %ld steps, radiation x%d, radiation's allocations x%d, "
	       "advect_tracers' CPU x%d\n", steps, RADIATION, RADIATION_ALLOC, ADVECT_CPU);
	return 0;
}
