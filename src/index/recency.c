/* recency.c: a document's date and the half-life decay (spec in recency.h). Pure computation on the
 * strings and numbers it is given; reads no index data beyond a document's metadata. Dates are
 * read by the filter module's ISO-8601 reader (filter.h hx_meta_date), the one date rule. */
#include "recency.h"
#include "filter.h"

#include <math.h>
#include <string.h>

int64_t hx_recency_date(const hx_doc_info *d, const char *key)
{
    int64_t ns;
    bool day;
    for (size_t i = 0; strcmp(key, "mtime") && i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key) && hx_meta_date(d->meta[i].value, &ns, &day))
            return ns / 1000000000;
    return d->mtime_ns / 1000000000;
}

double hx_recency_factor(int64_t date_s, int64_t now_s, double half_life_days)
{
    double age_days = date_s < now_s ? (double)(now_s - date_s) / 86400.0 : 0.0;
    return pow(0.5, age_days / half_life_days);
}
