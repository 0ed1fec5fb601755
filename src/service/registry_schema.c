/* registry_schema.c: the registry's schema as SQL text: the migrations that take it from each
 * version to the next, with the search function and the row-level security they create. Runs
 * nothing: registry.c runs them (hxi_registry_migrate) and documents the schema in its header
 * comment. */
#include "registry_schema.h"

/* === Migrations: entry i takes the schema from version i to i + 1 === */

/* The roles current_user acts for: itself and every role it is a member of (directly or not). */
#define ACTING_ROLES "(SELECT rolname FROM pg_catalog.pg_roles WHERE pg_catalog.pg_has_role(current_user, oid, 'MEMBER'))"

/* hyrax.candidates (schema version 3, hardened in version 4): a search's candidates, read as the
 * schema's owner (SECURITY DEFINER: row-level security does not apply), filtered by hyrax.can_read
 * for the caller. The caller is who row-level security would see as current_user: the role SET ROLE
 * set (the setting 'role', which the server lets a session set only to roles its login may become:
 * SET ROLE, set_config and the startup options all check it), else the session's login
 * (session_user); inside the function current_user is the owner, so it is not asked, and nothing
 * the caller passes names the reader. A caller that bypasses row-level security (superuser,
 * BYPASSRLS, or with the table owner's privileges, as PostgreSQL decides for the table) reads every
 * row, as it would. Arguments as search_sql's $1-$6 (vector as pgvector text, NULL: none; query
 * text; candidates per side; filters; read time; whether the keyword side runs). Returns each
 * candidate's chunk id with its rank on each side (NULL: not a candidate there) and its ts_rank_cd.
 * Why not the plain statement under the policies: ts_match_vq (tsvector @@ tsquery) is not
 * leakproof, so it runs after the policy and never as a GIN index condition, and for a reader of
 * few rows the planner sorted a sequential scan for the vector side. Here the rule is a plain
 * condition: each plan is made for the actual reader and values (plan_cache_mode), so a reader of
 * many rows filters the HNSW and GIN scans, and a reader of few finds its rows by the btree indexes
 * on tenant and visibility (bench/RESULTS-registry.md).
 * The function runs as the owner, so no name in it may reach an object a tenant made: version 3's
 * search_path put public before pg_temp, where a tenant may create in databases made before
 * PostgreSQL 15, and websearch_to_tsquery('english', ...) chose a websearch_to_tsquery(text, text)
 * there over pg_catalog's (regconfig, text). Version 4 (the macro's arguments; version 3's text
 * stays as it shipped) searches pg_catalog first and no schema but hyrax's and pgvector's
 * (MIGRATION_4), and every other call in it passes its arguments' own types, or a quoted literal as
 * text, to a pg_catalog function or operator that takes them, so no overload elsewhere matches
 * better. It reads every document to apply the filters, so a filter that could fail on some
 * documents' metadata would tell the caller what rows it cannot read hold (version 3: a second
 * filter whose "v" was no array failed only when a document matched the first, of any tenant);
 * version 4 refuses filters of another shape first (check). */
#define CANDIDATES_FUNCTION(create, search_path, english, chunks_oid, check, allowed, in_allowed) \
    create " FUNCTION hyrax.candidates(qvec text, qtext text, n int, filters jsonb, as_of timestamptz, keyword boolean)" \
    "  RETURNS TABLE (id bigint, vrank bigint, krank bigint, kscore real)" \
    "  LANGUAGE plpgsql STABLE SECURITY DEFINER" \
    "  SET search_path = " search_path " SET plan_cache_mode = force_custom_plan AS $f$" \
    "DECLARE" \
    "  reader text := CASE current_setting('role') WHEN 'none' THEN session_user::text ELSE current_setting('role') END;" \
    "  sees_all boolean;" \
    "  roles text[];" \
    "BEGIN" \
    check \
    "  SELECT r.rolsuper OR r.rolbypassrls OR (pg_has_role(r.oid, t.relowner, 'USAGE') AND NOT t.relforcerowsecurity)" \
    "    INTO sees_all FROM pg_roles r, pg_class t WHERE r.rolname = reader AND t.oid = " chunks_oid ";" \
    "  sees_all := coalesce(sees_all, false);" \
    "  roles := CASE WHEN sees_all THEN '{}' ELSE hyrax.acting_roles(reader) END;" \
    "  RETURN QUERY " \
    "  WITH allowed AS " allowed ", " \
    "  vs AS (SELECT c.id, c.embedding <#> qvec::vector AS dist FROM hyrax.chunks c" \
    "    WHERE qvec IS NOT NULL AND (sees_all OR hyrax.can_read(c.tenant, c.visibility, c.owner, reader, roles))" \
    "    AND ((filters IS NULL AND as_of IS NULL) OR " in_allowed ")" \
    "    ORDER BY c.embedding <#> qvec::vector LIMIT n), " \
    "  v AS (SELECT vs.id, row_number() OVER (ORDER BY vs.dist, vs.id) AS r FROM vs), " \
    "  q AS (SELECT websearch_to_tsquery(" english ", qtext) AS q), " \
    "  ks AS (SELECT mm.id, ts_rank_cd(mm.tsv, mm.q, 32) AS rank FROM (SELECT c.id, c.tsv, q.q FROM hyrax.chunks c, q" \
    "    WHERE keyword AND c.tsv @@ q.q AND (sees_all OR hyrax.can_read(c.tenant, c.visibility, c.owner, reader, roles))" \
    "    AND ((filters IS NULL AND as_of IS NULL) OR " in_allowed ")" \
    "    LIMIT " HX_STRINGIFY(HX_REGISTRY_KEYWORD_CANDIDATES) ") mm ORDER BY rank DESC, mm.id LIMIT n), " \
    "  k AS (SELECT ks.id, ks.rank, row_number() OVER (ORDER BY ks.rank DESC, ks.id) AS r FROM ks) " \
    "  SELECT coalesce(v.id, k.id), v.r, k.r, k.rank FROM v FULL JOIN k ON k.id = v.id;" \
    "END $f$;"

