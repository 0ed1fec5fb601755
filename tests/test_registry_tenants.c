/* test_registry_tenants.c: who reads and writes what in the registry (issue 13 item 5), against a
 * real PostgreSQL + pgvector (the cluster of registry_fixture.h): tenants cannot read each other's
 * rows through hyrax, crafted query text or filters, or plain SQL as their role, nor by objects
 * they make (temporary types, their own operators, functions in public), errors that depend on
 * others' rows, the audit log or a schema hyrax made first; private documents are their user's;
 * a tenant's search runs on the indexes; MCP publish and hx_session_publish publish as the
 * session's tenant, the latter keeping the batches committed before its progress callback stops
 * it. The registry itself (schema, publish, search, fusion, models): test_registry.c. */
#include "registry_fixture.h"
#include "serve_client.h"

#include <sys/stat.h>
#include <sys/wait.h>

/* === tenants (item 5) === */

static void test_tenants(void)
{
    char *out, root[512];
    free(sql_as(NULL, "CREATE ROLE acme; CREATE ROLE globex; "
                      "GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA hyrax TO acme, globex; "
                      "GRANT USAGE ON ALL SEQUENCES IN SCHEMA hyrax TO acme, globex; "
                      "CREATE ROLE acme_login LOGIN IN ROLE acme; CREATE ROLE globex_login LOGIN IN ROLE globex"));
    snprintf(root, sizeof root, "%s/tenants", dir);
    mkdir(root, 0755);
    check_put(root, "a/secret.md", "---\nproject: zanzibar\n---\n# Zanzibar plan\n\nThe zanzibar merger closes in May.\n");
    check_put(root, "a/open.md", "# Handbook\n\nThe zanzibar handbook is public for every tenant.\n");
    check_put(root, "g/own.md", "# Globex\n\nGlobex ships widgets.\n");
    int rc = sh(&out, "cd %s && $HYRAX_BIN publish --registry '%s' --tenant acme --allow-unsigned a/secret.md && "
                      "$HYRAX_BIN publish --registry '%s' --tenant acme --visibility public --allow-unsigned a/open.md && "
                      "$HYRAX_BIN publish --registry '%s' --tenant globex --allow-unsigned g", root, url, url, url);
    CHECK(rc == 0, "published as two tenants: %s", out);
    free(out);
    CHECK(sql_is(NULL, "SELECT string_agg(tenant || ':' || path || ':' || visibility, ',' ORDER BY path) FROM "
                       "hyrax.documents WHERE path LIKE 'a/%' OR path LIKE 'g/%'",
                 "acme:a/open.md:public,acme:a/secret.md:tenant,globex:g/own.md:tenant"), "tenant = the publishing role");
    char gurl[512];
    snprintf(gurl, sizeof gurl, "postgresql://globex_login@/postgres?host=%s", sockdir);
    static const char *const queries[] = {
        "zanzibar merger",
        "zanzibar' OR 1=1 --",
        "zanzibar\\\" OR tenant = 'acme",
        "'; RESET ROLE; SELECT 1; --",
    };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        for (int as_tenant = 0; as_tenant < 2; as_tenant++) {
            rc = sh(&out, "$HYRAX_BIN search --registry '%s' %s --source registry --json -k 50 --min-score 0 -- \"%s\"",
                    as_tenant ? url : gurl, as_tenant ? "--tenant globex" : "", queries[i]);
            CHECK(rc == 0 && strstr(out, "\"consulted\":true") && !strstr(out, "a/secret.md"),
                  "globex never sees acme's tenant document (query %zu, %s): %.400s", i,
                  as_tenant ? "superuser login with --tenant" : "own login", out);
            free(out);
        }
    }
    rc = sh(&out, "$HYRAX_BIN search --registry '%s' --source registry --json -k 50 --min-score 0 zanzibar handbook", gurl);
    CHECK(strstr(out, "a/open.md") && !strstr(out, "a/secret.md"), "public documents are shared: %.300s", out);
    free(out);
    static const char *const filters[] = {"project=zanzibar", "tenant=acme", "x') OR true --=1", "visibility=tenant"};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        rc = sh(&out, "$HYRAX_BIN search --registry '%s' --source registry --json --min-score 0 --filter \"%s\" zanzibar",
                gurl, filters[i]);
        CHECK(!strstr(out, "a/secret.md"), "filter %s cannot lift the tenant: %.300s", filters[i], out);
        free(out);
    }
    rc = sh(&out, "$HYRAX_BIN search --registry '%s' --source registry --json --min-score 0 --filter project=zanzibar "
                  "zanzibar", url);
    CHECK(strstr(out, "a/secret.md"), "the filter itself works for a reader allowed to see it: %.300s", out);
    free(out);
    /* fused into source all: the reader's tenant applies in the registry too */
    char fdb[PATH_MAX];
    snprintf(fdb, sizeof fdb, "%s/fuse/.hyrax/index.hyx", dir);
    rc = sh(&out, "$HYRAX_BIN search --db %s --registry '%s' --tenant globex --json -k 50 --min-score 0 zanzibar merger",
            fdb, url);
    CHECK(rc == 0 && strstr(out, "\"consulted\":true") && !strstr(out, "a/secret.md") &&
              strstr(out, "a/open.md"), "source all as globex: acme's public document, not its tenant one: %.600s", out);
    free(out);
    rc = sh(&out, "$HYRAX_BIN search --db %s --registry '%s' --tenant acme --json -k 50 --min-score 0 zanzibar merger",
            fdb, url);
    CHECK(rc == 0 && strstr(out, "a/secret.md"), "source all as acme: its tenant document: %.600s", out);
    free(out);
    /* acting as another tenant is refused by the server */
    rc = sh(&out, "$HYRAX_BIN search --registry '%s' --tenant acme --source registry --json zanzibar", gurl);
    CHECK(strstr(out, "\"consulted\":false") && strstr(out, "permission denied"), "globex cannot act as acme: %s", out);
    free(out);
    /* plain SQL as the role (a login that is a member of it, after SET ROLE, as hyrax does) */
    CHECK(sql_is("globex_login", "SET ROLE globex; SELECT count(*) FROM hyrax.documents WHERE path = 'g/own.md'", "1"),
          "plain SQL: globex reads its own row");
    CHECK(sql_is("globex_login", "SET ROLE globex; SELECT count(*) FROM hyrax.chunks WHERE tenant = 'acme' "
                                 "AND visibility = 'tenant'", "0"), "plain SQL: no acme chunks for globex");
    CHECK(sql_is("globex_login", "SET ROLE globex; SELECT count(*) FROM hyrax.documents WHERE path = 'a/secret.md'", "0"),
          "plain SQL: no acme documents for globex");
    CHECK(sql_is("globex_login", "SET ROLE globex; UPDATE hyrax.documents SET visibility = 'public' "
                                 "WHERE path = 'a/secret.md' RETURNING 1", ""), "plain SQL: cannot publish acme's row");
    CHECK(sql_is("globex_login", "SET ROLE globex; SELECT count(*) FROM hyrax.audit WHERE tenant = 'acme'", "0"),
          "plain SQL: no acme audit rows for globex");
    char *e = sql_as("globex_login", "SET ROLE acme");
    CHECK(strstr(e, "permission denied"), "SET ROLE acme refused: %s", e);
    free(e);
    e = sql_as("globex_login", "SET ROLE globex; INSERT INTO hyrax.documents (tenant, path, content_hash) "
                               "VALUES ('acme', 'x', 'y')");
    CHECK(strstr(e, "row-level security"), "writing as another tenant refused: %s", e);
    free(e);
    CHECK(sql_is("acme_login", "SET ROLE acme; SELECT count(*) FROM hyrax.documents WHERE path = 'a/secret.md'", "1"),
          "acme reads its own row");
}

