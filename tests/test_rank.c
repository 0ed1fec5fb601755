/* test_rank.c: what a search ranks first, through $HYRAX_BIN (./hyrax) on a corpus built here:
 * the document a query names (its title, folder name) comes first in every mode, above a document
 * that only mentions the words, and above one with the name as a section heading; text that many
 * documents repeat (a template's instructions) and a chunk that is only a title never answer first,
 * and the template falls under the default relevance floor, also where each copy wraps it at other
 * places. The truth is the corpus's construction: which document holds the name, which paragraph
 * every document repeats. Spec: src/retrieve/title.h, src/index/boiler.c, fusion.h "The named
 * document first". */
#include "check.h"
#include "json.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const modes[] = {"keyword", "vector", "hybrid"};

/* The template paragraph every proposal repeats (the KEP template's instructions). */
#define TEMPLATE                                                                                               \
    "Pick one or more of these and delete the rest. Check these off as they are completed for the release " \
    "readiness review, and link to the pull requests and the documentation that cover each item."

/* `hyrax search --json` of query; the parsed document (caller frees) or NULL. */
static hxi_json_doc *search(const char *db, const char *mode, const char *extra, const char *query)
{
    char cmd[2 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --mode %s -k 5 %s --json -- '%s'", db, mode, extra, query);
    int rc = check_run(cmd, &out);
    hxi_json_doc *d = NULL;
    CHECK(rc == 0 && hxi_json_parse(&d, out, strlen(out), NULL, NULL) == 0, "search %s: %.200s", query, out);
    free(out);
    return d;
}

static const hxi_json_val *result(const hxi_json_doc *d, size_t i)
{
    return d ? hxi_json_arr_get(hxi_json_obj_get(hxi_json_doc_root(d), "results"), i) : NULL;
}

static const char *field(const hxi_json_val *r, const char *key)
{
    const char *s = r ? hxi_json_str(hxi_json_obj_get(r, key), NULL) : NULL;
    return s ? s : "";
}

/* Each query names the proposal whose folder and title it gives (its heading, or the title its
 * folder's kep.yaml gives it): that document first, in every mode; the others mention the words
 * more often but are about something else. */
static void test_named_first(const char *db)
{
    static const char *const cases[][2] = {
        {"sidecar containers", "sig-node/753-sidecar-containers/README.md"},
        {"how do sidecar containers start before the app", "sig-node/753-sidecar-containers/README.md"},
        {"container restart policy", "sig-node/5307-container-restart-policy/README.md"},
        {"dynamic resource allocation", "sig-node/3063-dynamic-resource-allocation/README.md"},
        {"CSI Snapshot Webhook", "sig-storage/1900-volume-snapshot-validation-webhook/README.md"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int m = 0; m < 3; m++) {
            hxi_json_doc *d = search(db, modes[m], "", cases[c][0]);
            const char *first = field(result(d, 0), "path");
            CHECK(!strcmp(first, cases[c][1]), "%s \"%s\": %s first, not %s", modes[m], cases[c][0], first, cases[c][1]);
            hxi_json_doc_free(d);
        }
}

/* The template's words answer with a proposal's own text, never with the template; by default
 * (relevance floor) the template's chunks are not listed at all. A title alone never answers. */
static void test_boilerplate(const char *db)
{
    for (int m = 0; m < 3; m++) {
        hxi_json_doc *d = search(db, modes[m], "--group chunk --min-score 0", "pick one or more of these and delete the rest");
        const char *text = field(result(d, 0), "text");
        CHECK(*text && !strstr(text, "Pick one or more"), "%s: the template answers first: %.80s", modes[m], text);
        hxi_json_doc_free(d);
        d = search(db, modes[m], "--group chunk", "pick one or more of these and delete the rest");
        for (size_t i = 0; i < 5; i++)
            CHECK(!strstr(field(result(d, i), "text"), "Pick one or more"), "%s: the template passes the floor at rank %zu",
                  modes[m], i + 1);
        hxi_json_doc_free(d);
        d = search(db, modes[m], "--group chunk", "kubectl plugins");
        const hxi_json_val *r = result(d, 0);
        CHECK(!strcmp(field(r, "path"), "sig-cli/1011-kubectl-plugins/README.md") && strlen(field(r, "text")) > 40,
              "%s \"kubectl plugins\": a chunk with text of the named document first, not its title alone: %s '%s'",
              modes[m], field(r, "path"), field(r, "text"));
        hxi_json_doc_free(d);
    }
}

/* === Real KEPs: the template beside the authors' answers (tests/data/boiler, tools/gen_boiler_fixture.py) === */

#define BOILER "tests/data/boiler"

/* Is line[0..n), without its leading and trailing spaces, a line of the KEP template (tmpl)? */
static bool template_line(const char *tmpl, const char *line, size_t n)
{
    while (n && (*line == ' ' || *line == '\t'))
        line++, n--;
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
        n--;
    if (!n)
        return true;
    for (const char *p = tmpl; (p = strstr(p, "\n")) != NULL; p++) {
        const char *l = p + 1;
        while (*l == ' ' || *l == '\t')
            l++;
        const char *e = strchr(l, '\n');
        size_t ln = e ? (size_t)(e - l) : strlen(l);
        while (ln && (l[ln - 1] == ' ' || l[ln - 1] == '\t'))
            ln--;
        if (ln == n && !memcmp(l, line, n))
            return true;
    }
    return false;
}

/* Does text hold a line that is not the template's and has a word that starts with one of words
 * (lowercase, matched without regard to case)? */
static bool own_line_with(const char *tmpl, const char *text, const char *const *words)
{
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (!template_line(tmpl, l, n))
            for (const char *const *w = words; *w; w++)
                for (size_t i = 0; i + strlen(*w) <= n; i++)
                    if ((!i || !isalnum((unsigned char)l[i - 1])) && !strncasecmp(l + i, *w, strlen(*w)))
                        return true;
        l += n + (e != NULL);
    }
    return false;
}

/* Six real KEPs keep the template's instructions and questions beside their own answers; the
 * template itself (not indexed) says which lines are its. The template's instruction answers,
 * above the floor in keyword and hybrid mode, only where a KEP's own lines or its heading path
 * (a title about deleting, or "More granular ...") hold its words; a question of the
 * questionnaire is answered by the section that answers it, not by the instructions of another. */
static void test_boiler_keps(const char *dir)
{
    char db[PATH_MAX + 16], cmd[3 * PATH_MAX], *out = NULL, *tmpl = NULL;
    size_t tl;
    snprintf(db, sizeof db, "%s/boiler.hyx", dir);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db '%s' " BOILER "/keps 2>&1", db);
    CHECK(check_run(cmd, &out) == 0, "index: %s", out);
    free(out);
    CHECK((tmpl = check_read_file(BOILER "/template.md", &tl)) != NULL, "read the template");
    static const char *const instruction[] = {"pick", "one", "more", "delet", "rest", NULL};
    for (int m = 0; tmpl && m < 3; m++) {
        if (!strcmp(modes[m], "vector"))
            continue;   /* the cosine cannot say which lines matched: a chunk mostly of its own is kept */
        hxi_json_doc *d = search(db, modes[m], "--group chunk", "Pick one more of these and delete the rest");
        for (size_t i = 0; i < 5 && result(d, i); i++) {
            const char *text = field(result(d, i), "text"), *heading = field(result(d, i), "heading");
            CHECK(own_line_with(tmpl, text, instruction) || own_line_with(tmpl, heading, instruction),
                  "%s: rank %zu answers with the template's instruction: %.160s", modes[m], i + 1, text);
        }
        hxi_json_doc_free(d);
    }
    for (int m = 0; tmpl && m < 3; m++) {
        hxi_json_doc *d = search(db, modes[m], "--group chunk --min-score 0",
                                 "will enabling this feature result in any new API calls");
        const char *h = field(result(d, 0), "heading");
        CHECK(strstr(h, "Will enabling / using this feature result in any new API calls?"),
              "%s: the question's own section first, not '%s' (%.120s)", modes[m], h, field(result(d, 0), "text"));
        hxi_json_doc_free(d);
    }
    free(tmpl);
}

/* === A template paragraph wrapped at other places (tests/data/neardup, written by hand) === */

#define NEARDUP "tests/data/neardup"
#define NEARDUP_QUERY "I/we understand the owners of the involved components may require updates to existing tests"

/* Does a search of the template's test plan paragraph answer with a Test Plan section? */
static bool test_plan_answers(const char *db, const char *mode, const char *extra)
{
    hxi_json_doc *d = search(db, mode, extra, NEARDUP_QUERY);
    bool found = false;
    for (size_t i = 0; i < 5 && result(d, i); i++)
        found |= strstr(field(result(d, i), "heading"), "> Test Plan") != NULL;
    hxi_json_doc_free(d);
    return found;
}

/* Six proposals each keep the KEP template's "[x] I/we understand the owners ..." paragraph as
 * their whole Test Plan, each wrapped at other places (no line of it in five of them), beside a
 * Summary of their own: the paragraph is boilerplate in every mode and passes no floor. An index
 * written before paragraph prints (tests/data/neardup_v0.hyx, made by hyrax at commit 4316c946
 * from tests/data/neardup/keps) still opens and ranks as it did: its lines alone are compared,
 * so the paragraph answers first. */
static void test_neardup(const char *dir)
{
    char db[PATH_MAX + 16], old[PATH_MAX + 16], cmd[3 * PATH_MAX], *out = NULL;
    snprintf(db, sizeof db, "%s/neardup.hyx", dir);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db '%s' " NEARDUP "/keps 2>&1", db);
    CHECK(check_run(cmd, &out) == 0, "index: %s", out);
    free(out);
    for (int m = 0; m < 3; m++)
        CHECK(!test_plan_answers(db, modes[m], "--group chunk"), "%s: the re-wrapped template paragraph answers",
              modes[m]);
    snprintf(old, sizeof old, "%s/neardup_v0.hyx", dir);
    CHECK(check_copy_file("tests/data/neardup_v0.hyx", old) == 0, "copy the fixture without paragraph prints");
    CHECK(test_plan_answers(old, "keyword", "--group chunk"), "an index without paragraph prints ranks otherwise");
}

static void put_kep(const char *dir, const char *folder, const char *title, const char *body)
{
    char rel[512], text[8192];
    snprintf(rel, sizeof rel, "%s/README.md", folder);
    snprintf(text, sizeof text, "# %s\n\n## Summary\n\n%s\n\n## Release Signoff Checklist\n\n" TEMPLATE "\n", title, body);
    check_put(dir, rel, text);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_rank_XXXXXX", dir[PATH_MAX], db[PATH_MAX + 16], cmd[3 * PATH_MAX], *out;
    char bin[PATH_MAX];
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(realpath(getenv("HYRAX_BIN"), bin) && setenv("HYRAX_BIN", bin, 1) == 0, "$HYRAX_BIN");
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(db, sizeof db, "%s/keps.hyx", dir);
    char docs[PATH_MAX + 8];
    snprintf(docs, sizeof docs, "%s/keps", dir);
    CHECK(mkdir(docs, 0755) == 0, "mkdir %s", docs);
    put_kep(docs, "sig-node/753-sidecar-containers", "KEP-753: Sidecar Containers",
            "Init containers that keep running beside the main containers of a pod for the pod's whole life, "
            "started before the app and stopped after it.");
    put_kep(docs, "sig-node/5307-container-restart-policy", "KEP-5307: Container Restart Policy",
            "A restart policy per container: the kubelet restarts a container, a sidecar container or an "
            "ordinary one, when it exits, following rules on its exit code. Sidecar containers keep their own "
            "restart policy; containers without one follow the pod's. Containers, containers, containers.");
    put_kep(docs, "sig-node/3063-dynamic-resource-allocation", "KEP-3063: Dynamic Resource Allocation",
            "Claims for devices such as GPUs, which drivers prepare on the node before the pod starts.");
    put_kep(docs, "sig-node/3573-device-plugin", "KEP-3573: Device Plugin Resource Allocation",
            "Device plugins advertise resources; the kubelet's allocation of dynamic resource requests of "
            "devices to containers, resource allocation at admission, allocation of dynamic resources.");
    put_kep(docs, "sig-cli/1011-kubectl-plugins", "Kubectl Plugins",
            "Executables named kubectl-something on the PATH extend kubectl with new subcommands.");
    put_kep(docs, "sig-cli/2227-kubectl-delete-interactive", "Interactive Delete",
            "kubectl delete asks before it deletes: pick the resources to delete from a list, or delete the "
            "rest of what matched, one at a time.");
    put_kep(docs, "sig-apps/961-maxunavailable", "MaxUnavailable for StatefulSets",
            "Rolling updates of a StatefulSet take down more than one pod at a time.");
    put_kep(docs, "sig-storage/1900-volume-snapshot-validation-webhook", "KEP-1900: Volume Snapshot Validation Webhook",
            "A validating webhook rejects invalid VolumeSnapshot objects before the controller sees them.");
    check_put(docs, "sig-storage/1900-volume-snapshot-validation-webhook/kep.yaml",
              "title: CSI Snapshot Webhook\nkep-number: 1900\nowning-sig: sig-storage\n");
    put_kep(docs, "sig-storage/177-volume-snapshot", "KEP-177: Volume Snapshots",
            "Snapshots of CSI volumes: the CSI snapshot controller, the CSI snapshotter sidecar and the snapshot "
            "webhook it deploys; CSI drivers take the snapshot, the webhook checks it, CSI snapshot classes.");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db '%s' '%s' 2>&1", db, docs);
    CHECK(check_run(cmd, &out) == 0, "index: %s", out);
    free(out);
    test_named_first(db);
    test_boilerplate(db);
    test_boiler_keps(dir);
    test_neardup(dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_rank");
}
