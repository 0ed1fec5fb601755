/* test_hxfile.c: the container format round-trips, and every kind of damage is refused with the
 * right code: truncation at each length, a flipped bit anywhere, a wrong version, a wrong kind.
 * Also checks the SSE4.2 CRC32C against the portable one and a published check value. */
#include "bytes.h"
#include "check.h"
#include "cpu.h"
#include "crc32c.h"
#include "hxfile.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *write_sample(size_t *size)
{
    hx_error err = {0};
    hxf_writer w;
    float vec[6] = {1, 2, 3, 4, 5, 6};
    const uint32_t dims[4] = {2, 3, 0, 0};
    const char text[] = "hello";
    uint8_t *buf = NULL;
    hxf_writer_begin(&w, HXF_KIND_WEIGHTS);
    CHECK(hxf_writer_add(&w, "vec", HXF_F32, 2, dims, vec, sizeof vec, &err) == 0, "add: %s", err.message);
    CHECK(hxf_writer_add(&w, "text", HXF_RAW, 0, NULL, text, 5, &err) == 0, "add: %s", err.message);
    CHECK(hxf_writer_finish(&w, &buf, size, &err) == 0, "finish: %s", err.message);
    return buf;
}

static void test_round_trip(const uint8_t *buf, size_t size)
{
    hxf_view v;
    hx_error err = {0};
    CHECK(hxf_parse(buf, size, HXF_KIND_WEIGHTS, &v, &err) == 0, "parse: %s", err.message);
    CHECK(v.n_sections == 2, "sections %u", v.n_sections);
    const hxf_section *s = NULL;
    const uint32_t want[4] = {2, 3, 0, 0};
    CHECK(hxf_expect(&v, "vec", HXF_F32, 2, want, &s, &err) == 0, "expect: %s", err.message);
    CHECK(s && ((uintptr_t)(s->data - buf)) % HXF_ALIGN == 0, "section is 64-aligned");
    CHECK(s && ((const float *)s->data)[5] == 6.0f, "data survives");
    const hxf_section *t = hxf_find(&v, "text");
    CHECK(t && t->length == 5 && !memcmp(t->data, "hello", 5), "raw section survives");
    CHECK(hxf_find(&v, "nope") == NULL, "missing section is NULL");
    const uint32_t wrong[4] = {3, 2, 0, 0};
    CHECK(hxf_expect(&v, "vec", HXF_F32, 2, wrong, &s, &err) == HX_EFORMAT, "wrong shape refused");
    hxf_view_free(&v);
    CHECK(hxf_parse(buf, size, HXF_KIND_SEGMENT, &v, &err) == HX_EFORMAT, "wrong kind refused");
}

static void test_damage(const uint8_t *buf, size_t size)
{
    uint8_t *copy = malloc(size);
    hxf_view v;
    hx_error err;
    int truncated_ok = 1, flipped_ok = 1;
    for (size_t n = 0; n < size; n++) {
        int rc = hxf_parse(buf, n, 0, &v, &err);
        if (rc == 0) {
            hxf_view_free(&v);
            truncated_ok = 0;
        }
    }
    CHECK(truncated_ok, "every truncation is refused");
    for (size_t i = 0; i < size; i++) {
        memcpy(copy, buf, size);
        copy[i] ^= 0x10;
        int rc = hxf_parse(copy, size, 0, &v, &err);
        if (rc == 0) {
            /* a flip inside section padding is harmless; anything else must be caught */
            hxf_view_free(&v);
            const hxf_section *secs = NULL;
            (void)secs;
            if (i < HXF_HEADER_SIZE || (i >= 64 && i < 64 + 24) || (i >= 128 && i < 128 + 5))
                flipped_ok = 0;
        }
    }
    CHECK(flipped_ok, "every flipped bit in header or data is refused");
    memcpy(copy, buf, size);
    hxf_put32(copy + 8, 99);
    hxf_put32(copy + 60, hxf_crc32c(0, copy, 60));
    CHECK(hxf_parse(copy, size, 0, &v, &err) == HX_EVERSION, "version 99 refused");
    CHECK(strstr(err.message, "99") != NULL, "message names the version: %s", err.message);
    free(copy);
}

