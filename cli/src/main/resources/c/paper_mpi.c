/*
 * The paper's scheme in C with MPI, the reference for `paratrain bench paper --backend mpi`:
 * linear regression y = w x by full-batch gradient descent on X.in / y.in; every rank
 * computes the summed squared error and its gradient over its share of the samples; ranks
 * other than 0 send both to rank 0 under two tags; rank 0 adds them to its own, updates
 * w = w - lr * gradient and sends w back to every rank.
 * Build: mpicc -O2 -o paper_mpi paper_mpi.c
 * Run:   mpirun -np P ./paper_mpi X.in y.in EPOCHS LR WARMUP REPEATS
 * Prints on rank 0: "run_ms <t>" for each timed run, then "weight <w>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int read_column(const char *path, double **out) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 2); }
    int cap = 1024, n = 0;
    double *v = malloc(cap * sizeof(double)), x;
    while (fscanf(f, "%lf", &x) == 1) {
        if (n == cap) { cap *= 2; v = realloc(v, cap * sizeof(double)); }
        v[n++] = x;
    }
    fclose(f);
    *out = v;
    return n;
}

static double train(const double *x, const double *y, int lo, int hi, int epochs, double lr, int rank, int size) {
    double w = 0.0, msg[1];
    for (int e = 0; e < epochs; e++) {
        double loss = 0.0, grad = 0.0;
        for (int i = lo; i < hi; i++) {
            double r = w * x[i] - y[i];
            loss += r * r;
            grad += 2.0 * r * x[i];
        }
        if (rank != 0) {
            MPI_Send(&loss, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            MPI_Send(&grad, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
            MPI_Recv(&w, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int r = 1; r < size; r++) {
                MPI_Recv(msg, 1, MPI_DOUBLE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                loss += msg[0];
                MPI_Recv(msg, 1, MPI_DOUBLE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                grad += msg[0];
            }
            w -= lr * grad;
            for (int r = 1; r < size; r++) {
                MPI_Send(&w, 1, MPI_DOUBLE, r, 3, MPI_COMM_WORLD);
            }
        }
    }
    return w;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 7) {
        if (rank == 0) fprintf(stderr, "usage: paper_mpi X.in y.in EPOCHS LR WARMUP REPEATS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *x, *y;
    int n = read_column(argv[1], &x);
    if (read_column(argv[2], &y) != n) { fprintf(stderr, "X and y differ in length\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int epochs = atoi(argv[3]), warmup = atoi(argv[5]), repeats = atoi(argv[6]);
    double lr = atof(argv[4]), w = 0.0;
    int lo = (int) ((long) n * rank / size), hi = (int) ((long) n * (rank + 1) / size);
    for (int k = 0; k < warmup + repeats; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        w = train(x, y, lo, hi, epochs, lr, rank, size);
        t = MPI_Wtime() - t;
        if (rank == 0 && k >= warmup) printf("run_ms %.6f\n", t * 1e3);
    }
    if (rank == 0) printf("weight %.17g\n", w);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
