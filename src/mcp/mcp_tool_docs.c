/* mcp_tool_docs.c: the document tools of `hyrax serve`: list_documents, get_document,
 * document_status (main thread, with its reader), add_document and delete_document (worker thread,
 * a writer per job), their argument tables and output schemas, and seed 003's document_details.
 * Shapes follow seed 003 (list/status/details/delete). */
#include "mcp_tools.h"
#include "present.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A document's metadata value for key, or NULL. */
static const char *meta_value(const hx_kv *meta, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(meta[i].key, key))
            return meta[i].value;
    return NULL;
}

/* A document's status as list_documents and document_status give it. */
static const char *doc_status_word(const hx_doc_info *d)
{
    return d->n_chunks ? "complete" : "empty";   /* empty: indexed, but blank */
}

/* === list_documents, get_document, document_status === */

/* A document as write_doc_summary gives it. */
#define DOC_SOURCE_CHOICES MCP_CHOICES("file", "stored")
#define DOC_SUMMARY_ROWS                                                                                      \
    {"id", .type = MCP_JSON_INTEGER},                                                                         \
    {"path", .type = MCP_JSON_STRING},                                                                        \
    {"title", .type = MCP_JSON_STRING},                                                                       \
    {"source", MCP_JSON_STRING,                                                                               \
     .description = "file: mirrors a file under the root; stored: text given to add_document, no file "      \
                    "behind it",                                                                              \
     DOC_SOURCE_CHOICES},                                                                                     \
    {"type", .type = MCP_JSON_STRING},                                                                        \
    {"size", .type = MCP_JSON_INTEGER},                                                                       \
    {"hash", .type = MCP_JSON_STRING},                                                                        \
    {"version", .type = MCP_JSON_STRING},                                                                     \
    {"indexed_at", .type = MCP_JSON_STRING},                                                                  \
    {"modified_at", .type = MCP_JSON_STRING},                                                                 \
    {"status", .type = MCP_JSON_STRING},                                                                      \
    {"chunks_count", .type = MCP_JSON_INTEGER},                                                               \
    {"total_tokens", .type = MCP_JSON_INTEGER},                                                               \
    MCP_OUT_METADATA,                                                                                         \
    MCP_OUT_SIGNER,                                                                                           \
    {"filename", .type = MCP_JSON_STRING},                                                                    \
    {"uploaded_at", .type = MCP_JSON_STRING},                                                                 \
    {"category", .type = MCP_JSON_STRING | MCP_JSON_NULL},                                                    \
    {"description", .type = MCP_JSON_STRING | MCP_JSON_NULL},                                                 \
    {"tags", MCP_JSON_ARRAY, MCP_ITEMS(MCP_JSON_STRING)}
static const mcp_field doc_summary_fields[] = {DOC_SUMMARY_ROWS, {.name = NULL}};

/* Seed 003's names for a document (filename, uploaded_at) and its category, description and tags
 * metadata (null or [] when it has none; tags lists every value of the key). */
static void write_seed_doc_fields(hxi_json_writer *w, const hx_doc_info *d)
{
    hxi_json_kv_cstr(w, "filename", d->path);
    mcp_write_time(w, "uploaded_at", d->indexed_ns);
    hxi_json_kv_cstr(w, "category", meta_value(d->meta, d->n_meta, "category"));
    hxi_json_kv_cstr(w, "description", meta_value(d->meta, d->n_meta, "description"));
    hxi_json_write_key(w, "tags");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, "tags"))
            hxi_json_write_cstr(w, d->meta[i].value);
    hxi_json_write_arr_end(w);
}

