/* sig_bench.c: Ed25519 verifications per second of hyrax's ed25519.c, over the signatures in a
 * vectors file (tests/data/sig/libsodium_vectors.txt format: hex public key, message or "-",
 * signature per line), for bench/sig_peers.py, which runs libsodium on the same file in the same
 * run. Each pass verifies every signature once; prints the best pass as
 *   hyrax verifies_per_s=V us_per_verify=U n=N passes=P
 * Times are this thread's CPU time. Usage: sig_bench FILE [passes] */
#include "ed25519.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CASES 256

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
    size_t n = strlen(h) / 2;
    for (size_t i = 0; i < n && i < cap; i++)
        sscanf(h + 2 * i, "%2hhx", &out[i]);
    return n < cap ? n : cap;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sig_bench FILE [passes]\n");
        return 2;
    }
    int passes = argc > 2 ? atoi(argv[2]) : 20;
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static uint8_t pk[MAX_CASES][32], sig[MAX_CASES][64], msg[MAX_CASES][512];
    static size_t len[MAX_CASES];
    char pkh[65], msgh[1100], sigh[129];
    int n = 0;
    while (n < MAX_CASES && fscanf(f, "%64s %1099s %128s", pkh, msgh, sigh) == 3) {
        unhex(pkh, pk[n], 32);
        unhex(sigh, sig[n], 64);
        len[n] = strcmp(msgh, "-") ? unhex(msgh, msg[n], sizeof msg[n]) : 0;
        n++;
    }
    fclose(f);
    double best = 1e30;
    for (int p = 0; p < passes; p++) {
        double t = now();
        for (int i = 0; i < n; i++)
            if (hxi_ed25519_verify(sig[i], msg[i], len[i], pk[i], NULL) != 0) {
                fprintf(stderr, "case %d does not verify\n", i);
                return 1;
            }
        t = now() - t;
        if (t < best)
            best = t;
    }
    printf("hyrax verifies_per_s=%.0f us_per_verify=%.2f n=%d passes=%d\n", n / best, 1e6 * best / n, n, passes);
    return 0;
}
