/*
 * csrcat - test helper: the disjoint union of CSR models, written as CSR on
 * stdout.
 *
 *   csrcat a.csr b.csr ... > union.csr
 *
 * The states of each model follow those of the models before it (their
 * targets shifted alike), in their own numbering (restructured input is read
 * in its model numbering; the union has no permutation, labels or actions;
 * the initial state is state 0).  The SCCs and MECs of the union are those of
 * the models, shifted, so one run of a GPU tool on the union checks them
 * all; a DTMC among MDPs makes the union an MDP.  Not installed; used by the
 * Bats tests only.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csr.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: csrcat a.csr b.csr ... > union.csr\n");
        return 2;
    }
    uint64_t n = 0, c = 0, t = 0;
    csr_model *in = calloc((size_t)argc, sizeof *in);
    for (int a = 1; a < argc; a++) {
        csr_status st;
        int fd = open(argv[a], O_RDONLY);
        if (fd < 0 || csr_read_fd(fd, &in[a], &st)) {
            fprintf(stderr, "csrcat: %s: cannot read\n", argv[a]);
            return 1;
        }
        close(fd);
        n += in[a].num_states;
        c += in[a].num_choices;
        t += in[a].num_transitions;
    }
    if (n >= UINT32_MAX) {
        fprintf(stderr, "csrcat: %llu states in all: too many\n", (unsigned long long)n);
        return 1;
    }
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg);
    double *pr = malloc((t ? t : 1) * sizeof *pr);
    if (!sc || !ct || !tg || !pr) {
        fprintf(stderr, "csrcat: out of memory\n");
        return 1;
    }
    uint64_t s0 = 0, k0 = 0, i0 = 0;
    int all_probabilities = 1;
    for (int a = 1; a < argc; a++) {
        const csr_model *m = &in[a];
        for (uint64_t s = 0; s < m->num_states; s++)
            sc[s0 + s] = k0 + m->state_choices[s];
        for (uint64_t k = 0; k < m->num_choices; k++)
            ct[k0 + k] = i0 + m->choice_transitions[k];
        for (uint64_t i = 0; i < m->num_transitions; i++) {
            tg[i0 + i] = (uint32_t)(s0 + m->targets[i]);
            pr[i0 + i] = m->probabilities ? m->probabilities[i] : 1.0;
        }
        all_probabilities &= m->probabilities != NULL;
        s0 += m->num_states;
        k0 += m->num_choices;
        i0 += m->num_transitions;
    }
    sc[n] = c;
    ct[c] = t;
    uint32_t initial = 0;
    csr_model u;
    memset(&u, 0, sizeof u);
    u.model_type = CSR_MDP;
    u.num_states = n;
    u.num_choices = c;
    u.num_transitions = t;
    u.state_choices = sc;
    u.choice_transitions = ct;
    u.targets = tg;
    u.probabilities = all_probabilities ? pr : NULL;
    u.initial_states = &initial;
    u.num_initial = n ? 1 : 0;
    csr_status st;
    if (csr_validate(&u, &st) || csr_write_fd(STDOUT_FILENO, &u, &st)) {
        fprintf(stderr, "csrcat: %s\n", st.detail);
        return 1;
    }
    for (int a = 1; a < argc; a++)
        csr_free(&in[a]);
    free(in);
    free(sc);
    free(ct);
    free(tg);
    free(pr);
    return 0;
}