/* hxf_parse_verified skips section checksums only: structure is still checked. */
static void test_verified(const uint8_t *buf, size_t size)
{
    uint8_t *copy = malloc(size);
    hxf_view v;
    hx_error err;
    memcpy(copy, buf, size);
    copy[64 + 3] ^= 0x01;   /* inside the "vec" section's data */
    CHECK(hxf_parse(copy, size, 0, &v, &err) == HX_ECHECKSUM, "full parse catches the flipped data byte");
    CHECK(hxf_parse_verified(copy, size, 0, &v, &err) == 0, "verified parse leaves data checksums to the caller");
    hxf_view_free(&v);
    CHECK(hxf_parse_verified(copy, size - 1, 0, &v, &err) == HX_ETRUNCATED, "verified parse still refuses truncation");
    memcpy(copy, buf, size);
    copy[8] = 7;
    CHECK(hxf_parse_verified(copy, size, 0, &v, &err) != 0, "verified parse still checks the header");
    free(copy);
}

static void test_crc(void)
{
    CHECK(hxf_crc32c(0, "123456789", 9) == 0xE3069283u, "CRC32C check value");
    uint8_t data[1000];
    for (int i = 0; i < 1000; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    for (size_t n = 0; n < 1000; n += 37)
        CHECK(hxf_crc32c(0, data + 1, n) == hxf_crc32c_soft(0, data + 1, n), "sse42 == soft at %zu", n);
    CHECK(hxf_crc32c(hxf_crc32c(0, data, 300), data + 300, 700) == hxf_crc32c(0, data, 1000),
          "CRC continues across calls");

    /* long inputs take the three-lane path (lanes of 8 KiB): around and past its block edges */
    size_t big = 200003;
    uint8_t *buf = malloc(big + 1);
    for (size_t i = 0; i <= big; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);
    const size_t sizes[] = {24575, 24576, 24577, 49152 + 5, 3 * 24576 + 8191, big};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        CHECK(hxf_crc32c(0, buf + 1, sizes[i]) == hxf_crc32c_soft(0, buf + 1, sizes[i]),
              "sse42 == soft at %zu bytes", sizes[i]);
    CHECK(hxf_crc32c(hxf_crc32c(0, buf, 30000), buf + 30000, big - 30000) == hxf_crc32c_soft(0, buf, big),
          "long CRC continues across calls");
    const size_t cuts[] = {0, 1, 4096, 30001, big};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++)
        CHECK(hxf_crc32c_combine(hxf_crc32c_soft(0, buf, cuts[i]), hxf_crc32c_soft(0, buf + cuts[i], big - cuts[i]),
                                 big - cuts[i]) == hxf_crc32c_soft(0, buf, big),
              "combine at %zu", cuts[i]);
    free(buf);

    /* threaded: 4 MiB or more per thread, parts of unequal length, thread counts past the parts */
    size_t huge = ((size_t)13 << 20) + 12345;
    uint8_t *h = malloc(huge);
    for (size_t i = 0; i < huge; i++)
        h[i] = (uint8_t)(i * 2654435761u >> 11);
    uint32_t want = hxf_crc32c_soft(0, h, huge);
    for (int t = -1; t <= 5; t++)
        CHECK(hxf_crc32c_threads(h, huge, t) == want, "threaded CRC on %d threads", t);
    CHECK(hxf_crc32c_threads(h, 1000, 4) == hxf_crc32c_soft(0, h, 1000), "threaded CRC of a short buffer");
    free(h);
}

int main(void)
{
    size_t size;
    uint8_t *buf = write_sample(&size);
    test_round_trip(buf, size);
    test_damage(buf, size);
    test_verified(buf, size);
    test_crc();
    free(buf);
    return check_report("test_hxfile");
}
