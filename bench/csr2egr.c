/*
 * csr2egr - a CSR model's state graph in ECL-SCC's input format, so that
 * bench/large.sh can time ECL-SCC (Alabandi, Sands, Biros & Burtscher, SC'23)
 * on the same graph, device and run as gpu-scc.
 *
 *   csr2egr IN.csr OUT.egr
 *
 * The graph: one node a state, one edge a transition (every choice's
 * transitions of a state in file order, duplicates and self-loops kept, as
 * gpu-scc reads them).  ECLgraph's binary CSR, little-endian: int32 nodes,
 * int32 edges, int32 nindex[nodes + 1], int32 nlist[edges], no weights.
 * Refused (exit 1): a model of more than INT32_MAX states or transitions.
 * A benchmark helper, not an installed tool.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csr.h"

static int write_all(FILE *f, const void *p, size_t size, size_t count)
{
    return fwrite(p, size, count, f) == count ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: csr2egr IN.csr OUT.egr\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "csr2egr: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    csr_model m;
    csr_status st;
    memset(&m, 0, sizeof m);
    int rc = csr_read_fd(fd, &m, &st);
    close(fd);
    if (rc) {
        fprintf(stderr, "csr2egr: %s: %s\n", argv[1], st.detail[0] ? st.detail : csr_strerror(rc));
        return 1;
    }
    if (m.num_states > INT32_MAX || m.num_transitions > INT32_MAX) {
        fprintf(stderr, "csr2egr: %s: %llu states, %llu transitions: more than ECL-SCC's int32 counts\n", argv[1],
                (unsigned long long)m.num_states, (unsigned long long)m.num_transitions);
        csr_free(&m);
        return 1;
    }
    int32_t *index = malloc((m.num_states + 1) * sizeof *index);
    if (!index) {
        fprintf(stderr, "csr2egr: out of memory\n");
        csr_free(&m);
        return 1;
    }
    /* a state's transitions are those of its choices, one contiguous range */
    for (uint64_t s = 0; s <= m.num_states; s++)
        index[s] = (int32_t)m.choice_transitions[m.state_choices[s]];
    FILE *f = fopen(argv[2], "wb");
    int32_t counts[2] = {(int32_t)m.num_states, (int32_t)m.num_transitions};
    if (!f || write_all(f, counts, sizeof(int32_t), 2) || write_all(f, index, sizeof(int32_t), m.num_states + 1) ||
        write_all(f, m.targets, sizeof(uint32_t), m.num_transitions) || fclose(f)) {
        fprintf(stderr, "csr2egr: %s: %s\n", argv[2], strerror(errno));
        free(index);
        csr_free(&m);
        return 1;
    }
    free(index);
    csr_free(&m);
    return 0;
}