static void write_doc_summary(hxi_json_writer *w, const hx_doc_info *d)
{
    hxi_json_kv_uint(w, "id", d->id);
    hxi_json_kv_cstr(w, "path", d->path);
    hxi_json_kv_cstr(w, "source", hxi_present_kind(d->kind));
    hxi_json_kv_cstr(w, "title", d->title);
    hxi_json_kv_cstr(w, "type", d->type);
    hxi_json_kv_uint(w, "size", d->size);
    hxi_json_kv_cstr(w, "hash", d->sha256);
    hxi_json_kv_cstr(w, "version", d->sha256);
    mcp_write_time(w, "indexed_at", d->indexed_ns);
    mcp_write_time(w, "modified_at", d->mtime_ns);
    hxi_json_kv_cstr(w, "status", doc_status_word(d));
    hxi_json_kv_uint(w, "chunks_count", d->n_chunks);
    hxi_json_kv_uint(w, "total_tokens", d->tokens);
    hxi_json_write_key(w, "metadata");
    hxi_present_meta(w, d->meta, d->n_meta);
    hxi_present_signer(w, d->trust.signer);
    write_seed_doc_fields(w, d);
}

/* Sort keys, and seed 003's names: filename = path, uploaded_at = indexed_at, category (metadata). */
static const char *const list_sorts[] = {"path", "title", "indexed_at", "size", "chunks", "filename", "uploaded_at",
                                         "category", NULL};
static const char *const list_orders[] = {"asc", "desc", NULL};

/* seed 003's filters and doc_filter: these keys by name, any other metadata key as well */
static const mcp_arg list_filters[] = {
    SEED_FILTER_ROWS,
    {"status", MCP_STRING,
     .description = "complete or empty: the document's status as listed; any other value: the status metadata."},
    {.name = NULL},
};

const mcp_arg mcp_list_documents_args[] = {
    {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = list_filters, .description = SEED_FILTERS_DOC},
    {"sort_by", MCP_STRING, .choices = list_sorts, .def = "path"},
    {"order", MCP_STRING, .choices = list_orders, .def = "asc"},
    {"limit", MCP_INTEGER, RANGE(1, 1000), .def = "20"},
    {"offset", MCP_INTEGER, RANGE(0, INT32_MAX), .def = "0"},
    {"cursor", MCP_STRING, RANGE(1, 32),
     .description = "The next_cursor of the previous answer: the page after it (instead of offset)."},
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

static const mcp_field list_fields[] = {
    {"documents", MCP_JSON_ARRAY,
     .items = &(const mcp_field){NULL, MCP_JSON_OBJECT, .props = doc_summary_fields,
                                 MCP_REQUIRED("id", "path", "title", "hash", "chunks_count")}},
    {"total", .type = MCP_JSON_INTEGER},
    {"limit", .type = MCP_JSON_INTEGER},
    {"offset", .type = MCP_JSON_INTEGER},
    {"next_cursor", MCP_JSON_STRING | MCP_JSON_NULL,
     .description = "give it as cursor for the next page; null on the last"},
    MCP_OUT_READ_CONTEXT,
    {.name = NULL},
};
const mcp_field mcp_list_documents_out = {
    NULL, MCP_JSON_OBJECT, .props = list_fields, MCP_REQUIRED("documents", "total", "limit", "offset")};

/* list_sorts' keys in the session's words (path and filename: the index's own order). */
static const hx_doc_sort list_sort_keys[] = {HX_SORT_PATH, HX_SORT_TITLE, HX_SORT_INDEXED, HX_SORT_SIZE,
                                             HX_SORT_CHUNKS, HX_SORT_PATH, HX_SORT_INDEXED, HX_SORT_CATEGORY};

static int list_filtered(mcp_session *s, const hxi_json_val *args, const hx_filter_set *fs, hxi_json_writer *w,
                         hx_error *err)
{
    mcp_args a = {mcp_list_documents_args, args};
    hx_filter filters[MAX_FILTERS];   /* fs without seed 003's status filter (borrowed entries) */
    hx_list_opts o = {.filters = filters};
    for (size_t i = 0; i < fs->n && i < MAX_FILTERS; i++) {
        const hx_filter *f = &fs->v[i];
        if (!strcmp(f->key, "status") && f->value && (!strcmp(f->value, "complete") || !strcmp(f->value, "empty")))
            o.state = !strcmp(f->value, "complete") ? HX_DOCS_COMPLETE : HX_DOCS_EMPTY;
        else
            filters[o.n_filters++] = *f;
    }
    const char *sort_by = mcp_arg_str(&a, "sort_by");
    o.desc = !strcmp(mcp_arg_str(&a, "order"), "desc");
    int64_t limit = mcp_arg_int(&a, "limit"), offset = mcp_arg_int(&a, "offset");
    const char *cursor = mcp_arg_str(&a, "cursor");
    char *cend = NULL;
    if (cursor && (mcp_arg_value(&a, "offset") || cursor[0] != 'o' ||
                   (offset = strtoll(cursor + 1, &cend, 10), *cend || cend == cursor + 1 || offset < 0)))
        return hx_error_set(err, HX_EINVAL, -1, "cursor: give the next_cursor of the previous answer, and no offset "
                                                "with it");
    size_t key = 0;
    while (strcmp(sort_by, list_sorts[key]))
        key++;
    o.sort = list_sort_keys[key];
    o.offset = (size_t)offset;
    o.limit = (size_t)limit;
    if (mcp_read_context(&a, &o.at, err))
        return MCP_CODE(*err);
    hx_doc_list l;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_list(s->ses, &o, &l, err)))
        return mcp_session_error(s, rc, &o.at, err);
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "documents");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < l.n; i++) {
        hxi_json_write_obj_begin(w);
        write_doc_summary(w, &l.docs[i]);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "total", l.total);
    hxi_json_kv_int(w, "limit", limit);
    hxi_json_kv_int(w, "offset", offset);
    hxi_json_write_key(w, "next_cursor");
    if ((size_t)(offset + limit) < l.total) {
        char next[32];
        snprintf(next, sizeof next, "o%lld", (long long)(offset + limit));
        hxi_json_write_cstr(w, next);
    } else {
        hxi_json_write_null(w);
    }
    hxi_present_read_context(w, &l.taken);
    hxi_json_write_obj_end(w);
    hx_doc_list_free(&l);
    return 0;
}