/* Private visibility: a document owned by the publishing user's role, read by that role only.
 * Users are roles that are members of their tenant's role; hyrax acts as one with SET ROLE (the
 * server checks the login may), so neither query text nor a setting the session could change
 * itself names the user. */
static void test_private(void)
{
    char *out, root[512];
    free(sql_as(NULL, "CREATE ROLE alice IN ROLE acme; CREATE ROLE bob IN ROLE acme; "
                      "CREATE ROLE alice_login LOGIN IN ROLE alice; CREATE ROLE bob_login LOGIN IN ROLE bob"));
    snprintf(root, sizeof root, "%s/private", dir);
    mkdir(root, 0755);
    check_put(root, "p/diary.md", "# Diary\n\nMy quokka salary negotiation notes.\n");
    check_put(root, "p/team.md", "# Team\n\nThe quokka team meets on Mondays.\n");
    int rc = sh(&out, "cd %s && $HYRAX_BIN publish --registry '%s' --tenant acme --visibility private --allow-unsigned "
                      "p/diary.md", root, url);
    CHECK(rc == 1 && strstr(out, "private belongs to a user"), "private needs a user: %s", out);
    free(out);
    rc = sh(&out, "cd %s && $HYRAX_BIN publish --registry '%s' --tenant acme --user alice --visibility private "
                  "--allow-unsigned p/diary.md && $HYRAX_BIN publish --registry '%s' --tenant acme --user bob "
                  "--allow-unsigned p/team.md", root, url, url);
    CHECK(rc == 0, "alice publishes a private document, bob a tenant one: %s", out);
    free(out);
    CHECK(sql_is(NULL, "SELECT string_agg(path || ':' || tenant || ':' || visibility || ':' || coalesce(owner, '-'), ',' "
                       "ORDER BY path) FROM hyrax.documents WHERE path LIKE 'p/%'",
                 "p/diary.md:acme:private:alice,p/team.md:acme:tenant:-"), "tenant acme, owner alice");
    char aurl[512], burl[512];
    snprintf(aurl, sizeof aurl, "postgresql://alice_login@/postgres?host=%s", sockdir);
    snprintf(burl, sizeof burl, "postgresql://bob_login@/postgres?host=%s", sockdir);
    struct {
        const char *login, *identity;
        bool sees;
    } readers[] = {
        {url, "--tenant acme --user alice", true}, {aurl, "--tenant acme --user alice", true},
        {url, "--tenant acme --user bob", false},  {burl, "--tenant acme --user bob", false},
        {url, "--tenant acme", false},             {url, "--tenant globex", false},
    };
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        rc = sh(&out, "$HYRAX_BIN search --registry '%s' %s --source registry --json -k 50 --min-score 0 quokka salary",
                readers[i].login, readers[i].identity);
        CHECK(rc == 0 && strstr(out, "\"consulted\":true") && !strstr(out, "p/diary.md") == !readers[i].sees,
              "%s%s sees the private document: %.400s", readers[i].identity, readers[i].sees ? "" : " never", out);
        CHECK(strstr(out, "p/team.md") || !strstr(readers[i].identity, "acme"), "%s sees acme's tenant document",
              readers[i].identity);
        free(out);
    }
    rc = sh(&out, "$HYRAX_BIN search --registry '%s' --tenant acme --user alice --source registry --json quokka", burl);
    CHECK(strstr(out, "\"consulted\":false") && strstr(out, "permission denied"), "bob's login cannot act as alice: %s", out);
    free(out);
    rc = sh(&out, "$HYRAX_BIN search --registry '%s' --tenant globex --user alice --source registry --json quokka", url);
    CHECK(strstr(out, "\"consulted\":false") && strstr(out, "not a member of tenant globex"),
          "alice is no user of globex: %s", out);
    free(out);
    /* plain SQL as the roles */
    CHECK(sql_is("alice_login", "SET ROLE alice; SELECT count(*) FROM hyrax.documents WHERE path LIKE 'p/%'", "2"),
          "plain SQL: alice reads her private document and the tenant's");
    CHECK(sql_is("bob_login", "SET ROLE bob; SELECT count(*) FROM hyrax.documents WHERE path LIKE 'p/%'", "1"),
          "plain SQL: bob reads the tenant's only");
    CHECK(sql_is("bob_login", "SET ROLE bob; SELECT count(*) FROM hyrax.chunks WHERE owner = 'alice'", "0"),
          "plain SQL: no chunk of alice's for bob");
    CHECK(sql_is("bob_login", "SELECT count(*) FROM hyrax.documents WHERE path = 'p/diary.md'", "0"),
          "plain SQL: nor for bob's login");
    CHECK(sql_is("bob_login", "SET ROLE bob; UPDATE hyrax.documents SET owner = 'bob' WHERE path = 'p/diary.md' "
                              "RETURNING 1", ""), "plain SQL: bob cannot take alice's document");
    char *e = sql_as("bob_login", "SET ROLE alice");
    CHECK(strstr(e, "permission denied"), "plain SQL: SET ROLE alice refused to bob: %s", e);
    free(e);
    e = sql_as("bob_login", "SELECT set_config('role', 'alice', false)");
    CHECK(strstr(e, "permission denied"), "plain SQL: set_config('role') refused to bob: %s", e);
    free(e);
    e = sql_as("bob_login", "SET ROLE bob; INSERT INTO hyrax.documents (tenant, owner, path, content_hash, visibility) "
                            "VALUES ('acme', 'alice', 'p/forged.md', 'x', 'private')");
    CHECK(strstr(e, "row-level security"), "plain SQL: bob cannot write a document owned by alice: %s", e);
    free(e);
}

