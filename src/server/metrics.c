/* metrics.c: the histograms and gauges of metrics.h and their Prometheus text. Owns its series
 * table and one mutex; knows nothing of HTTP or MCP beyond the family names below. */
#include "metrics.h"
#include "alloc.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Upper bounds in seconds; +Inf is implicit. From 0.5 ms (a keyword query) to 10 s (a reindex). */
static const double bucket_le[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define N_BUCKETS (sizeof bucket_le / sizeof bucket_le[0])

static const struct {
    const char *name, *help, *labels[3];
} families[HX_METRIC_FAMILIES] = {
    {"hyrax_http_request_duration_seconds", "HTTP requests by route, method and status, and their latency",
     {"route", "method", "code"}},
    {"hyrax_mcp_tool_duration_seconds", "MCP tool calls by tool and transport, and their latency",
     {"tool", "transport", NULL}},
};

typedef struct {
    int family;
    char labels[3][48];
    uint64_t buckets[N_BUCKETS + 1];   /* per bucket, not cumulative; the last is +Inf */
    uint64_t count;
    double sum;
} series;

struct hx_metrics {
    pthread_mutex_t lock;
    series v[HX_METRICS_MAX_SERIES];
    size_t n;
};

int hx_metrics_new(hx_metrics **out, hx_error *err)
{
    hx_metrics *m = hx_calloc(1, sizeof *m);
    if (!m)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for the metrics");
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return 0;
}

void hx_metrics_free(hx_metrics *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* v, or "other" when it is empty, too long or has a byte outside the label alphabet. */
static const char *label_value(const char *v)
{
    if (!v || !*v || strlen(v) >= 48)
        return "other";
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("_/.-", *p)))
            return "other";
    return v;
}

void hx_metrics_observe(hx_metrics *m, hx_metric_family f, const char *a, const char *b, const char *c,
                        double seconds)
{
    if (!m || f >= HX_METRIC_FAMILIES)
        return;
    const char *want[3] = {label_value(a), label_value(b), families[f].labels[2] ? label_value(c) : ""};
    pthread_mutex_lock(&m->lock);
    size_t i = 0;
    while (i < m->n && !(m->v[i].family == (int)f && !strcmp(m->v[i].labels[0], want[0]) &&
                         !strcmp(m->v[i].labels[1], want[1]) && !strcmp(m->v[i].labels[2], want[2])))
        i++;
    if (i == m->n && m->n == HX_METRICS_MAX_SERIES) {   /* full: the last series takes the rest */
        i = m->n - 1;
        snprintf(m->v[i].labels[0], sizeof m->v[i].labels[0], "other");
    } else if (i == m->n) {
        m->n++;
        m->v[i].family = (int)f;
        for (int k = 0; k < 3; k++)
            snprintf(m->v[i].labels[k], sizeof m->v[i].labels[k], "%s", want[k]);
    }
    series *s = &m->v[i];
    size_t b_at = 0;
    while (b_at < N_BUCKETS && seconds > bucket_le[b_at])
        b_at++;
    s->buckets[b_at]++;
    s->count++;
    s->sum += seconds;
    pthread_mutex_unlock(&m->lock);
}

static int put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = *cap - *len;
        int n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return HX_ENOMEM;
        if (*buf && (size_t)n < room) {
            *len += (size_t)n;
            return 0;
        }
        if (hx_grow((void **)buf, cap, *len + (size_t)n + 1, 1, NULL))
            return HX_ENOMEM;
    }
}

/* {a="x",b="y"} of series s, with extra (le="...") appended when non-NULL. */
static int put_labels(char **buf, size_t *len, size_t *cap, const series *s, const char *extra)
{
    int rc = put(buf, len, cap, "{");
    for (int k = 0; k < 3 && !rc; k++)
        if (families[s->family].labels[k])
            rc = put(buf, len, cap, "%s%s=\"%s\"", k ? "," : "", families[s->family].labels[k], s->labels[k]);
    return rc ? rc : put(buf, len, cap, "%s%s}", extra ? "," : "", extra ? extra : "");
}

int hx_metrics_write(hx_metrics *m, char **buf, size_t *len, size_t *cap)
{
    int rc = 0;
    pthread_mutex_lock(&m->lock);
    for (int f = 0; f < HX_METRIC_FAMILIES && !rc; f++) {
        const char *name = families[f].name;
        rc = put(buf, len, cap, "# HELP %s %s\n# TYPE %s histogram\n", name, families[f].help, name);
        for (size_t i = 0; i < m->n && !rc; i++) {
            const series *s = &m->v[i];
            if (s->family != f)
                continue;
            uint64_t cum = 0;
            for (size_t b = 0; b <= N_BUCKETS && !rc; b++) {
                char le[40];
                cum += s->buckets[b];
                if (b < N_BUCKETS)
                    snprintf(le, sizeof le, "le=\"%g\"", bucket_le[b]);
                else
                    snprintf(le, sizeof le, "le=\"+Inf\"");
                if (!(rc = put(buf, len, cap, "%s_bucket", name)) && !(rc = put_labels(buf, len, cap, s, le)))
                    rc = put(buf, len, cap, " %llu\n", (unsigned long long)cum);
            }
            if (!rc && !(rc = put(buf, len, cap, "%s_sum", name)) && !(rc = put_labels(buf, len, cap, s, NULL)))
                rc = put(buf, len, cap, " %.9g\n", s->sum);
            if (!rc && !(rc = put(buf, len, cap, "%s_count", name)) && !(rc = put_labels(buf, len, cap, s, NULL)))
                rc = put(buf, len, cap, " %llu\n", (unsigned long long)s->count);
        }
    }
    if (!rc)
        rc = put(buf, len, cap, "# HELP hyrax_http_requests_total HTTP requests by route, method and status\n"
                                "# TYPE hyrax_http_requests_total counter\n");
    for (size_t i = 0; i < m->n && !rc; i++)
        if (m->v[i].family == HX_METRIC_HTTP && !(rc = put(buf, len, cap, "hyrax_http_requests_total")) &&
            !(rc = put_labels(buf, len, cap, &m->v[i], NULL)))
            rc = put(buf, len, cap, " %llu\n", (unsigned long long)m->v[i].count);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int hx_metrics_gauge(char **buf, size_t *len, size_t *cap, const char *name, const char *help, double value)
{
    return put(buf, len, cap, "# HELP %s %s\n# TYPE %s gauge\n%s %.17g\n", name, help, name, name, value);
}

int hx_metrics_append(char **buf, size_t *len, size_t *cap, const char *text, size_t n)
{
    return n > INT_MAX ? HX_ERANGE : put(buf, len, cap, "%.*s", (int)n, text);
}
