/*
 * fuzz.h - what the libFuzzer targets share (issue 8): an input as a file
 * the readers can open by path (a memfd, /proc/self/fd/N), and the checks
 * every accepted model must pass.  Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; run by `make fuzz-run SECONDS=N`.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "csr.h"
#include "prism_text.h"
#include "textin.h"

/* data as an anonymous file; path gets its name.  Aborts on failure (not an
 * input's fault). */
static inline int fuzz_file(const uint8_t *data, size_t size, char path[64])
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        abort();
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

/* The harness's own model from the .tra text tra[0 .. len) (the model a
 * target reads its fuzzed .lab or rewards against).  Aborts when it does not
 * parse (not an input's fault). */
static inline void fuzz_harness_model(const char *tra, size_t len, csr_model *m)
{
    csr_status st = {0};
    prism_tra_options opt = {0};
    prism_tra_report report;
    char path[64];
    int fd = fuzz_file((const uint8_t *)tra, len, path);
    textin in = {0};
    if (textin_open(&in, path, &st) != CSR_OK || prism_read_tra(&in, &opt, m, &report, &st) != CSR_OK)
        abort();
    textin_close(&in);
    close(fd);
}

/* An accepted model must validate, and write and read back to itself. */
static inline void fuzz_check_model(const csr_model *m)
{
    csr_status st = {0};
    if (csr_validate(m, &st) != CSR_OK)
        abort();
    int fd = memfd_create("fuzz-out", 0);
    if (fd < 0)
        abort();
    if (csr_write_fd(fd, m, &st) != CSR_OK)
        abort();
    lseek(fd, 0, SEEK_SET);
    csr_model back;
    if (csr_read_fd(fd, &back, &st) != CSR_OK)
        abort();
    if (back.num_states != m->num_states || back.num_choices != m->num_choices ||
        back.num_transitions != m->num_transitions)
        abort();
    /* the valuations (CSR 1.3) come back as they went out */
    if (back.variables.count != m->variables.count || back.valuation_words != m->valuation_words ||
        (m->variables.count &&
         (memcmp(back.variable_info, m->variable_info, m->variables.count * sizeof *m->variable_info) ||
          memcmp(back.valuations, m->valuations, m->num_states * m->valuation_words * sizeof *m->valuations))))
        abort();
    csr_free(&back);
    close(fd);
}

#endif
