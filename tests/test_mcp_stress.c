/* test_mcp_stress.c: `hyrax serve` under load and under its index, each on a server of its own: a
 * flood of 1 MB writes answered "busy" within a memory bound while a ping is still answered, and
 * the index file restored in place again and again while searches run, every call answered and
 * the server exiting cleanly. The fixture is mcp_client.h. */
#include "mcp_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>

/* Item 11: a slow write, then 300 pipelined add_document calls of 1 MB each (bad names, so each
 * is refused quickly once it runs) and a ping, written while the answers are read. Every request
 * gets exactly one answer, some are "busy" with a retry hint, the ping is answered while the slow
 * write still runs, and the server's peak RSS grows by far less than the 300 MB it was sent. */
static void test_busy(void)
{
    char broot[PATH_MAX + 8], bdb[PATH_MAX + 32];
    snprintf(broot, sizeof broot, "%s/busy", root);
    snprintf(bdb, sizeof bdb, "%s/busy.hyx", root);
    mkdir(broot, 0755);
    server b;
    if (start_in(&b, broot, bdb, 0))
        return;
    initialize(&b);
    hxi_json_doc *d;
    tool(&b, &d, 2, "search", "{\"query\":\"x\",\"mode\":\"keyword\"}");   /* waits for the model */
    hxi_json_doc_free(d);
    long base = status_kb(b.pid, "VmHWM");

    enum { FLOOD = 300, SLOW_ID = 3, PING_ID = 4, FIRST = 1000 };
    size_t mb = 1u << 20;
    char *body = malloc(mb + 1);
    memset(body, 'z', mb);
    for (size_t i = 100; i < mb; i += 100)
        body[i] = ' ';
    body[mb] = 0;
    char *slow_text = words(60000, 3);
    size_t slow_cap = strlen(slow_text) + 256;
    char *slow = malloc(slow_cap);
    snprintf(slow, slow_cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"add_document\",\"arguments\":{\"name\":\"slow.md\",\"content\":\"%s\"}}}\n",
             SLOW_ID, slow_text);
    free(slow_text);
    char *msg = malloc(mb + 512);
    int answers[FIRST + FLOOD] = {0};
    int busy = 0, refused = 0, bad = 0, order = 0, ping_at = 0, slow_at = 0, retry_hint = 1;
    int next = -1;   /* -1: the slow write, then 0..FLOOD-1: the flood (the ping as number 40) */
    size_t off = 0, len = 0;
    int fl = fcntl(b.in, F_GETFL);
    fcntl(b.in, F_SETFL, fl | O_NONBLOCK);
    int expected = FLOOD + 1, got = 0, idle_polls = 0;   /* the ping takes flood 40's place */
    while (got < expected && idle_polls < 300) {
        if (off == len && next < FLOOD) {   /* compose the next message */
            if (next == -1)
                len = (size_t)snprintf(msg, mb + 512, "%s", slow);
            else if (next == 40)   /* well past the queue's byte bound */
                len = (size_t)snprintf(msg, mb + 512, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", PING_ID);
            else
                len = (size_t)snprintf(msg, mb + 512, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"add_document\",\"arguments\":{\"name\":\"../flood-%d.md\",\"content\":\"%s\"}}}\n",
                                       FIRST + next, next, body);
            off = 0;
            next++;
        }
        struct pollfd p[2] = {{b.out, POLLIN, 0}, {off < len ? b.in : -1, POLLOUT, 0}};
        int n = poll(p, 2, 1000);
        idle_polls = n == 0 ? idle_polls + 1 : 0;
        if (off < len && (p[1].revents & POLLOUT)) {
            ssize_t w = write(b.in, msg + off, len - off);
            if (w > 0)
                off += (size_t)w;
        }
        if (!(p[0].revents & (POLLIN | POLLHUP)))
            continue;
        char *line;
        while ((line = read_line(&b, 0))) {
            hxi_json_doc *a = NULL;
            int64_t id = -1;
            if (hxi_json_parse(&a, line, strlen(line), NULL, NULL) || hxi_json_num_int64(get(hxi_json_doc_root(a), "id"), &id, NULL) ||
                id < 0 || id >= FIRST + FLOOD) {
                bad++;
                fprintf(stderr, "unexpected line: %.300s\n", line);
            } else {
                answers[id]++;
                got++;
                order++;
                const hxi_json_val *root_v = hxi_json_doc_root(a);
                int64_t code = 0, retry = 0;
                hxi_json_num_int64(get(root_v, "error.code"), &code, NULL);
                if (id == PING_ID)
                    ping_at = order;
                else if (id == SLOW_ID) {
                    slow_at = order;
                    CHECK(get(root_v, "result") && !is_error(get(root_v, "result")), "the slow write succeeds: %.200s", line);
                } else if (code == -32003) {
                    busy++;
                    const char *m = hxi_json_str(get(root_v, "error.message"), NULL);
                    retry_hint &= hxi_json_num_int64(get(root_v, "error.data.retry_after_ms"), &retry, NULL) == 0 &&
                                  retry > 0 && m && strstr(m, "busy");
                } else if (get(root_v, "result") && is_error(get(root_v, "result"))) {
                    refused++;
                } else {
                    bad++;
                    fprintf(stderr, "unexpected answer: %.300s\n", line);
                }
            }
            hxi_json_doc_free(a);
            free(line);
        }
    }
    fcntl(b.in, F_SETFL, fl);
    int dup = 0, missing = 0;
    for (int id = 0; id < FIRST + FLOOD; id++) {
        int want = id == SLOW_ID || id == PING_ID || (id >= FIRST && id != FIRST + 40);
        missing += want && answers[id] == 0;
        dup += answers[id] > 1 || (!want && answers[id]);
    }
    long peak = status_kb(b.pid, "VmHWM");
    CHECK(got == expected && missing == 0 && dup == 0 && bad == 0,
          "every request answered once: %d of %d, %d missing, %d twice, %d unexpected", got, expected, missing, dup, bad);
    CHECK(busy > 0 && retry_hint, "some writes answered busy with error.data.retry_after_ms: %d busy, %d refused", busy,
          refused);
    CHECK(ping_at > 0 && ping_at < slow_at, "the ping answered while the slow write ran (answer %d, write %d)", ping_at,
          slow_at);
    CHECK(base > 0 && peak < base + 160 * 1024, "peak RSS %ld kB after 300 MB sent, %ld kB before", peak, base);
    CHECK(health(&b, 5, "jobs_busy") == busy, "index_health counts the busy answers");
    printf("busy run: %d busy, %d refused, VmHWM %ld -> %ld kB\n", busy, refused, base, peak);
    free(body);
    free(slow);
    free(msg);
    stop(&b, 0);
}

/* Issue 9, item 9: the index restored in place (as cp does: truncate, then write) again and
 * again while the server answers searches. Every call gets an answer or a tool error; the server
 * survives and exits cleanly. */
static void test_overwritten_underneath(void)
{
    char big_root[PATH_MAX + 16], big[PATH_MAX + 32], cmd[8 * PATH_MAX], saved[sizeof db];
    snprintf(big_root, sizeof big_root, "%s.big", root);
    snprintf(big, sizeof big, "%s.big.hyx", root);
    mkdir(big_root, 0755);
    for (int i = 0; i < 120; i++) {
        snprintf(cmd, sizeof cmd, "%s/n%03d.md", big_root, i);
        FILE *f = fopen(cmd, "w");
        if (f) {
            fprintf(f, "# Note %d\n\nThe kubelet restarts containers; quotas cap namespaces. Note %d.\n", i, i);
            fclose(f);
        }
    }
    snprintf(cmd, sizeof cmd, "\"${HYRAX_BIN:-./hyrax}\" index --db %s.other %s >/dev/null 2>&1 && echo more > %s/more.md && "
             "\"${HYRAX_BIN:-./hyrax}\" index --db %s %s >/dev/null 2>&1", big, big_root, big_root, big, big_root);
    CHECK(system(cmd) == 0, "index 120 notes, then 121 into another file");
    size_t len, other_len;
    snprintf(cmd, sizeof cmd, "%s.other", big);
    char *bytes = check_read_file(big, &len), *other = check_read_file(cmd, &other_len);
    memcpy(saved, db, sizeof db);
    snprintf(db, sizeof db, "%.*s", (int)sizeof db - 1, big);
#if defined(__SANITIZE_ADDRESS__)
    setenv("ASAN_OPTIONS", "quarantine_size_mb=8:detect_leaks=0", 1);   /* an abandoned call leaks (hyrax.h) */
#endif
    signal(SIGPIPE, SIG_IGN);   /* a server that died shows as missing answers, not as our death */
    server s;
    if (!bytes || !other || start(&s, 1)) {
        free(bytes);
        free(other);
        return;
    }
    initialize(&s);
    fflush(NULL);
    pid_t ow = fork();
    if (ow == 0) {   /* the two files by turns, so every restore brings a different commit */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (unsigned k = 0;; k++) {
            const char *b = k % 2 ? other : bytes;
            size_t n = k % 2 ? other_len : len;
            int fd = open(big, O_WRONLY | O_TRUNC);
            usleep(500);
            for (size_t o = 0; fd >= 0 && o < n; o += 131072)
                if (write(fd, b + o, n - o < 131072 ? n - o : 131072) < 0)
                    break;
            close(fd);
            usleep(500);
        }
    }
    int answered = 0, errors = 0;
    for (int round = 0; round < 40; round++) {   /* pipelined, so the server reads back to back */
        for (int i = 0; i < 50; i++) {
            char line[256];
            snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"search\",\"arguments\":{\"query\":\"kubelet quotas\",\"mode\":\"keyword\"}}}", i);
            send_line(&s, line);
        }
        for (int i = 0; i < 50; i++) {
            char *out = read_line(&s, 60000);
            hxi_json_doc *d = NULL;
            const hxi_json_val *r = out && !hxi_json_parse(&d, out, strlen(out), NULL, NULL) ? get(hxi_json_doc_root(d), "result") : NULL;
            answered += r && !is_error(r);
            errors += r && is_error(r);
            hxi_json_doc_free(d);
            free(out);
        }
    }
    kill(ow, SIGKILL);
    waitpid(ow, NULL, 0);
    CHECK(answered + errors == 2000, "every search answered (%d) or failed as a tool error (%d)", answered, errors);
    int status = stop(&s, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server survives the overwrites (status %d)", status);
    memcpy(db, saved, sizeof db);
    free(bytes);
    free(other);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s.other'", big_root, big, big);
    CHECK(system(cmd) == 0, "cleanup");
}


int main(void)
{
    char tmpl[] = "/tmp/hxi_mcp_stress_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    small_quarantine();
    test_busy();
    test_overwritten_underneath();
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", root, root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_mcp_stress");
}