const mcp_arg mcp_get_document_args[] = {
    ARG_DOC_ID(NULL),
    ARG_DOC_PATH("root-relative path"),
    {"include_chunks", MCP_BOOLEAN, .def = "true"},
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

const mcp_arg mcp_document_status_args[] = {
    ARG_DOC_ID(NULL),
    ARG_DOC_PATH("root-relative path"),
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

static const mcp_field chunk_fields[] = {
    {"chunk_id", .type = MCP_JSON_INTEGER},
    {"index", .type = MCP_JSON_INTEGER},
    {"heading", .type = MCP_JSON_STRING},
    {"line_start", .type = MCP_JSON_INTEGER},
    {"line_end", .type = MCP_JSON_INTEGER},
    {"tokens", .type = MCP_JSON_INTEGER},
    {"text", .type = MCP_JSON_STRING},
    {.name = NULL},
};
static const mcp_field get_fields[] = {
    DOC_SUMMARY_ROWS,
    {"encoding", .type = MCP_JSON_STRING},
    {"word_count", .type = MCP_JSON_INTEGER | MCP_JSON_NULL},
    {"page_count", .type = MCP_JSON_INTEGER | MCP_JSON_NULL,
     .description = "pages of a paged format (PDF); null for the others"},
    {"warnings", MCP_JSON_ARRAY, MCP_ITEMS(MCP_JSON_STRING),
     .description = "what extraction left out or guessed (dropped control characters, an undeclared charset)"},
    {"chunks", MCP_JSON_ARRAY,
     .items = &(const mcp_field){NULL, MCP_JSON_OBJECT, .props = chunk_fields,
                                 MCP_REQUIRED("chunk_id", "index", "text", "tokens")}},
    MCP_OUT_READ_CONTEXT,
    {.name = NULL},
};
const mcp_field mcp_get_document_out = {
    NULL, MCP_JSON_OBJECT, .props = get_fields, MCP_REQUIRED("id", "path", "hash", "chunks_count")};

/* What extraction recorded in the document's metadata (`hyrax help formats`): word_count,
 * page_count and the warnings, as numbers (null when absent) and a list. */
static void write_extraction(hxi_json_writer *w, const hx_doc_info *d)
{
    static const char *const counts[] = {"word_count", "page_count"};
    for (int i = 0; i < 2; i++) {
        const char *v = meta_value(d->meta, d->n_meta, counts[i]);
        hxi_json_write_key(w, counts[i]);
        if (v)
            hxi_json_write_uint(w, strtoull(v, NULL, 10));
        else
            hxi_json_write_null(w);
    }
    hxi_json_write_key(w, "warnings");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, "warning"))
            hxi_json_write_cstr(w, d->meta[i].value);
    hxi_json_write_arr_end(w);
}

