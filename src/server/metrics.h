/* metrics.h: the server's counters in Prometheus text format (exposition format 0.0.4) for `GET
 * /metrics`: latency histograms with fixed buckets, one series per label set, and gauges written
 * at scrape time. The one place metrics are kept and written: http_server.c records requests,
 * mcp.c records tool calls through mcp_server.metrics; lasting observability (persisted counters,
 * hot queries) joins here by adding its families to hxi_metrics_write's caller. */
#ifndef HX_METRICS_H
#define HX_METRICS_H

#include "hyrax.h"

#include <stddef.h>

typedef struct hxi_metrics hxi_metrics;

/* Caller frees with hxi_metrics_free. */
int hxi_metrics_new(hxi_metrics **out, hx_error *err);
void hxi_metrics_free(hxi_metrics *m);

/* The histogram families. */
typedef enum {
    HX_METRIC_HTTP = 0,   /* hyrax_http_request_duration_seconds{route,method,code} */
    HX_METRIC_TOOL = 1,   /* hyrax_mcp_tool_duration_seconds{tool,transport} */
    HX_METRIC_FAMILIES
} hxi_metric_family;

/* Adds one observation of `seconds` to the series of family f with labels a and b (and c for
 * HX_METRIC_HTTP's code; NULL otherwise). Label values are hyrax's own names (routes from its
 * route table, tool names from its tool table); a value outside [A-Za-z0-9_/.-] is written as
 * "other". Thread-safe. Past HX_METRICS_MAX_SERIES label sets, new ones count under "other". */
#define HX_METRICS_MAX_SERIES 256
void hxi_metrics_observe(hxi_metrics *m, hxi_metric_family f, const char *a, const char *b, const char *c,
                         double seconds);

/* Appends every family to *buf (hx_grow'n; caller frees): HELP, TYPE, cumulative buckets, _sum,
 * _count, and hyrax_http_requests_total. 0 or HX_ENOMEM. */
int hxi_metrics_write(hxi_metrics *m, char **buf, size_t *len, size_t *cap);

/* Appends one gauge (HELP, TYPE and one sample) to *buf; same contract. */
int hxi_metrics_gauge(char **buf, size_t *len, size_t *cap, const char *name, const char *help, double value);
/* Appends n bytes of text (another writer's exposition, hyrax.h hx_stats_prometheus_text) to *buf. */
int hxi_metrics_append(char **buf, size_t *len, size_t *cap, const char *text, size_t n);

#endif