/* === Tenant searches on the indexes (schema version 3: hyrax.candidates) === */

/* The scans of the chunks so far, as the server counted them: by the HNSW index, the GIN index,
 * the btree indexes on tenant and visibility, and sequential scans. */
typedef struct {
    long hnsw, gin, btree, seq;
} chunk_scans;

static chunk_scans scans_now(void)
{
    chunk_scans s = {0};
    char *got = sql_as(NULL, "SELECT concat_ws(',', (SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = "
                             "'chunks_embedding'), (SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = "
                             "'chunks_tsv'), (SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes WHERE "
                             "indexrelname IN ('chunks_tenant', 'chunks_visibility')), (SELECT seq_scan FROM "
                             "pg_stat_user_tables WHERE relid = 'hyrax.chunks'::regclass))");
    sscanf(got, "%ld,%ld,%ld,%ld", &s.hnsw, &s.gin, &s.btree, &s.seq);
    free(got);
    return s;
}

/* Searches as `identity` for "wombat" (*out: the answer) and returns the scans of the chunks it
 * made. The server counts a session's scans when it ends: this polls up to 3 s for them. */
static chunk_scans search_scans(const char *identity, char **out)
{
    chunk_scans b = scans_now(), a = b;
    sh(out, "$HYRAX_BIN search --registry '%s' %s --source registry --json -k 50 --min-score 0 wombat", url, identity);
    for (int i = 0; i < 60 && !memcmp(&a, &b, sizeof a); i++) {
        usleep(50000);
        a = scans_now();
    }
    usleep(200000);
    a = scans_now();
    chunk_scans d = {a.hnsw - b.hnsw, a.gin - b.gin, a.btree - b.btree, a.seq - b.seq};
    fprintf(stderr, "  %s: scans HNSW %ld, GIN %ld, btree %ld, sequential %ld\n", *identity ? identity : "owner",
            d.hnsw, d.gin, d.btree, d.seq);
    return d;
}

/* A tenant's search runs on indexes as the owner's does, where under the policies it could not
 * (the GIN condition tsv @@ query is not leakproof, so it may not run before the policy, and the
 * planner sorted a sequential scan for the vector side of a reader of few rows). 10,000 chunks
 * of acme's, 10 of them saying "wombat", are enough for the planner to prefer the indexes: bob
 * (a user of acme, reading them all) and the owner filter the HNSW and GIN scans; globex (reading
 * none of them) finds its few rows by the btree indexes on tenant and visibility; no search
 * scans the table. Isolation stays: hyrax.candidates names its reader from what the server
 * checked (SET ROLE, the login), and nothing a caller passes, sets or defines changes it. */