int mcp_tool_get_document(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_get_document_args, args};
    hx_read_context at;
    hx_session_doc d;
    bool chunks = mcp_arg_bool(&a, "include_chunks");
    if (mcp_read_context(&a, &at, err))
        return MCP_CODE(*err);
    int rc = mcp_session_doc(s, &a, &at, chunks, &d, err);
    if (rc)
        return rc;
    hxi_json_write_obj_begin(w);
    write_doc_summary(w, &d.info);
    hxi_json_kv_cstr(w, "encoding", d.info.encoding);
    write_extraction(w, &d.info);
    if (chunks) {
        hxi_json_write_key(w, "chunks");
        hxi_json_write_arr_begin(w);
        for (size_t c = 0; c < d.n_chunks; c++) {
            const hx_result *r = &d.chunks[c];
            hxi_json_write_obj_begin(w);
            hxi_json_kv_uint(w, "chunk_id", r->chunk_id);
            hxi_json_kv_uint(w, "index", r->chunk_index);
            hxi_json_kv_cstr(w, "heading", r->heading);
            hxi_json_kv_uint(w, "line_start", r->line_start);
            hxi_json_kv_uint(w, "line_end", r->line_end);
            hxi_json_kv_uint(w, "tokens", r->n_tokens);
            hxi_json_write_key(w, "text");
            hxi_json_write_str(w, r->text, r->text_len);
            hxi_json_write_obj_end(w);
        }
        hxi_json_write_arr_end(w);
    }
    hxi_present_read_context(w, &d.taken);
    hxi_json_write_obj_end(w);
    hx_session_doc_free(&d);
    return 0;
}

static const mcp_field embeddings_fields[] = {
    {"model", .type = MCP_JSON_STRING},
    {"dimension", .type = MCP_JSON_INTEGER},
    {"provider", .type = MCP_JSON_STRING},
    {.name = NULL},
};
static const mcp_field status_fields[] = {
    {"found", .type = MCP_JSON_BOOLEAN},
    {"id", .type = MCP_JSON_INTEGER | MCP_JSON_NULL},
    {"path", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"filename", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"source", MCP_JSON_STRING | MCP_JSON_NULL, DOC_SOURCE_CHOICES},
    {"type", MCP_JSON_STRING | MCP_JSON_NULL, .description = "the detected document type (hyrax help formats)"},
    {"status", MCP_JSON_STRING, MCP_CHOICES("complete", "empty", "pending", "failed", "not_found")},
    {"indexed_at", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"vectorized_at", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"chunks_count", .type = MCP_JSON_INTEGER},
    {"last_error", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"embeddings", MCP_JSON_OBJECT, .props = embeddings_fields},
    MCP_OUT_READ_CONTEXT,
    {.name = NULL},
};
const mcp_field mcp_document_status_out = {
    NULL, MCP_JSON_OBJECT, .props = status_fields,
    MCP_REQUIRED("found", "id", "path", "status", "chunks_count", "last_error", "embeddings")};

