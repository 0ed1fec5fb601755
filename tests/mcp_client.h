/* mcp_client.h: the MCP tests' fixture over serve_client.h: one temp root and index per test
 * binary, JSON-RPC calls and tools/call with their answers parsed, initialize, index_health
 * numbers, /proc memory figures, deterministic filler text, and stopping the server. Shared by
 * test_mcp.c, test_mcp_stress.c and test_mcp_schema.c. */
#ifndef HX_MCP_CLIENT_H
#define HX_MCP_CLIENT_H

#include "check.h"
#include "serve_client.h"
#include "json.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX], db[PATH_MAX + 16];

static inline int start(server *s, int read_only)
{
    return start_in(s, root, db, read_only);
}

/* Sends a request and returns its parsed response (caller frees), skipping nothing: the next
 * line must be the answer. */
static inline hxi_json_doc *call(server *s, const char *line, int timeout_ms)
{
    send_line(s, line);
    char *out = read_line(s, timeout_ms);
    hxi_json_doc *doc = NULL;
    CHECK(out != NULL, "no answer to %.120s", line);
    if (out)
        CHECK(hxi_json_parse(&doc, out, strlen(out), NULL, NULL) == 0, "answer is JSON: %.200s", out);
    free(out);
    return doc;
}

static inline const hxi_json_val *tool(server *s, hxi_json_doc **doc, int id, const char *name, const char *args)
{
    char line[24576];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
             id, name, args);
    *doc = call(s, line, 60000);
    const hxi_json_val *r = *doc ? get(hxi_json_doc_root(*doc), "result") : NULL;
    CHECK(r != NULL, "%s: a result", name);
    return r;
}

static inline bool is_error(const hxi_json_val *r)
{
    return hxi_json_bool(get(r, "isError")) == 1;
}

/* A "Vm...:" line of /proc/PID/status in kB: VmRSS now, VmHWM the peak. */
static inline long status_kb(pid_t pid, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':')
            kb = atol(line + kl + 1);
    if (f)
        fclose(f);
    return kb;
}

static inline void initialize(server *s)
{
    hxi_json_doc *d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", 60000);
    CHECK(d && get(hxi_json_doc_root(d), "result.protocolVersion"), "initialize answered");
    hxi_json_doc_free(d);
    send_line(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* A number from index_health's structuredContent, -1 when absent. */
static inline int64_t health(server *s, int id, const char *key)
{
    hxi_json_doc *d;
    const hxi_json_val *r = tool(s, &d, id, "index_health", "{}");
    char path[96];
    snprintf(path, sizeof path, "structuredContent.%s", key);
    int64_t v = -1;
    if (!r || hxi_json_num_int64(get(r, path), &v, NULL))
        v = -1;
    hxi_json_doc_free(d);
    return v;
}

/* Appends about n bytes of English-like words (deterministic) to a fresh string; caller frees. */
static inline char *words(size_t n, unsigned seed)
{
    static const char *const w[] = {"scheduler", "places", "pods", "onto", "nodes", "storage", "volumes", "keep",
                                    "data", "bread", "flour", "water", "starter", "review", "design", "memory",
                                    "quota", "namespace", "limits", "the", "a", "with", "and", "of"};
    char *out = malloc(n + 32);
    size_t len = 0;
    while (len < n) {
        seed = seed * 1103515245u + 12345u;
        len += (size_t)sprintf(out + len, "%s%s", w[(seed >> 8) % (sizeof w / sizeof *w)], (seed >> 20) % 12 ? " " : ". ");
    }
    return out;
}

/* The text of a tool error (borrowed from the answer), or "" when there is none. */
static inline const char *error_text(const hxi_json_val *r)
{
    const char *t = r ? hxi_json_str(get(hxi_json_arr_get(get(r, "content"), 0), "text"), NULL) : NULL;
    return t ? t : "";
}

/* The text of a tool error, "" for an answer that is not one. */
static inline const char *fault_text(const hxi_json_val *r)
{
    return r && is_error(r) ? error_text(r) : "";
}

static inline int stop(server *s, int sig)
{
    int status = 0;
    if (sig)
        kill(s->pid, sig);
    close(s->in);
    waitpid(s->pid, &status, 0);
    close(s->out);
    free(s->buf);
    return status;
}

/* Under ASan, freed memory sits in a quarantine (256 MB by default) that the RSS bounds of these
 * tests would count as the server's own growth: keep it small for the servers they start. */
static inline void small_quarantine(void)
{
#if defined(__SANITIZE_ADDRESS__)
    setenv("ASAN_OPTIONS", "quarantine_size_mb=8", 0);
#endif
}

#endif
