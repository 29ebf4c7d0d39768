/*
 * crc.h - the CRC-32 of CSR sections (internal to the format library).
 */
#ifndef CSR_CRC_H
#define CSR_CRC_H

#include <stdint.h>

/* The CRC-32 of format/CSR.md (zlib's crc32, polynomial 0xEDB88320) of
 * length bytes at data: libdeflate's carry-less-multiply code on chunks of
 * at least 32 MiB, one thread each (at most one per CPU the process may run
 * on), joined by zlib's crc32_combine.  Equal to crc32_z(0, data, length). */
uint32_t csr_crc32(const void *data, uint64_t length);

#endif
