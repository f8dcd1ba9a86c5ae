/*
 * Reference for `paratrain bench mpi`: the same measurements as paratrain's Java worker,
 * in C, so that both are timed side by side on the same machine in the same run.
 * Build: mpicc -O2 -o mpi_bench mpi_bench.c    Run: mpirun -np 2 ./mpi_bench
 * Prints the best of 5 repetitions of each measurement:
 *   pingpong_us     one-way time of an 8-byte message (half a round trip), rank 0 <-> 1
 *   allreduce8_us   MPI_Allreduce of 1 double, in place, sum
 *   allreduce1m_ms  MPI_Allreduce of 1,000,000 doubles, in place, sum
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double pingpong(int rank, int n, double *buf) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t) / n / 2;
}

static double allreduce(int n, double *buf, int count) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t) / n;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int large = 1000000;
    double *buf = calloc(large, sizeof(double));
    double best_pp = 1e30, best_ar = 1e30, best_big = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double pp = pingpong(rank, 20000, buf);
        double ar = allreduce(20000, buf, 1);
        double big = allreduce(20, buf, large);
        if (pp < best_pp) best_pp = pp;
        if (ar < best_ar) best_ar = ar;
        if (big < best_big) best_big = big;
    }
    /* Every rank's view differs a little; rank 0's is the one reported. */
    if (rank == 0) {
        printf("pingpong_us %.4f\nallreduce8_us %.4f\nallreduce1m_ms %.4f\n", best_pp * 1e6, best_ar * 1e6,
               best_big * 1e3);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
