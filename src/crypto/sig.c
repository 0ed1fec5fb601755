/* sig.c: minisign and OpenSSH SSHSIG signature files, the allowed_signers format and the trust
 * store (sig.h). Every parser works on a bounded buffer with an end pointer and refuses what it
 * does not understand; the Ed25519 check itself is ed25519.c. Formats:
 *   minisign public key   base64("Ed" | key id[8] | public key[32])
 *   minisign signature    "untrusted comment: ..." \n base64(alg[2] | key id[8] | sig[64]) \n
 *                         "trusted comment: TEXT" \n base64(global sig[64]) \n
 *                         alg "Ed" signs the file, "ED" signs BLAKE2b-512(file); the global
 *                         signature covers sig[64] | TEXT.
 *   SSHSIG (PROTOCOL.sshsig) "-----BEGIN SSH SIGNATURE-----", base64 lines, "-----END ...":
 *                         "SSHSIG" | u32 version 1 | string publickey | string namespace |
 *                         string reserved | string hash_algorithm | string signature; the key
 *                         signs "SSHSIG" | string namespace | string reserved | string hash_alg |
 *                         string H(document). */
#include "sig.h"

#include "alloc.h"
#include "blake2b.h"
#include "ed25519.h"
#include "fsafe.h"
#include "sha256.h"
#include "sha512.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* === Trust store === */

typedef struct trust_key {
    hx_sig_format kind;
    uint8_t pk[32];
    uint8_t id[8];          /* minisign key id as stored (little-endian) */
    char *principals;       /* ssh: the principals field; NULL for minisign */
    char *namespaces;       /* ssh: the namespaces="..." list, NULL when the line has none */
} trust_key;

struct hx_trust {
    trust_key *keys;
    size_t n, cap;
};

const char *hx_sig_format_name(hx_sig_format f)
{
    return f == HX_SIG_MINISIGN ? "minisign" : f == HX_SIG_SSH ? "ssh" : "none";
}

const char *hx_sig_suffix(int i)
{
    static const char *const suffixes[] = {".minisig", ".sig"};
    return i >= 0 && i < 2 ? suffixes[i] : NULL;
}

int hxi_trust_new(hx_trust **out, hx_error *err)
{
    *out = hx_calloc(1, sizeof **out);
    return *out ? 0 : hx_error_set(err, HX_ENOMEM, -1, "trust store: out of memory");
}

void hx_trust_free(hx_trust *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->keys[i].principals);
        free(t->keys[i].namespaces);
    }
    free(t->keys);
    free(t);
}

size_t hxi_trust_count(const hx_trust *t) { return t ? t->n : 0; }

/* Takes ownership of principals and namespaces (freed on failure too). */
static int trust_push(hx_trust *t, const trust_key *k, hx_error *err)
{
    int rc = t->n >= HX_SIG_MAX_KEYS
                 ? hx_error_set(err, HX_ERANGE, -1, "trust store: more than %d keys", HX_SIG_MAX_KEYS)
                 : hx_grow((void **)&t->keys, &t->cap, t->n + 1, sizeof *t->keys, err);
    if (rc) {
        free(k->principals);
        free(k->namespaces);
        return rc;
    }
    t->keys[t->n++] = *k;
    return 0;
}

/* === Text helpers === */

static int b64_value(uint8_t c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Strict base64 (RFC 4648, padded) of in[0..len) into out[0..cap); *n gets the decoded length.
 * Returns -1 for a bad character, bad padding, or output over cap. */
static int b64_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *n)
{
    if (len % 4)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4], pad = 0;
        for (int j = 0; j < 4; j++) {
            if (in[i + j] == '=' && i + 4 == len && j >= 2 && (j == 3 || in[i + 3] == '=')) {
                v[j] = 0;
                pad++;
            } else if ((v[j] = b64_value(in[i + j])) < 0 || pad) {
                return -1;
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        uint8_t b[3] = {(uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w};
        if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))
            return -1;                                  /* non-zero bits under the padding */
        if (o + 3 - (size_t)pad > cap)
            return -1;
        memcpy(out + o, b, 3 - (size_t)pad);
        o += 3 - (size_t)pad;
    }
    *n = o;
    return 0;
}

