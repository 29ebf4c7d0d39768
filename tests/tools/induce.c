/*
 * induce - test helper: the DTMC that a memoryless scheduler induces on an
 * MDP, written as CSR on stdout.
 *
 *   induce model.csr scheduler.txt > chain.csr
 *
 * scheduler.txt is gpu-vi --export-scheduler's: a line "STATE CHOICE
 * [ACTION]" or "STATE -" per state, in the original numbering.  State s of
 * the chain has the one choice CHOICE of s (a self-loop where s has no
 * choice, as PRISM gives a deadlock); labels, initial states and every
 * reward structure are kept (a state's reward as it is, the chosen choice's
 * reward as the chain's choice reward); actions are not.  The model must be
 * in its original numbering (no PERMUTATION).  Not installed; used by the
 * Bats tests only (the scheduler test of tests/105 and tests/110).
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
    if (argc != 3) {
        fprintf(stderr, "usage: induce model.csr scheduler.txt > chain.csr\n");
        return 2;
    }
    csr_model m;
    csr_status st;
    memset(&st, 0, sizeof st);
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0 || csr_read_fd(fd, &m, &st) || m.permutation) {
        fprintf(stderr, "induce: %s: cannot read, or renumbered\n", argv[1]);
        return 1;
    }
    close(fd);
    const uint64_t n = m.num_states;
    uint32_t *choice = malloc((n ? n : 1) * sizeof *choice);
    FILE *f = fopen(argv[2], "r");
    if (!choice || !f) {
        fprintf(stderr, "induce: %s: cannot read\n", argv[2]);
        return 1;
    }
    for (uint64_t s = 0; s < n; s++) {
        unsigned long long state;
        char word[64];
        if (fscanf(f, "%llu %63s%*[^\n]", &state, word) != 2 || state != s) {
            fprintf(stderr, "induce: %s: line %llu is not state %llu's\n", argv[2], (unsigned long long)s + 1,
                    (unsigned long long)s);
            return 1;
        }
        uint64_t count = m.state_choices[s + 1] - m.state_choices[s];
        choice[s] = strcmp(word, "-") == 0 ? UINT32_MAX : (uint32_t)strtoul(word, NULL, 10);
        if ((choice[s] == UINT32_MAX) != (count == 0) || (choice[s] != UINT32_MAX && choice[s] >= count)) {
            fprintf(stderr, "induce: %s: state %llu: choice %s of %llu\n", argv[2], (unsigned long long)s, word,
                    (unsigned long long)count);
            return 1;
        }
    }
    fclose(f);
    uint64_t t = 0;
    for (uint64_t s = 0; s < n; s++) {
        uint64_t k = m.state_choices[s] + choice[s];
        t += choice[s] == UINT32_MAX ? 1 : m.choice_transitions[k + 1] - m.choice_transitions[k];
    }
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((n + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg);
    double *pr = malloc((t ? t : 1) * sizeof *pr);
    uint64_t with_state, with_choice;
    csr_reward_counts(&m, m.rewards.count, &with_state, &with_choice);
    double *crew = with_choice ? malloc(with_choice * n * sizeof *crew) : NULL;
    if (!sc || !ct || !tg || !pr || (with_choice && !crew)) {
        fprintf(stderr, "induce: out of memory\n");
        return 1;
    }
    uint64_t x = 0;
    for (uint64_t s = 0; s < n; s++) {
        sc[s] = s;
        ct[s] = x;
        uint64_t k = m.state_choices[s] + choice[s];
        for (uint64_t r = 0; r < with_choice; r++)
            crew[r * n + s] = choice[s] == UINT32_MAX ? 0.0 : m.choice_rewards[r * m.num_choices + k];
        if (choice[s] == UINT32_MAX) {
            tg[x] = (uint32_t)s;
            pr[x++] = 1.0;
            continue;
        }
        for (uint64_t j = m.choice_transitions[k]; j < m.choice_transitions[k + 1]; j++, x++) {
            tg[x] = m.targets[j];
            pr[x] = m.probabilities[j];
        }
    }
    sc[n] = n;
    ct[n] = x;
    csr_model d = m; /* labels, initial states, reward names and state rewards shared */
    d.model_type = CSR_DTMC;
    d.num_choices = n;
    d.num_transitions = t;
    d.state_choices = sc;
    d.choice_transitions = ct;
    d.targets = tg;
    d.probabilities = pr;
    d.choice_actions = NULL;
    d.actions.count = 0;
    d.choice_rewards = crew;
    d.segment_bound = 0;
    int rc = csr_validate(&d, &st) || csr_write_fd(STDOUT_FILENO, &d, &st);
    if (rc)
        fprintf(stderr, "induce: %s: %s\n", csr_strerror(st.code), st.detail);
    free(sc);
    free(ct);
    free(tg);
    free(pr);
    free(crew);
    free(choice);
    csr_free(&m);
    return rc ? 1 : 0;
}
