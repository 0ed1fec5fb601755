/* cmd_install.c: `hyrax install CLIENT`, which adds this hyrax as an MCP server to an AI client's
 * configuration: the table of clients (where each keeps its servers and in which form), the index
 * the server will serve, the JSON merge, and the file written with a backup by an atomic rename.
 * The TOML form (Codex) is install_toml.c's. Spec: `hyrax help mcp`, "Plugging into a
 * client". */
#include "cli.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char install_about[] =
    "Adds hyrax as an MCP server to CLIENT's own configuration file, so the client starts\n"
    "'hyrax serve --db INDEX' itself: this executable by its absolute path, and the index\n"
    "given by --db, else $" HX_DB_ENV ", else " DEFAULT_DB " in the current folder or the nearest\n"
    "folder above it (none: say which with --db). Clients and the file each writes\n"
    "('hyrax install --list' prints the paths on this machine):\n"
    "  claude-code     ~/.claude.json, mcpServers (user scope: what 'claude mcp add -s user' writes)\n"
    "  claude-desktop  claude_desktop_config.json, mcpServers (~/.config/Claude on Linux,\n"
    "                  ~/Library/Application Support/Claude on macOS)\n"
    "  cursor          ~/.cursor/mcp.json, mcpServers\n"
    "  vscode          the user profile's mcp.json, servers (~/.config/Code/User on Linux,\n"
    "                  ~/Library/Application Support/Code/User on macOS)\n"
    "  codex           ~/.codex/config.toml ($CODEX_HOME), table [mcp_servers.hyrax]\n"
    "  gemini          ~/.gemini/settings.json, mcpServers\n"
    "Only the server named hyrax is added or replaced (keys of it hyrax does not write are kept);\n"
    "every other server, key and table stays as it is. A file that changes is first copied to\n"
    "FILE.bak-YYYYMMDD-HHMMSS, then replaced at once (written beside it and renamed); a second run\n"
    "changes nothing and says so. A file that does not parse is refused with the line and column,\n"
    "never overwritten (JSON with comments included: remove them or add the entry by hand).\n"
    "Close the client first, or restart it afterwards (a running client may write its file again).\n";

/* === The clients === */

typedef enum { FORM_JSON, FORM_TOML } config_form;

typedef struct {
    const char *name;            /* as given on the command line */
    const char *title;           /* as its users know it */
    config_form form;
    const char *servers;         /* JSON: the member that maps server names to servers */
    const char *type;            /* the entry's "type" ("stdio"), NULL for none */
    bool env;                    /* the entry has "env": {} (what the client's own command writes) */
    const char *home_env;        /* a variable naming the client's folder, or NULL */
    const char *file;            /* under $home_env, else under $HOME */
    const char *xdg_file;        /* under $XDG_CONFIG_HOME (default ~/.config) on Linux; NULL: file */
    const char *mac_file;        /* under ~/Library/Application Support on macOS; NULL: file */
} client;

static const client clients[] = {
    {"claude-code", "Claude Code", FORM_JSON, "mcpServers", "stdio", true, NULL, ".claude.json", NULL, NULL},
    {"claude-desktop", "Claude Desktop", FORM_JSON, "mcpServers", NULL, false, NULL, NULL,
     "Claude/claude_desktop_config.json", "Claude/claude_desktop_config.json"},
    {"cursor", "Cursor", FORM_JSON, "mcpServers", NULL, false, NULL, ".cursor/mcp.json", NULL, NULL},
    {"vscode", "VS Code", FORM_JSON, "servers", "stdio", false, NULL, NULL, "Code/User/mcp.json",
     "Code/User/mcp.json"},
    {"codex", "Codex", FORM_TOML, NULL, NULL, false, "CODEX_HOME", ".codex/config.toml", NULL, NULL},
    {"gemini", "Gemini CLI", FORM_JSON, "mcpServers", NULL, false, NULL, ".gemini/settings.json", NULL, NULL},
};
#define N_CLIENTS (sizeof clients / sizeof clients[0])