static void b64_encode_nopad(const uint8_t *in, size_t len, char *out, size_t cap)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < len && o + 5 < cap; i += 3) {
        uint32_t w = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < len ? in[i + 2] : 0);
        out[o++] = a[w >> 18 & 63];
        out[o++] = a[w >> 12 & 63];
        if (i + 1 < len)
            out[o++] = a[w >> 6 & 63];
        if (i + 2 < len)
            out[o++] = a[w & 63];
    }
    out[o] = 0;
}

/* A line of a text buffer: [p, end) without its "\n" (and a "\r" before it). */
typedef struct line { const char *p; size_t len; } line;

/* The next line from *cur (< end); returns 0 at the end of the buffer. */
static int next_line(const char **cur, const char *end, line *l)
{
    if (*cur >= end)
        return 0;
    const char *nl = memchr(*cur, '\n', (size_t)(end - *cur));
    const char *stop = nl ? nl : end;
    l->p = *cur;
    l->len = (size_t)(stop - *cur);
    if (l->len && l->p[l->len - 1] == '\r')
        l->len--;
    *cur = nl ? nl + 1 : end;
    return 1;
}

static int starts(const line *l, const char *prefix)
{
    size_t n = strlen(prefix);
    return l->len >= n && memcmp(l->p, prefix, n) == 0;
}

