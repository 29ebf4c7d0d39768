/*
 * randmdp - test helper: a seeded random MDP written as CSR on stdout.
 *
 *   randmdp [-n states] [-c max_choices] [-k max_successors] [-e empty_percent]
 *           [-l local_percent] [-g goal_percent] [-r reward_percent] seed > model.csr
 *
 * Each state gets 1..c choices (none with probability e%), each choice
 * 1..k distinct successors (ascending) with equal probabilities; with probability l% a
 * successor is drawn near the state (within 3), which makes cycles and
 * self-loops common, else anywhere.  With -g, each state is labelled "goal"
 * with probability g% (drawn after the graph, which stays the same) and the
 * file has labels (for gpu-vi).  With -r, one reward structure "r" (drawn
 * after the labels): each state a reward in {1, 2, 3} with probability r%/4,
 * else 0, and each choice one with probability r%, else 0 (zero-reward end
 * components are common at small r).  The same arguments always give the same
 * file (xorshift.h).  Not installed; used by the
 * Bats tests only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csr.h"
#include "xorshift.h"

static uint64_t rng_state;

static uint64_t next_random(void) { return xorshift_next(&rng_state); }

static uint64_t below(uint64_t bound) { return next_random() % bound; }

int main(int argc, char **argv)
{
    uint64_t n = 100, max_choices = 3, max_succ = 4, empty_pct = 5, local_pct = 50, goal_pct = 0, reward_pct = 0;
    int c;
    while ((c = getopt(argc, argv, "n:c:k:e:l:g:r:")) != -1) {
        uint64_t v = optarg ? strtoull(optarg, NULL, 10) : 0; /* NULL on an unknown option */
        switch (c) {
        case 'n': n = v; break;
        case 'c': max_choices = v; break;
        case 'k': max_succ = v; break;
        case 'e': empty_pct = v; break;
        case 'l': local_pct = v; break;
        case 'g': goal_pct = v; break;
        case 'r': reward_pct = v; break;
        default:
            fprintf(stderr, "usage: randmdp [-n states] [-c choices] [-k successors] [-e %%empty] [-l %%local] "
                            "[-g %%goal] [-r %%reward] seed\n");
            return 2;
        }
    }
    if (optind != argc - 1 || n == 0 || n >= UINT32_MAX || max_choices == 0 || max_succ == 0 ||
        max_succ > n) {
        fprintf(stderr, "randmdp: bad arguments\n");
        return 2;
    }
    rng_state = strtoull(argv[optind], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
    uint64_t *state_choices = malloc((n + 1) * sizeof *state_choices);
    uint64_t cap_c = n * max_choices + 1, cap_t = n * max_choices * max_succ + 1;
    uint64_t *choice_transitions = malloc(cap_c * sizeof *choice_transitions);
    uint32_t *targets = malloc(cap_t * sizeof *targets);
    double *probabilities = malloc(cap_t * sizeof *probabilities);
    if (!state_choices || !choice_transitions || !targets || !probabilities) {
        fprintf(stderr, "randmdp: out of memory\n");
        return 1;
    }
    uint64_t k = 0, t = 0;
    for (uint64_t s = 0; s < n; s++) {
        state_choices[s] = k;
        uint64_t choices = below(100) < empty_pct ? 0 : 1 + below(max_choices);
        for (uint64_t j = 0; j < choices; j++, k++) {
            choice_transitions[k] = t;
            uint64_t succ = 1 + below(max_succ), first = t;
            while (t - first < succ) {
                uint64_t v = below(100) < local_pct ? (s + n + below(7) - 3) % n : below(n);
                int seen = 0;
                for (uint64_t i = first; i < t; i++)
                    seen |= targets[i] == v;
                if (!seen)
                    targets[t++] = (uint32_t)v;
            }
            for (uint64_t i = first + 1; i < t; i++) /* ascending, as format/CSR.md requires */
                for (uint64_t j = i; j > first && targets[j - 1] > targets[j]; j--) {
                    uint32_t x = targets[j];
                    targets[j] = targets[j - 1];
                    targets[j - 1] = x;
                }
            for (uint64_t i = first; i < t; i++)
                probabilities[i] = 1.0 / (double)succ;
        }
    }
    state_choices[n] = k;
    choice_transitions[k] = t;
    uint32_t initial = 0;
    csr_model m;
    memset(&m, 0, sizeof m);
    m.model_type = CSR_MDP;
    m.num_states = n;
    m.num_choices = k;
    m.num_transitions = t;
    m.state_choices = state_choices;
    m.choice_transitions = choice_transitions;
    m.targets = targets;
    m.probabilities = probabilities;
    m.initial_states = &initial;
    m.num_initial = 1;
    static const char *label_names[] = {"goal"};
    uint64_t label_first[2] = {0, 0};
    uint32_t *goals = NULL;
    if (goal_pct) {
        goals = malloc(n * sizeof *goals);
        if (!goals) {
            fprintf(stderr, "randmdp: out of memory\n");
            return 1;
        }
        for (uint64_t s = 0; s < n; s++)
            if (below(100) < goal_pct)
                goals[label_first[1]++] = (uint32_t)s;
        m.labels.count = 1;
        m.labels.names = label_names;
        m.label_first = label_first;
        m.label_states = goals;
    }
    static const char *reward_names[] = {"r"};
    static const uint32_t reward_info[] = {CSR_REWARD_STATES | CSR_REWARD_CHOICES};
    double *state_rewards = NULL, *choice_rewards = NULL;
    if (reward_pct) {
        state_rewards = malloc(n * sizeof *state_rewards);
        choice_rewards = malloc((k ? k : 1) * sizeof *choice_rewards);
        if (!state_rewards || !choice_rewards) {
            fprintf(stderr, "randmdp: out of memory\n");
            return 1;
        }
        for (uint64_t s = 0; s < n; s++)
            state_rewards[s] = below(400) < reward_pct ? (double)(1 + below(3)) : 0.0;
        for (uint64_t j = 0; j < k; j++)
            choice_rewards[j] = below(100) < reward_pct ? (double)(1 + below(3)) : 0.0;
        m.rewards.count = 1;
        m.rewards.names = reward_names;
        m.reward_info = reward_info;
        m.state_rewards = state_rewards;
        m.choice_rewards = choice_rewards;
    }
    csr_status st;
    memset(&st, 0, sizeof st);
    int rc = 0;
    if (csr_validate(&m, &st) || csr_write_fd(STDOUT_FILENO, &m, &st)) {
        fprintf(stderr, "randmdp: %s: %s\n", csr_strerror(st.code), st.detail);
        rc = 1;
    }
    free(state_choices);
    free(choice_transitions);
    free(targets);
    free(probabilities);
    free(goals);
    free(state_rewards);
    free(choice_rewards);
    return rc;
}
