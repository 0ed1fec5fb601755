/* alloc.h: the one way the library allocates. Every malloc, calloc, realloc and strdup in src/
 * goes through these, so a test can make the n-th allocation fail and run the out-of-memory paths
 * (SQLite's test_malloc, Lua's lua_Alloc); memory is released with plain free(). hx_grow is the one
 * growth helper, with the size arithmetic checked for overflow. The allocator itself is public
 * (hyrax.h); this header adds what only the library needs. */
#ifndef HX_ALLOC_H
#define HX_ALLOC_H

#include "hyrax.h"

#include <stddef.h>

/* n * size, or SIZE_MAX when it overflows (so the allocation that follows fails). */
size_t hxi_mul_size(size_t n, size_t size);

/* Tests only: the n-th allocation from now on fails (1 = the next one), and every one after it
 * too when `sticky`; 0 turns failures off. Returns how many allocations were made since the last
 * call, so a test can learn an operation's count and then fail each of them in turn. Not
 * thread-safe against allocations running on other threads. */
unsigned long hxi_alloc_fail_at(unsigned long n, int sticky);

#endif
