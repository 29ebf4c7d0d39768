/*
 * sta.c - libFuzzer target: PRISM .sta (prism_read_sta) for a model of 1 to
 * 64 states (the first byte; each state a self-loop), the rest of the input
 * being the .sta text; every accepted model checked (fuzz.h), its
 * valuations written and read back.
 */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned n = data[0] % 64 + 1;
    char tra[64 * 24 + 32], path[64];
    int len = snprintf(tra, sizeof tra, "%u %u %u\n", n, n, n);
    for (unsigned s = 0; s < n; s++)
        len += snprintf(tra + len, sizeof tra - (size_t)len, "%u 0 %u 1\n", s, s);
    csr_status st = {0};
    csr_model m;
    fuzz_harness_model(tra, (size_t)len, &m);
    int fd = fuzz_file(data + 1, size - 1, path);
    textin in = {0};
    if (textin_open(&in, path, &st) == CSR_OK && prism_read_sta(&in, &m, &st) == CSR_OK)
        fuzz_check_model(&m);
    textin_close(&in);
    close(fd);
    csr_free(&m);
    return 0;
}
