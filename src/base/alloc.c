/* alloc.c: the allocation hook and the growth helper (alloc.h). The fail counter is the only
 * state; it is touched with relaxed atomics so threads that allocate meanwhile stay defined. */
#include "alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static _Atomic unsigned long alloc_count;   /* allocations since the last hxi_alloc_fail_at */
static _Atomic unsigned long fail_at;       /* 0 = never fail */
static _Atomic int fail_sticky;

static int should_fail(void)
{
    unsigned long n = atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed) + 1;
    unsigned long at = atomic_load_explicit(&fail_at, memory_order_relaxed);
    return at && (n == at || (n > at && atomic_load_explicit(&fail_sticky, memory_order_relaxed)));
}

unsigned long hxi_alloc_fail_at(unsigned long n, int sticky)
{
    unsigned long made = atomic_exchange(&alloc_count, 0);
    atomic_store(&fail_sticky, sticky);
    atomic_store(&fail_at, n);
    return made;
}

void *hx_malloc(size_t size)
{
    return should_fail() ? NULL : malloc(size);
}

void *hx_calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : calloc(n, size);
}

void *hx_realloc(void *p, size_t size)
{
    return should_fail() ? NULL : realloc(p, size);
}

char *hx_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = hx_malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = 0;
    }
    return d;
}

char *hx_strdup(const char *s)
{
    return hx_strndup(s, SIZE_MAX);
}

size_t hxi_mul_size(size_t n, size_t size)
{
    return size && n > SIZE_MAX / size ? SIZE_MAX : n * size;
}

int hx_grow(void **p, size_t *cap, size_t need, size_t elem, hx_error *err)
{
    if (need <= *cap)
        return 0;
    size_t want = *cap < 8 ? 8 : *cap;
    while (want < need)
        want = want > SIZE_MAX / 2 ? need : want * 2;
    size_t bytes = hxi_mul_size(want, elem);
    void *q = bytes == SIZE_MAX ? NULL : hx_realloc(*p, bytes);
    if (!q)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory (growing to %zu elements of %zu bytes)", want, elem);
    *p = q;
    *cap = want;
    return 0;
}
