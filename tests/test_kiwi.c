/* test_kiwi.c: Kiwi items (src/formats/kiwi.c, directive.c) on the hand-written .ai/ tree in
 * tests/data/kiwi/ (written to Kiwi's DIRECTIVE_AUTHORING.md and KNOWLEDGE_SYSTEM_DESIGN.md):
 * detection of directives by content and folder, a directive's searchable fields, metadata and
 * relationships and the lines they cite, the gate's rejection of malformed directive XML at its
 * line and column, scripts' metadata header and knowledge entries' front matter. Expected values
 * are read from the fixtures by hand (line numbers as `grep -n` shows them; the malformed
 * directive's position as Python's expat reports it: block line 5, column 4 counted from 0). */
#include "check.h"
#include "doctype.h"
#include "gate.h"
#include "ingest.h"
#include "json.h"
#include "kiwi.h"
#include "serve_client.h"

#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROOT "tests/data/kiwi"

static int load(const char *rel, hxi_doc_source *d)
{
    hx_error err = {0};
    int rc = hxi_ingest_load(ROOT, rel, NULL, 1 << 20, d, &err);
    CHECK(rc == 0, "%s: %s", rel, err.message);
    return rc;
}

/* The values of key in d's metadata joined by '|' (a list's items in order). */
static const char *meta(const hxi_doc_source *d, const char *key)
{
    static char buf[1024];
    buf[0] = 0;
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "|" : "", d->meta[i].value);
    return buf;
}

#define CHECK_META(d, key, want) \
    CHECK(!strcmp(meta(d, key), want), "%s: %s = '%s', want '%s'", (d)->path, key, meta(d, key), want)

/* The block whose text starts with `start`: its first and last source line, or -1 when none. */
static long block_line(const hxi_doc_source *d, const char *start, uint32_t *last)
{
    for (size_t i = 0; i < d->n_blocks; i++)
        if (!strncmp(d->text + d->blocks[i].start, start, strlen(start))) {
            *last = d->blocks[i].src_last;
            return d->blocks[i].src_first;
        }
    return -1;
}

static const char *detect_file(const char *rel)
{
    char path[512];
    size_t n;
    snprintf(path, sizeof path, ROOT "/%s", rel);
    char *s = check_read_file(path, &n);
    const char *t = s ? hxi_doctype_detect(rel, (const uint8_t *)s, n)->name : "(unreadable)";
    free(s);
    return t;
}