/* Versions 3 and 4 (CANDIDATES_FUNCTION's allowed and in_allowed): a filter holds when the
 * document's metadata value under k (a string, or an array of them) contains one of v (jsonb's ?). */
#define ALLOWED_BY_DOCUMENT \
    "(SELECT d.id FROM hyrax.documents d WHERE (as_of IS NULL OR d.published_at <= as_of)" \
    "    AND (filters IS NULL OR NOT EXISTS (" \
    "      SELECT 1 FROM jsonb_array_elements(filters) f WHERE NOT EXISTS (" \
    "        SELECT 1 FROM jsonb_array_elements_text(f->'v') want WHERE d.metadata->(f->>'k') ? want))))"
#define IN_ALLOWED_DOCUMENT "c.document_id IN (SELECT a.id FROM allowed a)"

/* Version 5: filter by filter, the chunk's unit pairs (chunks.metadata) or its document's metadata
 * hold it, as a local index matches (hyrax.h hx_index_doc_matches). */
#define ALLOWED_BY_TIME \
    "(SELECT d.id, d.metadata FROM hyrax.documents d WHERE as_of IS NULL OR d.published_at <= as_of)"
#define IN_ALLOWED_CHUNK \
    "EXISTS (SELECT 1 FROM allowed a WHERE a.id = c.document_id AND (filters IS NULL OR NOT EXISTS (" \
    "      SELECT 1 FROM jsonb_array_elements(filters) f WHERE NOT EXISTS (" \
    "        SELECT 1 FROM jsonb_array_elements_text(f->'v') want" \
    "        WHERE a.metadata->(f->>'k') ? want OR c.metadata->(f->>'k') ? want))))"

/* Version 4's candidates refuse filters of another shape than search_sql's $4 before reading a row
 * (CANDIDATES_FUNCTION). */
#define CANDIDATES_CHECK \
    "  IF filters IS NOT NULL AND (CASE WHEN pg_catalog.jsonb_typeof(filters) OPERATOR(pg_catalog.=) 'array'" \
    "      THEN EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(filters) f" \
    "        WHERE pg_catalog.jsonb_typeof(f->'k') IS DISTINCT FROM 'string'" \
    "        OR pg_catalog.jsonb_typeof(f->'v') IS DISTINCT FROM 'array') ELSE true END) THEN" \
    "    RAISE EXCEPTION 'filters: an array of {\"k\": key, \"v\": [values]}' USING ERRCODE = '22023';" \
    "  END IF;"

/* 3 -> 4: no SQL that decides what a reader reads, or that runs as another role than the caller's,
 * resolves a name through a schema a tenant can create objects in (tests/test_registry_tenants.c
 * test_hostile). The policies call hyrax.can_read and hyrax.acting_roles, SQL functions whose
 * bodies PostgreSQL parses with the caller's search_path: every session may make a type `text` in
 * its temporary schema (searched first for types) with a cast from name, and a role with a schema
 * of its own may put an operator = (text, text) before pg_catalog; the first made acting_roles
 * answer another tenant's role, the second made can_read answer true. acting_roles now pins its
 * search_path; can_read names pg_catalog's operators instead, as a SET clause would keep the
 * planner from inlining it, which the policies and hyrax.candidates need (bench/RESULTS-registry.md).
 * hyrax.candidates as CANDIDATES_FUNCTION says, with pgvector's schema after hyrax's where the
 * extension lives elsewhere (it was there before init). hyrax.meta: readable by all, written by
 * the owner only (a tenant could set schema_version and make the next init fail). hyrax.audit:
 * appended to, never changed (a role could delete its tenant's records, or write one naming
 * another login as the actor). */
