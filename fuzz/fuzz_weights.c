/* fuzz_weights.c: libFuzzer target for the weights loader (model.c via hxi_model_open_buffer).
 * The input bytes are a weights file, loaded once as they are and once with every checksum
 * recomputed (so mutations reach config, shape and forward-pass code); when one loads, a tiny
 * forward pass runs. Seeds: fuzz/corpus/weights/ (tools/convert_weights.py --synthetic). */
#include "bytes.h"
#include "kernels.h"
#include "crc32c.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rewrites the section, table and header checksums wherever the table lies inside the file. */
static void reseal(uint8_t *buf, size_t size)
{
    if (size < HXF_HEADER_SIZE)
        return;
    uint64_t table = hxf_le64(buf + 16);
    uint32_t n = hxf_le32(buf + 24);
    if (n <= HXF_MAX_SECTIONS && table <= size && (uint64_t)n * HXF_ENTRY_SIZE <= size - table) {
        for (uint32_t i = 0; i < n; i++) {
            uint8_t *e = buf + table + (size_t)i * HXF_ENTRY_SIZE;
            uint64_t off = hxf_le64(e + 44), len = hxf_le64(e + 52);
            if (off <= size && len <= size - off)
                hxf_put32(e + 60, hxf_crc32c(0, buf + off, (size_t)len));
        }
        hxf_put32(buf + 28, hxf_crc32c(0, buf + table, (size_t)n * HXF_ENTRY_SIZE));
    }
    hxf_put32(buf + 60, hxf_crc32c(0, buf, 60));
}

static void try_load(const uint8_t *buf, size_t size)
{
    hx_error err;
    hx_model *m = NULL;
    if (hxi_model_open_buffer(&m, buf, size, hxi_kernels_get(), &err) != 0)
        return;
    hx_encoder *e = NULL;
    if (hxi_encoder_new_rows(&e, m, 1, m->cfg.max_seq, &err) == 0) {
        int32_t ids[HX_MODEL_MAX_SEQ];
        size_t n = (size_t)m->cfg.max_seq < 16 ? (size_t)m->cfg.max_seq : 16;
        for (size_t i = 0; i < n; i++)
            ids[i] = (int32_t)(buf[(i * 131) % size] % (uint32_t)m->cfg.vocab);
        const int32_t *p = ids;
        static float out[2 * HX_MODEL_MAX_HIDDEN];
        hx_encoder_embed_ids(e, &p, &n, 1, out, &err);
        const char *texts[2] = {"the search engine, hyrax!", (const char *)buf};
        size_t lens[2] = {25, size < 64 ? size : 64};
        hx_encoder_embed(e, texts, lens, 2, out, &err);
        hx_encoder_free(e);
    }
    hx_model_close(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Sections are 64-aligned relative to the file start; give the loader an aligned copy. */
    uint8_t *buf = aligned_alloc(64, (size + 64) & ~(size_t)63);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    try_load(buf, size);
    reseal(buf, size);
    try_load(buf, size);
    free(buf);
    return 0;
}
