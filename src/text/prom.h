/* prom.h: the Prometheus text exposition format (version 0.0.4), written in one place for the
 * server's live metrics (server/metrics.c) and the lasting statistics (service/stats.c): a family's
 * HELP and TYPE lines, sample lines, one histogram series, and the escaping of a label value.
 * Appends to an hxi_buf (wire.h), whose sticky `failed` says an allocation failed. Knows no metric;
 * the format: https://prometheus.io/docs/instrumenting/exposition_formats/ */
#ifndef HX_PROM_H
#define HX_PROM_H

#include "wire.h"

#include <stddef.h>
#include <stdint.h>

/* Appends printf-formatted text, e.g. a sample line "name{labels} value\n". */
void hxi_prom_printf(hxi_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "# HELP name help\n# TYPE name type\n" (type: counter, gauge or histogram). */
void hxi_prom_family(hxi_buf *b, const char *name, const char *type, const char *help);

/* One series of a histogram: name_bucket{labels,le="B"} with the cumulative count for each of the
 * n upper bounds le[] (seconds, ascending) and for le="+Inf", then name_sum and name_count (with
 * {labels} unless labels is ""). per_bucket: n + 1 counts, each of its own bucket only, the last
 * for the values above le[n - 1]. labels: `key="value",...` with escaped values, or "". */
void hxi_prom_histogram(hxi_buf *b, const char *name, const char *labels, const double *le, size_t n,
                        const uint64_t *per_bucket, double sum, uint64_t count);

/* s as a label value with \, " and newline escaped, into out (cap >= 1 bytes; cut to fit at a
 * whole character of the escaping); returns out. */
const char *hxi_prom_label(const char *s, char *out, size_t cap);

#endif
