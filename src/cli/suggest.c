/* suggest.c: "did you mean" for the command line: the nearest of a set of names to a misspelt
 * command, option or filter key, and the check that every filter key of a search that found
 * nothing names a key the index holds (hx_session_filter_keys). Prints only that message. */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define WORD_MAX 64   /* longer words are no misspelling of a name */

/* Letters compare with ASCII case ignored and '-' and '_' alike (as filter keys do). */
static int fold(unsigned char c)
{
    return c == '-' ? '_' : tolower(c);
}

/* The optimal-string-alignment distance of a and b (insert, delete, replace, swap two neighbours:
 * one edit each); both at most WORD_MAX bytes. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), d[WORD_MAX + 1][WORD_MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = fold((unsigned char)a[i - 1]) != fold((unsigned char)b[j - 1]), best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && fold((unsigned char)a[i - 1]) == fold((unsigned char)b[j - 2]) &&
                fold((unsigned char)a[i - 2]) == fold((unsigned char)b[j - 1]) && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The name of cands nearest to word when it is near enough to be a misspelling of it (at most 1
 * edit for a word of up to 4 bytes, 2 up to 8, else 3), the first of equals; else NULL. */
const char *suggest(const char *word, const char *const *cands, size_t n)
{
    size_t len = strlen(word), limit = len <= 4 ? 1 : len <= 8 ? 2 : 3, best = limit + 1;
    const char *near = NULL;
    if (!len || len > WORD_MAX)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t d = strlen(cands[i]) <= WORD_MAX ? distance(word, cands[i]) : best;
        if (d < best) {
            best = d;
            near = cands[i];
        }
    }
    return near;
}

/* After a search of the project index that found nothing: every filter key of q that no document
 * holds (hx_session_filter_keys, matched by hx_filter_key_matches) is named on stderr, with the
 * nearest key the index holds. 1 when one was, else 0 (also when the keys cannot be listed: the
 * empty answer stands). */
int filter_keys_check(const char *cmd, hx_session *s, const hx_session_query *q)
{
    hx_key_list kl;
    hx_error err = {0};
    int bad = 0;
    if (!q->opts.n_filters || q->source == HX_SEARCH_USER || hx_session_filter_keys(s, &q->at, &kl, &err))
        return 0;
    for (size_t f = 0; f < q->opts.n_filters; f++) {
        const char *key = q->opts.filters[f].key;
        size_t i = 0;
        while (i < kl.n && !hx_filter_key_matches(kl.keys[i], key))
            i++;
        if (i < kl.n)
            continue;
        const char *near = suggest(key, (const char *const *)kl.keys, kl.n);
        fprintf(stderr, "hyrax %s: no document has the key '", cmd);
        put_text(stderr, key, 200, false);
        fputs(near ? "' (did you mean '" : "'", stderr);
        if (near) {
            put_text(stderr, near, 200, false);
            fputs("'?)", stderr);
        }
        fputs("; 'hyrax show PATH' lists a document's keys\n", stderr);
        bad = 1;
    }
    hx_key_list_free(&kl);
    return bad;
}
