/* cmd_verify.c: `hyrax verify`, every checksum of the index, or the detached signatures of files
 * against the project's trust store (hyrax.h "Signatures"): its help text and run function. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char verify_about[] =
    "Without FILE: checks every checksum and table of the index; exit 1 on damage.\n"
    "With FILEs: checks each file's detached signature, FILE.minisig (minisign) or FILE.sig\n"
    "(ssh-keygen -Y sign -n hyrax), against the keys trusted in the current folder's project:\n"
    ".hyrax/trusted/*.pub (minisign public keys) and .hyrax/allowed_signers (OpenSSH). Prints the\n"
    "signer of each; exit 1 when any file is unsigned or its signature is refused (reason on stderr).\n";

/* Opens the index and checks it; the exit status. Runs under guarded(). */
static int run_verify(void *arg)
{
    const db_job *j = arg;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    if (open_reader(&ix, j->db, NULL, j->identity, &err) || hx_index_verify(ix, &err) ||
        hx_index_stats_get(ix, &st, &err)) {
        if (err.offset >= 0)
            fprintf(stderr, "hyrax verify: %s: %s (at byte %lld)\n", j->db, err.message, (long long)err.offset);
        else
            fprintf(stderr, "hyrax verify: %s: %s\n", j->db, err.message);
        hx_index_close(ix);
        return 1;
    }
    put_text(stdout, j->db, SIZE_MAX, false);
    printf(": ok, generation %llu, %llu %s, %llu %s, every checksum verified\n", (unsigned long long)st.generation,
           (unsigned long long)st.documents, plural(st.documents, "document", "documents"),
           (unsigned long long)st.live_chunks, plural(st.live_chunks, "chunk", "chunks"));
    hx_index_close(ix);
    return 0;
}

/* Reads the regular file at path, at most max bytes (caller frees); NULL with errno set on failure:
 * EINVAL for anything but a regular file (a FIFO or a device is never waited on), EFBIG past max. */
static char *read_whole(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e = 0;
    struct stat st;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max)
        e = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
    else if (!(buf = hx_malloc(cap = (size_t)st.st_size + 1)))   /* + 1: a file that grew reads as too large */
        e = ENOMEM;
    while (!e && n < cap) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got == 0)
            break;
        if (got < 0 && errno != EINTR)
            e = errno;
        n += got > 0 ? (size_t)got : 0;
    }
    close(fd);
    if (!e && n > max)
        e = EFBIG;
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    *len = n;
    return buf;
}

/* Why read_whole failed, in words. */
static const char *read_error(int e)
{
    return e == EINVAL ? "not a regular file" : e == EFBIG ? "too large" : strerror(e);
}

/* `hyrax verify FILE...`: each file's signature against the project's trust store (hyrax.h).
 * Documents up to the indexing limit and signature files up to HX_SIG_MAX_FILE are read. */
static int verify_signatures(const char *const *files, size_t n)
{
    hx_trust *t = NULL;
    hx_error err = {0};
    if (hx_trust_load(&t, ".", &err)) {
        fprintf(stderr, "hyrax verify: trust store: %s\n", err.message);
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        size_t dlen = 0, slen = 0;
        char *doc = read_whole(files[i], HX_MAX_FILE_BYTES, &dlen), *sig = NULL, sig_path[4200] = "";
        int doc_errno = errno, sig_errno = ENOENT;
        for (int k = 0; doc && !sig && sig_errno == ENOENT && hx_sig_suffix(k); k++) {
            snprintf(sig_path, sizeof sig_path, "%s%s", files[i], hx_sig_suffix(k));
            sig = read_whole(sig_path, HX_SIG_MAX_FILE, &slen);
            sig_errno = sig ? 0 : errno;
        }
        hx_sig_result r;
        int rc = !doc || !sig ? -1 : hx_sig_verify(t, doc, dlen, sig, slen, &r, &err);
        if (rc == 0) {
            put_text(stdout, files[i], SIZE_MAX, false);
            printf(": ok, signed by ");
            put_text(stdout, r.signer, SIZE_MAX, false);
            printf(" (%s, key %s", hx_sig_format_name(r.format), r.key_id);
            if (r.comment[0]) {
                printf(", \"");
                put_text(stdout, r.comment, SIZE_MAX, false);
                putchar('"');
            }
            printf(")\n");
        } else {
            bad = 1;
            put_text(stderr, files[i], SIZE_MAX, false);
            if (!doc) {
                fprintf(stderr, ": cannot read: %s\n", read_error(doc_errno));
            } else if (!sig && sig_errno == ENOENT) {
                fputs(": not signed (no ", stderr);
                put_text(stderr, files[i], SIZE_MAX, false);
                fputs(".minisig or .sig)\n", stderr);
            } else if (!sig) {
                fputs(": cannot read its signature ", stderr);
                put_text(stderr, sig_path, SIZE_MAX, false);
                fprintf(stderr, ": %s\n", read_error(sig_errno));
            } else {
                fprintf(stderr, ": rejected: ");
                put_text(stderr, r.reason, SIZE_MAX, false);
                fputc('\n', stderr);
            }
        }
        free(doc);
        free(sig);
    }
    hx_trust_free(t);
    return bad;
}

int cmd_verify(const cli_args *a)
{
    hx_identity id;
    db_job job = {db_opt(a), 0, NULL};
    if (identity_opt(a, "verify", &id, &job.identity))
        return 2;
    return a->n_operands ? verify_signatures(a->operands, a->n_operands) : guarded("verify", run_verify, &job);
}
