/* recency.c: ISO-8601 dates and the half-life decay (spec in recency.h). Pure computation on the
 * strings and numbers it is given; reads no index data beyond a document's metadata. */
#include "recency.h"

#include <math.h>
#include <string.h>

/* Reads exactly n digits at *p into *v, advancing *p; 0 or -1. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -1;
        *v = *v * 10 + (**p - '0');
    }
    return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dim[m - 1];
}

/* Skips the blanks and quotes a metadata value may carry around a date. */
static const char *skip_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '"' || *s == '\'')
        s++;
    return s;
}

/* hh:mm[:ss[.fraction]] then an optional zone, at *p; 0 or -1. *offset gets the zone's offset
 * east of UTC in seconds. */
static int parse_time(const char **p, int *h, int *mi, int *sec, int *offset)
{
    const char *s = *p;
    if (digits(&s, 2, h) || *s++ != ':' || digits(&s, 2, mi))
        return -1;
    if (*s == ':' && (s++, digits(&s, 2, sec)))
        return -1;
    if (*s == '.' || *s == ',') {
        if (*++s < '0' || *s > '9')
            return -1;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    int zh = 0, zm = 0;
    if (*s == 'Z' || *s == 'z') {
        s++;
    } else if (*s == '+' || *s == '-') {
        int sign = *s++ == '-' ? -1 : 1;
        if (digits(&s, 2, &zh))
            return -1;
        if (*s == ':')
            s++;
        if (digits(&s, 2, &zm) || zh > 23 || zm > 59)
            return -1;
        *offset = sign * (zh * 3600 + zm * 60);
    }
    *p = s;
    return 0;
}

int hx_iso8601_parse(const char *s, int64_t *unix_s)
{
    s = skip_blank(s);
    int y, mo = 1, d = 1, h = 0, mi = 0, sec = 0, offset = 0;
    if (digits(&s, 4, &y))
        return HX_EPARSE;
    if (*s == '-') {
        s++;
        if (digits(&s, 2, &mo))
            return HX_EPARSE;
        if (*s == '-') {
            s++;
            if (digits(&s, 2, &d))
                return HX_EPARSE;
            if ((*s == 'T' || *s == 't' || (*s == ' ' && s[1] >= '0' && s[1] <= '9')) &&
                (s++, parse_time(&s, &h, &mi, &sec, &offset)))
                return HX_EPARSE;
        }
    }
    s = skip_blank(s);
    if (*s || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
        return HX_EPARSE;
    *unix_s = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    return 0;
}

int64_t hx_recency_date(const hx_doc_info *d, const char *key)
{
    int64_t t;
    for (size_t i = 0; strcmp(key, "mtime") && i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key) && !hx_iso8601_parse(d->meta[i].value, &t))
            return t;
    return d->mtime_ns / 1000000000;
}

double hx_recency_factor(int64_t date_s, int64_t now_s, double half_life_days)
{
    double age_days = date_s < now_s ? (double)(now_s - date_s) / 86400.0 : 0.0;
    return pow(0.5, age_days / half_life_days);
}
