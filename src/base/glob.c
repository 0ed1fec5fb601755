/* glob.c: the glob matcher specified in glob.h. The pattern compiles to a small NFA (one state per
 * token, two for a folders `**` followed by a slash), simulated as a set of states advanced once per path
 * byte: O(pattern x path) time, O(pattern) memory, no backtracking and no recursion. */
#include "glob.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* === Compiling === */

/* What a state does with the next path byte, and which states it reaches without one. */
enum {
    OP_BYTE,      /* this byte: to the next state */
    OP_ONE,       /* `?`: any byte but '/': next */
    OP_SET,       /* a byte of the class bitmap (never '/'): next */
    OP_STAR,      /* `*`: any byte but '/' stays here; also skips to next without a byte */
    OP_ANY,       /* `**` spanning folders: any byte stays here; also skips to next */
    OP_FOLDERS,   /* `**` + slash: skips to the loop (next) and past it (zero folders), no byte */
    OP_LOOP,      /* its loop: any byte stays here, and a '/' also goes on to next */
    OP_END        /* the whole path matched when the path ends here */
};

typedef struct {
    uint8_t op, byte;
    uint32_t set;      /* OP_SET: index of its bitmap */
} glob_op;

typedef struct {
    void *block;           /* owned: the one allocation behind the arrays below */
    glob_op *ops;          /* n + 1, the last OP_END */
    uint8_t (*sets)[32];   /* class bitmaps, bit b of byte b / 8 set when byte b is a member */
    size_t n;
    uint64_t *cur, *nxt;   /* state sets, (n + 64) / 64 words each */
    size_t words;
} glob_nfa;

/* The class at pat[i] == '['. Returns the offset past its ']' and fills bits, or 0 when no ']'
 * closes it (the '[' is then a literal). A ']' right after the '[' (or its '!' or '^') is a
 * member; "a-z" is a range unless the '-' is last. */
static size_t parse_class(const char *pat, size_t plen, size_t i, uint8_t bits[32])
{
    size_t q = i + 1;
    int negate = q < plen && (pat[q] == '!' || pat[q] == '^');
    q += (size_t)negate;
    size_t first = q;
    memset(bits, 0, 32);
    for (; q < plen && (pat[q] != ']' || q == first); q++) {
        unsigned lo = (unsigned char)pat[q], hi = lo;
        if (q + 2 < plen && pat[q + 1] == '-' && pat[q + 2] != ']') {
            hi = (unsigned char)pat[q + 2];
            q += 2;
        }
        for (unsigned b = lo; b <= hi; b++)
            bits[b / 8] |= (uint8_t)(1u << (b % 8));
    }
    if (q >= plen)
        return 0;
    for (int k = 0; negate && k < 32; k++)
        bits[k] = (uint8_t)~bits[k];
    bits['/' / 8] &= (uint8_t)~(1u << ('/' % 8));
    return q + 1;
}

static glob_op *emit(glob_nfa *g, uint8_t op, uint8_t byte)
{
    g->ops[g->n] = (glob_op){op, byte, 0};
    return &g->ops[g->n++];
}

/* Compiles pat into g (caller frees g->block), sized for the worst case: plen + 1 states (every
 * token takes at least one pattern byte, a folders `**` with its slash three for two states) and
 * plen / 3 class bitmaps (the shortest class is "[a]"). */
static int compile(glob_nfa *g, const char *pat, size_t plen)
{
    size_t n_ops = plen + 1, n_sets = plen / 3 + 1;
    g->words = (n_ops + 63) / 64;
    /* one block: the two state sets first (8-byte words), then the ops, then the bitmaps */
    size_t state_bytes = 2 * g->words * sizeof *g->cur, op_bytes = n_ops * sizeof *g->ops;
    size_t total = state_bytes + op_bytes + n_sets * sizeof *g->sets;
    if (plen > SIZE_MAX / 64 || !(g->block = hx_malloc(total)))
        return HX_ENOMEM;
    g->cur = g->block;
    g->nxt = g->cur + g->words;
    g->ops = (glob_op *)((uint8_t *)g->block + state_bytes);
    g->sets = (uint8_t (*)[32])((uint8_t *)g->block + state_bytes + op_bytes);
    g->n = 0;
    uint32_t n_set = 0;
    for (size_t i = 0; i < plen;) {
        char c = pat[i];
        size_t next;
        if (c == '*') {
            size_t k = i;
            while (k < plen && pat[k] == '*')
                k++;
            if (k - i == 1) {
                emit(g, OP_STAR, 0);
            } else if (k < plen && pat[k] == '/' && (i == 0 || pat[i - 1] == '/')) {
                emit(g, OP_FOLDERS, 0);
                emit(g, OP_LOOP, 0);
                k++;
            } else {
                emit(g, OP_ANY, 0);
            }
            i = k;
        } else if (c == '?') {
            emit(g, OP_ONE, 0);
            i++;
        } else if (c == '[' && (next = parse_class(pat, plen, i, g->sets[n_set]))) {
            emit(g, OP_SET, 0)->set = n_set++;
            i = next;
        } else if (c == '\\' && i + 1 < plen) {
            emit(g, OP_BYTE, (uint8_t)pat[i + 1]);
            i += 2;
        } else {
            emit(g, OP_BYTE, (uint8_t)c);
            i++;
        }
    }
    g->ops[g->n] = (glob_op){OP_END, 0, 0};
    return 0;
}

