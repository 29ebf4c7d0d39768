/*
 * csrpatch - test helper: overwrite bytes of a CSR file and optionally make
 * every checksum right again, so that tests reach the checks behind the CRCs.
 *
 *   csrpatch [-c] file offset hexbytes [offset hexbytes ...] > patched
 *
 * offset: a byte offset (decimal), or SECTION+N for byte N of a section named
 * as csrinfo names it (TARGETS+0).  hexbytes: e.g. 01ff.  -c recomputes the
 * section CRCs and the header CRC after patching (format/CSR.md).
 * Not installed; used by the Bats tests only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "csr.h"
#include "csr_checksums.h"

static uint8_t *data;
static size_t size;

static uint32_t u32_at(size_t off) { uint32_t v; memcpy(&v, data + off, 4); return v; }
static uint64_t u64_at(size_t off) { uint64_t v; memcpy(&v, data + off, 8); return v; }

static int section_offset(const char *name, uint64_t *out)
{
    uint32_t count = u32_at(56);
    for (uint32_t i = 0; i < count; i++) {
        size_t e = CSR_FIXED_HEADER_BYTES + (size_t)i * CSR_SECTION_ENTRY_BYTES;
        if (e + 32 > size)
            return -1;
        if (strcmp(csr_section_name(u32_at(e)), name) == 0) {
            *out = u64_at(e + 8);
            return 0;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    int fix = 0, a = 1;
    if (a < argc && strcmp(argv[a], "-c") == 0) {
        fix = 1;
        a++;
    }
    if (argc - a < 3 || (argc - a) % 2 == 0) {
        fprintf(stderr, "usage: csrpatch [-c] file offset hexbytes [offset hexbytes ...] > patched\n");
        return 2;
    }
    FILE *f = fopen(argv[a], "rb");
    if (!f) {
        perror(argv[a]);
        return 2;
    }
    size_t cap = 1 << 16;
    data = malloc(cap);
    size_t got;
    while ((got = fread(data + size, 1, cap - size, f)) > 0) {
        size += got;
        if (size == cap)
            data = realloc(data, cap *= 2);
    }
    fclose(f);
    if (size < CSR_FIXED_HEADER_BYTES) {
        fprintf(stderr, "csrpatch: file too short\n");
        return 2;
    }
    for (a++; a + 1 < argc; a += 2) {
        uint64_t off;
        char *plus = strchr(argv[a], '+');
        if (plus) {
            *plus = '\0';
            if (section_offset(argv[a], &off)) {
                fprintf(stderr, "csrpatch: no section %s\n", argv[a]);
                return 2;
            }
            off += strtoull(plus + 1, NULL, 10);
        } else {
            off = strtoull(argv[a], NULL, 10);
        }
        const char *hex = argv[a + 1];
        size_t len = strlen(hex) / 2;
        if (off + len > size) {
            fprintf(stderr, "csrpatch: offset %llu beyond the file\n", (unsigned long long)off);
            return 2;
        }
        for (size_t i = 0; i < len; i++) {
            unsigned byte;
            sscanf(hex + 2 * i, "%2x", &byte);
            data[off + i] = (uint8_t)byte;
        }
    }
    if (fix && csr_fix_checksums(data, size)) {
        fprintf(stderr, "csrpatch: cannot fix checksums of this header\n");
        return 2;
    }
    fwrite(data, 1, size, stdout);
    return 0;
}