int mcp_tool_document_status(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_document_status_args, args};
    const char *path = mcp_arg_str(&a, "path");
    bool by_id = mcp_arg_value(&a, "doc_id") != NULL;
    if (!path == !by_id)
        return hx_error_set(err, HX_EINVAL, -1, "give exactly one of 'doc_id' or 'path'");
    int64_t id = mcp_arg_int(&a, "doc_id");
    hx_doc_info d;
    bool found = false, open = !mcp_open_reader_for(s, &a, err);
    char name[HX_RELPATH_MAX];
    if (!open && s->reader)
        return MCP_CODE(*err);   /* the index is there, but read_context selects no commit it keeps */
    if (!open && mcp_session_model(s, err))
        return MCP_CODE(*err);   /* no model: nothing to report on; a missing index just means not indexed */
    if (path && !(path = mcp_clean_name(open ? hx_index_root(s->reader) : s->cfg->root, "path", path, name, err)))
        return MCP_CODE(*err);
    if (open)
        found = by_id ? !hx_index_doc_by_id(s->reader, (uint32_t)id, &d) : !hx_index_doc_by_path(s->reader, path, &d);
    /* an unknown doc_id answers as an unknown path does: not_found, echoing what was asked */
    const char *p = found ? d.path : path;
    char reason[512];
    bool failed = p && mcp_failure_for(s->server, p, reason, sizeof reason);
    /* "empty": indexed, but the document has no text at all (blank), so no chunk can match it */
    const char *status = p && mcp_path_pending(s->server, p) ? "pending"
                         : found                     ? doc_status_word(&d)
                         : failed                    ? "failed"
                                                     : "not_found";
    hxi_json_write_obj_begin(w);
    hxi_json_kv_bool(w, "found", found);
    hxi_json_write_key(w, "id");
    if (found || by_id)
        hxi_json_write_uint(w, found ? d.id : (uint64_t)id);
    else
        hxi_json_write_null(w);
    hxi_json_write_key(w, "path");
    if (p)
        hxi_json_write_cstr(w, p);
    else
        hxi_json_write_null(w);
    hxi_json_write_key(w, "filename");
    if (p)
        hxi_json_write_cstr(w, p);
    else
        hxi_json_write_null(w);
    hxi_json_write_key(w, "source");
    if (found)
        hxi_json_write_cstr(w, hxi_present_kind(d.kind));
    else
        hxi_json_write_null(w);
    hxi_json_write_key(w, "type");
    if (found)
        hxi_json_write_cstr(w, d.type);
    else
        hxi_json_write_null(w);
    hxi_json_kv_cstr(w, "status", status);
    if (found) {
        mcp_write_time(w, "indexed_at", d.indexed_ns);
        mcp_write_time(w, "vectorized_at", d.indexed_ns);
    } else {
        hxi_json_write_key(w, "indexed_at");
        hxi_json_write_null(w);
        hxi_json_write_key(w, "vectorized_at");
        hxi_json_write_null(w);
    }
    hxi_json_kv_uint(w, "chunks_count", found ? d.n_chunks : 0);
    hxi_json_write_key(w, "last_error");
    if (failed)
        hxi_json_write_cstr(w, reason);
    else
        hxi_json_write_null(w);
    hxi_json_write_key(w, "embeddings");
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "model", hx_model_name(s->model));
    hxi_json_kv_int(w, "dimension", hx_model_dim(s->model));
    hxi_json_kv_cstr(w, "provider", "hyrax (local, in-process)");
    hxi_json_write_obj_end(w);
    if (open)
        mcp_write_read_context(w, s);
    hxi_json_write_obj_end(w);
    return 0;
}

/* === Writes: add_document, delete_document, reindex (worker thread) === */


const mcp_arg mcp_add_document_args[] = {
    {"path", MCP_STRING, .description = "A file under the indexed root to index now (root-relative)."},
    {"content", MCP_STRING, .description = "Text to store as a new document (with name)."},
    {"name", MCP_STRING,
     .description = "Root-relative name for content, e.g. notes/meeting.md (the extension picks the type)."},
    {"metadata", MCP_METADATA, AT_MOST(MAX_FILTERS),
     .description = "Metadata for content, usable in filters: strings, numbers, booleans, ISO-8601 dates "
                    "(as strings) or lists of them, e.g. {\"status\": \"draft\", \"tags\": [\"a\", \"b\"]}. "
                    "These keys win over the content's own front matter."},
    {"signature", MCP_STRING,
     .description = "For content: the text of a detached signature over it, a minisign .minisig or an OpenSSH "
                    "signature (ssh-keygen -Y sign -n hyrax), checked against the project's trust store before "
                    "the content is embedded; needed where the project's policy requires a signature."},
    {.name = NULL},
};

