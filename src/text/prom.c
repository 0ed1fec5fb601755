/* prom.c: the exposition-format writer of prom.h. Formats only; the counts and their locking are
 * the callers'. */
#include "prom.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

void hxi_prom_printf(hxi_buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= SIZE_MAX - b->len ||
        hx_grow((void **)&b->data, &b->cap, b->len + (size_t)n + 1, 1, NULL)) {
        b->failed = true;
    } else {
        vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void hxi_prom_family(hxi_buf *b, const char *name, const char *type, const char *help)
{
    hxi_prom_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void hxi_prom_histogram(hxi_buf *b, const char *name, const char *labels, const double *le, size_t n,
                        const uint64_t *per_bucket, double sum, uint64_t count)
{
    const char *comma = *labels ? "," : "";
    uint64_t cum = 0;
    for (size_t i = 0; i <= n; i++) {
        cum += per_bucket[i];
        if (i < n)
            hxi_prom_printf(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, comma, le[i], (unsigned long long)cum);
        else
            hxi_prom_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, comma, (unsigned long long)cum);
    }
    const char *open = *labels ? "{" : "", *close = *labels ? "}" : "";
    hxi_prom_printf(b, "%s_sum%s%s%s %.9g\n", name, open, labels, close, sum);
    hxi_prom_printf(b, "%s_count%s%s%s %llu\n", name, open, labels, close, (unsigned long long)count);
}

const char *hxi_prom_label(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 3 < cap; s++) {
        if (*s == '\\' || *s == '"' || *s == '\n') {
            out[o++] = '\\';
            out[o++] = *s == '\n' ? 'n' : *s;
        } else {
            out[o++] = *s;
        }
    }
    out[o] = 0;
    return out;
}
