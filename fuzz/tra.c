/*
 * tra.c - libFuzzer target: PRISM .tra (prism_read_tra), plain or gzip, with
 * choice sums as errors or as warnings (the first byte's low bit), and every
 * accepted model checked (fuzz.h).
 */
#include "fuzz.h"
#include "prism_text.h"
#include "textin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prism_tra_options opt = {size > 0 && (data[0] & 1)};
    char path[64];
    int fd = fuzz_file(data, size, path);
    textin in = {0};
    csr_status st = {0};
    csr_model m;
    prism_tra_report report;
    if (textin_open(&in, path, &st) == CSR_OK) {
        if (prism_read_tra(&in, &opt, &m, &report, &st) == CSR_OK) {
            fuzz_check_model(&m);
            csr_free(&m);
        }
    }
    textin_close(&in);
    close(fd);
    return 0;
}
