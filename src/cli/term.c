/* term.c: how text results look on stdout (`hyrax help cli`): on a terminal, colour (paths) and
 * bold (matched words, in place of the library's **markers**) and snippets wrapped to its width;
 * piped, plain text without markers or wrapping. --color=auto|always|never and $NO_COLOR decide;
 * what is written is escaped by put_text. Also the one singular/plural rule. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static bool color;   /* set once by term_setup */
static int width;    /* columns to wrap at; 0: no wrapping */

/* Reads --color and the terminal: colour on a terminal unless --color=never or $NO_COLOR (any
 * value but ""), or always with --color=always; wrapping on a terminal only ($COLUMNS when the
 * terminal does not say). */
void term_setup(const cli_args *a)
{
    const char *when = opt_str(a, "--color"), *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
    bool tty = isatty(1);
    if (when && strcmp(when, "auto"))
        color = !strcmp(when, "always");
    else
        color = tty && !(no_color && *no_color) && !(term && !strcmp(term, "dumb"));
    struct winsize ws;
    const char *cols = getenv("COLUMNS");
    width = !tty ? 0 : ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : cols ? atoi(cols) : 80;
    if (width < 20)
        width = tty ? 20 : 0;
}

int term_width(void)
{
    return width;
}

bool term_colored(void)
{
    return color;
}

/* Starts (style "1;35": SGR parameters) or ends (NULL) a style, when colour is on. */
void term_style(FILE *f, const char *style)
{
    if (color)
        fprintf(f, "\033[%sm", style ? style : "0");
}

/* Columns of s[0..n): UTF-8 lead bytes (every character one column wide). */
static int columns(const char *s, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* A snippet (the library's, with **matched words**) with its lines folded: the matches bold red
 * when colour is on, the markers dropped either way; wrapped to term_width() with `indent` spaces
 * before each continuation line, the first line starting at column `indent`. */
void put_snippet(FILE *f, const char *snippet, int indent)
{
    bool bold = false;
    int col = indent;
    const char *p = snippet;
    while (*p) {
        size_t gap = strspn(p, " \t\r\n");
        const char *w = p + gap;
        size_t wl = strcspn(w, " \t\r\n");
        if (!wl)
            break;
        int wc = columns(w, wl);
        for (const char *m = w; (m = strstr(m, "**")) && m < w + wl; m += 2)
            wc -= 2;
        if (width && col > indent && col + 1 + wc > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        for (const char *q = w; q < w + wl;) {
            const char *m = strstr(q, "**");
            size_t run = m && m < w + wl ? (size_t)(m - q) : (size_t)(w + wl - q);
            put_text(f, q, run, true);
            q += run;
            if (q < w + wl) {   /* a marker */
                bold = !bold;
                term_style(f, bold ? "1;31" : NULL);
                q += 2;
            }
        }
        col += wc;
        p = w + wl;
    }
    if (bold)
        term_style(f, NULL);
}

/* one when n is 1, else many: "1 result", "2 results". */
const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}
