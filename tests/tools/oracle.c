/*
 * oracle - test program: the CPU references (ref/) against brute force from
 * the definitions, on seeded random small MDPs.
 *
 *   oracle [-n count] [-s first_seed] [-v]
 *
 * Each MDP has 2 to 10 states, each state 0 to 3 choices (none for about one
 * state in ten), each choice 1 to 4 distinct successors (self-loops common).
 * SCCs by brute force: u and v share an SCC iff each reaches the other
 * (reachability closure).  MECs by brute force (FMSD 2016, Definitions 4-6):
 * every non-empty subset S is tested for being an end component (every state
 * of S has a choice whose successors all lie in S, and S is strongly
 * connected through those choices); a state's MEC is the union of the end
 * components containing it (end components that share a state merge into
 * one).  Both are compared with ref_scc_tarjan and ref_mec_basic as
 * partitions, by canonical ids (the smallest state).  Prints the first MDP
 * that disagrees and exits 1; exits 0 when all agree.  Not installed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ref.h"
#include "xorshift.h"

#define MAX_STATES 10
#define MAX_CHOICES 3
#define MAX_SUCC 4

static uint64_t rng;

static uint64_t next_random(void) { return xorshift_next(&rng); }

static unsigned below(unsigned bound) { return (unsigned)(next_random() % bound); }

struct mdp {
    unsigned n;
    unsigned choices[MAX_STATES];
    unsigned support[MAX_STATES][MAX_CHOICES]; /* successor bitmask per choice */
};

static void draw(struct mdp *m, uint64_t seed)
{
    rng = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (int i = 0; i < 4; i++)
        next_random();
    m->n = 2 + below(MAX_STATES - 1);
    for (unsigned s = 0; s < m->n; s++) {
        m->choices[s] = below(10) == 0 ? 0 : 1 + below(MAX_CHOICES);
        for (unsigned j = 0; j < m->choices[s]; j++) {
            unsigned want = 1 + below(MAX_SUCC), mask = 0;
            if (want > m->n)
                want = m->n;
            while ((unsigned)__builtin_popcount(mask) < want)
                mask |= 1u << (below(3) == 0 ? s : below(m->n));
            m->support[s][j] = mask;
        }
    }
}

/* The MDP as a CSR model (arrays in the caller's buffers). */
static void to_csr(const struct mdp *m, csr_model *c, uint64_t *sc, uint64_t *ct, uint32_t *tg, double *pr)
{
    uint64_t k = 0, t = 0;
    for (unsigned s = 0; s < m->n; s++) {
        sc[s] = k;
        for (unsigned j = 0; j < m->choices[s]; j++, k++) {
            ct[k] = t;
            unsigned count = (unsigned)__builtin_popcount(m->support[s][j]);
            for (unsigned v = 0; v < m->n; v++)
                if (m->support[s][j] >> v & 1) {
                    tg[t] = v;
                    pr[t++] = 1.0 / count;
                }
        }
    }
    sc[m->n] = k;
    ct[k] = t;
    memset(c, 0, sizeof *c);
    c->model_type = CSR_MDP;
    c->num_states = m->n;
    c->num_choices = k;
    c->num_transitions = t;
    c->state_choices = sc;
    c->choice_transitions = ct;
    c->targets = tg;
    c->probabilities = pr;
}

/* States reachable from `from` in zero or more steps along adj, inside `within`. */
static unsigned closure(unsigned from, const unsigned *adj, unsigned n, unsigned within)
{
    unsigned seen = from & within, grow;
    do {
        grow = seen;
        for (unsigned u = 0; u < n; u++)
            if (seen >> u & 1)
                grow |= adj[u] & within;
        if (grow == seen)
            break;
        seen = grow;
    } while (1);
    return seen;
}

static void brute_sccs(const struct mdp *m, uint64_t *id)
{
    unsigned adj[MAX_STATES] = {0}, all = (1u << m->n) - 1, reach[MAX_STATES];
    for (unsigned s = 0; s < m->n; s++)
        for (unsigned j = 0; j < m->choices[s]; j++)
            adj[s] |= m->support[s][j];
    for (unsigned s = 0; s < m->n; s++)
        reach[s] = closure(1u << s, adj, m->n, all);
    for (unsigned s = 0; s < m->n; s++) {
        id[s] = s;
        for (unsigned v = 0; v < s; v++)
            if ((reach[s] >> v & 1) && (reach[v] >> s & 1)) {
                id[s] = id[v];
                break;
            }
    }
}