static void test_detection(void)
{
    static const struct { const char *rel, *want; } files[] = {
        {".ai/directives/deployment/deploy_app.md", "directive"},
        {".ai/directives/containers/build_image.md", "directive"},
        {".ai/directives/testing/smoke_test.xml", "directive"},        /* root <directive> after a declaration */
        {".ai/directives/broken/broken_directive.md", "directive"},    /* malformed: the gate refuses it */
        {".ai/scripts/checksum.py", "code"},
        {".ai/knowledge/deployment-checklist.md", "markdown"},
        {"docs/directive_guide.md", "markdown"},                       /* an example outside .ai/directives */
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        CHECK(!strcmp(detect_file(files[i].rel), files[i].want), "%s: %s, want %s", files[i].rel,
              detect_file(files[i].rel), files[i].want);
    static const char block[] = "# x\n\n```xml\n<directive name=\"a\"/>\n```\n";
    static const struct { const char *path, *text, *want; } cases[] = {
        {"notes/a.md", block, "markdown"},
        {"p/.ai/directives/a.md", block, "directive"},
        {"p/.ai/directives/a.md", "# x\n\n```python\n<directive name=\"a\"/>\n```\n", "markdown"},   /* not xml */
        {"p/.ai/directives/a.md", "# x\n\n<directive name=\"a\"/>\n", "markdown"},                  /* not fenced */
        {"p/.ai/directives/readme.md", "# Directives\n", "markdown"},
        {"p/x.ai/directives/a.md", block, "markdown"},                                             /* not .ai */
        {"notes/a.md", "---\nitem_type: directive\n---\n# x\n\n```xml\n<directive name=\"a\"/>\n```\n", "directive"},
        {"notes/a.md", "---\nitem_type: knowledge\n---\n```xml\n<directive name=\"a\"/>\n```\n", "markdown"},
        {"notes/a.md", "````\n```xml\n<directive name=\"a\"/>\n```\n````\n", "markdown"},  /* inside another fence */
        {"a.xml", "<?xml version=\"1.0\"?>\n<directive/>", "directive"},
        {"a.xml", "<?xml version=\"1.0\"?>\n<directives/>", "xml"},
        {"a.txt", "<!-- c -->\n<directive name=\"x\">", "directive"},                  /* content wins */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = hxi_doctype_detect(cases[i].path, (const uint8_t *)cases[i].text, strlen(cases[i].text))->name;
        CHECK(!strcmp(got, cases[i].want), "case %zu %s: %s, want %s", i, cases[i].path, got, cases[i].want);
    }
}

static void test_item_type(void)
{
    static const struct { const char *path, *text, *want; } cases[] = {
        {".ai/directives/a.md", "", "directive"},
        {"proj/.ai/scripts/sub/x.py", "", "script"},
        {".ai/tools/x.sh", "", "script"},
        {"a/b/.ai/knowledge/k.md", "", "knowledge"},
        {".ai/vectors/x.md", "", NULL},
        {"docs/.ai.md", "", NULL},
        {"notes/k.md", "---\nitem_type: knowledge\n---\n", "knowledge"},
        {".ai/scripts/k.md", "---\nitem_type: knowledge\n---\n", "knowledge"},   /* front matter wins */
        {"notes/k.md", "---\nitem_type: recipe\n---\n", NULL},                    /* not a Kiwi type */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *t = hxi_kiwi_item_type(cases[i].path, cases[i].text, strlen(cases[i].text));
        CHECK(cases[i].want ? t && !strcmp(t, cases[i].want) : !t, "%s: %s, want %s", cases[i].path, t ? t : "none",
              cases[i].want ? cases[i].want : "none");
    }
}

static void test_directive(void)
{
    hxi_doc_source d;
    if (load(".ai/directives/deployment/deploy_app.md", &d))
        return;
    CHECK(!strcmp(d.type, "directive") && !strcmp(d.title, "deploy_app"), "type %s title %s", d.type, d.title);
    static const char *const has[] = {
        "Directive: deploy_app",
        "Description: Deploy the application container to the staging cluster",
        "Category: deployment",
        "Input image_tag (string, required): Tag of the container image to roll out",
        "Input replicas (integer): Number of pods to run",
        "Step render_manifests: Render the Kubernetes manifests with the image tag",
        "Step apply_rollout: Apply the manifests & wait for the rollout",
        "Output success: Pods are healthy and serve the new version",
        "Output failure: Roll back with rollback_release",
        "Ships a built container image to the staging cluster",   /* the Markdown around */
        "Run it after every merge to the main branch.",
    };
    for (size_t i = 0; i < sizeof has / sizeof *has; i++)
        CHECK(strstr(d.text, has[i]) != NULL, "text has '%s':\n%s", has[i], d.text);
    static const char *const not[] = {"<directive", "kustomize", "kubectl apply", "```", "tier="};
    for (size_t i = 0; i < sizeof not / sizeof *not; i++)
        CHECK(strstr(d.text, not[i]) == NULL, "text has no '%s'", not[i]);
    CHECK_META(&d, "item_type", "directive");
    CHECK_META(&d, "item_id", "deploy_app");
    CHECK_META(&d, "name", "deploy_app");
    CHECK_META(&d, "version", "1.2.0");
    CHECK_META(&d, "category", "deployment");
    CHECK_META(&d, "author", "kiwi_team");
    CHECK_META(&d, "description", "Deploy the application container to the staging cluster");
    CHECK_META(&d, "permissions", "read filesystem deploy/**/*.yaml|execute shell kubectl");
    CHECK_META(&d, "rel_requires", "build_image");
    CHECK_META(&d, "rel_suggests", "smoke_test");
    CHECK_META(&d, "rel_extends", "base_deploy");
    CHECK_META(&d, "rel_related", "rollback_release");
    /* each field cites the line its element starts on; the Markdown its own lines */
    static const struct { const char *start; long first, last; } lines[] = {
        {"Directive: deploy_app", 7, 7},
        {"Description:", 9, 9},
        {"Input image_tag", 28, 28},
        {"Step render_manifests", 37, 37},
        {"Step apply_rollout", 43, 43},
        {"Output failure", 51, 51},
        {"Ships a built", 3, 4},
        {"Notes", 56, 56},
        {"Run it after", 58, 58},
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        uint32_t last = 0;
        long first = block_line(&d, lines[i].start, &last);
        CHECK(first == lines[i].first && last == lines[i].last, "'%s' at lines %ld-%u, want %ld-%ld", lines[i].start,
              first, last, lines[i].first, lines[i].last);
    }
    uint32_t last;
    CHECK(block_line(&d, "Notes", &last) >= 0 && d.headings[d.blocks[d.n_blocks - 1].heading] &&
              !strcmp(d.headings[d.blocks[d.n_blocks - 1].heading], "Deploy Application > Notes"),
          "the last paragraph under 'Deploy Application > Notes'");
    hxi_doc_source_clear(&d);

    if (load(".ai/directives/testing/smoke_test.xml", &d))
        return;
    CHECK(!strcmp(d.type, "directive") && !strcmp(d.title, "smoke_test"), "xml directive: %s %s", d.type, d.title);
    CHECK(strstr(d.text, "Step probe_health: Request the health endpoint until it answers 200") != NULL, "%s", d.text);
    CHECK(strstr(d.text, "A directive written") == NULL, "no comment in the text");
    CHECK_META(&d, "version", "0.3.1");
    CHECK_META(&d, "author", "qa_team");
    CHECK_META(&d, "permissions", "read network https://staging.example.com/health");
    CHECK_META(&d, "rel_requires", "");
    uint32_t l2;
    CHECK(block_line(&d, "Step probe_health", &l2) == 13, "step at line 13");
    hxi_doc_source_clear(&d);

    if (load(".ai/directives/containers/build_image.md", &d))
        return;
    CHECK_META(&d, "rel_related", "deploy_app");
    CHECK_META(&d, "item_id", "build_image");
    hxi_doc_source_clear(&d);
}

static void test_gate(void)
{
    char root[] = "/tmp/hx_kiwi_XXXXXX";
    CHECK(mkdtemp(root) != NULL, "temp dir");
    ix_gate *g = NULL;
    hx_error err = {0};
    CHECK(ix_gate_open(&g, root, &err) == 0, "gate: %s", err.message);
    static const struct { const char *rel, *rule, *reason; } cases[] = {
        {".ai/directives/broken/broken_directive.md", "directive", "directive XML is not well-formed at line 8, column 5"},
        {".ai/directives/deployment/deploy_app.md", NULL, NULL},
        {".ai/directives/testing/smoke_test.xml", NULL, NULL},
    };
    for (size_t i = 0; g && i < sizeof cases / sizeof *cases; i++) {
        hxi_doc_source d;
        if (load(cases[i].rel, &d))
            continue;
        ix_verdict v;
        CHECK(ix_gate_check(g, &d, NULL, 0, NULL, 0, &v, &err) == 0, "check: %s", err.message);
        CHECK(cases[i].rule ? v.rule && !strcmp(v.rule, cases[i].rule) && strstr(v.reason, cases[i].reason)
                            : v.rule == NULL,
              "%s: rule %s (%s)", cases[i].rel, v.rule ? v.rule : "none", v.rule ? v.reason : "");
        hxi_doc_source_clear(&d);
    }
    /* a standalone XML directive and a later block of a Markdown file */
    static const struct { const char *name, *text, *reason; } bad[] = {
        {"d.xml", "<directive name=\"a\">\n  <x>\xc3\xa9t\xc3\xa9</y>\n</directive>\n", "line 2, column 11"},
        {".ai/directives/two.md",
         "# Two\n\n```xml\n<directive name=\"a\"/>\n```\n\n```xml\n<directive name=\"b\">\n<a b=1/>\n</directive>\n```\n",
         "line 9, column 6"},
    };
    for (size_t i = 0; g && i < sizeof bad / sizeof *bad; i++) {
        hxi_doc_source d;
        CHECK(hxi_ingest_from_bytes(bad[i].name, bad[i].text, strlen(bad[i].text), NULL, 0, &d, &err) == 0, "ingest");
        ix_verdict v;
        CHECK(ix_gate_check(g, &d, NULL, 0, NULL, 0, &v, &err) == 0, "check");
        CHECK(v.rule && !strcmp(v.rule, "directive") && strstr(v.reason, bad[i].reason), "%s: %s", bad[i].name,
              v.rule ? v.reason : "passed");
        hxi_doc_source_clear(&d);
    }
    ix_gate_free(g);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0, "clean up");
}