static void test_tenant_indexes(void)
{
    CHECK(sql_is(NULL, "DROP INDEX hyrax.chunks_embedding; "
                       "INSERT INTO hyrax.documents (tenant, path, content_hash) VALUES ('acme', 'many/a.md', 'h'); "
                       "INSERT INTO hyrax.chunks (document_id, tenant, visibility, ord, text, embedding) "
                       "SELECT d.id, 'acme', 'tenant', g, 'filler number ' || g || CASE WHEN g % 1000 = 0 "
                       "THEN ' wombat' ELSE '' END, (SELECT array_agg((random() - 0.5) / 20) FROM generate_series(1, 384) "
                       "WHERE g > 0)::vector FROM generate_series(1, 10000) g, hyrax.documents d WHERE d.path = 'many/a.md'; "
                       "CREATE INDEX chunks_embedding ON hyrax.chunks USING hnsw (embedding vector_ip_ops); "
                       "ANALYZE hyrax.chunks; SELECT count(*) FROM hyrax.chunks WHERE tsv @@ 'wombat'::tsquery",
                 "10"), "10,000 chunks of acme's, 10 saying wombat");
    char *out;
    chunk_scans s = search_scans("--tenant globex", &out);
    CHECK(s.seq == 0 && s.btree > 0, "globex's search finds its rows by the btree indexes, no sequential scan");
    CHECK(strstr(out, "\"consulted\":true") && !strstr(out, "many/a.md"), "globex reads none of them: %.300s", out);
    free(out);
    s = search_scans("--tenant acme --user bob", &out);
    CHECK(s.seq == 0 && s.hnsw > 0 && s.gin > 0, "bob's search scans the HNSW and GIN indexes, not the table");
    CHECK(strstr(out, "\"consulted\":true") && strstr(out, "many/a.md"), "bob reads acme's: %.300s", out);
    free(out);
    s = search_scans("", &out);
    CHECK(s.seq == 0 && s.hnsw > 0 && s.gin > 0, "the owner's search scans the HNSW and GIN indexes, not the table");
    free(out);
    /* the candidates as each role: alice her private diary and the tenant's team note, bob the
       note only, through his login as through SET ROLE */
    static const char cand[] = "SELECT count(*) FROM hyrax.candidates(NULL, 'quokka', 40, NULL, NULL, true)";
    char sql[512];
    snprintf(sql, sizeof sql, "SET ROLE alice; %s", cand);
    CHECK(sql_is("alice_login", sql, "2"), "alice's candidates: her diary and the team note");
    snprintf(sql, sizeof sql, "SET ROLE bob; %s", cand);
    CHECK(sql_is("bob_login", sql, "1"), "bob's candidates: the team note");
    CHECK(sql_is("bob_login", cand, "1"), "bob's login's candidates: the team note");
    CHECK(sql_is("globex_login", cand, "0"), "globex's candidates: none");
    /* forging the reader: a startup option, a session authorization, a function's own setting */
    int rc = sh(&out, "PGOPTIONS='-c role=alice' '%s' -X -Atq 'postgresql://bob_login@/postgres?host=%s' -c \"%s\"", psql,
                sockdir, cand);
    CHECK(rc != 0 && strstr(out, "permission denied"), "bob cannot log in as alice through the options: %s", out);
    free(out);
    char *e = sql_as("bob_login", "SET SESSION AUTHORIZATION alice");
    CHECK(strstr(e, "permission denied"), "nor set the session's authorization: %s", e);
    free(e);
    snprintf(sql, sizeof sql, "CREATE FUNCTION pg_temp.peek() RETURNS bigint LANGUAGE sql SET role = 'alice' AS "
                              "\\$\\$%s\\$\\$; SELECT pg_temp.peek()", cand);
    rc = sh(&out, "'%s' -X -Atq 'postgresql://bob_login@/postgres?host=%s' -c \"%s\"", psql, sockdir, sql);
    CHECK(strstr(out, "ERROR:  permission denied to set role"), "nor run a function that sets the role: %s", out);
    free(out);
    /* globex hangs a chunk of its own, made public, under acme's document (ids are guessable and
       the foreign key check does not apply the policies): refused, by UPDATE and by INSERT, so
       acme's readers never find globex's text under acme's path */
    char *acme_doc = sql_as(NULL, "SELECT id FROM hyrax.documents WHERE path = 'many/a.md'");
    snprintf(sql, sizeof sql, "SET ROLE globex; UPDATE hyrax.chunks SET visibility = 'public', document_id = %s "
                              "WHERE tenant = 'globex' RETURNING 'moved'", acme_doc);
    e = sql_as("globex_login", sql);
    CHECK(strstr(e, "a chunk takes the tenant, visibility and owner of its document"),
          "globex cannot move its chunk under acme's document: %s", e);
    free(e);
    snprintf(sql, sizeof sql, "SET ROLE globex; INSERT INTO hyrax.chunks (document_id, tenant, visibility, ord, text, "
                              "embedding) SELECT %s, 'globex', 'public', 9, 'planted', embedding FROM hyrax.chunks "
                              "LIMIT 1 RETURNING 'planted'", acme_doc);
    e = sql_as("globex_login", sql);
    CHECK(strstr(e, "a chunk takes the tenant, visibility and owner of its document"),
          "nor insert one there: %s", e);
    free(e);
    free(acme_doc);
    CHECK(sql_is(NULL, "SELECT count(*) FROM hyrax.chunks c JOIN hyrax.documents d ON d.id = c.document_id "
                       "WHERE c.tenant <> d.tenant", "0"), "no chunk of one tenant under another's document");
    CHECK(sql_is(NULL, "WITH d AS (DELETE FROM hyrax.documents WHERE path = 'many/a.md' RETURNING 1) "
                       "SELECT count(*) FROM d", "1"), "clean up");
    free(sql_as(NULL, "VACUUM hyrax.chunks"));   /* dead rows would take HNSW scans' places */
}