static void copy_str(char *dst, size_t cap, const char *src, size_t len)
{
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

static void key_id_hex(const uint8_t id[8], char out[17])
{
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02X", id[7 - i]);   /* minisign prints the id as a LE u64 */
}

/* ssh-keygen -l's fingerprint of a key blob: "SHA256:" + unpadded base64 of SHA-256(blob). */
static void ssh_fingerprint(const uint8_t *blob, size_t len, char *out, size_t cap)
{
    hxi_sha256 s;
    uint8_t d[32];
    hxi_sha256_init(&s);
    hxi_sha256_update(&s, blob, len);
    hxi_sha256_final(&s, d);
    snprintf(out, cap, "SHA256:");
    b64_encode_nopad(d, 32, out + 7, cap - 7);
}

/* === SSH wire reading (RFC 4251 string: u32 big-endian length, bytes) === */

typedef struct rd { const uint8_t *p, *end; } rd;

static int rd_u32(rd *r, uint32_t *v)
{
    if (r->end - r->p < 4)
        return -1;
    *v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
    r->p += 4;
    return 0;
}

static int rd_string(rd *r, const uint8_t **s, size_t *len)
{
    uint32_t n;
    if (rd_u32(r, &n) || (size_t)(r->end - r->p) < n)
        return -1;
    *s = r->p;
    *len = n;
    r->p += n;
    return 0;
}

static int str_is(const uint8_t *s, size_t len, const char *want)
{
    return len == strlen(want) && memcmp(s, want, len) == 0;
}

/* An ssh-ed25519 public key blob (string "ssh-ed25519", string key[32]) into pk. Returns 0, 1 for
 * a well-formed blob of another key type (its name in *type), -1 when malformed. */
static int ssh_key_blob(const uint8_t *blob, size_t len, uint8_t pk[32], const uint8_t **type,
                        size_t *type_len)
{
    rd r = {blob, blob + len};
    const uint8_t *k;
    size_t klen;
    if (rd_string(&r, type, type_len))
        return -1;
    if (!str_is(*type, *type_len, "ssh-ed25519"))
        return 1;
    if (rd_string(&r, &k, &klen) || klen != 32 || r.p != r.end)
        return -1;
    memcpy(pk, k, 32);
    return 0;
}

/* === Loading keys === */

int hxi_trust_add_minisign(hx_trust *t, const char *text, size_t len, const char *name, hx_error *err)
{
    const char *origin = name;
    const char *cur = text, *end = text + len;
    line l;
    if (len > HX_SIG_MAX_TRUST_FILE)
        return hx_error_set(err, HX_ERANGE, -1, "%s: larger than %d bytes", origin, HX_SIG_MAX_TRUST_FILE);
    if (!next_line(&cur, end, &l))
        return hx_error_set(err, HX_EFORMAT, 0, "%s: empty, not a minisign public key", origin);
    if (starts(&l, "untrusted comment:") && !next_line(&cur, end, &l))
        return hx_error_set(err, HX_EFORMAT, (int64_t)len, "%s: no key line after the comment", origin);
    uint8_t raw[42];
    size_t n;
    if (b64_decode((const uint8_t *)l.p, l.len, raw, sizeof raw, &n) || n != 42 || memcmp(raw, "Ed", 2))
        return hx_error_set(err, HX_EFORMAT, l.p - text,
                            "%s: not a minisign public key (want base64 of \"Ed\", key id, 32-byte key)", origin);
    line rest;
    while (next_line(&cur, end, &rest))
        if (rest.len)
            return hx_error_set(err, HX_EFORMAT, rest.p - text, "%s: text after the key line", origin);
    for (size_t i = 0; i < t->n; i++)   /* signatures find their key by id: one key per id */
        if (t->keys[i].kind == HX_SIG_MINISIGN && !memcmp(t->keys[i].id, raw + 2, 8) &&
            memcmp(t->keys[i].pk, raw + 10, 32)) {
            char id[17];
            key_id_hex(raw + 2, id);
            return hx_error_set(err, HX_EFORMAT, l.p - text, "%s: key id %s already names another "
                                "trusted key (%s)", origin, id, t->keys[i].principals);
        }
    trust_key k = {.kind = HX_SIG_MINISIGN, .principals = hx_strdup(name)};
    if (!k.principals)
        return hx_error_set(err, HX_ENOMEM, -1, "%s: out of memory", origin);
    memcpy(k.id, raw + 2, 8);
    memcpy(k.pk, raw + 10, 32);
    return trust_push(t, &k, err);
}

/* The next whitespace-delimited field of [*p, end); a field may hold "double-quoted" parts (with
 * spaces). Returns 0 when there is none; -1 for an unterminated quote. */
static int next_field(const char **p, const char *end, const char **f, size_t *flen)
{
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
    if (*p >= end)
        return 0;
    const char *s = *p;
    int quoted = 0;
    for (; *p < end && (quoted || (**p != ' ' && **p != '\t')); (*p)++)
        if (**p == '"')
            quoted = !quoted;
    if (quoted)
        return -1;
    *f = s;
    *flen = (size_t)(*p - s);
    return 1;
}

/* The options field "opt1,opt2=\"a,b\"", cut at commas outside quotes: 0, HX_ENOMEM, HX_EPARSE for
 * an option hyrax does not read, HX_EINVAL for a second namespaces= (ssh-keygen refuses such a
 * line too); *bad points at the option at fault. */
static int parse_options(const char *o, size_t len, char **namespaces, const char **bad, size_t *bad_len)
{
    const char *end = o + len;
    while (o < end) {
        const char *s = o;
        int quoted = 0;
        for (; o < end && (quoted || *o != ','); o++)
            if (*o == '"')
                quoted = !quoted;
        size_t n = (size_t)(o - s);
        if (n > 12 && !strncasecmp(s, "namespaces=\"", 12) && s[n - 1] == '"') {
            if (*namespaces) {
                *bad = s;
                *bad_len = n;
                return HX_EINVAL;
            }
            if (!(*namespaces = hx_strndup(s + 12, n - 13)))
                return HX_ENOMEM;
        } else {
            /* cert-authority, valid-after, valid-before: hyrax trusts plain keys for all time
             * only; anything else is not an allowed_signers option at all. */
            *bad = s;
            *bad_len = n;
            return HX_EPARSE;
        }
        if (o < end)
            o++;
    }
    return 0;
}

static int is_keytype(const char *f, size_t n)
{
    static const char *const types[] = {"ssh-ed25519", "ssh-rsa", "ssh-dss", "ecdsa-sha2-nistp256",
                                        "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
                                        "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (n == strlen(types[i]) && !memcmp(f, types[i], n))
            return 1;
    return 0;
}

static int add_signers(hx_trust *t, const char *text, size_t len, const char *origin, hx_error *err)
{
    if (len > HX_SIG_MAX_TRUST_FILE)
        return hx_error_set(err, HX_ERANGE, -1, "%s: larger than %d bytes", origin, HX_SIG_MAX_TRUST_FILE);
    const char *cur = text, *end = text + len;
    line l;
    for (int lineno = 1; next_line(&cur, end, &l); lineno++) {
        const char *p = l.p, *le = l.p + l.len, *f;
        size_t fl;
        while (p < le && (*p == ' ' || *p == '\t'))
            p++;
        if (p == le || *p == '#')
            continue;
        const char *principals;
        size_t plen;
        int rc = next_field(&p, le, &principals, &plen);
        if (rc <= 0)
            return hx_error_set(err, HX_EPARSE, l.p - text, "%s:%d: unterminated quote", origin, lineno);
        char *namespaces = NULL;
        if ((rc = next_field(&p, le, &f, &fl)) <= 0) {
            return hx_error_set(err, HX_EPARSE, l.p - text, "%s:%d: no key after the principals",
                                origin, lineno);
        }
        if (!is_keytype(f, fl)) {   /* options come first */
            const char *bad = NULL;
            size_t bad_len = 0;
            rc = parse_options(f, fl, &namespaces, &bad, &bad_len);
            if (rc == HX_ENOMEM)
                return hx_error_set(err, HX_ENOMEM, -1, "%s: out of memory", origin);
            if (rc == HX_EINVAL) {
                free(namespaces);
                return hx_error_set(err, HX_EPARSE, bad - text, "%s:%d: more than one namespaces= option (\"%.*s\")",
                                    origin, lineno, (int)(bad_len > 60 ? 60 : bad_len), bad);
            }
            if (rc) {
                free(namespaces);
                return hx_error_set(err, HX_EPARSE, bad - text,
                                    "%s:%d: \"%.*s\" is neither a key type nor a supported option "
                                    "(hyrax reads namespaces=\"...\" only)",
                                    origin, lineno, (int)(bad_len > 60 ? 60 : bad_len), bad);
            }
            if (next_field(&p, le, &f, &fl) <= 0 || !is_keytype(f, fl)) {
                free(namespaces);
                return hx_error_set(err, HX_EPARSE, l.p - text, "%s:%d: no known key type after the options",
                                    origin, lineno);
            }
        }
        int ed = fl == 11 && !memcmp(f, "ssh-ed25519", 11);
        const char *b64;
        size_t blen, n;
        uint8_t blob[4096];
        if (next_field(&p, le, &b64, &blen) <= 0 ||
            b64_decode((const uint8_t *)b64, blen, blob, sizeof blob, &n)) {
            free(namespaces);
            return hx_error_set(err, HX_EPARSE, l.p - text, "%s:%d: the key is not valid base64", origin, lineno);
        }
        const uint8_t *type;
        size_t type_len;
        trust_key k = {.kind = HX_SIG_SSH, .namespaces = namespaces};
        rc = ssh_key_blob(blob, n, k.pk, &type, &type_len);
        if (rc < 0 || (rc == 0) != ed || (rc == 1 && (type_len != fl || memcmp(type, f, fl)))) {
            free(namespaces);
            return hx_error_set(err, HX_EPARSE, l.p - text, "%s:%d: the key does not match its type %.*s",
                                origin, lineno, (int)fl, f);
        }
        if (!ed) {          /* another key type: valid, never trusted */
            free(namespaces);
            continue;
        }
        if (plen >= 2 && principals[0] == '"' && principals[plen - 1] == '"') {
            principals++;
            plen -= 2;
        }
        if (!(k.principals = hx_strndup(principals, plen))) {
            free(namespaces);
            return hx_error_set(err, HX_ENOMEM, -1, "%s: out of memory", origin);
        }
        if ((rc = trust_push(t, &k, err)) != 0)
            return rc;
    }
    return 0;
}

int hxi_trust_add_allowed_signers(hx_trust *t, const char *text, size_t len, const char *origin,
                                  hx_error *err)
{
    size_t before = t->n;
    int rc = add_signers(t, text, len, origin, err);
    while (rc && t->n > before) {   /* a bad line fails the whole file: take back its keys */
        t->n--;
        free(t->keys[t->n].principals);
        free(t->keys[t->n].namespaces);
    }
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int hx_trust_load(hx_trust **out, const char *root, hx_error *err)
{
    hx_trust *t;
    int rc = hxi_trust_new(&t, err);
    if (rc)
        return rc;
    char path[4096], name[512];
    char **names = NULL;
    size_t n = 0, cap = 0;
    char *buf = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/.hyrax/trusted", root);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t nl = strlen(e->d_name);
        if (nl < 5 || nl > 255 || strcmp(e->d_name + nl - 4, ".pub") || e->d_name[0] == '.')
            continue;
        char *copy = NULL;
        if ((rc = hx_grow((void **)&names, &cap, n + 1, sizeof *names, err)) != 0 ||
            !(copy = hx_strdup(e->d_name))) {
            rc = rc ? rc : hx_error_set(err, HX_ENOMEM, -1, "trust store: out of memory");
            goto done;
        }
        names[n++] = copy;
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, ".hyrax/trusted/%s", names[i]);
        if ((rc = hxi_fs_read_under(root, name, HX_SIG_MAX_TRUST_FILE, &buf, &len, NULL, err)) != 0)
            goto done;
        names[i][strlen(names[i]) - 4] = 0;          /* the signer's name: the file's stem */
        if ((rc = hxi_trust_add_minisign(t, buf, len, names[i], err)) != 0) {
            char why[256];
            snprintf(why, sizeof why, "%s", err ? err->message : "");
            hx_error_set(err, rc, -1, "%s: %s", name, why);
            goto done;
        }
        free(buf);
        buf = NULL;
    }
    rc = hxi_fs_read_under(root, ".hyrax/allowed_signers", HX_SIG_MAX_TRUST_FILE, &buf, &len, NULL, err);
    if (rc == HX_ENOTFOUND)
        rc = 0;
    else if (rc == 0)
        rc = hxi_trust_add_allowed_signers(t, buf, len, ".hyrax/allowed_signers", err);
done:
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(buf);
    if (rc) {
        hx_trust_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

/* === Verification === */

static int fail(hx_sig_result *res, hx_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(hx_sig_result *res, hx_error *err, int code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (res)
        copy_str(res->reason, sizeof res->reason, msg, strlen(msg));
    return hx_error_set(err, code, -1, "%s", msg);
}

/* Decodes one base64 line into exactly `want` bytes. */
static int b64_line(const line *l, uint8_t *out, size_t want)
{
    size_t n;
    return b64_decode((const uint8_t *)l->p, l->len, out, want, &n) || n != want ? -1 : 0;
}

static int verify_minisign(const hx_trust *t, const uint8_t *doc, size_t doc_len, const char *text,
                           size_t len, hx_sig_result *res, hx_error *err)
{
    const char *cur = text, *end = text + len;
    line l1, l2, l3, l4, rest;
    uint8_t sig[74], global[64];
    if (!next_line(&cur, end, &l1) || !starts(&l1, "untrusted comment:") || !next_line(&cur, end, &l2) ||
        !next_line(&cur, end, &l3) || !next_line(&cur, end, &l4))
        return fail(res, err, HX_EFORMAT, "minisign: want 4 lines (untrusted comment, signature, "
                    "trusted comment, global signature)");
    while (next_line(&cur, end, &rest))
        if (rest.len)
            return fail(res, err, HX_EFORMAT, "minisign: text after the global signature");
    if (b64_line(&l2, sig, sizeof sig) || (memcmp(sig, "Ed", 2) && memcmp(sig, "ED", 2)))
        return fail(res, err, HX_EFORMAT, "minisign: line 2 is not an Ed25519 signature "
                    "(base64 of \"Ed\" or \"ED\", key id, 64 bytes)");
    if (!starts(&l3, "trusted comment: "))
        return fail(res, err, HX_EFORMAT, "minisign: line 3 is not \"trusted comment: ...\"");
    if (b64_line(&l4, global, sizeof global))
        return fail(res, err, HX_EFORMAT, "minisign: line 4 is not a 64-byte global signature");
    char id[17];
    key_id_hex(sig + 2, id);
    const char *comment = l3.p + 17;
    size_t clen = l3.len - 17;
    if (res) {
        copy_str(res->key_id, sizeof res->key_id, id, 16);
        copy_str(res->signer, sizeof res->signer, id, 16);
    }
    const trust_key *k = NULL;
    for (size_t i = 0; t && i < t->n && !k; i++)
        if (t->keys[i].kind == HX_SIG_MINISIGN && !memcmp(t->keys[i].id, sig + 2, 8))
            k = &t->keys[i];
    if (!k)
        return fail(res, err, HX_ENOTFOUND, "minisign: key %s is not trusted", id);
    if (res)
        copy_str(res->signer, sizeof res->signer, k->principals, strlen(k->principals));
    uint8_t prehash[64];
    const uint8_t *msg = doc;
    size_t msg_len = doc_len;
    if (sig[1] == 'D') {
        hxi_blake2b512(doc, doc_len, prehash);
        msg = prehash;
        msg_len = 64;
    }
    hx_error e = {0};
    int rc = hxi_ed25519_verify(sig + 10, msg, msg_len, k->pk, &e);
    if (rc == HX_EPERM)
        return fail(res, err, HX_EPERM, "minisign: signature by %s (key %s) does not match the "
                    "document (changed after signing?)", k->principals, id);
    if (rc)
        return fail(res, err, rc, "minisign: %s (key %s): %s", k->principals, id, e.message);
    /* The global signature: sig[64] | trusted comment. */
    uint8_t *both = hx_malloc(64 + clen);
    if (!both)
        return fail(res, err, HX_ENOMEM, "minisign: out of memory");
    memcpy(both, sig + 10, 64);
    memcpy(both + 64, comment, clen);
    rc = hxi_ed25519_verify(global, both, 64 + clen, k->pk, &e);
    free(both);
    if (rc)
        return fail(res, err, rc, "minisign: the trusted comment was changed after %s (key %s) "
                    "signed it", k->principals, id);
    if (res)
        copy_str(res->comment, sizeof res->comment, comment, clen);
    return 0;
}

/* ssh-keygen's namespaces option: comma-separated patterns (* and ?), a leading ! excludes. */
static int pattern_match(const char *p, size_t plen, const char *s)
{
    if (!plen)
        return !*s;
    if (*p == '*') {
        for (;; s++) {
            if (pattern_match(p + 1, plen - 1, s))
                return 1;
            if (!*s)
                return 0;
        }
    }
    return *s && (*p == '?' || *p == *s) && pattern_match(p + 1, plen - 1, s + 1);
}

static int namespace_allowed(const char *list, const char *ns)
{
    int yes = 0;
    while (*list) {
        const char *comma = strchr(list, ',');
        size_t n = comma ? (size_t)(comma - list) : strlen(list);
        int neg = n && *list == '!';
        if (pattern_match(list + neg, n - (size_t)neg, ns)) {
            if (neg)
                return 0;
            yes = 1;
        }
        list += n + (comma != NULL);
    }
    return yes;
}

static int verify_ssh(const hx_trust *t, const uint8_t *doc, size_t doc_len, const char *text,
                      size_t len, hx_sig_result *res, hx_error *err)
{
    static const char begin[] = "-----BEGIN SSH SIGNATURE-----", stop[] = "-----END SSH SIGNATURE-----";
    const char *cur = text, *end = text + len;
    line l;
    uint8_t *b64 = hx_malloc(len + 1), *blob = hx_malloc(len + 1);
    int rc = 0, ended = 0;
    size_t bl = 0, n = 0;
    if (!b64 || !blob) {
        rc = fail(res, err, HX_ENOMEM, "ssh: out of memory");
        goto done;
    }
    next_line(&cur, end, &l);   /* the BEGIN line, checked by the caller */
    while (next_line(&cur, end, &l)) {
        if (l.len == strlen(stop) && !memcmp(l.p, stop, l.len)) {
            ended = 1;
            break;
        }
        memcpy(b64 + bl, l.p, l.len);
        bl += l.len;
    }
    line rest;
    while (ended && next_line(&cur, end, &rest))
        if (rest.len)
            ended = 0;
    if (!ended || b64_decode(b64, bl, blob, len, &n)) {
        rc = fail(res, err, HX_EFORMAT, "ssh: not an armored SSH signature (%s ... %s)", begin, stop);
        goto done;
    }
    rd r = {blob, blob + n};
    const uint8_t *pub, *ns, *reserved, *hash, *sigblob;
    size_t pub_len, ns_len, res_len, hash_len, sig_len;
    uint32_t version;
    if (n < 6 || memcmp(blob, "SSHSIG", 6)) {
        rc = fail(res, err, HX_EFORMAT, "ssh: no SSHSIG magic");
        goto done;
    }
    r.p += 6;
    if (rd_u32(&r, &version) || rd_string(&r, &pub, &pub_len) || rd_string(&r, &ns, &ns_len) ||
        rd_string(&r, &reserved, &res_len) || rd_string(&r, &hash, &hash_len) ||
        rd_string(&r, &sigblob, &sig_len) || r.p != r.end) {
        rc = fail(res, err, HX_EFORMAT, "ssh: SSHSIG blob is truncated or has extra bytes");
        goto done;
    }
    if (version != 1) {
        rc = fail(res, err, HX_EFORMAT, "ssh: SSHSIG version is not 1");
        goto done;
    }
    char fp[64];
    ssh_fingerprint(pub, pub_len, fp, sizeof fp);
    if (res)
        copy_str(res->key_id, sizeof res->key_id, fp, strlen(fp));
    uint8_t pk[32];
    const uint8_t *type;
    size_t type_len;
    int kt = ssh_key_blob(pub, pub_len, pk, &type, &type_len);
    if (kt != 0) {
        char tn[64];
        copy_str(tn, sizeof tn, kt < 0 ? "(malformed)" : (const char *)type, kt < 0 ? 11 : type_len);
        for (char *c = tn; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
        rc = fail(res, err, HX_EFORMAT, "ssh: key type %s is not supported: hyrax verifies ssh-ed25519 "
                  "signatures only (key %s)", tn, fp);
        goto done;
    }
    if (!str_is(ns, ns_len, HX_SIG_NAMESPACE)) {
        rc = fail(res, err, HX_EPERM, "ssh: signature by %s is for another namespace, not \"%s\" "
                  "(sign with ssh-keygen -Y sign -n hyrax)", fp, HX_SIG_NAMESPACE);
        goto done;
    }
    uint8_t digest[64];
    size_t dlen;
    if (str_is(hash, hash_len, "sha512")) {
        hxi_sha512_digest(doc, doc_len, digest);
        dlen = 64;
    } else if (str_is(hash, hash_len, "sha256")) {
        hxi_sha256 s;
        hxi_sha256_init(&s);
        hxi_sha256_update(&s, doc, doc_len);
        hxi_sha256_final(&s, digest);
        dlen = 32;
    } else {
        rc = fail(res, err, HX_EFORMAT, "ssh: hash algorithm of the signature by %s is not sha512 "
                  "or sha256", fp);
        goto done;
    }
    rd sr = {sigblob, sigblob + sig_len};
    const uint8_t *stype, *raw;
    size_t stype_len, raw_len;
    if (rd_string(&sr, &stype, &stype_len) || !str_is(stype, stype_len, "ssh-ed25519") ||
        rd_string(&sr, &raw, &raw_len) || raw_len != 64 || sr.p != sr.end) {
        rc = fail(res, err, HX_EFORMAT, "ssh: the signature by %s is not a 64-byte ssh-ed25519 "
                  "signature", fp);
        goto done;
    }
    /* Trusted? The first allowed_signers line with this key whose namespaces allow hyrax. */
    const trust_key *k = NULL, *other_ns = NULL;
    for (size_t i = 0; t && i < t->n && !k; i++) {
        const trust_key *c = &t->keys[i];
        if (c->kind != HX_SIG_SSH || memcmp(c->pk, pk, 32))
            continue;
        if (!c->namespaces || namespace_allowed(c->namespaces, HX_SIG_NAMESPACE))
            k = c;
        else
            other_ns = c;
    }
    if (!k && other_ns) {
        if (res)
            copy_str(res->signer, sizeof res->signer, other_ns->principals, strlen(other_ns->principals));
        rc = fail(res, err, HX_EPERM, "ssh: %s (%s) is not allowed to sign for namespace \"hyrax\" "
                  "in allowed_signers", other_ns->principals, fp);
        goto done;
    }
    if (!k) {
        rc = fail(res, err, HX_ENOTFOUND, "ssh: key %s is not in allowed_signers", fp);
        goto done;
    }
    if (res)
        copy_str(res->signer, sizeof res->signer, k->principals, strlen(k->principals));
    /* Signed data: "SSHSIG" | string namespace | string reserved | string hash_alg | string H(doc). */
    size_t signed_len = 6 + 4 + ns_len + 4 + res_len + 4 + hash_len + 4 + dlen;
    uint8_t *sd = hx_malloc(signed_len), *w = sd;
    if (!sd) {
        rc = fail(res, err, HX_ENOMEM, "ssh: out of memory");
        goto done;
    }
    memcpy(w, "SSHSIG", 6);
    w += 6;
    const uint8_t *parts[4] = {ns, reserved, hash, digest};
    size_t lens[4] = {ns_len, res_len, hash_len, dlen};
    for (int i = 0; i < 4; i++) {
        w[0] = (uint8_t)(lens[i] >> 24);
        w[1] = (uint8_t)(lens[i] >> 16);
        w[2] = (uint8_t)(lens[i] >> 8);
        w[3] = (uint8_t)lens[i];
        memcpy(w + 4, parts[i], lens[i]);
        w += 4 + lens[i];
    }
    hx_error e = {0};
    int vr = hxi_ed25519_verify(raw, sd, signed_len, pk, &e);
    free(sd);
    if (vr == HX_EPERM)
        rc = fail(res, err, HX_EPERM, "ssh: signature by %s (%s) does not match the document "
                  "(changed after signing?)", k->principals, fp);
    else if (vr)
        rc = fail(res, err, vr, "ssh: signature by %s: %s", k->principals, e.message);
done:
    free(b64);
    free(blob);
    return rc;
}

int hx_sig_verify(const hx_trust *t, const void *doc, size_t doc_len, const void *sig, size_t sig_len,
                  hx_sig_result *res, hx_error *err)
{
    if (res)
        memset(res, 0, sizeof *res);
    if (!doc_len)
        doc = "";   /* the hashes may then be handed NULL otherwise */
    if (sig_len > HX_SIG_MAX_FILE)
        return fail(res, err, HX_ERANGE, "signature file larger than %d bytes", HX_SIG_MAX_FILE);
    const char *text = sig;
    line first;
    const char *cur = text;
    if (!next_line(&cur, text + sig_len, &first))
        return fail(res, err, HX_EFORMAT, "signature file is empty");
    if (starts(&first, "untrusted comment:")) {
        if (res)
            res->format = HX_SIG_MINISIGN;
        return verify_minisign(t, doc, doc_len, text, sig_len, res, err);
    }
    if (first.len == 29 && !memcmp(first.p, "-----BEGIN SSH SIGNATURE-----", 29)) {
        if (res)
            res->format = HX_SIG_SSH;
        return verify_ssh(t, doc, doc_len, text, sig_len, res, err);
    }
    return fail(res, err, HX_EFORMAT, "not a minisign (.minisig) or SSH (ssh-keygen -Y sign) "
                "signature file");
}