static int is_end_component(const struct mdp *m, unsigned set)
{
    unsigned adj[MAX_STATES] = {0}, radj[MAX_STATES] = {0};
    for (unsigned s = 0; s < m->n; s++) {
        if (!(set >> s & 1))
            continue;
        int closed = 0;
        for (unsigned j = 0; j < m->choices[s]; j++)
            if ((m->support[s][j] & ~set) == 0) {
                closed = 1;
                adj[s] |= m->support[s][j];
            }
        if (!closed)
            return 0; /* s is not e-closed for set (Definition 4) */
    }
    for (unsigned s = 0; s < m->n; s++)
        for (unsigned v = 0; v < m->n; v++)
            if (adj[s] >> v & 1)
                radj[v] |= 1u << s;
    unsigned first = set & -set;
    return closure(first, adj, m->n, set) == set && closure(first, radj, m->n, set) == set;
}

static void brute_mecs(const struct mdp *m, uint64_t *id)
{
    unsigned mec[MAX_STATES] = {0};
    for (unsigned set = 1; set < (1u << m->n); set++)
        if (is_end_component(m, set))
            for (unsigned s = 0; s < m->n; s++)
                if (set >> s & 1)
                    mec[s] |= set;
    for (unsigned s = 0; s < m->n; s++)
        id[s] = mec[s] ? (uint64_t)__builtin_ctz(mec[s]) : REF_NONE;
}

static void print_mdp(const struct mdp *m)
{
    for (unsigned s = 0; s < m->n; s++) {
        fprintf(stderr, "  state %u:", s);
        for (unsigned j = 0; j < m->choices[s]; j++) {
            fprintf(stderr, " {");
            for (unsigned v = 0; v < m->n; v++)
                if (m->support[s][j] >> v & 1)
                    fprintf(stderr, " %u", v);
            fprintf(stderr, " }");
        }
        fprintf(stderr, "\n");
    }
}

static void print_ids(const char *what, const uint64_t *id, unsigned n)
{
    fprintf(stderr, "  %-14s", what);
    for (unsigned s = 0; s < n; s++)
        if (id[s] == REF_NONE)
            fprintf(stderr, " -");
        else
            fprintf(stderr, " %llu", (unsigned long long)id[s]);
    fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
    uint64_t count = 10000, first = 1;
    int verbose = 0, c;
    while ((c = getopt(argc, argv, "n:s:v")) != -1) {
        switch (c) {
        case 'n': count = strtoull(optarg, NULL, 10); break;
        case 's': first = strtoull(optarg, NULL, 10); break;
        case 'v': verbose = 1; break;
        default: fprintf(stderr, "usage: oracle [-n count] [-s first_seed] [-v]\n"); return 2;
        }
    }
    uint64_t sc[MAX_STATES + 1], ct[MAX_STATES * MAX_CHOICES + 1], mecs = 0, states_in_mecs = 0;
    uint32_t tg[MAX_STATES * MAX_CHOICES * MAX_SUCC];
    double pr[MAX_STATES * MAX_CHOICES * MAX_SUCC];
    for (uint64_t seed = first; seed < first + count; seed++) {
        struct mdp m;
        csr_model model;
        draw(&m, seed);
        to_csr(&m, &model, sc, ct, tg, pr);
        uint64_t want_scc[MAX_STATES], got_scc[MAX_STATES], want_mec[MAX_STATES], got_mec[MAX_STATES];
        brute_sccs(&m, want_scc);
        brute_mecs(&m, want_mec);
        if (ref_scc_tarjan(&model, NULL, NULL, got_scc, NULL) || ref_mec_basic(&model, got_mec, NULL)) {
            fprintf(stderr, "oracle: seed %llu: a reference failed\n", (unsigned long long)seed);
            return 1;
        }
        int scc_ok = memcmp(want_scc, got_scc, m.n * sizeof *got_scc) == 0;
        int mec_ok = memcmp(want_mec, got_mec, m.n * sizeof *got_mec) == 0;
        if (!scc_ok || !mec_ok) {
            fprintf(stderr, "oracle: seed %llu: %s differ from brute force\n", (unsigned long long)seed,
                    scc_ok ? "MECs" : "SCCs");
            print_mdp(&m);
            print_ids(scc_ok ? "brute MECs:" : "brute SCCs:", scc_ok ? want_mec : want_scc, m.n);
            print_ids(scc_ok ? "basic MEC:" : "Tarjan:", scc_ok ? got_mec : got_scc, m.n);
            return 1;
        }
        for (unsigned s = 0; s < m.n; s++) {
            mecs += want_mec[s] == s;
            states_in_mecs += want_mec[s] != REF_NONE;
        }
        if (verbose && seed < first + 3) {
            print_mdp(&m);
            print_ids("MECs:", want_mec, m.n);
        }
    }
    printf("oracle: %llu random MDPs (seeds %llu to %llu): Tarjan and the basic MEC algorithm agree with "
           "brute force (%llu MECs holding %llu states)\n",
           (unsigned long long)count, (unsigned long long)first, (unsigned long long)(first + count - 1),
           (unsigned long long)mecs, (unsigned long long)states_in_mecs);
    return 0;
}
