/*
 * labels.c - libFuzzer target: label files, PRISM .sccs/.mecs
 * (labels_read, labels_set_states for the count the first two bytes give,
 * labels_canonicalize) and value files (values_read), on the same input.
 */
#include "fuzz.h"
#include "labels.h"
#include "textin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint64_t n = (uint64_t)data[0] | (uint64_t)data[1] << 8;
    char path[64];
    int fd = fuzz_file(data + 2, size - 2, path);
    csr_status st = {0};
    textin in = {0};
    label_file lf = {0};
    if (textin_open(&in, path, &st) == CSR_OK && labels_read(&in, &lf, &st) == CSR_OK) {
        if (labels_set_states(&lf, n, &st) == CSR_OK) {
            if (lf.num_states != n)
                abort();
            uint64_t *canonical = malloc((n ? n : 1) * sizeof *canonical);
            if (!canonical || labels_canonicalize(lf.ids, n, canonical) != CSR_OK)
                abort();
            for (uint64_t s = 0; s < n; s++)
                if (canonical[s] != LABEL_NONE && canonical[s] > s)
                    abort(); /* the smallest member names the component */
            free(canonical);
        }
    }
    labels_free(&lf);
    textin_close(&in);
    lseek(fd, 0, SEEK_SET);
    textin vin = {0};
    double *values = NULL;
    uint64_t count = 0;
    if (textin_open(&vin, path, &st) == CSR_OK && values_read(&vin, &values, &count, &st) == CSR_OK)
        free(values);
    textin_close(&vin);
    close(fd);
    return 0;
}