static void test_script_and_knowledge(void)
{
    hxi_doc_source d;
    if (!load(".ai/scripts/checksum.py", &d)) {
        CHECK_META(&d, "item_type", "script");
        CHECK_META(&d, "version", "2.1.0");
        CHECK_META(&d, "tool_type", "python");
        CHECK_META(&d, "executor_id", "python_runtime");
        CHECK_META(&d, "category", "integrity");
        CHECK_META(&d, "description", "Compute and verify file checksums.");
        CHECK(strstr(d.text, "def compute_checksum(path):") != NULL, "the code is the text");
        hxi_doc_source_clear(&d);
    }
    if (!load(".ai/tools/cleanup.sh", &d)) {
        CHECK_META(&d, "item_type", "script");
        CHECK_META(&d, "version", "0.4.0");
        CHECK_META(&d, "category", "maintenance");
        CHECK_META(&d, "description", "");
        hxi_doc_source_clear(&d);
    }
    if (!load(".ai/knowledge/deployment-checklist.md", &d)) {
        CHECK(!strcmp(d.title, "Deployment Checklist"), "title %s", d.title);
        CHECK_META(&d, "item_type", "knowledge");
        CHECK_META(&d, "item_id", "deployment-checklist");
        CHECK_META(&d, "entry_type", "checklist");
        CHECK_META(&d, "category", "operations");
        CHECK_META(&d, "tags", "deployment|staging");
        CHECK_META(&d, "references", "deploy_app");
        hxi_doc_source_clear(&d);
    }
    if (!load("docs/directive_guide.md", &d)) {
        CHECK_META(&d, "item_type", "");
        CHECK(strstr(d.text, "<directive name=\"example_directive\"") != NULL, "a guide keeps its example");
        hxi_doc_source_clear(&d);
    }
}

