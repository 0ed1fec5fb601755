/* fuzz_store.c: libFuzzer target for the index file (src/store.h): arbitrary bytes become a file
 * (an in-memory memfd) that is opened, verified and walked as a reader, then opened as the writer
 * (with HX_STORE_RECOVER when it refuses a damaged file), which must take the reader's commit and
 * commit once more; the result must reopen sound at the next generation. Must never crash.
 * Spec: the layout comment in src/store.h. Corpus: fuzz/corpus/store/. */
#include "store.h"
#include "bytes.h"
#include "crc32c.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads everything a reader can reach. Returns 0 with the generation (any 64-bit value) and
 * whether the reader reported damage, or -1 when open fails. */
static int read_all(const char *path, uint64_t *gen, bool *damaged)
{
    hxi_store *s;
    hx_error err;
    if (hxi_store_open(&s, path, HX_STORE_READ, &err) != 0)
        return -1;
    *gen = hxi_store_generation(s);
    *damaged = *hxi_store_damage(s) != 0;
    hxi_store_verify(s, &err);
    hxi_store_info *h = NULL;
    size_t n = 0;
    if (hxi_store_history(s, &h, &n, &err) == 0) {
        for (size_t i = 0; i < n; i++) {
            const uint8_t *root;
            size_t len;
            hxi_store_info g;
            hxi_store_root_at(s, h[i].generation, &root, &len, &err);
            hxi_store_as_of(s, h[i].timestamp_ns, &g, &err);
            hxi_store_find_name(s, h[i].name, &g, &err);
        }
        free(h);
    }
    /* Treat the root as a list of references, the way the index layer stores them. */
    const uint8_t *root, *blob;
    size_t len;
    hxi_store_root(s, &root, &len);
    for (size_t o = 0; o + HX_STORE_REF_SIZE <= len && o < 64 * HX_STORE_REF_SIZE; o += HX_STORE_REF_SIZE)
        hxi_store_blob(s, hxi_store_ref_get(root + o), &blob, &err);
    hxi_store_refresh(s, &err);
    hxi_store_close(s);
    return 0;
}

/* Random bytes rarely pass a CRC, so each input also runs with its checksums made right: header,
 * the chain of each meta slot (up to 8 records, oldest first, each link's CRC), then the slot. */
static void repair(uint8_t *b, size_t size)
{
    if (size < HX_STORE_DATA_START)
        return;
    hxf_put32(b + 60, hxf_crc32c(0, b, 60));
    for (int slot = 0; slot < 2; slot++) {
        uint8_t *m = b + HX_STORE_PAGE * (1 + slot);
        uint64_t off[9], len[9];
        uint8_t *link[9];  /* where each record's CRC is stored: the slot, then newer records */
        int n = 0;
        off[0] = hxf_le64(m + 24);
        len[0] = hxf_le64(m + 32);
        link[0] = m + 40;
        while (n < 8 && off[n] >= HX_STORE_DATA_START && off[n] <= size && len[n] >= 128 &&
               len[n] <= size - off[n]) {
            uint8_t *r = b + off[n];
            off[n + 1] = hxf_le64(r + 24);
            len[n + 1] = hxf_le64(r + 32);
            link[n + 1] = r + 40;
            n++;
        }
        for (int i = n - 1; i >= 0; i--)
            hxf_put32(link[i], hxf_crc32c(0, b + off[i], (size_t)len[i]));
        hxf_put32(m + 60, hxf_crc32c(0, m, 60));
    }
}

static void run_one(const uint8_t *data, size_t size)
{
    int fd = memfd_create("hxi_fuzz_store", MFD_CLOEXEC);
    if (fd < 0)
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return;
    }
    uint64_t gen = 0, gen2 = 0;
    bool damaged = false, damaged2 = false;
    int read_rc = read_all(path, &gen, &damaged);

    /* The writer accepts what the reader accepts -- a damaged file only with HX_STORE_RECOVER
     * when settling it would discard bytes -- takes the same commit, and leaves a sound file
     * whose next commit is readable (or refused at the last generation number). */
    hxi_store *w;
    hx_error err;
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE, &err);
    if (rc != 0 && read_rc == 0 && damaged && (rc == HX_ECHECKSUM || rc == HX_ETRUNCATED))
        rc = hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_RECOVER, &err);
    if ((rc == 0) != (read_rc == 0))
        abort();
    if (rc == 0) {
        if (hxi_store_generation(w) != gen)
            abort();
        hxi_store_ref ref;
        uint8_t enc[HX_STORE_REF_SIZE];
        if (hxi_store_append(w, "fuzz", 4, &ref, &err) != 0)
            abort();
        hxi_store_ref_put(enc, ref);
        int crc = hxi_store_commit(w, enc, sizeof enc, "fuzz", &err);
        if (crc != 0 && !(crc == HX_ERANGE && gen == UINT64_MAX))
            abort();
        hxi_store_close(w);
        if (read_all(path, &gen2, &damaged2) != 0 || damaged2 || gen2 != (crc ? gen : gen + 1))
            abort();
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_one(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    if (copy) {
        memcpy(copy, data, size);
        repair(copy, size);
        run_one(copy, size);
        free(copy);
    }
    return 0;
}