/* hyrax.candidates finds pgvector's operators where the extension lives when that is not schema hyrax
 * (MIGRATION_4). */
#define CANDIDATES_VECTOR_PATH \
    "DO $d$ DECLARE s pg_catalog.text := (SELECT n.nspname FROM pg_catalog.pg_extension e" \
    "  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace" \
    "  WHERE e.extname OPERATOR(pg_catalog.=) 'vector');" \
    "BEGIN IF s OPERATOR(pg_catalog.<>) 'hyrax' THEN EXECUTE pg_catalog.format('ALTER FUNCTION hyrax.candidates(text," \
    "  text, int, jsonb, timestamptz, boolean) SET search_path = pg_catalog, hyrax, %I, pg_temp', s);" \
    "END IF; END $d$;"

#define MIGRATION_4 \
    "CREATE OR REPLACE FUNCTION hyrax.acting_roles(reader text) RETURNS text[] LANGUAGE sql STABLE PARALLEL SAFE" \
    "  SET search_path = pg_catalog, pg_temp" \
    "  AS $$SELECT pg_catalog.array_agg(rolname::pg_catalog.text) FROM pg_catalog.pg_roles" \
    "  WHERE pg_catalog.pg_has_role(reader, oid, 'MEMBER')$$;" \
    "CREATE OR REPLACE FUNCTION hyrax.can_read(tenant text, visibility text, owner text, reader text, roles text[])" \
    "  RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE" \
    "  AS $$SELECT visibility OPERATOR(pg_catalog.=) 'public' OR (tenant OPERATOR(pg_catalog.=) ANY (roles)" \
    "  AND (visibility OPERATOR(pg_catalog.=) 'tenant' OR owner OPERATOR(pg_catalog.=) reader))$$;" \
    CANDIDATES_FUNCTION("CREATE OR REPLACE", "pg_catalog, hyrax, pg_temp", "'english'::pg_catalog.regconfig", \
                        "'hyrax.chunks'::pg_catalog.regclass::pg_catalog.oid", CANDIDATES_CHECK, ALLOWED_BY_DOCUMENT, \
                        IN_ALLOWED_DOCUMENT) \
    CANDIDATES_VECTOR_PATH \
    "ALTER TABLE hyrax.meta ENABLE ROW LEVEL SECURITY;" \
    "CREATE POLICY reader ON hyrax.meta FOR SELECT USING (true);" \
    "DROP POLICY tenant_own ON hyrax.audit;" \
    "CREATE POLICY reader ON hyrax.audit FOR SELECT USING (tenant IN " ACTING_ROLES ");" \
    "CREATE POLICY writer ON hyrax.audit FOR INSERT WITH CHECK (tenant IN " ACTING_ROLES \
    "  AND actor = session_user AND at = now());"

