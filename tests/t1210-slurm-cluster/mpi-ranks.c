/*
 * mpi-ranks: a two-line MPI job for t1210: each rank touches (rank + 1)
 * x 16 MiB, the ranks add up their numbers, and each prints what it
 * knows. Built by the test with mpicc (Open MPI), run by srun --mpi=pmix.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t bytes;
	int rank, size, sum = 0;
	char *p;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	bytes = (size_t)(rank + 1) << 24;
	p = malloc(bytes);
	if (!p)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(p, 1, bytes);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d sum %d\n", rank, size, sum);
	free(p);
	MPI_Finalize();
	return 0;
}
