/* output.c: how the command line writes text it did not make -- paths, titles, messages,
 * snippets -- escaped so it cannot drive the terminal (put_text), and the progress of long writes
 * on stderr: a bar on a terminal, a line every few seconds in a log. Opens nothing. */
#include "cli.h"

#include <time.h>

/* === Printing text from files and users === */

/* Writes at most max bytes of s to f with control characters escaped, so a file name, title or
 * message can never start a new output line or drive the terminal: bytes below 0x20, DEL and the
 * C1 controls (UTF-8 C2 80..C2 9F) become \n, \r, \t or \xHH, and a backslash is doubled so the
 * output reads back unambiguously. With fold_lines (snippets of document text) a line break
 * becomes a space, and tabs and backslashes stay as they are. The one way the command line
 * prints paths and the messages that quote them. */
void put_text(FILE *f, const char *s, size_t max, bool fold_lines)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < max && p[i]; i++) {
        unsigned c = p[i];
        if (fold_lines && (c == '\n' || c == '\r' || c == '\t'))
            fputc(c == '\t' ? '\t' : ' ', f);
        else if (c == '\n' || c == '\r' || c == '\t')
            fprintf(f, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20 || c == 0x7F)
            fprintf(f, "\\x%02x", c);
        else if (c == 0xC2 && i + 1 < max && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F)
            fprintf(f, "\\xc2\\x%02x", p[++i]);
        else if (c == '\\' && !fold_lines)
            fputs("\\\\", f);
        else
            fputc((int)c, f);
    }
}

/* prefix, then text escaped by put_text, then a newline. */
void put_line(FILE *f, const char *prefix, const char *text)
{
    fputs(prefix, f);
    put_text(f, text, SIZE_MAX, false);
    fputc('\n', f);
}

/* "line L, column C" of byte offset off in text, into buf. */
void text_position(const char *text, size_t len, size_t off, char *buf, size_t cap)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < off && i < len; i++, col++)
        if (text[i] == '\n')
            line++, col = 0;
    snprintf(buf, cap, "line %zu, column %zu", line, col);
}

/* === Lines of numbers (tokenize, embed) === */

#define NUMBERS_MAX (HX_EMBED_DIM_MAX > HX_MAX_SEQ_TOKENS ? HX_EMBED_DIM_MAX : HX_MAX_SEQ_TOKENS)

/* n numbers as one JSON array line on stdout, in one write: ids[i] when ids is given (token ids),
 * else v[i] to 9 digits (a float reads back the same); at most NUMBERS_MAX of them. 0, or -1 on a
 * write error. */
int put_numbers(const int32_t *ids, const float *v, size_t n)
{
    char buf[NUMBERS_MAX * 18 + 4];   /* 18: a comma and "%.9g" of a float, or of an int32 */
    size_t w = 0;
    buf[w++] = '[';
    for (size_t i = 0; i < n && i < NUMBERS_MAX; i++)
        w += (size_t)(ids ? snprintf(buf + w, sizeof buf - w, i ? ",%d" : "%d", (int)ids[i])
                          : snprintf(buf + w, sizeof buf - w, i ? ",%.9g" : "%.9g", (double)v[i]));
    buf[w++] = ']';
    buf[w++] = '\n';
    return fwrite(buf, 1, w, stdout) == w ? 0 : -1;
}

/* === Progress of long writes === */

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One line a log can keep: chunks embedded of all, the rate, the document at hand. */
static void progress_line(progress_state *p, size_t done, size_t total, const char *path, double now)
{
    double secs = now - p->start;
    fprintf(stderr, "hyrax %s: embedded %zu/%zu chunks (%zu%%) in %.1f s, %.0f chunks/s", p->cmd, done, total,
            done * 100 / total, secs, secs > 0 ? (double)done / secs : 0.0);
    if (path) {
        fputs(", at ", stderr);
        put_text(stderr, path, 200, false);
    }
    fputc('\n', stderr);
    p->last = now;
    p->printed = true;
}

int index_progress(void *ctx, size_t done, size_t total, const char *path)
{
    progress_state *p = ctx;
    if (interrupted)
        return 1;
    if (!total)
        return 0;
    if (!p->tty) {
        double now = now_seconds();
        if (path ? now - p->last >= p->every : p->printed)   /* path NULL: all embedded, before the commit */
            progress_line(p, done, total, path, now);
        return 0;
    }
    if (!path)   /* the call before the commit: nothing new to draw */
        return 0;
    size_t pct = done * 100 / total;
    if (pct == p->last_pct && done != total)
        return 0;
    p->last_pct = pct;
    int bar = (int)(pct * 30 / 100);
    fprintf(stderr, "\r[%-30.*s] %3zu%% %zu/%zu chunks ", bar, "==============================", pct, done, total);
    put_text(stderr, path, 40, false);
    fputs("\033[K", stderr);
    if (done == total)
        fputc('\n', stderr);
    return 0;
}