static const mcp_field add_fields[] = {
    {"document", MCP_JSON_OBJECT, .props = doc_summary_fields},
    {"status", .type = MCP_JSON_STRING},
    MCP_OUT_REPORT_ROWS,
    MCP_OUT_SEARCHABLE_ROWS,
    {.name = NULL},
};
const mcp_field mcp_add_document_out = {
    NULL, MCP_JSON_OBJECT, .props = add_fields, MCP_REQUIRED("document", "status", "generation", "searchable")};

/* err, from hx_session_add (rc), in add_document's words; the code. */
static int add_error(mcp_session *s, const hx_add_doc *d, const hx_session_write *out, int rc, hx_error *err)
{
    const char *key = d->path ? "path" : "name";
    if (strstr(err->message, "names the indexed root"))
        return hx_error_set(err, HX_EINVAL, -1, "'%s' names the indexed root, not a document; %s", key,
                            d->path ? "add_document takes one file (reindex takes folders)"
                                    : "give a name such as notes/x.md");
    if (strstr(err->message, "is a folder; "))
        return hx_error_set(err, HX_EINVAL, -1, "'%.200s' is a folder; add_document takes one file (reindex takes "
                                                "folders)", out->path);
    if (strstr(err->message, "is not a file hyrax can index"))
        return hx_error_set(err, HX_EINVAL, -1, "%s is not a file hyrax can index (a folder? use reindex)", out->path);
    if (!strncmp(err->message, key, strlen(key)) && !strncmp(err->message + strlen(key), ": ", 2))
        return mcp_path_error(err);   /* the name refused */
    if (out->report.n_rejected) {     /* the validation gate's refusal: its words already */
        mcp_note_failure(s->server, out->report.rejected[0].path, out->report.rejected[0].reason);
        return rc;
    }
    char what[300];
    snprintf(what, sizeof what, "%s %.200s failed: ", d->path ? "indexing" : "storing", out->path);
    return mcp_write_error(s, rc, what, err);
}

int mcp_tool_add_document(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_add_document_args, args};
    const char *path = mcp_arg_str(&a, "path"), *content = mcp_arg_str(&a, "content");
    const char *name = mcp_arg_str(&a, "name");
    hx_kv kv[HX_META_MAX];
    size_t n_meta = mcp_arg_metadata(&a, "metadata", kv, HX_META_MAX);
    if (!path == !content)
        return hx_error_set(err, HX_EINVAL, -1, "give either 'path' (a file under the indexed root) or 'content' "
                                                "with 'name'");
    if (content && !name)
        return hx_error_set(err, HX_EINVAL, -1, "'content' needs a 'name', the root-relative name to store it under "
                                                "(e.g. notes/x.md)");
    if (path && (name || mcp_arg_value(&a, "metadata") || mcp_arg_value(&a, "signature")))
        return hx_error_set(err, HX_EINVAL, -1, "'name', 'metadata' and 'signature' go with 'content'; for 'path' "
                                                "the file's own metadata and signature file are used");
    const char *sig = mcp_arg_str(&a, "signature");
    hx_add_doc d = {.path = path, .name = name, .content = content, .len = content ? strlen(content) : 0,
                    .meta = kv, .n_meta = n_meta, .sig = sig, .sig_len = sig ? strlen(sig) : 0};
    hx_write_opts wo = {mcp_job_progress, s, false};
    hx_session_write out = {0};
    hx_session_doc doc = {0};
    int rc = mcp_session_open(s, err);
    if (!rc && (rc = hx_session_add(s->ses, &d, &wo, &out, err)))
        rc = add_error(s, &d, &out, rc, err);
    else if (!rc)   /* the document as the commit holds it, for its summary */
        rc = hx_session_get(s->ses, out.doc_id, NULL, NULL, false, &doc, err);
    if (!rc) {
        hxi_json_write_obj_begin(w);
        hxi_json_write_key(w, "document");
        hxi_json_write_obj_begin(w);
        write_doc_summary(w, &doc.info);
        hxi_json_write_obj_end(w);
        hxi_json_kv_cstr(w, "status", out.report.added ? "added" : out.report.updated ? "updated" : "unchanged");
        mcp_write_report(w, &out.report);
        mcp_write_committed(w, &out);
        hxi_json_write_obj_end(w);
    }
    hx_session_doc_free(&doc);
    hx_session_write_clear(&out);
    return rc;
}

