/*
 * csr_checksums.h - test helper: recompute every section CRC and the header
 * CRC of a CSR image in memory (format/CSR.md, sections 3 and 4), so that
 * tests and fuzzers reach the checks behind the checksums.  Entries whose
 * offset or length points outside the image keep their CRC.
 * Returns 0, or -1 when the header is too short or names too many sections
 * to be fixed.  Shared by csrpatch and the CSR fuzzer.
 */
#ifndef CSR_CHECKSUMS_H
#define CSR_CHECKSUMS_H

#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "csr.h"

static inline int csr_fix_checksums(uint8_t *data, size_t size)
{
    uint32_t count;
    if (size < CSR_FIXED_HEADER_BYTES)
        return -1;
    memcpy(&count, data + 56, 4);
    if (count > CSR_MAX_SECTIONS)
        return -1;
    size_t table_end = CSR_FIXED_HEADER_BYTES + (size_t)count * CSR_SECTION_ENTRY_BYTES;
    if (table_end + 4 > size)
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        size_t e = CSR_FIXED_HEADER_BYTES + (size_t)i * CSR_SECTION_ENTRY_BYTES;
        uint64_t off, len;
        memcpy(&off, data + e + 8, 8);
        memcpy(&len, data + e + 16, 8);
        if (off <= size && len <= size - off) {
            uint32_t crc = (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), data + off, (size_t)len);
            memcpy(data + e + 24, &crc, 4);
        }
    }
    uint32_t crc = (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), data, table_end);
    memcpy(data + table_end, &crc, 4);
    return 0;
}

#endif
