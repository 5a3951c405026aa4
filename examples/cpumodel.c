/*
 * cpumodel: a toy climate model step with a known call structure, the CPU
 * profiler's fixture. Every piece of work is the leaf burn(), a spinning
 * loop that calls nothing, so that a build without frame pointers leaves
 * it without a frame of its own (the case where the kernel's
 * frame-pointer walk loses its caller):
 *
 *   main -> step -> physics  -> radiation      -> burn   4 units
 *                            -> microphysics   -> burn   2 units
 *                -> dynamics -> advect_tracers -> burn   3 units
 *
 * so burn's time splits 4:2:3 between its three callers, whatever the
 * machine. The length of a step varies from one step to the next (0.5x
 * to 1.5x, the same for the three callers of that step, from a fixed
 * pseudo-random sequence), so that a profiler's fixed sampling period
 * cannot lock onto the step: with steps of equal length, a step close to
 * a whole number of periods is sampled at the same few points of it, and
 * the shares come out wrong by more than the sampling noise. The Makefile builds it several ways (frame pointers or not,
 * -g or not, unwind tables or not): examples/cpumodel-fp, -nofp,
 * -nofp-nog, -nocfi.
 *
 *   cpumodel [UNITS]   runs UNITS units of work in steps of 9 (default
 *                      900; one unit is a few milliseconds on average),
 *                      then prints "units N" and the work per function
 */
#include <stdio.h>
#include <stdlib.h>

#define ITERS_PER_UNIT 1000000L

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile double sink;

/* Iterations in one unit of the current step. */
static long unit_iters = ITERS_PER_UNIT;

/* A step's length, 0.5x to 1.5x of the mean: a 64-bit LCG (Knuth's
 * MMIX constants), seeded the same every run. */
static void vary_step(void)
{
	static unsigned long long state = 0x2545f4914f6cdd1dull;

	state = state * 6364136223846793005ull + 1442695040888963407ull;
	unit_iters = ITERS_PER_UNIT / 2 + (long)((state >> 33) % (ITERS_PER_UNIT + 1));
}

/* The leaf: no calls, and a loop the compiler cannot shorten. */
static NOINLINE double burn(long units)
{
	double x = sink;
	long i, n = units * unit_iters;

	for (i = 0; i < n; i++)
		x = x * 0.999999 + 1e-9 * (double)(i & 1023);
	return x;
}

/* Each caller stores the result after the call, so that no call becomes
 * a jump (a tail call would take the caller's frame off the stack). */
static NOINLINE void radiation(void)
{
	sink = burn(4);
}

static NOINLINE void microphysics(void)
{
	sink = burn(2);
}

static NOINLINE void advect_tracers(void)
{
	sink = burn(3);
}

static NOINLINE void physics(void)
{
	radiation();
	microphysics();
	sink += 1;
}

static NOINLINE void dynamics(void)
{
	advect_tracers();
	sink += 1;
}

static NOINLINE void step(void)
{
	vary_step();
	physics();
	dynamics();
	sink += 1;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? strtol(argv[1], NULL, 10) : 900, steps, s;

	if (units < 9)
		units = 9;
	steps = units / 9;
	for (s = 0; s < steps; s++)
		step();
	printf("units %ld\nradiation %ld\nmicrophysics %ld\nadvect_tracers %ld\n", steps * 9,
	       steps * 4, steps * 2, steps * 3);
	return 0;
}
