/*
 * rewards.c - libFuzzer target: PRISM .srew / .trew (prism_read_rewards) for
 * a model of 1 to 32 states (the first byte: bits 0-4 the states, bit 5 an
 * MDP of two choices per state, else a DTMC; every state going to itself and
 * to the next with probability 1/2 each), the rest of the input being the
 * reward file; every accepted model checked (fuzz.h).
 */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned n = data[0] % 32 + 1, mdp = data[0] >> 5 & 1, choices = mdp ? 2 : 1;
    char tra[32 * 2 * 2 * 32 + 64], path[64];
    int len = mdp ? snprintf(tra, sizeof tra, "%u %u %u\n", n, n * 2, n * 2 * (n > 1 ? 2 : 1))
                  : snprintf(tra, sizeof tra, "%u %u\n", n, n * (n > 1 ? 2 : 1));
    for (unsigned s = 0; s < n; s++)
        for (unsigned j = 0; j < choices; j++) {
            unsigned a = s, b = (s + 1) % n;
            if (a > b) {
                unsigned t = a;
                a = b;
                b = t;
            }
            const char *k = mdp ? (j ? " 1" : " 0") : "";
            if (a == b)
                len += snprintf(tra + len, sizeof tra - (size_t)len, "%u%s %u 1\n", s, k, a);
            else
                len += snprintf(tra + len, sizeof tra - (size_t)len, "%u%s %u 0.5\n%u%s %u 0.5\n", s, k, a, s, k, b);
        }
    csr_status st = {0};
    csr_model m;
    fuzz_harness_model(tra, (size_t)len, &m);
    int fd = fuzz_file(data + 1, size - 1, path);
    textin in = {0}, *files[1] = {&in};
    int bad;
    if (textin_open(&in, path, &st) == CSR_OK && prism_read_rewards(files, 1, &m, &bad, &st) == CSR_OK)
        fuzz_check_model(&m);
    textin_close(&in);
    close(fd);
    csr_free(&m);
    return 0;
}
