/*
 * inflatecheck - the format library's chunked inflater (inflate_parallel.h)
 * against libdeflate on one gzip file, for the tests.
 *
 * usage: inflatecheck FILE.gz CHUNK
 * Inflates FILE.gz's deflate stream in chunks of CHUNK compressed bytes and
 * whole by libdeflate; prints "same BYTES bytes, N chunks" (the chunks joined), "fell back" (the chunked
 * inflater declined: 0) or "differs at byte I"; exit 0 for the first two, 1
 * for a difference or where libdeflate refuses the file, 2 for bad usage.
 * Only gzip headers without optional fields (gzip -n, zlib's gzopen).
 */
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inflate_parallel.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: inflatecheck FILE.gz CHUNK\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    const long packed = ftell(f);
    rewind(f);
    uint8_t *in = malloc(packed > 0 ? (size_t)packed : 1);
    if (!in || packed < 18 || fread(in, 1, (size_t)packed, f) != (size_t)packed || in[0] != 0x1f || in[1] != 0x8b ||
        in[3] != 0) {
        fprintf(stderr, "inflatecheck: %s: not a gzip file without optional header fields\n", argv[1]);
        return 2;
    }
    fclose(f);
    const uint64_t size = in[packed - 4] | (uint64_t)in[packed - 3] << 8 | (uint64_t)in[packed - 2] << 16 |
                          (uint64_t)in[packed - 1] << 24;
    uint8_t *want = malloc(size + 1), *got = malloc(size + 1);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t used = 0;
    if (!want || !got || !d ||
        libdeflate_deflate_decompress_ex(d, in + 10, (size_t)packed - 18, want, size, &used, NULL) !=
            LIBDEFLATE_SUCCESS) {
        fprintf(stderr, "inflatecheck: %s: libdeflate refuses it\n", argv[1]);
        return 1;
    }
    setenv("CSR_TEST_INFLATE_CHUNK", argv[2], 1);
    uint64_t in_used = 0;
    unsigned joined = 0;
    int rc = 0;
    if (!inflate_parallel(in + 10, (uint64_t)packed - 18, got, size, 1, &in_used, &joined)) {
        printf("fell back\n");
    } else if (in_used != used) {
        printf("differs: the stream ends at byte %llu, not %zu\n", (unsigned long long)in_used, used);
        rc = 1;
    } else {
        uint64_t i = 0;
        while (i < size && got[i] == want[i])
            i++;
        if (i < size)
            printf("differs at byte %llu\n", (unsigned long long)i);
        else
            printf("same %llu bytes, %u chunks\n", (unsigned long long)size, joined);
        rc = i < size;
    }
    libdeflate_free_decompressor(d);
    free(in);
    free(want);
    free(got);
    return rc;
}
