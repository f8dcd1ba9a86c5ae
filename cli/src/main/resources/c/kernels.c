/*
 * The C reference of `paratrain bench kernels`: full-batch gradient descent of linear
 * regression (no intercept, summed squared error) as a plain loop, one pass over the samples
 * per epoch, and a STREAM-like read of memory for the bandwidth of this machine.
 * Build: gcc -O3 -march=native -o kernels kernels.c
 * Run:   kernels train N D EPOCHS LR      prints "epoch_us <t>" (one warm-up epoch untimed),
 *                                          then "loss <final loss at the final weights>"
 *        kernels stream MB REPEATS        prints "read_gbs <GB/s>", the best of REPEATS sums
 *                                          of MB megabytes (one core, as paratrain at 1 rank)
 * The data are the same as paratrain's (the bench generates them with the same formula):
 * x uniform in [-1, 1) from splitmix64 of the value's index, y[i] = sum_j x[i][j] (j+1)/D
 * plus a small term from splitmix64 of n*d + i. Arrays are on 2 MB pages where the kernel
 * allows it (madvise), as paratrain's heap is when its launcher runs it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* n doubles, 2 MB aligned and on 2 MB pages when transparent huge pages allow it. */
static double *pages(long n) {
    void *p = NULL;
    size_t bytes = ((n * sizeof(double) >> 21) + 1) << 21;
    if (posix_memalign(&p, 1 << 21, bytes) != 0) return NULL;
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* splitmix64 of k: the same 64 bits as the Java side's, turned into [-1, 1). */
static double uniform(uint64_t k) {
    uint64_t z = (k + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double) (z >> 11) * 0x1.0p-52 - 1.0;
}

static void generate(double *x, double *y, long n, long d) {
    for (long i = 0; i < n; i++) {
        double s = 0.1 * uniform((uint64_t) (n * d + i));
        for (long j = 0; j < d; j++) {
            x[i * d + j] = uniform((uint64_t) (i * d + j));
            s += x[i * d + j] * (double) (j + 1) / (double) d;
        }
        y[i] = s;
    }
}

/* One epoch: the loss and gradient in one pass over the samples, then w -= lr * g. */
static double epoch(const double *x, const double *y, long n, long d, double *w, double *g, double lr) {
    memset(g, 0, d * sizeof(double));
    double loss = 0.0;
    for (long i = 0; i < n; i++) {
        const double *xi = x + i * d;
        double r = -y[i];
        for (long j = 0; j < d; j++) r += w[j] * xi[j];
        loss += r * r;
        for (long j = 0; j < d; j++) g[j] += 2.0 * r * xi[j];
    }
    for (long j = 0; j < d; j++) w[j] -= lr * g[j];
    return loss;
}

static int train(long n, long d, int epochs, double lr) {
    double *x = pages(n * d), *y = pages(n);
    double *w = calloc(d, sizeof(double)), *g = malloc(d * sizeof(double));
    if (!x || !y || !w || !g) { fprintf(stderr, "out of memory\n"); return 1; }
    generate(x, y, n, d);
    double *w0 = calloc(d, sizeof(double));
    epoch(x, y, n, d, w0, g, lr);                       /* warm-up: caches, page tables, clock */
    double t = seconds();
    for (int e = 0; e < epochs; e++) epoch(x, y, n, d, w, g, lr);
    t = seconds() - t;
    printf("epoch_us %.6f\n", t * 1e6 / epochs);
    printf("loss %.17g\n", epoch(x, y, n, d, w, g, 0.0));
    return 0;
}

/* A read of every byte with eight independent sums, so memory, not the adder, sets the speed. */
static int stream(long mb, int repeats) {
    long n = mb * 1000000L / sizeof(double);
    n -= n % 8;
    double *a = pages(n);
    if (!a) { fprintf(stderr, "out of memory\n"); return 1; }
    for (long i = 0; i < n; i++) a[i] = (double) (i & 1023);
    double best = 0.0, check = 0.0;
    for (int k = 0; k < repeats; k++) {
        double s[8] = {0};
        double t = seconds();
        for (long i = 0; i < n; i += 8)
            for (int l = 0; l < 8; l++) s[l] += a[i + l];
        t = seconds() - t;
        check += s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
        double gbs = n * sizeof(double) / t * 1e-9;
        if (gbs > best) best = gbs;
    }
    printf("read_gbs %.3f\n", best);
    return check == -1.0;                               /* keeps the sums alive */
}

int main(int argc, char **argv) {
    if (argc == 6 && strcmp(argv[1], "train") == 0)
        return train(atol(argv[2]), atol(argv[3]), atoi(argv[4]), atof(argv[5]));
    if (argc == 4 && strcmp(argv[1], "stream") == 0)
        return stream(atol(argv[2]), atoi(argv[3]));
    fprintf(stderr, "usage: kernels train N D EPOCHS LR | kernels stream MB REPEATS\n");
    return 2;
}
