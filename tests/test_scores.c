/* test_scores.c: scores a threshold can use and recency (issue 11 items 4 and 5), as users meet
 * them through $HYRAX_BIN (./hyrax) on a small corpus written to /tmp: every mode's score is a
 * relevance within [0, 1] (the cosine stays as `similarity`); at the defaults an off-topic query
 * answers nothing while on-topic ones keep their answer; --min-score 0.5 keeps strong hybrid
 * matches; --recency KEY:DAYS puts a newer document above an older one that matches better. Also
 * the ISO-8601 reader (expected values from GNU date -u -d ... +%s) and the half-life factor.
 * Specs: src/retrieve/fusion.h (relevance), src/retrieve/recency.h, hyrax.h hx_search_opts. */
#include "check.h"
#include "fusion.h"
#include "json.h"
#include "recency.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char root[PATH_MAX], db[PATH_MAX + 16];

static void test_factor(void)
{
    int64_t now = 1700000000;
    CHECK(fabs(hxi_recency_factor(now - 30 * 86400, now, 30) - 0.5) < 1e-12, "one half-life ago: 0.5");
    CHECK(fabs(hxi_recency_factor(now - 60 * 86400, now, 30) - 0.25) < 1e-12, "two half-lives ago: 0.25");
    CHECK(hxi_recency_factor(now, now, 30) == 1 && hxi_recency_factor(now + 86400, now, 30) == 1, "now and later: 1");
    for (int m = 0; m < 3; m++)
        for (float c = -1; c <= 1; c += 0.25f)
            for (float x = 0; x <= 1; x += 0.25f) {
                float p = hxi_relevance((hx_search_mode)m, c, x);
                CHECK(p >= 0 && p <= 1, "relevance within [0, 1]: mode %d, %g %g -> %g", m, (double)c, (double)x, (double)p);
                if (m != HX_MODE_KEYWORD && c > -1)
                    CHECK(p >= hxi_relevance((hx_search_mode)m, c - 0.25f, x), "more similar, more relevant");
                if (m != HX_MODE_VECTOR && x > 0)
                    CHECK(p >= hxi_relevance((hx_search_mode)m, c, x - 0.25f), "more BM25, more relevant");
            }
}

/* hxi_recency_date on a document built by hand: its key matched as a filter's (filter.h), the
 * date read to the second in any year, mtime for a missing key. */
static void test_recency_date(void)
{
    char k1[] = "creation-date", v1[] = "2018-10-10", k2[] = "published", v2[] = "3000-01-16";
    hx_kv meta[] = {{k1, v1}, {k2, v2}};
    hx_doc_info d = {.path = "keps/a.md", .type = "markdown", .title = "t", .meta = meta, .n_meta = 2,
                     .mtime_ns = 1700000000LL * 1000000000LL};
    static const char *const asked[] = {"creation-date", "creation_date", "Creation-Date", "CREATION_DATE"};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++)
        CHECK(hxi_recency_date(&d, asked[i]) == 1539129600, "--recency %s:30 reads creation-date: %lld", asked[i],
              (long long)hxi_recency_date(&d, asked[i]));
    CHECK(hxi_recency_date(&d, "published") == 32504976000LL, "year 3000 to the second (GNU date: 32504976000): %lld",
          (long long)hxi_recency_date(&d, "published"));
    CHECK(hxi_recency_date(&d, "created") == 1700000000 && hxi_recency_date(&d, "mtime") == 1700000000 &&
              hxi_recency_date(&d, "MTime") == 1700000000,
          "no such key, or mtime: the mtime");
}