/* The i-th client's name, NULL past the last: the choices of install's operand (completion). */
const char *install_client(size_t i)
{
    return i < N_CLIENTS ? clients[i].name : NULL;
}

/* The file client c keeps its servers in, into buf; 0, or 1 after a message (no $HOME). */
static int config_path(const client *c, char *buf, size_t cap)
{
    const char *home = getenv("HOME"), *dir = c->home_env ? getenv(c->home_env) : NULL;
    if (dir && *dir) {   /* $CODEX_HOME/config.toml */
        snprintf(buf, cap, "%s/%s", dir, strrchr(c->file, '/') + 1);
        return 0;
    }
    if (!home || !*home) {
        fprintf(stderr, "hyrax install: $HOME is not set, so %s's configuration cannot be found\n", c->title);
        return 1;
    }
#ifdef __APPLE__
    if (c->mac_file) {
        snprintf(buf, cap, "%s/Library/Application Support/%s", home, c->mac_file);
        return 0;
    }
#else
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (c->xdg_file) {
        if (xdg && *xdg == '/')
            snprintf(buf, cap, "%s/%s", xdg, c->xdg_file);
        else
            snprintf(buf, cap, "%s/.config/%s", home, c->xdg_file);
        return 0;
    }
#endif
    snprintf(buf, cap, "%s/%s", home, c->file);
    return 0;
}

/* === What the client runs === */

