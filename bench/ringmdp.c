/*
 * ringmdp - an MDP of any size whose SCCs and MECs are known by
 * construction, for decompositions too large for one GPU (issue 44: the
 * model over 2 and 4 GPUs, checked against the construction and the CPU
 * references).
 *
 *   ringmdp [-b blocks] [-k states_per_block] [-d successors] [-S sccs] [-M mecs] seed > model.csr
 *
 * n = blocks x states_per_block states (below 2^32 - 1), numbered block by
 * block.  Block b is of kind b mod 3, except the last, which is of kind 0:
 *   0  a ring that is one MEC: every state i has an internal choice to the
 *      ring states i+1 .. i+d (mod k, equal probabilities), and, but in the
 *      last block, an exit choice: 1/2 to ring state i+1, 1/2 over exits;
 *   1  a ring that is one SCC but holds no MEC: state 0's only choice goes
 *      1/2 to ring state 1 and 1/2 over exits, the others have the internal
 *      choice of kind 0 (once state 0 is gone no cycle is left);
 *   2  a chain of trivial SCCs: state i's one choice goes to i+1 .. i+d
 *      within the block (equal probabilities), the last state's over exits.
 * Exits lead to later blocks only (the first state of block b+1 and a
 * state of a later block drawn by the seed), so the blocks of kinds 0 and
 * 1 are the SCCs of several states and the states of kind 2 are alone.
 * Choices: about 2 a state in blocks of kind 0, 1 elsewhere; transitions:
 * about d + 3, resp. d, a state.
 *
 * -S FILE: the SCC of each state (its smallest state), one line a state, as
 * gpu-scc writes them; -M FILE: the MEC of each state or "-", as gpu-mec.
 * The same arguments always give the same files (xorshift.h).  Errors:
 * exit 2 on bad arguments, 1 when memory or writing fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csr.h"
#include "xorshift.h"

static uint64_t blocks = 3, per_block = 4, successors = 2;
static uint64_t rng_state;

/* The kind of block b (the file comment). */
static unsigned kind_of(uint64_t b) { return b + 1 == blocks ? 0 : (unsigned)(b % 3); }