/* "path=item_type|..." of a search --json answer's results. */
static size_t result_types(const char *json, char *buf, size_t cap)
{
    hxi_json_doc *doc = NULL;
    buf[0] = 0;
    if (hxi_json_parse(&doc, json, strlen(json), NULL, NULL))
        return 0;
    const hxi_json_val *res = hxi_json_obj_get(hxi_json_doc_root(doc), "results");
    for (size_t i = 0; i < hxi_json_len(res); i++) {
        const hxi_json_val *r = hxi_json_arr_get(res, i), *t = hxi_json_obj_get(r, "item_type");
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s=%s|", hxi_json_str(hxi_json_obj_get(r, "path"), NULL),
                 t ? hxi_json_str(t, NULL) : "-");
    }
    size_t n = hxi_json_len(res);
    hxi_json_doc_free(doc);
    return n;
}

/* "path=item_type|..." of an MCP search answer (structuredContent). */
static void mcp_types(const hxi_json_val *answer, char *buf, size_t cap)
{
    const hxi_json_val *res = get(answer, "structuredContent.results");
    buf[0] = 0;
    for (size_t i = 0; i < hxi_json_len(res); i++) {
        const hxi_json_val *r = hxi_json_arr_get(res, i), *t = hxi_json_obj_get(r, "item_type");
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s=%s|", hxi_json_str(hxi_json_obj_get(r, "path"), NULL),
                 t ? hxi_json_str(t, NULL) : "-");
    }
}

/* MCP: search and the seeds' search tools filter by item_type and answer it; get_context follows a
 * directive's relationships. */
