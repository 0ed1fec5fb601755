/* fault.c: the fault guard of hyrax.h ("Index files changed underneath a reader"): each thread's
 * stack of guards, which hx_fault_jump (called from a SIGBUS handler, such as the command line's)
 * unwinds to the innermost one with siglongjmp. Knows no file; the maps it protects are the
 * store's (src/store). */
#include "hyrax.h"

#include <setjmp.h>

static _Thread_local hx_fault_guard *fault_top;   /* this thread's innermost guard */

sigjmp_buf *hx_fault_enter(hx_fault_guard *g)
{
    g->outer = fault_top;
    fault_top = g;
    return &g->env;
}

void hx_fault_leave(hx_fault_guard *g)
{
    fault_top = g->outer;
}

void hx_fault_jump(void)
{
    hx_fault_guard *g = fault_top;
    if (!g)
        return;
    fault_top = g->outer;
    siglongjmp(g->env, 1);
}
