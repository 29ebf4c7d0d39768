/*
 * umb.c - libFuzzer target: UMB archives (umb_read: gzip, xz or plain tar of
 * index.json and little-endian arrays, format/umb.h), with choice sums as
 * errors or as warnings (the last byte's low bit), and every accepted model
 * checked (fuzz.h); gzip input also through umb_read_gzip_file (the whole
 * file decompressed in memory, members borrowed in place), which must give
 * the same verdict and the same model.
 */
#include <stdlib.h>
#include <string.h>

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
    int streamed = -1;
    if (textin_open(&in, path, &st) == CSR_OK) {
        streamed = umb_read(&in, &opt, &m, &report, &st);
        if (streamed == CSR_OK)
            fuzz_check_model(&m);
    }
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b && streamed >= 0) {
        csr_model w;
        csr_status wst = {0};
        umb_report wreport;
        int whole = umb_read_gzip_file(fd, &opt, &w, &wreport, &wst);
        /* the same model, or the whole-file reader refuses (see below) */
        if (whole == CSR_OK) {
            fuzz_check_model(&w);
            if (streamed != CSR_OK || w.num_states != m.num_states || w.num_transitions != m.num_transitions ||
                (w.num_transitions && memcmp(w.targets, m.targets, w.num_transitions * 4) != 0))
                abort();
            csr_free(&w);
        } else if (streamed == CSR_OK && whole != CSR_ERR_COMPRESSION && whole != CSR_ERR_TRUNCATED) {
            /* the whole-file reader is the stricter: it takes one gzip
             * member only, where the stream reads further members */
            abort();
        }
    }
    if (streamed == CSR_OK)
        csr_free(&m);
    textin_close(&in);
    close(fd);
    return 0;
}