/* === A hostile tenant (schema version 4) === */

/* Counts the rows of acme's that are not public as globex would after `setup` (plain SQL as
 * globex_login, acting as globex): the count names pg_catalog's operators, since setup may have
 * put globex's own first. */
static char *acme_rows_for_globex(const char *setup)
{
    char sql[2048];
    snprintf(sql, sizeof sql, "SET ROLE globex; %s; SELECT count(*) FROM hyrax.chunks WHERE tenant "
                              "OPERATOR(pg_catalog.=) 'acme' AND visibility OPERATOR(pg_catalog.<>) 'public'", setup);
    return sql_as("globex_login", sql);
}

/* globex, as a tenant that wants acme's text and may run any SQL its roles allow. What is not a
 * hole (tried, and held by PostgreSQL itself, so not repeated here): SET ROLE, SET SESSION
 * AUTHORIZATION, PGOPTIONS and function SET clauses naming another role (test_tenant_indexes);
 * pg_stats and pg_statistic (the view hides tables whose row-level security applies to the
 * reader, the catalog is the superuser's); a function of globex's own in a WHERE clause, which
 * runs after the policies (it is not leakproof, and only a superuser makes one so); the
 * candidates' ranks and scores, given for readable rows only; chunks planted under another
 * tenant's document (the trigger, test_tenant_indexes); writes to other tenants' rows (the
 * writer policies); TRUNCATE, ALTER, CREATE POLICY or TRIGGER on hyrax's tables (the owner's).
 * The holes: the policies call hyrax.can_read and hyrax.acting_roles, SQL functions whose bodies
 * PostgreSQL parses with the caller's search_path; a session's temporary schema comes first for
 * type names (every role may create temporary objects) and a schema of the caller's own may come
 * before pg_catalog, so a type `text` with a cast from name made acting_roles answer "acme", and
 * an operator = (text, text) answering true made can_read say yes to every row. Code that runs as
 * someone else -- hyrax.candidates as the owner, hyrax's own statements as whoever is searching,
 * publishing or migrating -- called a built-in by a name a function in a schema globex can create
 * in (public, as every database made before PostgreSQL 15 has it) matches better: globex's code
 * ran as the owner or as alice. */