/* `hyrax search --json` with extra flags; the parsed answer (caller frees) or NULL. */
static hxi_json_doc *search(const char *flags, const char *query)
{
    char cmd[2 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --json --group chunk %s -- '%s'", db, flags, query);
    int rc = check_run(cmd, &out);
    hxi_json_doc *d = NULL;
    CHECK(rc == 0 && hxi_json_parse(&d, out, strlen(out), NULL, NULL) == 0, "search %s %s: %.300s", flags, query, out);
    free(out);
    return d;
}

static const hxi_json_val *results(const hxi_json_doc *d)
{
    return d ? hxi_json_obj_get(hxi_json_doc_root(d), "results") : NULL;
}

static double num(const hxi_json_val *r, const char *key)
{
    double v = NAN;
    hxi_json_num_double(hxi_json_obj_get(r, key), &v, NULL);
    return v;
}

static const char *first_path(const hxi_json_doc *d)
{
    const char *p = hxi_json_str(hxi_json_obj_get(hxi_json_arr_get(results(d), 0), "path"), NULL);
    return p ? p : "-";
}

static void test_search(void)
{
    static const char *const modes[] = {"--mode hybrid", "--mode vector", "--mode keyword"};
    static const char off_topic[] = "chocolate cake recipe with strawberries";
    for (int m = 0; m < 3; m++) {
        hxi_json_doc *d = search(modes[m], off_topic);
        CHECK(d && hxi_json_len(results(d)) == 0, "%s: off-topic query answers nothing at the defaults, got %zu (first %s)",
              modes[m], hxi_json_len(results(d)), first_path(d));
        hxi_json_doc_free(d);
        d = search(modes[m], "which component assigns pods to nodes in the kube-scheduler");
        CHECK(d && hxi_json_len(results(d)) >= 1 && !strcmp(first_path(d), "docs/scheduler.md"),
              "%s: on-topic query keeps its answer at the defaults: %s", modes[m], first_path(d));
        hxi_json_doc_free(d);
        char flags[64];
        snprintf(flags, sizeof flags, "%s --min-score 0 -k 50", modes[m]);
        static const char *const queries[] = {off_topic, "persistent storage volumes", "pods"};
        for (size_t q = 0; q < 3; q++) {
            d = search(flags, queries[q]);
            const hxi_json_val *rs = results(d);
            CHECK(hxi_json_len(rs) >= 1 || (m == 2 && q == 0), "%s %s: every candidate at --min-score 0", modes[m],
                  queries[q]);   /* no word of the off-topic query is in the corpus */
            for (size_t i = 0; i < hxi_json_len(rs); i++) {
                double s = num(hxi_json_arr_get(rs, i), "score"), c = num(hxi_json_arr_get(rs, i), "similarity");
                CHECK(s >= 0 && s <= 1, "%s %s: score %g within [0, 1]", modes[m], queries[q], s);
                CHECK(m == 2 ? isnan(c) : c >= -1.0001 && c <= 1.0001, "%s: similarity %g is a cosine", modes[m], c);
            }
            hxi_json_doc_free(d);
        }
    }
    /* min_score 0.5 in hybrid: a question in the words of a document keeps it, and only scores >= 0.5 */
    hxi_json_doc *d = search("--mode hybrid --min-score 0.5",
                             "Network policies restrict which pods may talk to each other, egress and ingress rules");
    const hxi_json_val *rs = results(d);
    CHECK(hxi_json_len(rs) >= 1 && !strcmp(first_path(d), "docs/network.md"), "hybrid --min-score 0.5 keeps the match: %s",
          first_path(d));
    for (size_t i = 0; i < hxi_json_len(rs); i++)
        CHECK(num(hxi_json_arr_get(rs, i), "relevance") >= 0.5, "hybrid --min-score 0.5: only relevance >= 0.5");
    hxi_json_doc_free(d);
}

static void test_recency(void)
{
    static const char q[] = "how to upgrade the control plane of a cluster one minor version at a time";
    hxi_json_doc *d = search("--mode hybrid", q);
    CHECK(!strcmp(first_path(d), "ops/upgrade-2015.md"), "without recency the better match leads: %s", first_path(d));
    hxi_json_doc_free(d);
    d = search("--mode hybrid --recency date:365", q);
    const hxi_json_val *r0 = hxi_json_arr_get(results(d), 0);
    CHECK(!strcmp(first_path(d), "ops/upgrade-2025.md"), "--recency date:365: the newer document leads: %s", first_path(d));
    CHECK(num(r0, "recency") > 0 && num(r0, "recency") < 1, "each result shows its recency factor");
    hxi_json_doc_free(d);
    d = search("--mode vector --recency date:365", q);
    CHECK(!strcmp(first_path(d), "ops/upgrade-2025.md"), "vector mode too: %s", first_path(d));
    hxi_json_doc_free(d);
    char cmd[2 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --recency date:0 pods 2>&1", db);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "--recency"), "a half-life of 0 is refused: %s", out);
    free(out);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_scores_XXXXXX", cmd[3 * PATH_MAX], *out;
    setenv("HYRAX_BIN", "./hyrax", 0);
    test_factor();
    test_recency_date();
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    check_put(root, "docs/scheduler.md",
              "# Kube Scheduler\n\nThe kube-scheduler watches for newly created pods that have no node assigned and "
              "selects a node for each of them to run on. Placement considers resource requests, affinity and taints.\n");
    check_put(root, "docs/storage.md",
              "# Persistent Volumes\n\nA PersistentVolume is a piece of storage in the cluster provisioned by an "
              "administrator or dynamically through a CSI driver. Claims bind pods to durable disks.\n");
    check_put(root, "docs/network.md",
              "# Network Policies\n\nNetwork policies restrict which pods may talk to each other. Egress and ingress "
              "rules select peers by label.\n");
    check_put(root, "docs/auth.md",
              "# Service Account Tokens\n\nBound service account tokens are audience-scoped and time-limited "
              "credentials that workloads use to authenticate to the API server.\n");
    check_put(root, "ops/upgrade-2015.md",
              "---\ndate: 2015-03-01\n---\n# Upgrading the control plane\n\nUpgrade the control plane of a cluster one "
              "minor version at a time: first the API server, then the controller manager and the scheduler.\n");
    check_put(root, "ops/upgrade-2025.md",
              "---\ndate: 2025-09-01\n---\n# Cluster upgrades\n\nMove a cluster to a newer release step by step; the "
              "control plane components go first, the kubelets on the nodes after them.\n");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db '%s' '%s' 2>&1", db, root);
    CHECK(check_run(cmd, &out) == 0, "index: %s", out);
    free(out);
    test_search();
    test_recency();
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", root, root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_scores");
}
