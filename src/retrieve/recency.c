/* recency.c: a document's date and the half-life decay (spec in recency.h). Pure computation on the
 * strings and numbers it is given; reads no index data beyond a document's metadata. Dates are
 * read by the filter module's ISO-8601 reader (filter.h hxi_meta_time), the one date rule, and keys
 * matched by its key rule (hxi_meta_key_matches). */
#include "recency.h"
#include "filter.h"

#include <math.h>

int64_t hxi_recency_date(const hx_doc_info *d, const char *key)
{
    int64_t secs;
    int32_t frac;
    bool day;
    bool mtime = hxi_meta_key_matches("mtime", key);   /* the derived key, named as filters name it */
    for (size_t i = 0; !mtime && i < d->n_meta; i++)
        if (hxi_meta_key_matches(d->meta[i].key, key) && hxi_meta_time(d->meta[i].value, &secs, &frac, &day))
            return secs;
    return d->mtime_ns / 1000000000;
}

double hxi_recency_factor(int64_t date_s, int64_t now_s, double half_life_days)
{
    double age_days = date_s < now_s ? (double)(now_s - date_s) / 86400.0 : 0.0;
    return pow(0.5, age_days / half_life_days);
}