static const mcp_field delete_fields[] = {
    {"success", .type = MCP_JSON_BOOLEAN},
    {"doc_id", .type = MCP_JSON_INTEGER},
    {"path", .type = MCP_JSON_STRING},
    {"source", MCP_JSON_STRING, DOC_SOURCE_CHOICES},
    {"deleted_chunks", .type = MCP_JSON_INTEGER},
    {"remembered", MCP_JSON_BOOLEAN,
     .description = "true for a file-backed document: reindex leaves its file out until add_document {path} names it"},
    {"note", .type = MCP_JSON_STRING},
    MCP_OUT_SEARCHABLE_ROWS,
    {.name = NULL},
};
const mcp_field mcp_delete_document_out = {
    NULL, MCP_JSON_OBJECT, .props = delete_fields,
    MCP_REQUIRED("success", "doc_id", "path", "source", "deleted_chunks", "remembered")};

const mcp_arg mcp_delete_document_args[] = {
    ARG_DOC_ID(NULL),
    ARG_DOC_PATH("root-relative path"),
    {"purge_index", MCP_BOOLEAN, .def = "true",
     .description = "Document-store servers' flag; hyrax keeps one index, so the document leaves both searches either way."},
    {.name = NULL},
};

int mcp_tool_delete_document(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_delete_document_args, args};
    const char *path = mcp_arg_str(&a, "path");
    bool by_id = mcp_arg_value(&a, "doc_id") != NULL;
    if (by_id == (path != NULL))
        return hx_error_set(err, HX_EINVAL, -1, "give exactly one of 'doc_id' (a number from list_documents or "
                                                "search) or 'path'");
    int64_t id = by_id ? mcp_arg_int(&a, "doc_id") : -1;
    hx_session_write out = {0};
    int rc = mcp_session_open(s, err);
    if (!rc && (rc = hx_session_delete(s->ses, id, path, &out, err))) {
        if (rc == HX_ENOTFOUND && by_id && !strncmp(err->message, "no document", 11))
            rc = hx_error_set(err, HX_EINVAL, -1, "no document with doc_id %lld in the index", (long long)id);
        else if (!strncmp(err->message, "path: ", 6))   /* the name refused */
            rc = mcp_path_error(err);
        else
            rc = mcp_write_error(s, rc, "cannot delete: ", err);
        hx_session_write_clear(&out);
    }
    if (rc)
        return rc;
    hxi_json_write_obj_begin(w);
    hxi_json_kv_bool(w, "success", 1);
    hxi_json_kv_uint(w, "doc_id", out.doc_id);
    hxi_json_kv_cstr(w, "path", out.path);
    hxi_json_kv_cstr(w, "source", hxi_present_kind(out.kind));
    hxi_json_kv_uint(w, "deleted_chunks", out.report.chunks_removed);
    hxi_json_kv_bool(w, "remembered", out.kind == HX_DOC_FILE);
    hxi_json_kv_cstr(w, "note", out.kind == HX_DOC_FILE ? "the file itself is untouched; reindex leaves it out until "
                                                          "add_document {path} indexes it again"
                                                        : "the stored text is gone from the index");
    mcp_write_committed(w, &out);
    hxi_json_write_obj_end(w);
    hx_session_write_clear(&out);
    return 0;
}

int mcp_tool_list_documents(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    return mcp_with_filters(list_filtered, mcp_list_documents_args, s, args, w, err);
}

const mcp_arg mcp_document_details_args[] = {
    ARG_DOC_ID("A document id from list_documents or search."),
    ARG_DOC_PATH("Or its root-relative path."),
    {"include_chunks", .fixed = "true"},
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