static void test_hostile(void)
{
    /* a type in the session's temporary schema: every role may make one */
    char *got = acme_rows_for_globex(
        "CREATE TYPE pg_temp.text AS ENUM ('acme'); "
        "CREATE FUNCTION pg_temp.as_acme(name) RETURNS pg_temp.text LANGUAGE sql AS \\$\\$SELECT 'acme'::pg_temp.text\\$\\$; "
        "CREATE CAST (name AS pg_temp.text) WITH FUNCTION pg_temp.as_acme(name)");
    CHECK(!strcmp(got, "0"), "a temporary type text with a cast from name does not make globex acme: %s", got);
    free(got);
    /* an operator in a schema of globex's own, put before pg_catalog */
    free(sql_as(NULL, "CREATE SCHEMA globex_own AUTHORIZATION globex; GRANT USAGE ON SCHEMA globex_own TO PUBLIC"));
    got = acme_rows_for_globex(
        "CREATE FUNCTION globex_own.yes(text, text) RETURNS boolean LANGUAGE sql AS 'SELECT true'; "
        "CREATE OPERATOR globex_own.= (LEFTARG = text, RIGHTARG = text, FUNCTION = globex_own.yes); "
        "SET search_path = globex_own, pg_catalog");
    CHECK(!strcmp(got, "0"), "an operator = of globex's own first in search_path does not open acme's rows: %s", got);
    free(got);
    /* an error that depends on rows globex cannot read: the candidates read every document to
       apply the filters, and a second filter whose "v" is no array failed only where a document
       matched the first (acme's secret has project: zanzibar) */
    char *guess[2];
    for (int i = 0; i < 2; i++) {
        char sql[512];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM hyrax.candidates(NULL, 'widgets', 10, '[{\\\"k\\\": "
                                  "\\\"project\\\", \\\"v\\\": [\\\"%s\\\"]}, {\\\"k\\\": \\\"x\\\", "
                                  "\\\"v\\\": \\\"y\\\"}]', NULL, true)", i ? "zanzibar" : "nothing");
        guess[i] = sql_as("globex_login", sql);
    }
    CHECK(!strcmp(guess[0], guess[1]) && strstr(guess[0], "filters: an array"),
          "filters answer alike whatever rows globex cannot read hold: '%s' / '%s'", guess[0], guess[1]);
    free(guess[0]);
    free(guess[1]);
    /* functions in public, where globex may create (as in a database made before PostgreSQL 15),
       that match hyrax's calls better than pg_catalog's and note who ran them */
    free(sql_as(NULL, "GRANT CREATE ON SCHEMA public TO globex"));
    got = sql_as("globex_login",
                 "SET ROLE globex; CREATE TABLE globex_own.ran (who text, what text); "
                 "GRANT INSERT ON globex_own.ran TO PUBLIC; "
                 "CREATE FUNCTION public.websearch_to_tsquery(c text, q text) RETURNS tsquery LANGUAGE plpgsql AS "
                 "\\$\\$BEGIN INSERT INTO globex_own.ran VALUES (current_user, 'websearch_to_tsquery'); "
                 "RETURN pg_catalog.websearch_to_tsquery(c::regconfig, q); END\\$\\$; "
                 "CREATE FUNCTION public.pg_has_role(u name, r text, m text) RETURNS boolean LANGUAGE plpgsql AS "
                 "\\$\\$BEGIN INSERT INTO globex_own.ran VALUES (current_user, 'pg_has_role'); "
                 "RETURN pg_catalog.pg_has_role(u, r::name, m); END\\$\\$; "
                 "CREATE FUNCTION public.to_char(t timestamp, f varchar) RETURNS text LANGUAGE plpgsql AS "
                 "\\$\\$BEGIN INSERT INTO globex_own.ran VALUES (current_user, 'to_char'); "
                 "RETURN pg_catalog.to_char(t, f::text); END\\$\\$; SELECT 'planted'");
    CHECK(!strcmp(got, "planted"), "globex plants functions in public: %s", got);
    free(got);
    /* globex's candidates (acme's public handbook says zanzibar, so the keyword side runs), a
       search as alice and a publish as acme */
    CHECK(sql_is("globex_login", "SELECT count(*) FROM hyrax.candidates(NULL, 'zanzibar handbook', 10, NULL, NULL, true)",
                 "1"), "globex's candidates: acme's public handbook");
    char *out, root[512];
    int rc = sh(&out, "$HYRAX_BIN search --registry '%s' --tenant acme --user alice --source registry --json -k 50 "
                      "--min-score 0 quokka salary", url);
    CHECK(rc == 0 && strstr(out, "p/diary.md"), "alice still finds her diary: %.300s", out);
    free(out);
    snprintf(root, sizeof root, "%s/tenants", dir);
    rc = sh(&out, "cd %s && echo 'More zanzibar plans.' >> a/secret.md && $HYRAX_BIN publish --registry '%s' --tenant acme "
                  "--allow-unsigned a/secret.md", root, url);
    CHECK(rc == 0, "acme publishes: %s", out);
    free(out);
    got = sql_as(NULL, "SELECT coalesce(string_agg(who || ' ran ' || what, ', '), 'nobody') FROM globex_own.ran");
    CHECK(!strcmp(got, "nobody"), "globex's functions never ran as the owner, alice or acme: %s", got);
    free(got);
    /* the schema's version is the owner's: a tenant's write to hyrax.meta finds no row */
    CHECK(sql_is("globex_login", "SET ROLE globex; BEGIN; UPDATE hyrax.meta SET value = '1' RETURNING 'changed'; ROLLBACK",
                 ""), "globex cannot change the schema version");
    /* nor its tenant's audit records, nor write one naming another login */
    CHECK(sql_is("globex_login", "SET ROLE globex; BEGIN; DELETE FROM hyrax.audit RETURNING 'deleted'; "
                                 "UPDATE hyrax.audit SET actor = 'x' RETURNING 'changed'; ROLLBACK", ""),
          "globex cannot delete or change its audit records");
    got = sql_as("globex_login", "SET ROLE globex; INSERT INTO hyrax.audit (tenant, actor, action, path) VALUES "
                                 "('globex', 'acme_login', 'publish', 'forged.md')");
    CHECK(strstr(got, "row-level security"), "nor forge one's actor: %s", got);
    free(got);
    free(sql_as(NULL, "REVOKE CREATE ON SCHEMA public FROM globex; DROP SCHEMA globex_own CASCADE; "
                      "DROP FUNCTION public.websearch_to_tsquery(text, text), public.pg_has_role(name, text, text), "
                      "public.to_char(timestamp, varchar)"));
}

/* A registry made by `hyrax registry init` in a database where pgvector was installed in public
 * and globex planted functions and an operator there beforehand: the owner's statements (the
 * advisory lock, the generated tsvector column) and hyrax.candidates, whose search_path must name
 * public to find pgvector, call pg_catalog's, never globex's. */