static void test_mcp(const char *db)
{
    server s;
    hxi_json_doc *doc = NULL;
    char got[2048];
    if (start_in(&s, ROOT, db, 1))
        return;
    serve_request(&s, &doc, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                            "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    hxi_json_doc_free(doc);
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    static const struct { const char *tool, *args, *want, *not; } calls[] = {
        {"search", "{\"query\":\"deploy\",\"mode\":\"keyword\",\"top_k\":10,\"filters\":{\"item_type\":\"directive\"}}",
         ".ai/directives/deployment/deploy_app.md=directive|", "=knowledge"},
        {"search", "{\"query\":\"deploy\",\"mode\":\"keyword\",\"top_k\":10,\"min_score\":0}",
         ".ai/knowledge/deployment-checklist.md=knowledge|", "=-"},
        {"full_text_search", "{\"query\":\"checksum\",\"filters\":{\"item_type\":\"script\"}}",
         ".ai/scripts/checksum.py=script|", "=directive"},
        {"semantic_search", "{\"query\":\"verify file checksums\",\"threshold\":0,\"doc_filter\":{\"item_type\":\"script\"}}",
         ".ai/scripts/checksum.py=script|", "=knowledge"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
        mcp_types(serve_tool(&s, &doc, calls[i].tool, calls[i].args), got, sizeof got);
        CHECK(strstr(got, calls[i].want) && !strstr(got, calls[i].not), "%s %s: %s", calls[i].tool, calls[i].args, got);
        hxi_json_doc_free(doc);
    }
    /* get_context follows the directive's relationships to the directives it names that are in the
       index (it requires build_image and suggests smoke_test; base_deploy and rollback_release are
       no items here), each once, labelled */
    const hxi_json_val *c = serve_tool(&s, &doc, "get_context", "{\"query\":\"render the Kubernetes manifests\","
                                                                "\"mode\":\"keyword\",\"max_passages\":1,\"min_score\":0}");
    const hxi_json_val *src = get(c, "structuredContent.sources");
    got[0] = 0;
    for (size_t i = 0; i < hxi_json_len(src); i++) {
        const hxi_json_val *v = hxi_json_arr_get(src, i), *rel = hxi_json_obj_get(v, "relationship");
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s %s|", rel ? hxi_json_str(rel, NULL) : "-",
                 hxi_json_str(hxi_json_obj_get(v, "path"), NULL));
    }
    const char *text = hxi_json_str(get(c, "structuredContent.context"), NULL);
    CHECK(hxi_json_len(src) == 3 && !strncmp(got, "- .ai/directives/deployment/deploy_app.md|", 42) &&
              strstr(got, "|requires .ai/directives/containers/build_image.md|") &&
              strstr(got, "|suggests .ai/directives/testing/smoke_test.xml|"),
          "get_context adds the directives deploy_app requires and suggests: %s", got);
    CHECK(text && strstr(text, "requires [1]: .ai/directives/containers/build_image.md") &&
              strstr(text, "Directive: build_image"),
          "labelled in the context: %.900s", text ? text : "-");
    hxi_json_doc_free(doc);
    close(s.in);
    close(s.out);
    waitpid(s.pid, NULL, 0);
    free(s.buf);
}

/* The command line on the fixture tree: the malformed directive is rejected naming its line and
 * column, item_type is a filter and a result field (JSON and text), relationships are metadata. */
static void test_cli(void)
{
    char tmpl[] = "/tmp/hx_kiwi_cli_XXXXXX", cmd[1024], got[2048], *out;
    CHECK(mkdtemp(tmpl) != NULL, "temp folder");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s/idx.hyx " ROOT " 2>&1", tmpl);
    CHECK(check_run(cmd, &out) == 0 &&
              strstr(out, "rejected .ai/directives/broken/broken_directive.md: refused by the validation gate (rule directive): directive XML is not well-formed at line 8, column 5"),
          "index rejects the malformed directive: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword --json -k 10 deploy", tmpl);
    CHECK(check_run(cmd, &out) == 0 && result_types(out, got, sizeof got) >= 3 &&
              strstr(got, ".ai/directives/deployment/deploy_app.md=directive|") &&
              strstr(got, ".ai/knowledge/deployment-checklist.md=knowledge|") &&
              strstr(got, ".ai/directives/testing/smoke_test.xml=directive|"),
          "items of each type answer, each with its item_type: %s", got);
    CHECK(strstr(out, "\"rel_requires\":\"build_image\"") && strstr(out, "\"item_id\":\"deploy_app\""),
          "relationships in the result's metadata: %.300s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword --json -k 10 example", tmpl);
    CHECK(check_run(cmd, &out) == 0 && result_types(out, got, sizeof got) == 1 && !strcmp(got, "docs/directive_guide.md=-|"),
          "a document that is no Kiwi item has no item_type: %s", got);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword --json -k 10 --filter item_type=directive deploy", tmpl);
    CHECK(check_run(cmd, &out) == 0 && result_types(out, got, sizeof got) >= 1 && !strstr(got, "=knowledge") &&
              !strstr(got, "=-") && !strstr(got, "=script"),
          "--filter item_type=directive: directives only: %s", got);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword -k 10 --filter item_type=script checksum", tmpl);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "1. .ai/scripts/checksum.py:") && strstr(out, ", script)") &&
              strstr(out, "1 result"),
          "text output names the item type: %s", out);
    free(out);
    /* a script is source code: a chunk per definition, its symbol beside Kiwi's header */
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword --json --group chunk "
             "--filter item_type=script --filter symbol=verify_checksum checksum", tmpl);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"heading\":\"checksum.py > verify_checksum\"") &&
              strstr(out, "\"line_start\":23,\"line_end\":25") && strstr(out, "\"version\":\"2.1.0\"") &&
              strstr(out, "\"total_results\":1"),
          "the script's function, lines 23-25, with the script's header: %.600s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/idx.hyx", tmpl);
    test_mcp(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpl);
    CHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    test_detection();
    test_item_type();
    test_directive();
    test_gate();
    test_script_and_knowledge();
    test_cli();
    return check_report("kiwi");
}
