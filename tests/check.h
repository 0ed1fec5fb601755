/* check.h: the one assertion macro of the plain-C tests. A failed CHECK prints where and why and
 * the test goes on; check_report() prints the tally and gives main() its exit status.
 * Tests run from the repository root (make test), so fixture paths are relative to it. */
#ifndef HX_CHECK_H
#define HX_CHECK_H

#include <stdio.h>

static int check_total, check_failed;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        check_total++;                                                                    \
        if (!(cond)) {                                                                    \
            check_failed++;                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_total, check_failed);
    return check_failed ? 1 : 0;
}

#endif
