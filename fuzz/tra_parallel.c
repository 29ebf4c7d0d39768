/*
 * tra_parallel.c - libFuzzer target, differential: the parallel .tra reader
 * (prism_read_tra with 2 to 9 threads and chunks of 1 to 64 bytes, from the
 * first byte) against the sequential one on the same input, which must give
 * the same CSR bytes or the same error, line and message (the parallel
 * reader hands every fault to the sequential one: a difference is a bug).
 */
#include <string.h>

#include "fuzz.h"
#include "prism_text.h"
#include "textin.h"

typedef struct result {
    int rc;
    csr_status st;
    int fd; /* the CSR file when rc == 0 */
    off_t length;
} result;

static void read_tra(const char *path, unsigned threads, size_t chunk, result *r)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    prism_tra_options opt = {0};
    opt.threads = threads;
    opt.min_chunk_bytes = chunk;
    textin in = {0};
    csr_model m;
    prism_tra_report report;
    if ((r->rc = textin_open(&in, path, &r->st)) == CSR_OK &&
        (r->rc = prism_read_tra(&in, &opt, &m, &report, &r->st)) == CSR_OK) {
        fuzz_check_model(&m);
        r->fd = memfd_create("fuzz-csr", 0);
        csr_status st = {0};
        if (r->fd < 0 || csr_write_fd(r->fd, &m, &st) != CSR_OK)
            abort();
        r->length = lseek(r->fd, 0, SEEK_END);
        csr_free(&m);
    }
    textin_close(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path);
    unsigned threads = 2 + (size > 0 ? data[0] % 8 : 0);
    size_t chunk = 1 + (size > 0 ? (size_t)(data[0] >> 3) % 64 : 0);
    result a, b;
    read_tra(path, 1, 0, &a);
    read_tra(path, threads, chunk, &b);
    if (a.rc != b.rc)
        abort();
    if (a.rc == CSR_OK) {
        if (a.length != b.length)
            abort();
        char x[4096], y[4096];
        for (off_t at = 0; at < a.length; at += (off_t)sizeof x) {
            ssize_t n = pread(a.fd, x, sizeof x, at), m = pread(b.fd, y, sizeof y, at);
            if (n != m || n <= 0 || memcmp(x, y, (size_t)n))
                abort();
        }
    } else if (a.st.line != b.st.line || strcmp(a.st.detail, b.st.detail)) {
        abort();
    }
    if (a.fd >= 0)
        close(a.fd);
    if (b.fd >= 0)
        close(b.fd);
    close(fd);
    return 0;
}