/* Up to 2 exit targets of a state of block b (b is not the last), ascending. */
static unsigned exits_of(uint64_t b, uint32_t *t)
{
    const uint64_t next = (b + 1) * per_block;
    const uint64_t later = b + 1 + xorshift_next(&rng_state) % (blocks - b - 1);
    const uint64_t far = later * per_block + xorshift_next(&rng_state) % per_block;
    t[0] = (uint32_t)next;
    if (far == next)
        return 1;
    t[1] = (uint32_t)far;
    return 2;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The model being written: offsets, targets, probabilities. */
static uint64_t *state_choices, *choice_transitions;
static uint32_t *targets;
static double *probabilities;
static uint64_t nc, nt;

/* One choice: n1 targets t1 sharing w1, n2 targets t2 sharing 1 - w1 (the
 * two groups disjoint, each ascending), merged ascending. */
static void add_choice(const uint32_t *t1, unsigned n1, double w1, const uint32_t *t2, unsigned n2)
{
    choice_transitions[nc++] = nt;
    unsigned a = 0, b = 0;
    while (a < n1 || b < n2) {
        if (b == n2 || (a < n1 && t1[a] < t2[b])) {
            targets[nt] = t1[a++];
            probabilities[nt++] = w1 / n1;
        } else {
            targets[nt] = t2[b++];
            probabilities[nt++] = (1.0 - w1) / n2;
        }
    }
}

/* The distinct ring states i+1 .. i+d (mod k) of block b, ascending; their count. */
static unsigned ring_targets(uint64_t b, uint64_t i, uint32_t *t)
{
    const uint64_t d = successors < per_block ? successors : per_block;
    for (uint64_t j = 0; j < d; j++)
        t[j] = (uint32_t)(b * per_block + (i + 1 + j) % per_block);
    qsort(t, d, sizeof *t, cmp_u32);
    return (unsigned)d;
}

/* Labels as the tools write them: one decimal or "-" a line. */
static int write_labels(const char *path, int mec)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return perror(path), 1;
    static char buf[1 << 16];
    size_t used = 0;
    for (uint64_t s = 0; s < blocks * per_block; s++) {
        const uint64_t b = s / per_block;
        const unsigned kind = kind_of(b);
        char line[24];
        int len;
        if (mec && kind != 0)
            len = snprintf(line, sizeof line, "-\n");
        else
            len = snprintf(line, sizeof line, "%llu\n", (unsigned long long)(kind == 2 ? s : b * per_block));
        if (used + (size_t)len > sizeof buf) {
            if (fwrite(buf, 1, used, f) != used)
                return perror(path), fclose(f), 1;
            used = 0;
        }
        memcpy(buf + used, line, (size_t)len);
        used += (size_t)len;
    }
    if (fwrite(buf, 1, used, f) != used || fclose(f))
        return perror(path), 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *scc_path = NULL, *mec_path = NULL;
    int c;
    while ((c = getopt(argc, argv, "b:k:d:S:M:")) != -1) {
        switch (c) {
        case 'b': blocks = strtoull(optarg, NULL, 10); break;
        case 'k': per_block = strtoull(optarg, NULL, 10); break;
        case 'd': successors = strtoull(optarg, NULL, 10); break;
        case 'S': scc_path = optarg; break;
        case 'M': mec_path = optarg; break;
        default:
            fprintf(stderr, "usage: ringmdp [-b blocks] [-k states_per_block] [-d successors] [-S sccs] [-M mecs] "
                            "seed > model.csr\n");
            return 2;
        }
    }
    if (optind != argc - 1 || blocks == 0 || per_block == 0 || successors == 0 || successors > 64 ||
        blocks > UINT32_MAX / per_block || blocks * per_block >= UINT32_MAX) {
        fprintf(stderr, "ringmdp: bad arguments (blocks x states_per_block below 2^32 - 1, 1 to 64 successors)\n");
        return 2;
    }
    rng_state = strtoull(argv[optind], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
    const uint64_t n = blocks * per_block, max_c = 2 * n, max_t = n * (successors + 3) + 1;
    state_choices = malloc((n + 1) * sizeof *state_choices);
    choice_transitions = malloc((max_c + 1) * sizeof *choice_transitions);
    targets = malloc(max_t * sizeof *targets);
    probabilities = malloc(max_t * sizeof *probabilities);
    if (!state_choices || !choice_transitions || !targets || !probabilities) {
        fprintf(stderr, "ringmdp: out of memory\n");
        return 1;
    }
    uint32_t ring[64], exits[2], next[1];
    for (uint64_t b = 0; b < blocks; b++) {
        const unsigned kind = kind_of(b);
        const int last = b + 1 == blocks;
        for (uint64_t i = 0; i < per_block; i++) {
            const uint64_t s = b * per_block + i;
            state_choices[s] = nc;
            if (kind == 2) { /* the chain: i+1 .. i+d in the block; the last state exits */
                if (i + 1 < per_block) {
                    unsigned m = 0;
                    for (uint64_t j = i + 1; j < per_block && m < successors; j++)
                        ring[m++] = (uint32_t)(b * per_block + j);
                    add_choice(ring, m, 1.0, NULL, 0);
                } else {
                    add_choice(exits, exits_of(b, exits), 1.0, NULL, 0);
                }
                continue;
            }
            next[0] = (uint32_t)(b * per_block + (i + 1) % per_block);
            if (kind == 1 && i == 0) { /* the ring's one leaving state */
                add_choice(next, 1, 0.5, exits, exits_of(b, exits));
                continue;
            }
            add_choice(ring, ring_targets(b, i, ring), 1.0, NULL, 0);
            if (kind == 0 && !last)
                add_choice(next, 1, 0.5, exits, exits_of(b, exits));
        }
    }
    state_choices[n] = nc;
    choice_transitions[nc] = nt;
    uint32_t initial = 0;
    csr_model m;
    memset(&m, 0, sizeof m);
    m.model_type = CSR_MDP;
    m.num_states = n;
    m.num_choices = nc;
    m.num_transitions = nt;
    m.state_choices = state_choices;
    m.choice_transitions = choice_transitions;
    m.targets = targets;
    m.probabilities = probabilities;
    m.initial_states = &initial;
    m.num_initial = 1;
    csr_status st;
    if (csr_validate(&m, &st) || csr_write_fd(STDOUT_FILENO, &m, &st)) {
        fprintf(stderr, "ringmdp: %s: %s\n", csr_strerror(st.code), st.detail);
        return 1;
    }
    if ((scc_path && write_labels(scc_path, 0)) || (mec_path && write_labels(mec_path, 1)))
        return 1;
    return 0;
}
