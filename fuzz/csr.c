/*
 * csr.c - libFuzzer target: the CSR reader (csr_read_fd) on a regular file
 * (mmap) and through a pipe (one pass), which must agree; every accepted
 * model checked (fuzz.h).  A custom mutator recomputes the checksums after
 * libFuzzer's mutation half of the time, so that the structural validation
 * behind the CRCs is exercised, not only the CRC check.
 */
#include <fcntl.h>
#include <string.h>

#include "csr_checksums.h"
#include "fuzz.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    size = LLVMFuzzerMutate(data, size, max_size);
    if (seed & 1)
        csr_fix_checksums(data, size);
    return size;
}

static int read_through_pipe(const uint8_t *data, size_t size, csr_model *m, csr_status *st)
{
    int p[2];
    if (pipe(p) != 0)
        abort();
    if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < (int)size) /* the whole input fits: no writer thread */
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(p[1], data + done, size - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    close(p[1]);
    int rc = csr_read_fd(p[0], m, st);
    close(p[0]);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 20))
        return 0;
    char path[64];
    int fd = fuzz_file(data, size, path);
    csr_status st = {0};
    csr_model a, b;
    int rc_file = csr_read_fd(fd, &a, &st);
    close(fd);
    int rc_pipe = read_through_pipe(data, size, &b, &st);
    if ((rc_file == CSR_OK) != (rc_pipe == CSR_OK))
        abort(); /* the two ways must agree on what is valid */
    if (rc_file == CSR_OK) {
        fuzz_check_model(&a);
        if (a.num_transitions != b.num_transitions ||
            memcmp(a.targets, b.targets, a.num_transitions * sizeof *a.targets) != 0)
            abort();
    }
    csr_free(&a);
    csr_free(&b);
    return 0;
}