/* path made absolute into out (its folder resolved; the file itself need not exist); 0 or -1. */
static int absolute(const char *path, char *out, size_t cap)
{
    if (realpath(path, out))
        return 0;
    char dir[PATH_MAX], full[PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    if (!realpath(dir, full))
        return -1;
    return snprintf(out, cap, "%s/%s", strcmp(full, "/") ? full : "", slash ? slash + 1 : path) < (int)cap ? 0 : -1;
}

/* The server's command line: argv[0] this executable, then serve --db INDEX [--model M]; n words
 * in *n. The strings live in the caller's buffers. 0, or 1 after a message. */
static int server_command(const cli_args *a, char exe[PATH_MAX], char db[PATH_MAX], char model[PATH_MAX],
                          const char *argv[8], size_t *n)
{
    const char *given = opt_str(a, "--db"), *env = getenv(HX_DB_ENV), *m = opt_str(a, "--model");
    bool found = true;
    const char *path = given ? given : env && *env ? env : db_find(NULL, &found);
    struct stat st;
    if (!found) {
        fprintf(stderr, "hyrax install: no index here or in a folder above (%s); index a folder first ('hyrax "
                        "index FOLDER') or name the index with --db FILE\n", DEFAULT_DB);
        return 1;
    }
    if (hx_platform_exe_path(exe, PATH_MAX)) {
        fputs("hyrax install: this system does not tell where this executable is; add the server by hand\n", stderr);
        return 1;
    }
    if (absolute(path, db, PATH_MAX)) {
        fprintf(stderr, "hyrax install: cannot resolve the index path %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (stat(db, &st) != 0)
        fprintf(stderr, "hyrax install: note: %s does not exist yet; make it with 'hyrax index FOLDER --db %s' before "
                        "the client starts the server\n", db, db);
    *n = 0;
    argv[(*n)++] = exe;
    argv[(*n)++] = "serve";
    argv[(*n)++] = "--db";
    argv[(*n)++] = db;
    if (m) {   /* a weights file by its absolute path; a model name as it is */
        argv[(*n)++] = "--model";
        argv[(*n)++] = strchr(m, '/') && !absolute(m, model, PATH_MAX) ? model : m;
    }
    for (size_t i = 0; i < *n; i++) {   /* the JSON writer would replace bad bytes: refuse them instead */
        hxi_json_writer w;
        hxi_json_doc *d = NULL;
        hxi_json_writer_init(&w);
        hxi_json_write_cstr(&w, argv[i]);
        bool same = !hxi_json_parse(&d, w.buf, w.len, NULL, NULL) && !strcmp(hxi_json_str(hxi_json_doc_root(d), NULL), argv[i]);
        hxi_json_doc_free(d);
        hxi_json_writer_free(&w);
        if (!same) {
            fprintf(stderr, "hyrax install: the path %s is not valid UTF-8, which a configuration file cannot hold\n",
                    argv[i]);
            return 1;
        }
    }
    return 0;
}

/* The entry of client c for the command line argv[0..n): {"type", "command", "args", "env"}. */
static void write_entry(hxi_json_writer *w, const client *c, const char *const *argv, size_t n)
{
    hxi_json_write_obj_begin(w);
    if (c->type)
        hxi_json_kv_cstr(w, "type", c->type);
    hxi_json_kv_cstr(w, "command", argv[0]);
    hxi_json_write_key(w, "args");
    hxi_json_write_arr_begin(w);
    for (size_t i = 1; i < n; i++)
        hxi_json_write_cstr(w, argv[i]);
    hxi_json_write_arr_end(w);
    if (c->env) {
        hxi_json_write_key(w, "env");
        hxi_json_write_obj_begin(w);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_obj_end(w);
}

/* === JSON files === */

/* The indentation of one level in text: the white space that starts its second line (a file laid
 * out one member a line), else two spaces. */
static void indent_of(const char *text, size_t len, char out[16])
{
    const char *nl = len ? memchr(text, '\n', len) : NULL;
    size_t n = nl ? strspn(nl + 1, " \t") : 0;
    if (!n || n > 8 || nl + 1 + n >= text + len || nl[1 + n] == '\n' || nl[1 + n] == '\r')
        n = 0;
    snprintf(out, 16, "%.*s", (int)(n ? n : 2), n ? nl + 1 : "  ");
}

/* The value entry `old` keeps for want's member k = v: old's own where v is only a default (an
 * empty object, such as "env": {}, which must not wipe the variables a user set), else v. */
static const hxi_json_val *member_value(const hxi_json_val *old, const hxi_json_val *k, const hxi_json_val *v)
{
    const hxi_json_val *mine = hxi_json_obj_get(old, hxi_json_str(k, NULL));
    return mine && hxi_json_type_of(v) == HX_JSON_OBJECT && !hxi_json_len(v) ? mine : v;
}

/* Whether entry `old` already holds every member of `want` with the same value. */
static bool entry_holds(const hxi_json_val *old, const hxi_json_val *want)
{
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    hxi_json_iter_init(&it, want);
    while (hxi_json_iter_next(&it, &k, &v))
        if (!hxi_json_equal(hxi_json_obj_get(old, hxi_json_str(k, NULL)), member_value(old, k, v)))
            return false;
    return hxi_json_type_of(old) == HX_JSON_OBJECT;
}

/* The entry: want's members, then old's others (a key hyrax does not write is kept). */
static void merged_entry(hxi_json_writer *w, const hxi_json_val *old, const hxi_json_val *want)
{
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    hxi_json_write_obj_begin(w);
    hxi_json_iter_init(&it, want);
    while (hxi_json_iter_next(&it, &k, &v)) {
        hxi_json_write_key(w, hxi_json_str(k, NULL));
        hxi_json_write_val(w, member_value(old, k, v));
    }
    hxi_json_iter_init(&it, old);   /* nothing when old is not an object */
    while (hxi_json_iter_next(&it, &k, &v))
        if (!hxi_json_obj_get(want, hxi_json_str(k, NULL))) {
            hxi_json_write_key(w, hxi_json_str(k, NULL));
            hxi_json_write_val(w, v);
        }
    hxi_json_write_obj_end(w);
}

/* The file text old[0..len) (len 0: none) with c's servers member holding the hyrax entry `want`:
 * *out (caller frees; NULL when nothing changes). 0, or 1 after a message naming path. */
static int json_merge(const client *c, const char *path, const char *old, size_t len, const hxi_json_val *want,
                      char **out, size_t *out_len)
{
    hxi_json_doc *doc = NULL;
    hx_error err = {0};
    char where[64], indent[16];
    size_t blank = 0;
    while (blank < len && strchr(" \t\r\n", old[blank]))
        blank++;
    *out = NULL;
    if (hxi_json_parse(&doc, blank == len ? "{}" : old, blank == len ? 2 : len, NULL, &err)) {
        text_position(old, len, (size_t)(err.offset < 0 ? 0 : err.offset), where, sizeof where);
        fprintf(stderr, "hyrax install: %s is not valid JSON (%s: %s); nothing was written: fix it (or move it away) "
                        "and run this again\n", path, where, err.message);
        return 1;
    }
    const hxi_json_val *root = hxi_json_doc_root(doc), *servers = hxi_json_obj_get(root, c->servers);
    const hxi_json_val *mine = hxi_json_obj_get(servers, "hyrax");
    int rc = 0;
    if (hxi_json_type_of(root) != HX_JSON_OBJECT || (servers && hxi_json_type_of(servers) != HX_JSON_OBJECT)) {
        fprintf(stderr, "hyrax install: %s: %s is not a JSON object; nothing was written\n", path,
                hxi_json_type_of(root) != HX_JSON_OBJECT ? "the file" : c->servers);
        rc = 1;
    } else if (!entry_holds(mine, want)) {
        hxi_json_writer w;
        hxi_json_iter it, its;
        const hxi_json_val *k, *v, *sk, *sv;
        hxi_json_writer_init(&w);
        hxi_json_write_obj_begin(&w);
        hxi_json_iter_init(&it, root);
        while (hxi_json_iter_next(&it, &k, &v)) {
            hxi_json_write_key(&w, hxi_json_str(k, NULL));
            if (v != servers) {
                hxi_json_write_val(&w, v);
                continue;
            }
            hxi_json_write_obj_begin(&w);
            hxi_json_iter_init(&its, servers);
            while (hxi_json_iter_next(&its, &sk, &sv)) {
                hxi_json_write_key(&w, hxi_json_str(sk, NULL));
                if (sv == mine)
                    merged_entry(&w, mine, want);
                else
                    hxi_json_write_val(&w, sv);
            }
            if (!mine) {
                hxi_json_write_key(&w, "hyrax");
                merged_entry(&w, NULL, want);
            }
            hxi_json_write_obj_end(&w);
        }
        if (!servers) {
            hxi_json_write_key(&w, c->servers);
            hxi_json_write_obj_begin(&w);
            hxi_json_write_key(&w, "hyrax");
            merged_entry(&w, NULL, want);
            hxi_json_write_obj_end(&w);
        }
        hxi_json_write_obj_end(&w);
        indent_of(old, len, indent);
        char *pretty = hxi_json_writer_finish(&w, &err) ? NULL : hxi_json_pretty(w.buf, w.len, indent, out_len);
        bool newline = !len || old[len - 1] == '\n';   /* as the file ended; a new file ends with one */
        if (pretty && newline && !hx_grow((void **)&pretty, &(size_t){*out_len + 1}, *out_len + 2, 1, NULL)) {
            pretty[(*out_len)++] = '\n';
            pretty[*out_len] = 0;
        }
        if (!pretty) {
            fprintf(stderr, "hyrax install: out of memory\n");
            rc = 1;
        }
        *out = pretty;
        hxi_json_writer_free(&w);
    }
    hxi_json_doc_free(doc);
    return rc;
}

/* === Writing the file === */

/* The whole file at path into *text (caller frees), its size in *len, its mode in *mode: 0; 1
 * when there is none (*text NULL); -1 after a message. */
static int read_config(const char *path, char **text, size_t *len, mode_t *mode)
{
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && errno == ENOENT)
        return 1;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > HX_JSON_MAX_BYTES) {
        fprintf(stderr, "hyrax install: cannot read %s: %s\n", path,
                fd < 0 ? strerror(errno) : !S_ISREG(st.st_mode) ? "not a regular file" : "larger than 64 MiB");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *mode = st.st_mode & 07777;
    *text = hx_malloc((size_t)st.st_size + 1);
    ssize_t got = 0;
    while (*text && *len < (size_t)st.st_size && (got = read(fd, *text + *len, (size_t)st.st_size - *len)) > 0)
        *len += (size_t)got;
    close(fd);
    if (!*text || got < 0) {
        fprintf(stderr, "hyrax install: cannot read %s: %s\n", path, *text ? strerror(errno) : "out of memory");
        free(*text);
        *text = NULL;
        return -1;
    }
    (*text)[*len] = 0;
    return 0;
}

/* len bytes into a new file `path` (O_EXCL) with `mode`, synced; 0, else errno. */
static int put_file(const char *path, const char *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return errno;
    int e = fchmod(fd, mode) ? errno : 0;
    for (size_t off = 0; !e && off < len;) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno != EINTR)
            e = errno;
        off += n > 0 ? (size_t)n : 0;
    }
    if (!e && fsync(fd) != 0)
        e = errno;
    close(fd);
    if (e)
        unlink(path);
    return e;
}

/* Makes the folders above file path (as mkdir -p). */
static int make_parents(char *path)
{
    for (char *p = path + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        int rc = mkdir(path, 0755) != 0 && errno != EEXIST ? errno : 0;
        *p = '/';
        if (rc)
            return rc;
    }
    return 0;
}

/* Replaces path's text (old, len; NULL: a new file) by text: the old one copied to
 * path.bak-YYYYMMDD-HHMMSS first, the new one written beside it and renamed over it. A link is
 * followed, so the file it names changes. 0, or 1 after a message. */
static int write_config(const char *given, const char *old, size_t len, mode_t mode, const char *text, size_t n)
{
    char path[PATH_MAX], tmp[PATH_MAX + 32], bak[PATH_MAX + 40];
    if (!old || !realpath(given, path))
        snprintf(path, sizeof path, "%s", given);
    int e = old ? 0 : make_parents(path);
    if (old) {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
        snprintf(bak, sizeof bak, "%s.bak-%s", path, stamp);
        for (int i = 2; (e = put_file(bak, old, len, mode)) == EEXIST && i < 100; i++)
            snprintf(bak, sizeof bak, "%s.bak-%s-%d", path, stamp, i);
        if (e) {
            fprintf(stderr, "hyrax install: cannot back %s up to %s: %s; nothing was written\n", path, bak, strerror(e));
            return 1;
        }
    }
    snprintf(tmp, sizeof tmp, "%s.hyrax-%ld", path, (long)getpid());
    if (e || (e = put_file(tmp, text, n, old ? mode : 0600)) || (rename(tmp, path) != 0 && (e = errno))) {
        fprintf(stderr, "hyrax install: cannot write %s: %s\n", path, strerror(e));
        unlink(tmp);
        return 1;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    int dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);   /* the rename itself, on disk */
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    if (old)
        fprintf(stderr, "hyrax install: the previous %s is kept as %s\n", path, bak);
    return 0;
}

/* === install === */

/* --list: each client and the file it writes here. */
static int list_clients(void)
{
    for (size_t i = 0; i < N_CLIENTS; i++) {
        char path[PATH_MAX];
        if (config_path(&clients[i], path, sizeof path))
            return 1;
        printf("%-15s %-15s %s\n", clients[i].name, clients[i].title, path);
    }
    return 0;
}

/* The client called name, or NULL after a message (with "did you mean"). */
static const client *find_client(const char *name)
{
    const char *names[N_CLIENTS];
    for (size_t i = 0; i < N_CLIENTS; i++) {
        if (!strcmp(name, clients[i].name))
            return &clients[i];
        names[i] = clients[i].name;
    }
    const char *near = suggest(name, names, N_CLIENTS);
    fputs("hyrax install: no client '", stderr);
    put_text(stderr, name, 200, false);
    fputs("'", stderr);
    if (near)
        fprintf(stderr, " (did you mean %s?)", near);
    fputs("; give one of", stderr);
    for (size_t i = 0; i < N_CLIENTS; i++)
        fprintf(stderr, "%s%s", i ? ", " : " ", clients[i].name);
    fputs(" ('hyrax install --list')\n", stderr);
    return NULL;
}

int cmd_install(const cli_args *a)
{
    if (opt_str(a, "--list"))
        return a->n_operands ? (fputs("hyrax install: --list takes no CLIENT\n", stderr), 2) : list_clients();
    if (!a->n_operands) {
        fputs("hyrax install: give the CLIENT to add hyrax to ('hyrax install --list' names them)\n", stderr);
        return 2;
    }
    const client *c = find_client(a->operands[0]);
    if (!c)
        return 2;
    char exe[PATH_MAX], db[PATH_MAX], model[PATH_MAX], path[PATH_MAX];
    const char *argv[8];
    size_t argc;
    if (server_command(a, exe, db, model, argv, &argc) || config_path(c, path, sizeof path))
        return 1;
    char *old = NULL, *text = NULL;
    size_t len = 0, n = 0;
    mode_t mode = 0600;
    int got = read_config(path, &old, &len, &mode);
    if (got < 0)
        return 1;
    hxi_json_writer w;
    hxi_json_doc *want = NULL;
    hxi_json_writer_init(&w);
    write_entry(&w, c, argv, argc);
    int rc = hxi_json_parse(&want, w.buf, w.len, NULL, NULL) ? (fputs("hyrax install: out of memory\n", stderr), 1) : 0;
    bool print = opt_str(a, "--print") != NULL;
    if (!rc && c->form == FORM_TOML)
        rc = install_toml_merge(path, old, len, argv, argc, &text, &n);
    else if (!rc)
        rc = json_merge(c, path, old, len, hxi_json_doc_root(want), &text, &n);
    if (!rc && print) {   /* what goes into the file: the entry as the client's file holds it */
        if (c->form == FORM_TOML) {
            install_toml_table(stdout, argv, argc);
        } else {
            hxi_json_writer pw;
            hxi_json_writer_init(&pw);
            hxi_json_write_obj_begin(&pw);
            hxi_json_write_key(&pw, c->servers);
            hxi_json_write_obj_begin(&pw);
            hxi_json_write_key(&pw, "hyrax");
            hxi_json_write_val(&pw, hxi_json_doc_root(want));
            hxi_json_write_obj_end(&pw);
            hxi_json_write_obj_end(&pw);
            size_t pl;
            char *shown = hxi_json_writer_finish(&pw, NULL) ? NULL : hxi_json_pretty(pw.buf, pw.len, "  ", &pl);
            printf("%s\n", shown ? shown : "");
            free(shown);
            hxi_json_writer_free(&pw);
        }
        fprintf(stderr, "hyrax install: %s %s (--print: nothing was written)\n",
                !text ? "already in" : got ? "would create" : "would merge this into", path);
    } else if (!rc && !text) {
        fprintf(stderr, "hyrax install: %s already runs %s serve --db %s: nothing to change\n", path, exe, db);
    } else if (!rc && !(rc = write_config(path, got ? NULL : old, len, mode, text, n))) {
        fprintf(stderr, "hyrax install: %s %s: %s runs '%s serve --db %s'; restart %s\n", got ? "created" : "updated",
                path, c->title, exe, db, c->title);
    }
    hxi_json_doc_free(want);
    hxi_json_writer_free(&w);
    free(old);
    free(text);
    return rc;
}