static void test_hostile_init(void)
{
    char lurl[600], *out;
    free(sql_as(NULL, "CREATE DATABASE legacy"));
    snprintf(lurl, sizeof lurl, "postgresql://hyrax@/legacy?host=%s", sockdir);
    char *got;
    int rc = sh(&got, "'%s' -X -Atq '%s' -c \"CREATE EXTENSION vector; GRANT CREATE ON SCHEMA public TO globex; "
                      "CREATE TABLE public.ran (who text, what text); GRANT INSERT ON public.ran TO PUBLIC\" "
                      "-c \"SET ROLE globex; "
                      "CREATE FUNCTION public.pg_advisory_xact_lock(k int) RETURNS void LANGUAGE plpgsql AS "
                      "\\$\\$BEGIN INSERT INTO public.ran VALUES (current_user, 'pg_advisory_xact_lock'); "
                      "PERFORM pg_catalog.pg_advisory_xact_lock(k::bigint); END\\$\\$; "
                      "CREATE FUNCTION public.to_tsvector(c text, t text) RETURNS tsvector LANGUAGE sql IMMUTABLE AS "
                      "\\$\\$SELECT 'planted'::tsvector\\$\\$; "
                      "CREATE FUNCTION public.websearch_to_tsquery(c text, q text) RETURNS tsquery LANGUAGE plpgsql AS "
                      "\\$\\$BEGIN INSERT INTO public.ran VALUES (current_user, 'websearch_to_tsquery'); "
                      "RETURN pg_catalog.websearch_to_tsquery(c::regconfig, q); END\\$\\$; "
                      "CREATE FUNCTION public.oid_is(a oid, b regclass) RETURNS boolean LANGUAGE plpgsql AS "
                      "\\$\\$BEGIN INSERT INTO public.ran VALUES (current_user, '= (oid, regclass)'); "
                      "RETURN a = b::oid; END\\$\\$; "
                      "CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = public.oid_is)\"", psql, lurl);
    CHECK(rc == 0, "globex plants functions in public of a new database: %s", got);
    free(got);
    rc = sh(&out, "$HYRAX_BIN registry init --registry '%s'", lurl);
    CHECK(rc == 0 && strstr(out, "version 5 (was 0)"), "init creates the registry: %s", out);
    free(out);
    CHECK(!sh(&got, "'%s' -X -Atq '%s' -c \"SELECT array_to_string(proconfig, ' ') FROM pg_proc WHERE proname = "
                    "'candidates'\"", psql, lurl) &&
              !strcmp(got, "search_path=pg_catalog, hyrax, public, pg_temp plan_cache_mode=force_custom_plan\n"),
          "the candidates find pgvector in public, after pg_catalog and hyrax: %s", got);
    free(got);
    rc = sh(&got, "'%s' -X -Atq '%s' -c \"INSERT INTO hyrax.documents (path, content_hash, visibility) VALUES ('x.md', 'h', "
                  "'public'); "
                  "INSERT INTO hyrax.chunks (document_id, tenant, visibility, ord, text, embedding) SELECT id, tenant, "
                  "visibility, 0, 'kangaroo', array_fill(0.05::real, ARRAY[384])::vector FROM hyrax.documents\" "
                  "-c \"SET ROLE globex; SELECT count(*) FROM hyrax.candidates(NULL, 'kangaroo', 10, NULL, NULL, true)\" "
                  "-c \"RESET ROLE; SELECT coalesce(string_agg(who || ' ran ' || what, ', '), 'nobody') || ' ' || tsv::text FROM "
                  "hyrax.chunks LEFT JOIN public.ran ON true GROUP BY tsv\"", psql, lurl);
    CHECK(!strcmp(got, "1\nnobody 'kangaroo':1\n"), "globex's candidates: the public chunk; the owner ran none of "
          "globex's functions: %s", got);
    free(got);
    free(sql_as(NULL, "DROP DATABASE legacy"));
    /* a role that may create schemas made schema hyrax before the registry: init refuses to
       create the registry in it (globex could drop and replace anything there as its owner) */
    free(sql_as(NULL, "CREATE DATABASE squat"));
    free(sql_as(NULL, "GRANT CREATE ON DATABASE squat TO globex"));
    snprintf(lurl, sizeof lurl, "postgresql://globex_login@/squat?host=%s", sockdir);
    rc = sh(&got, "'%s' -X -Atq '%s' -c 'SET ROLE globex; CREATE SCHEMA hyrax'", psql, lurl);
    CHECK(rc == 0, "globex makes schema hyrax: %s", got);
    free(got);
    snprintf(lurl, sizeof lurl, "postgresql://hyrax@/squat?host=%s", sockdir);
    rc = sh(&out, "$HYRAX_BIN registry init --registry '%s'", lurl);
    CHECK(rc == 1 && strstr(out, "schema hyrax belongs to role globex, not to hyrax"), "init refuses globex's schema: %s",
          out);
    free(out);
    free(sql_as(NULL, "DROP DATABASE squat"));
}

/* === MCP: the publish tool and search {source: registry} === */

/* Runs `hyrax serve` on root as tenant acme with the initialize handshake and one tools/call;
 * its output into *out. */
static int serve_call(const char *root, const char *tool, const char *arguments, char **out)
{
    return sh(out,
              "printf '%%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}' "
              "'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}' "
              "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}' "
              "| $HYRAX_BIN serve --tools all --registry '%s' --tenant acme --root %s --db %s/.hyrax/index.hyx",
              tool, arguments, url, root, root);
}

static void test_mcp(void)
{
    char *out, root[512];
    snprintf(root, sizeof root, "%s/mcp", dir);
    mkdir(root, 0755);
    check_put(root, "notes/lynx.md", "---\nteam: cats\n---\n# Lynx\n\nThe lynx hunts snowshoe hares in winter.\n");
    /* the gate refuses it (rule control: a bidi override; harmless C0 controls are dropped instead) */
    check_put(root, "notes/rlo.md", "# Override\n\nA line \xe2\x80\xae reads backwards.\n");
    serve_call(root, "publish", "{\"paths\":[\"notes\"],\"allow_unsigned\":true}", &out);
    CHECK(strstr(out, "\\\"published\\\":1") || strstr(out, "\"published\":1"), "MCP publish: %.600s", out);
    CHECK(strstr(out, "\"rejected\":[{\"path\":\"notes/rlo.md\",\"reason\":\""),
          "MCP publish lists the refused document as {path, reason}: %.600s", out);
    free(out);
    CHECK(sql_is(NULL, "SELECT tenant FROM hyrax.documents WHERE path = 'notes/lynx.md'", "acme"),
          "published as the server's tenant");
    serve_call(root, "search", "{\"query\":\"what do lynxes eat\",\"source\":\"registry\",\"filters\":{\"team\":\"cats\"}}",
               &out);
    CHECK(strstr(out, "notes/lynx.md") && strstr(out, "tier") && strstr(out, "consulted"), "MCP search source registry: %.600s",
          strstr(out, "\"id\":1") ? strstr(out, "\"id\":1") : out);
    free(out);
    /* through the session as `hyrax publish` and `search --source registry`: a path outside the
       root in the tools' words, and read_context.as_of reading what was published by then */
    serve_call(root, "publish", "{\"paths\":[\"../x\"]}", &out);
    CHECK(strstr(out, "argument 'paths': '../x' leaves the indexed root") && strstr(out, "\"isError\":true"),
          "MCP publish outside the root: %.600s", strstr(out, "\"id\":1") ? strstr(out, "\"id\":1") : out);
    free(out);
    serve_call(root, "search", "{\"query\":\"lynx\",\"source\":\"registry\",\"read_context\":{\"as_of\":"
               "\"2001-01-01T00:00:00Z\"}}", &out);
    CHECK(strstr(out, "\"consulted\":true") && strstr(out, "\"total_results\":0"),
          "MCP search source registry as of 2001: nothing: %.600s", strstr(out, "\"id\":1") ? strstr(out, "\"id\":1") : out);
    free(out);
}