/* === Simulating === */

static void add_state(uint64_t *set, size_t s)
{
    set[s / 64] |= 1ull << (s % 64);
}

/* Adds to set every state reached from its states without a byte. Those moves only go forward,
 * so one pass in order sees each state after everything that can reach it. */
static void close_set(const glob_nfa *g, uint64_t *set, uint64_t *steps)
{
    for (size_t w = 0; w < g->words; w++) {
        for (uint64_t bits = set[w]; bits; bits &= bits - 1) {
            size_t s = w * 64 + (size_t)__builtin_ctzll(bits);
            uint8_t op = g->ops[s].op;
            ++*steps;
            if (op == OP_STAR || op == OP_ANY || op == OP_FOLDERS)
                add_state(set, s + 1);
            if (op == OP_FOLDERS)
                add_state(set, s + 2);
            bits |= set[w] & ~((2ull << (s % 64)) - 1);   /* what was just added in this word */
        }
    }
}

/* Moves every state of g->cur over byte c into g->nxt (emptied first). */
static void step_set(const glob_nfa *g, uint8_t c, uint64_t *steps)
{
    memset(g->nxt, 0, g->words * sizeof *g->nxt);
    for (size_t w = 0; w < g->words; w++) {
        for (uint64_t bits = g->cur[w]; bits; bits &= bits - 1) {
            size_t s = w * 64 + (size_t)__builtin_ctzll(bits);
            const glob_op *o = &g->ops[s];
            ++*steps;
            switch (o->op) {
            case OP_BYTE:
                if (c == o->byte)
                    add_state(g->nxt, s + 1);
                break;
            case OP_ONE:
                if (c != '/')
                    add_state(g->nxt, s + 1);
                break;
            case OP_SET:
                if (g->sets[o->set][c / 8] & (1u << (c % 8)))
                    add_state(g->nxt, s + 1);
                break;
            case OP_STAR:
                if (c != '/')
                    add_state(g->nxt, s);
                break;
            case OP_ANY:
                add_state(g->nxt, s);
                break;
            case OP_LOOP:
                add_state(g->nxt, s);
                if (c == '/')
                    add_state(g->nxt, s + 1);
                break;
            default:   /* OP_FOLDERS moves only without a byte; OP_END takes none */
                break;
            }
        }
    }
}

bool hxi_glob_match_steps(const char *pattern, const char *path, uint64_t *steps)
{
    glob_nfa g;
    if (compile(&g, pattern, strlen(pattern)))
        return false;
    memset(g.cur, 0, g.words * sizeof *g.cur);
    add_state(g.cur, 0);
    close_set(&g, g.cur, steps);
    bool alive = true;
    for (const char *p = path; *p && alive; p++) {
        step_set(&g, (uint8_t)*p, steps);
        uint64_t *t = g.cur;
        g.cur = g.nxt;
        g.nxt = t;
        close_set(&g, g.cur, steps);
        alive = false;
        for (size_t w = 0; w < g.words && !alive; w++)
            alive = g.cur[w] != 0;
    }
    bool ok = alive && (g.cur[g.n / 64] >> (g.n % 64) & 1);
    free(g.block);
    return ok;
}

bool hxi_glob_match(const char *pattern, const char *path)
{
    uint64_t steps = 0;
    return hxi_glob_match_steps(pattern, path, &steps);
}

/* === Bounds on users' globs === */

int hxi_glob_check(const char *pattern, const char *what, hx_error *err)
{
    size_t len = strlen(pattern), stars = 0;
    for (size_t i = 0; i < len; i++)
        stars += pattern[i] == '*';
    if (len > HX_GLOB_MAX_BYTES)
        return hx_error_set(err, HX_EINVAL, -1, "%s: a glob of %zu bytes is over the %d-byte limit", what, len,
                            HX_GLOB_MAX_BYTES);
    if (stars > HX_GLOB_MAX_STARS)
        return hx_error_set(err, HX_EINVAL, -1, "%s: a glob with %zu '*' is over the limit of %d '*'", what, stars,
                            HX_GLOB_MAX_STARS);
    return 0;
}
