/*
 * drn.c - libFuzzer target: Storm's DRN format (drn_read, drn.h), plain or
 * gzip, with choice sums as errors or as warnings (the first byte's low bit),
 * and every accepted model checked (fuzz.h).
 */
#include "drn.h"
#include "fuzz.h"
#include "textin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    drn_read_options opt = {size > 0 && (data[0] & 1), 0.0};
    char path[64];
    int fd = fuzz_file(data, size, path);
    textin in = {0};
    csr_status st = {0};
    csr_model m;
    drn_report report;
    if (textin_open(&in, path, &st) == CSR_OK) {
        if (drn_read(&in, &opt, &m, &report, &st) == CSR_OK) {
            fuzz_check_model(&m);
            csr_free(&m);
        }
    }
    textin_close(&in);
    close(fd);
    return 0;
}
