/*
 * props.c - libFuzzer target: PRISM properties (prop_parse), each accepted
 * one evaluated on a 4-state model with labels "a" and "b" (prop_states):
 * no crash, no leak, flags 0 or 1, and the text kept is a prefix of the input.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "props.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    prop_property p;
    csr_status st = {0};
    if (prop_parse(text, &p, &st) == CSR_OK) {
        if (!p.target || !p.text || !strstr(text, p.text))
            abort();
        static const char *names[] = {"a", "b"};
        static const uint64_t first[] = {0, 2, 3};
        static const uint32_t states[] = {0, 2, 3};
        csr_model m;
        memset(&m, 0, sizeof m);
        m.num_states = 4;
        m.labels.count = 2;
        m.labels.names = names;
        m.label_first = first;
        m.label_states = states;
        uint8_t flags[4];
        const prop_formula *fs[] = {p.target, p.avoid};
        for (int i = 0; i < 2; i++)
            if (fs[i] && prop_states(&m, fs[i], flags, &st) == CSR_OK)
                for (int s = 0; s < 4; s++)
                    if (flags[s] > 1)
                        abort();
        prop_free(&p);
    }
    free(text);
    return 0;
}
