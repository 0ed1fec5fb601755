/* metrics.c: the histograms and gauges of metrics.h and their Prometheus text. Owns its series
 * table and one mutex; knows nothing of HTTP or MCP beyond the family names below. */
#include "metrics.h"
#include "prom.h"

#include <pthread.h>
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

struct hxi_metrics {
    pthread_mutex_t lock;
    series v[HX_METRICS_MAX_SERIES];
    size_t n;
};

int hxi_metrics_new(hxi_metrics **out, hx_error *err)
{
    hxi_metrics *m = hx_calloc(1, sizeof *m);
    if (!m)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for the metrics");
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return 0;
}

void hxi_metrics_free(hxi_metrics *m)
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

void hxi_metrics_observe(hxi_metrics *m, hxi_metric_family f, const char *a, const char *b, const char *c,
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

/* Appends n bytes to *buf, keeping it NUL-terminated; 0 or HX_ENOMEM. */
static int append(char **buf, size_t *len, size_t *cap, const void *text, size_t n)
{
    if (n >= SIZE_MAX - *len || hx_grow((void **)buf, cap, *len + n + 1, 1, NULL))
        return HX_ENOMEM;
    if (n)
        memcpy(*buf + *len, text, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

/* Appends b to *buf and frees it; HX_ENOMEM when b is incomplete or *buf cannot grow. */
static int append_buf(char **buf, size_t *len, size_t *cap, hxi_buf *b)
{
    int rc = b->failed ? HX_ENOMEM : append(buf, len, cap, b->data, b->len);
    hxi_buf_free(b);
    return rc;
}

/* a="x",b="y" of series s, into out (cap bytes: room for three names and values of 47 bytes). */
static const char *series_labels(const series *s, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (int k = 0; k < 3 && families[s->family].labels[k] && o < cap; k++)
        o += (size_t)snprintf(out + o, cap - o, "%s%s=\"%s\"", k ? "," : "", families[s->family].labels[k],
                              s->labels[k]);
    return out;
}

int hxi_metrics_write(hxi_metrics *m, char **buf, size_t *len, size_t *cap)
{
    hxi_buf b = {0};
    char labels[256];
    pthread_mutex_lock(&m->lock);
    for (int f = 0; f < HX_METRIC_FAMILIES; f++) {
        hxi_prom_family(&b, families[f].name, "histogram", families[f].help);
        for (size_t i = 0; i < m->n; i++)
            if (m->v[i].family == f)
                hxi_prom_histogram(&b, families[f].name, series_labels(&m->v[i], labels, sizeof labels), bucket_le,
                                   N_BUCKETS, m->v[i].buckets, m->v[i].sum, m->v[i].count);
    }
    hxi_prom_family(&b, "hyrax_http_requests_total", "counter", "HTTP requests by route, method and status");
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].family == HX_METRIC_HTTP)
            hxi_prom_printf(&b, "hyrax_http_requests_total{%s} %llu\n", series_labels(&m->v[i], labels, sizeof labels),
                            (unsigned long long)m->v[i].count);
    pthread_mutex_unlock(&m->lock);
    return append_buf(buf, len, cap, &b);
}

int hxi_metrics_gauge(char **buf, size_t *len, size_t *cap, const char *name, const char *help, double value)
{
    hxi_buf b = {0};
    hxi_prom_family(&b, name, "gauge", help);
    hxi_prom_printf(&b, "%s %.17g\n", name, value);
    return append_buf(buf, len, cap, &b);
}

int hxi_metrics_append(char **buf, size_t *len, size_t *cap, const char *text, size_t n)
{
    return append(buf, len, cap, text, n);
}
