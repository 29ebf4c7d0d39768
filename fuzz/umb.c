/*
 * umb.c - libFuzzer target: UMB archives (umb_read: gzip, xz or plain tar of
 * index.json and little-endian arrays, format/umb.h), with choice sums as
 * errors or as warnings (the last byte's low bit), and every accepted model
 * checked (fuzz.h).
 */
#include "fuzz.h"
#include "textin.h"
#include "umb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    umb_read_options opt = {0};
    opt.sums_are_warnings = size > 0 && (data[size - 1] & 1);
    char path[64];
    int fd = fuzz_file(data, size, path);
    textin in = {0};
    csr_status st = {0};
    csr_model m;
    umb_report report;
    if (textin_open(&in, path, &st) == CSR_OK && umb_read(&in, &opt, &m, &report, &st) == CSR_OK) {
        fuzz_check_model(&m);
        csr_free(&m);
    }
    textin_close(&in);
    close(fd);
    return 0;
}
