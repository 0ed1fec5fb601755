/* alloc.h: the one way the library allocates. Every malloc, calloc, realloc and strdup in src/
 * goes through these, so a test can make the n-th allocation fail and run the out-of-memory paths
 * (SQLite's test_malloc, Lua's lua_Alloc); memory is released with plain free(). hx_grow is the one
 * growth helper, with the size arithmetic checked for overflow. */
#ifndef HX_ALLOC_H
#define HX_ALLOC_H

#include "hyrax.h"

#include <stddef.h>

void *hx_malloc(size_t size);
void *hx_calloc(size_t n, size_t size);      /* NULL also when n * size overflows */
void *hx_realloc(void *p, size_t size);      /* on failure p is untouched and still owned */
char *hx_strdup(const char *s);
char *hx_strndup(const char *s, size_t n);
/* n * size, or SIZE_MAX when it overflows (so the allocation that follows fails). */
size_t hx_mul_size(size_t n, size_t size);

/* Makes *p (an array of *cap elements of `elem` bytes, or NULL with *cap 0) hold at least `need`
 * elements, growing geometrically. Returns 0, or HX_ENOMEM (err filled when not NULL) when the
 * allocation fails or the size overflows; *p and *cap are unchanged then. */
int hx_grow(void **p, size_t *cap, size_t need, size_t elem, hx_error *err);

/* Tests only: the n-th allocation from now on fails (1 = the next one), and every one after it
 * too when `sticky`; 0 turns failures off. Returns how many allocations were made since the last
 * call, so a test can learn an operation's count and then fail each of them in turn. Not
 * thread-safe against allocations running on other threads. */
unsigned long hx_alloc_fail_at(unsigned long n, int sticky);

#endif