/* === hx_session_publish (hyrax.h) === */

typedef struct {
    int calls;
    bool stop;                         /* stop at the first call */
    size_t done, total;                /* of the last call */
    bool last_path;                    /* the last call named a file */
} publish_log;

static int log_progress(void *ctx, size_t done, size_t total, const char *path)
{
    publish_log *l = ctx;
    l->calls++;
    l->done = done;
    l->total = total;
    l->last_path = path != NULL;
    return l->stop;
}

/* The session's identity is the publishing tenant; a progress callback that stops after the first
 * batch (of one document) keeps that batch and says so; publishing again finishes the job. */
static void test_session_publish(void)
{
    char rel[512], root[PATH_MAX], db[PATH_MAX + 16];
    snprintf(rel, sizeof rel, "%s/sess", dir);
    mkdir(rel, 0755);
    CHECK(realpath(rel, root) != NULL, "the root resolves");   /* the session takes an absolute root */
    snprintf(db, sizeof db, "%s.hyx", root);
    check_put(root, "s/one.md", "# One\n\nThe first of three notes.\n");
    check_put(root, "s/two.md", "# Two\n\nThe second of three notes.\n");
    check_put(root, "s/three.md", "# Three\n\nThe third of three notes.\n");
    hx_model *model = NULL;
    hx_error err = {0};
    CHECK(hx_model_open_default(&model, &err) == 0, "model: %s", err.message);
    hx_identity acme = {"acme", NULL};
    hx_session_config c = {.db = db, .root = root, .no_user_tier = true, .registry = url, .identity = &acme,
                           .model = model, .threads = 1};
    hx_session *s = NULL;
    CHECK(model && hx_session_open(&s, &c, &err) == 0, "open: %s", err.message);
    if (!s) {
        hx_model_close(model);
        return;
    }
    const char *paths[] = {"s"};
    hx_publish_request p = {paths, 1, NULL, true, 1};
    publish_log log = {.stop = true};
    hx_write_opts wo = {log_progress, &log, false};
    hx_publish_report rep;
    int rc = hx_session_publish(s, &p, &wo, &rep, &err);
    CHECK(rc == HX_ECANCELED && rep.published == 1 && log.calls == 1 && log.done == 1 && log.total == 3 &&
          strstr(err.message, "1 of 3"), "stopped after the first batch: %d %zu: %s", rc, rep.published, err.message);
    hx_publish_report_clear(&rep);
    CHECK(sql_is(NULL, "SELECT count(*) || ' ' || min(tenant) || ' ' || max(tenant) FROM hyrax.documents "
                       "WHERE path LIKE 's/%'", "1 acme acme"), "the first batch stays, published as acme");
    log = (publish_log){0};
    rc = hx_session_publish(s, &p, &wo, &rep, &err);
    CHECK(rc == 0 && rep.published == 2 && rep.unchanged == 1 && rep.n_rejected == 0 && log.done == 3 &&
          log.total == 3 && !log.last_path, "publishing again finishes: %d: %s", rc, err.message);
    hx_publish_report_clear(&rep);
    CHECK(sql_is(NULL, "SELECT count(*) || ' ' || min(tenant) || ' ' || max(tenant) FROM hyrax.documents "
                       "WHERE path LIKE 's/%'", "3 acme acme"), "all three, as acme");
    hx_session_close(s);
    hx_model_close(model);
}

/* The registry made by `hyrax registry init`, and a project index for source all (fuse/). */
static int setup(void)
{
    char *out;
    int rc = sh(&out, "mkdir -p %s/fuse/notes && printf '# Notes\\n\\nThe team notes on pods.\\n' > %s/fuse/notes/pods.md && "
                      "$HYRAX_BIN registry init --registry '%s' && "
                      "cd %s/fuse && $HYRAX_BIN index --db .hyrax/index.hyx notes", dir, dir, url, dir);
    if (rc != 0)
        fprintf(stderr, "test_registry_tenants: setup failed: %s\n", out);
    free(out);
    return rc;
}

int main(void)
{
    int skip, rc = registry_cluster_start("registry_tenants", &skip);
    if (skip)
        return rc;
    if (setup() != 0) {
        registry_cluster_stop();
        return 1;
    }
    test_tenants();
    test_private();
    test_tenant_indexes();
    test_hostile();
    test_hostile_init();
    test_mcp();
    test_session_publish();
    registry_cluster_stop();
    return check_report("test_registry_tenants");
}
