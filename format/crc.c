/*
 * crc.c - the CRC-32 of CSR sections, in parallel (crc.h).  Reading and
 * writing a paper-scale model (1.1 GB for leader8) checksummed every byte
 * with zlib's table-driven crc32 on one core: 0.3 s of the 0.9 s that
 * gpu-mec took to read leader8's CSR file on the lent H200's host.
 */
#include <libdeflate.h>
#include <zlib.h>

#include "crc.h"
#include "parallel.h"

#define CRC_MIN_CHUNK ((uint64_t)32 << 20) /* bytes a thread at least */

struct crc_task {
    const unsigned char *data;
    uint64_t length;
    uint32_t crc;
};

static void *crc_chunk(void *arg)
{
    struct crc_task *t = arg;
    t->crc = libdeflate_crc32(0, t->data, (size_t)t->length);
    return NULL;
}

uint32_t csr_crc32(const void *data, uint64_t length)
{
    unsigned tasks = parallel_tasks(length, parallel_grain(CRC_MIN_CHUNK));
    if (tasks <= 1)
        return libdeflate_crc32(0, data, (size_t)length);
    struct crc_task t[PARALLEL_MAX_TASKS];
    uint64_t chunk = length / tasks;
    for (unsigned i = 0; i < tasks; i++) {
        t[i].data = (const unsigned char *)data + i * chunk;
        t[i].length = i + 1 < tasks ? chunk : length - i * chunk;
    }
    parallel_run(crc_chunk, t, sizeof t[0], tasks);
    uLong crc = t[0].crc;
    for (unsigned i = 1; i < tasks; i++)
        crc = crc32_combine(crc, t[i].crc, (z_off_t)t[i].length);
    return (uint32_t)crc;
}