static const char *const migrations[HX_REGISTRY_SCHEMA_VERSION] = {
    "CREATE EXTENSION IF NOT EXISTS vector SCHEMA hyrax;"
    "CREATE TABLE hyrax.documents ("
    "  id bigserial PRIMARY KEY,"
    "  tenant text NOT NULL DEFAULT current_user,"
    "  path text NOT NULL,"
    "  title text NOT NULL DEFAULT '',"
    "  metadata jsonb NOT NULL DEFAULT '{}',"
    "  content_hash text NOT NULL,"
    "  signer text,"
    "  visibility text NOT NULL DEFAULT 'tenant' CHECK (visibility IN ('public', 'tenant')),"
    "  published_at timestamptz NOT NULL DEFAULT now(),"
    "  UNIQUE (tenant, path));"
    "CREATE TABLE hyrax.chunks ("
    "  id bigserial PRIMARY KEY,"
    "  document_id bigint NOT NULL REFERENCES hyrax.documents (id) ON DELETE CASCADE,"
    "  tenant text NOT NULL,"
    "  visibility text NOT NULL,"
    "  ord int NOT NULL,"
    "  heading_path text NOT NULL DEFAULT '',"
    "  line_start int NOT NULL DEFAULT 0,"
    "  line_end int NOT NULL DEFAULT 0,"
    "  text text NOT NULL,"
    "  embedding vector(" HXI_REGISTRY_DIM_MARK ") NOT NULL,"
    /* regconfig named: with 'english' alone a to_tsvector(text, text) a tenant made in public
       beforehand would match better than pg_catalog's (test_hostile_init) */
    "  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::pg_catalog.regconfig, heading_path || ' ' || text))"
    "  STORED);"
    "CREATE INDEX chunks_document ON hyrax.chunks (document_id);"
    "CREATE INDEX chunks_embedding ON hyrax.chunks USING hnsw (embedding vector_ip_ops);"
    "CREATE INDEX chunks_tsv ON hyrax.chunks USING gin (tsv);"
    "CREATE TABLE hyrax.audit ("
    "  id bigserial PRIMARY KEY,"
    "  at timestamptz NOT NULL DEFAULT now(),"
    "  actor text NOT NULL DEFAULT session_user,"
    "  tenant text NOT NULL DEFAULT current_user,"
    "  action text NOT NULL,"
    "  path text NOT NULL,"
    "  content_hash text,"
    "  signer text);"
    "ALTER TABLE hyrax.documents ENABLE ROW LEVEL SECURITY;"
    "ALTER TABLE hyrax.chunks ENABLE ROW LEVEL SECURITY;"
    "ALTER TABLE hyrax.audit ENABLE ROW LEVEL SECURITY;"
    "CREATE POLICY tenant_read ON hyrax.documents FOR SELECT USING (visibility = 'public' OR tenant = current_user);"
    "CREATE POLICY tenant_write ON hyrax.documents FOR ALL USING (tenant = current_user)"
    "  WITH CHECK (tenant = current_user);"
    "CREATE POLICY tenant_read ON hyrax.chunks FOR SELECT USING (visibility = 'public' OR tenant = current_user);"
    "CREATE POLICY tenant_write ON hyrax.chunks FOR ALL USING (tenant = current_user)"
    "  WITH CHECK (tenant = current_user);"
    "CREATE POLICY tenant_own ON hyrax.audit FOR ALL USING (tenant = current_user)"
    "  WITH CHECK (tenant = current_user);"
    "GRANT USAGE ON SCHEMA hyrax TO PUBLIC;"
    "GRANT SELECT ON hyrax.meta, hyrax.documents, hyrax.chunks, hyrax.audit TO PUBLIC;",
    /* 1 -> 2: private visibility (owner = the publishing user's role), chunk byte ranges (the
       same content answered once across tiers), and policies that let a user act inside its
       tenant: a row's tenant must be a role current_user is a member of */
    "ALTER TABLE hyrax.documents ADD COLUMN owner text;"
    "ALTER TABLE hyrax.documents DROP CONSTRAINT documents_visibility_check;"
    "ALTER TABLE hyrax.documents ADD CONSTRAINT documents_visibility_check"
    "  CHECK (visibility IN ('public', 'tenant', 'private') AND (visibility <> 'private' OR owner IS NOT NULL));"
    "ALTER TABLE hyrax.chunks ADD COLUMN owner text, ADD COLUMN byte_start int, ADD COLUMN byte_end int;"
    "DROP POLICY tenant_read ON hyrax.documents; DROP POLICY tenant_write ON hyrax.documents;"
    "DROP POLICY tenant_read ON hyrax.chunks; DROP POLICY tenant_write ON hyrax.chunks;"
    "DROP POLICY tenant_own ON hyrax.audit;"
    "CREATE POLICY reader ON hyrax.documents FOR SELECT USING (visibility = 'public' OR (tenant IN " ACTING_ROLES
    "  AND (visibility = 'tenant' OR owner = current_user)));"
    "CREATE POLICY writer ON hyrax.documents FOR ALL USING (tenant IN " ACTING_ROLES
    "  AND (visibility <> 'private' OR owner = current_user))"
    "  WITH CHECK (tenant IN " ACTING_ROLES " AND (visibility <> 'private' OR owner = current_user));"
    "CREATE POLICY reader ON hyrax.chunks FOR SELECT USING (visibility = 'public' OR (tenant IN " ACTING_ROLES
    "  AND (visibility = 'tenant' OR owner = current_user)));"
    "CREATE POLICY writer ON hyrax.chunks FOR ALL USING (tenant IN " ACTING_ROLES
    "  AND (visibility <> 'private' OR owner = current_user))"
    "  WITH CHECK (tenant IN " ACTING_ROLES " AND (visibility <> 'private' OR owner = current_user));"
    "CREATE POLICY tenant_own ON hyrax.audit FOR ALL USING (tenant IN " ACTING_ROLES ")"
    "  WITH CHECK (tenant IN " ACTING_ROLES ");",
    /* 2 -> 3: the reading rule in one function the policies and the search both use, and the
       search's candidates through a SECURITY DEFINER function that applies it (a tenant's
       search could use neither index under row-level security: bench/RESULTS-registry.md); a
       chunk must carry its document's tenant, visibility and owner (checked after the statement,
       as the foreign key is, which ignores the policies: a tenant could otherwise hang a chunk of
       its own under another tenant's document, where that tenant's readers would find it) */
    "CREATE FUNCTION hyrax.acting_roles(reader text) RETURNS text[] LANGUAGE sql STABLE PARALLEL SAFE"
    "  AS $$SELECT pg_catalog.array_agg(rolname::text) FROM pg_catalog.pg_roles"
    "  WHERE pg_catalog.pg_has_role(reader, oid, 'MEMBER')$$;"
    "CREATE FUNCTION hyrax.can_read(tenant text, visibility text, owner text, reader text, roles text[])"
    "  RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE"
    "  AS $$SELECT visibility = 'public' OR (tenant = ANY (roles) AND (visibility = 'tenant' OR owner = reader))$$;"
    "DROP POLICY reader ON hyrax.documents; DROP POLICY reader ON hyrax.chunks;"
    "CREATE POLICY reader ON hyrax.documents FOR SELECT USING (hyrax.can_read(tenant, visibility, owner, current_user,"
    "  (SELECT hyrax.acting_roles(current_user))));"
    "CREATE POLICY reader ON hyrax.chunks FOR SELECT USING (hyrax.can_read(tenant, visibility, owner, current_user,"
    "  (SELECT hyrax.acting_roles(current_user))));"
    "CREATE FUNCTION hyrax.chunk_matches_document() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER"
    "  SET search_path = hyrax, pg_temp AS $f$ BEGIN"
    "  IF NOT EXISTS (SELECT 1 FROM hyrax.documents d WHERE d.id = NEW.document_id AND d.tenant = NEW.tenant"
    "      AND d.visibility = NEW.visibility AND d.owner IS NOT DISTINCT FROM NEW.owner) THEN"
    "    RAISE EXCEPTION 'a chunk takes the tenant, visibility and owner of its document' USING ERRCODE = '42501';"
    "  END IF;"
    "  RETURN NULL; END $f$;"
    "CREATE TRIGGER chunk_matches_document AFTER INSERT OR UPDATE ON hyrax.chunks"
    "  FOR EACH ROW EXECUTE FUNCTION hyrax.chunk_matches_document();"
    "CREATE INDEX chunks_tenant ON hyrax.chunks (tenant);"
    "CREATE INDEX chunks_visibility ON hyrax.chunks (visibility);"
    CANDIDATES_FUNCTION("CREATE", "hyrax, public, pg_temp", "'english'", "'hyrax.chunks'::regclass", "",
                        ALLOWED_BY_DOCUMENT, IN_ALLOWED_DOCUMENT)
    "GRANT EXECUTE ON FUNCTION hyrax.candidates(text, text, int, jsonb, timestamptz, boolean) TO PUBLIC;",
    MIGRATION_4,
    /* 4 -> 5: the units of structured documents: each chunk's unit pairs (a code file's definition:
       symbol, kind; a model's element: element_id, layer, ...) as chunks.metadata, a JSON object
       as documents.metadata is (NULL: none), and the document's type (the table of document types'
       row: "pdf", "code", ...; NULL in rows published before), which says what its line numbers
       count; filters match a chunk by its pairs or its document's (IN_ALLOWED_CHUNK). Columns only
       added: a hyrax of version 4 still reads and publishes (without them). */
    "ALTER TABLE hyrax.documents ADD COLUMN type text;"
    "ALTER TABLE hyrax.chunks ADD COLUMN metadata jsonb;"
    CANDIDATES_FUNCTION("CREATE OR REPLACE", "pg_catalog, hyrax, pg_temp", "'english'::pg_catalog.regconfig",
                        "'hyrax.chunks'::pg_catalog.regclass::pg_catalog.oid", CANDIDATES_CHECK, ALLOWED_BY_TIME,
                        IN_ALLOWED_CHUNK)
    CANDIDATES_VECTOR_PATH,
};

const char *hxi_registry_migration(int v)
{
    return v >= 0 && v < HX_REGISTRY_SCHEMA_VERSION ? migrations[v] : NULL;
}
