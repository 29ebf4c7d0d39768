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
 * partitions, by canonical ids (the smallest state).
 * Reachability values (check/reach.h), on the MDPs of at most 6 states: a
 * random target set and, for one MDP in four, a random avoid state; Pmax and
 * Pmin exactly as the best over all memoryless deterministic schedulers
 * (enough for reachability), each scheduler's Markov chain solved by
 * Gaussian elimination on the states that can reach a target (the others,
 * Prob0, are 0).  reach_solve (interval iteration, relative 1e-6; once as one
 * system, once split into SCC groups by a 1-byte budget, and for one MDP in
 * 8 once over 1 to 8 parts by ref/reach_parts.h's Jacobi iteration; and
 * certified policy iteration, REACH_PI, from its policies at once:
 * CSR_TEST_PI_JACOBI=0) must be within
 * 1e-6 relative (1e-12 absolute) of every state's exact value, and exactly 0
 * and 1 where the exact value is.  On the same MDPs, with random state and
 * choice rewards (zeros common, so zero-reward end components are too) and
 * another random target: reach_solve_reward against Rmax and Rmin as the best
 * over all memoryless deterministic schedulers, each chain's expected
 * reward solved by Gaussian elimination where the target is reached almost
 * surely and infinite elsewhere (whole and split, within 1e-6 relative,
 * infinite exactly where it is); reach_solve_bounded for 0 to 4 steps
 * against the recursion over the tree of paths (within 1e-12).
 * -a: accepting cycles only (ref/acc.h): on the graph of each MDP (an edge
 * per transition of any choice), with random accepting and initial states,
 * nested DFS, OWCTY and MAP against the definition by closures, and every
 * lasso checked (check_accepting).
 * Prints the first MDP that disagrees and exits 1; exits 0 when all agree.
 * -u BASE also writes the disjoint union of the MDPs (each one's states after
 * the last one's) as BASE.csr, with the brute-force SCCs and MECs of every
 * state (canonical: the smallest state, in the union's numbering) as the
 * label files BASE.sccs and BASE.mecs, so that one run of a GPU tool checks
 * them all.
 * Not installed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acc.h"
#include "labels.h"
#include "reach.h"
#include "reach_parts.h"
#include "reach_ref.h"
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

static void print_mdp(const struct mdp *m);

/* ---- reachability values by brute force ---------------------------------- */

#define MAX_VI_STATES 6

/* Gauss-Jordan elimination with partial pivoting of the k x (k + 1)
 * augmented system a, in place: afterwards x[i] = a[i][k] / a[i][i]. */
static void gauss_jordan(double a[][MAX_STATES + 1], unsigned k)
{
    for (unsigned col = 0; col < k; col++) {
        unsigned piv = col;
        for (unsigned r = col + 1; r < k; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col]))
                piv = r;
        for (unsigned j = 0; j <= k; j++) {
            double t = a[col][j];
            a[col][j] = a[piv][j];
            a[piv][j] = t;
        }
        for (unsigned r = 0; r < k; r++) {
            if (r == col)
                continue;
            double f = a[r][col] / a[col][col];
            for (unsigned j = col; j <= k; j++)
                a[r][j] -= f * a[col][j];
        }
    }
}

/* The successors (bitmask) of each state in the Markov chain of a
 * scheduler: choice[s] of s, none when s has no choice. */
static void chain_successors(const struct mdp *m, const unsigned *choice, unsigned *succ)
{
    for (unsigned s = 0; s < m->n; s++)
        succ[s] = m->choices[s] ? m->support[s][choice[s]] : 0;
}

/* The states of a chain that can reach target, passing no state of avoid. */
static unsigned chain_can_reach(unsigned n, const unsigned *succ, unsigned target, unsigned avoid)
{
    unsigned can = target, grow;
    for (;;) {
        grow = can;
        for (unsigned s = 0; s < n; s++)
            if (!(avoid >> s & 1) && (succ[s] & can))
                grow |= 1u << s;
        if (grow == can)
            return can;
        can = grow;
    }
}

/* Probabilities of reaching target (through states not in avoid) in the
 * Markov chain of a scheduler: choice[s] of s, or none when s has none. */
static void chain_values(const struct mdp *m, const unsigned *choice, unsigned target, unsigned avoid, double *x)
{
    unsigned n = m->n, succ[MAX_STATES];
    chain_successors(m, choice, succ);
    unsigned can = chain_can_reach(n, succ, target, avoid); /* Prob0 of the chain is its complement */
    unsigned unknown[MAX_STATES], k = 0, index[MAX_STATES];
    for (unsigned s = 0; s < n; s++) {
        x[s] = target >> s & 1 ? 1.0 : 0.0;
        if ((can >> s & 1) && !(target >> s & 1)) {
            index[s] = k;
            unknown[k++] = s;
        }
    }
    /* (I - P_UU) x_U = P_U,target 1, by Gaussian elimination with partial pivoting */
    double a[MAX_STATES][MAX_STATES + 1] = {{0}};
    for (unsigned i = 0; i < k; i++) {
        unsigned s = unknown[i];
        double p = 1.0 / __builtin_popcount(succ[s]);
        a[i][i] = 1.0;
        for (unsigned v = 0; v < n; v++) {
            if (!(succ[s] >> v & 1))
                continue;
            if (target >> v & 1)
                a[i][k] += p;
            else if ((can >> v & 1))
                a[i][index[v]] -= p;
        }
    }
    gauss_jordan(a, k);
    for (unsigned i = 0; i < k; i++)
        x[unknown[i]] = a[i][k] / a[i][i];
}

/* Pmax or Pmin per state over all memoryless deterministic schedulers. */
static void brute_values(const struct mdp *m, unsigned target, unsigned avoid, int maximize, double *best)
{
    unsigned choice[MAX_STATES] = {0};
    double x[MAX_STATES];
    for (int first = 1;; first = 0) {
        chain_values(m, choice, target, avoid, x);
        for (unsigned s = 0; s < m->n; s++)
            if (first || (maximize ? x[s] > best[s] : x[s] < best[s]))
                best[s] = x[s];
        unsigned s = 0; /* next scheduler (odometer over the states' choices) */
        while (s < m->n && (m->choices[s] <= 1 || ++choice[s] == m->choices[s])) {
            choice[s] = 0;
            s++;
        }
        if (s == m->n)
            return;
    }
}

/* Step-bounded reachability from its definition: the best over the choices
 * at every history of the probability of the paths that reach a target
 * within k steps, by recursion over the tree of paths (no sharing between
 * histories, no vectors: independent of ref_reach_bounded's iteration). */
static double tree_value(const struct mdp *m, unsigned s, unsigned k, unsigned target, unsigned avoid, int maximize)
{
    if (target >> s & 1)
        return 1.0;
    if (k == 0 || (avoid >> s & 1) || m->choices[s] == 0)
        return 0.0;
    double best = maximize ? 0.0 : 1.0;
    for (unsigned a = 0; a < m->choices[s]; a++) {
        unsigned succ = m->support[s][a];
        double p = 1.0 / __builtin_popcount(succ), sum = 0.0;
        for (unsigned v = 0; v < m->n; v++)
            if (succ >> v & 1)
                sum += p * tree_value(m, v, k - 1, target, avoid, maximize);
        best = maximize ? fmax(best, sum) : fmin(best, sum);
    }
    return best;
}

/* Expected reward until a target in the Markov chain of a memoryless
 * scheduler (choice[s]): reward r[s] per step from s (its state reward plus
 * its choice's); INFINITY where the target is not reached almost surely
 * (some state reachable without passing a target cannot reach one, or
 * there is no choice). */
static void chain_rewards(const struct mdp *m, const unsigned *choice, unsigned target, const double *r, double *x)
{
    unsigned n = m->n, succ[MAX_STATES];
    chain_successors(m, choice, succ);
    unsigned can = chain_can_reach(n, succ, target, 0);
    unsigned sure = 0; /* almost surely: every state reachable before a target can reach one */
    for (unsigned s = 0; s < n; s++) {
        unsigned seen = 1u << s, frontier = seen;
        while (frontier) {
            unsigned next = 0;
            for (unsigned v = 0; v < n; v++)
                if ((frontier >> v & 1) && !(target >> v & 1))
                    next |= succ[v];
            frontier = next & ~seen;
            seen |= next;
        }
        unsigned inner = seen & ~target; /* states passed before a target */
        int ok = 1;
        for (unsigned v = 0; v < n; v++)
            if ((inner >> v & 1) && (!(can >> v & 1) || !m->choices[v]))
                ok = 0;
        if (ok || (target >> s & 1))
            sure |= 1u << s;
    }
    unsigned unknown[MAX_STATES], k = 0, index[MAX_STATES];
    for (unsigned s = 0; s < n; s++) {
        x[s] = target >> s & 1 ? 0.0 : INFINITY;
        if ((sure >> s & 1) && !(target >> s & 1)) {
            index[s] = k;
            unknown[k++] = s;
        }
    }
    /* (I - P_UU) x_U = r_U (successors of a sure state are sure or targets) */
    double a[MAX_STATES][MAX_STATES + 1] = {{0}};
    for (unsigned i = 0; i < k; i++) {
        unsigned s = unknown[i];
        double p = 1.0 / __builtin_popcount(succ[s]);
        a[i][i] = 1.0;
        a[i][k] = r[s];
        for (unsigned v = 0; v < n; v++)
            if ((succ[s] >> v & 1) && !(target >> v & 1))
                a[i][index[v]] -= p;
    }
    gauss_jordan(a, k);
    for (unsigned i = 0; i < k; i++)
        x[unknown[i]] = a[i][k] / a[i][i];
}

/* Rmax or Rmin per state over all memoryless deterministic schedulers
 * (enough for expected reachability rewards with PRISM's semantics: a
 * scheduler that misses the target with positive probability pays
 * infinity). state_reward f64[n], choice_reward[s][a]. */
static void brute_rewards(const struct mdp *m, unsigned target, const double *state_reward,
                          const double choice_reward[][MAX_CHOICES], int maximize, double *best)
{
    unsigned choice[MAX_STATES] = {0};
    double x[MAX_STATES], r[MAX_STATES];
    for (int first = 1;; first = 0) {
        for (unsigned s = 0; s < m->n; s++)
            r[s] = state_reward[s] + (m->choices[s] ? choice_reward[s][choice[s]] : 0.0);
        chain_rewards(m, choice, target, r, x);
        for (unsigned s = 0; s < m->n; s++)
            if (first || (maximize ? x[s] > best[s] : x[s] < best[s]))
                best[s] = x[s];
        unsigned s = 0;
        while (s < m->n && (m->choices[s] <= 1 || ++choice[s] == m->choices[s])) {
            choice[s] = 0;
            s++;
        }
        if (s == m->n)
            return;
    }
}

/* reach_solve_reward and reach_solve_bounded against brute force on one MDP
 * (after check_values: its random draws come after those); 0 if all agree. */
/* The topological solver's cores by Gauss-Seidel whatever their size
 * (CSR_TEST_CORE_GS_MIN=0), their count kept in topo; or as the tools run it. */
static void gauss_seidel_cores(int on, reach_options *o, reach_topo_stats *topo)
{
    o->topo_stats = on ? topo : NULL;
    if (on)
        setenv("CSR_TEST_CORE_GS_MIN", "0", 1);
    else
        unsetenv("CSR_TEST_CORE_GS_MIN");
}

static uint64_t pi_reward_certified; /* reward systems that certified policy iteration certified */
static uint64_t gs_reward_cores;     /* reward cores that Gauss-Seidel solved (CSR_TEST_CORE_GS_MIN=0) */

static int check_rewards_and_bounds(const struct mdp *m, const csr_model *model, uint64_t seed)
{
    unsigned target = 0, avoid = 0;
    for (unsigned s = 0; s < m->n; s++)
        if (below(3) == 0)
            target |= 1u << s;
    if (below(4) == 0)
        avoid = (1u << below(m->n)) & ~target;
    double state_reward[MAX_STATES], choice_reward[MAX_STATES][MAX_CHOICES], flat[MAX_STATES * MAX_CHOICES];
    unsigned k = 0;
    for (unsigned s = 0; s < m->n; s++) {
        state_reward[s] = below(3) == 0 ? (double)below(3) : 0.0; /* zero rewards common: zero-reward ECs */
        for (unsigned a = 0; a < m->choices[s]; a++)
            flat[k++] = choice_reward[s][a] = below(2) == 0 ? (double)(1 + below(2)) : 0.0;
    }
    uint8_t tflags[MAX_STATES], aflags[MAX_STATES];
    for (unsigned s = 0; s < m->n; s++) {
        tflags[s] = target >> s & 1;
        aflags[s] = avoid >> s & 1;
    }
    reach_options o;
    reach_default_options(&o);
    reach_pi_stats pis;
    memset(&pis, 0, sizeof pis);
    o.pi_stats = &pis;
    reach_topo_stats topo;
    memset(&topo, 0, sizeof topo);
    for (int maximize = 0; maximize <= 1; maximize++) {
        double exact[MAX_STATES], got[MAX_STATES];
        brute_rewards(m, target, state_reward, choice_reward, maximize, exact);
        reach_query q = {tflags, NULL, maximize};
        /* 0: whole, optimistic value iteration; 1: split; 2: whole,
         * certified policy iteration (from the start: CSR_TEST_PI_JACOBI=0);
         * 3: SCC by SCC (reach_solve_topological), certified policy
         * iteration in the cores; 4: the same, Gauss-Seidel in the cores
         * first (CSR_TEST_CORE_GS_MIN=0); 0-2 each system whole */
        for (int split = 0; split <= 4; split++) {
            reach_stats st;
            memset(&st, 0, sizeof st);
            reach_engine e;
            reach_cpu_engine(model, &e);
            e.budget = split == 1 ? 1 : UINT64_MAX;
            o.method = split >= 2 ? REACH_PI : REACH_II;
            o.topological = split >= 3;
            gauss_seidel_cores(split == 4, &o, &topo);
            if (reach_solve_reward(&e, &q, state_reward, flat, &o, got, NULL, NULL, &st)) {
                fprintf(stderr, "oracle: seed %llu: reach_solve_reward failed\n", (unsigned long long)seed);
                return 1;
            }
            for (unsigned s = 0; s < m->n; s++) {
                double d = fabs(got[s] - exact[s]);
                int ok = isinf(exact[s]) ? isinf(got[s]) : d <= 1e-6 * exact[s] || d <= 1e-12;
                if (!ok) {
                    fprintf(stderr, "oracle: seed %llu: R%s of reaching {", (unsigned long long)seed,
                            maximize ? "max" : "min");
                    for (unsigned v = 0; v < m->n; v++)
                        if (target >> v & 1)
                            fprintf(stderr, " %u", v);
                    fprintf(stderr, " }%s: state %u: %.17g, exactly %.17g\nstate rewards:",
                            split == 4   ? " (SCC by SCC, Gauss-Seidel)"
                            : split == 3 ? " (SCC by SCC)"
                            : split == 2 ? " (certified policy iteration)"
                            : split      ? " (split)"
                                         : "",
                            s, got[s], exact[s]);
                    for (unsigned v = 0; v < m->n; v++)
                        fprintf(stderr, " %g", state_reward[v]);
                    fprintf(stderr, "\nchoice rewards:");
                    for (unsigned i = 0; i < k; i++)
                        fprintf(stderr, " %g", flat[i]);
                    fputc('\n', stderr);
                    print_mdp(m);
                    return 1;
                }
            }
        }
        reach_query bq = {tflags, aflags, maximize};
        for (unsigned steps = 0; steps <= 4; steps++) {
            reach_stats st;
            memset(&st, 0, sizeof st);
            reach_engine e;
            reach_cpu_engine(model, &e);
            if (reach_solve_bounded(&e, &bq, steps, got, &st)) {
                fprintf(stderr, "oracle: seed %llu: reach_solve_bounded failed\n", (unsigned long long)seed);
                return 1;
            }
            for (unsigned s = 0; s < m->n; s++) {
                double want = tree_value(m, s, steps, target, avoid, maximize);
                if (fabs(got[s] - want) > 1e-12) {
                    fprintf(stderr, "oracle: seed %llu: P%s [ U<=%u ] of state %u: %.17g, by the tree %.17g\n",
                            (unsigned long long)seed, maximize ? "max" : "min", steps, s, got[s], want);
                    print_mdp(m);
                    return 1;
                }
            }
        }
    }
    pi_reward_certified += pis.certified;
    gs_reward_cores += topo.gauss_seidel;
    return 0;
}

/* ---- reward bounds against the product with the budget ------------------------ */

#define MAX_BUDGET 3
#define PRODUCT_STATES (MAX_STATES * (MAX_BUDGET + 1) + 1)

/*
 * The product of m with the reward budget b = 0..B, an independent
 * construction of the same probabilities: state (s, b) is s * (B + 1) + b,
 * and sink = n (B + 1) of value 0.  Below an upper bound (at_least 0) b is
 * what may still be gathered: a choice of reward r goes from (s, b) to (t,
 * b - r), or to the sink where r > b; the targets (t, any b) are the
 * product's.  Under a lower one (at_least 1) b is what is still to be
 * gathered: (s, b) goes to (t, max(b - r, 0)); the targets are (t, 0), and
 * at b > 0 a state that must be avoided (not psi) is avoided even where it
 * is a target.  r: each choice's reward (state plus choice), whole.
 */
static void product_of(const struct mdp *m, const double *r, unsigned target, unsigned avoid, unsigned B, int at_least,
                       csr_model *c, uint64_t *sc, uint64_t *ct, uint32_t *tg, double *pr, uint8_t *tflags,
                       uint8_t *aflags)
{
    const unsigned L = B + 1, sink = m->n * L;
    uint64_t k = 0, t = 0;
    for (unsigned s = 0; s < m->n; s++) {
        for (unsigned b = 0; b < L; b++) {
            const unsigned ps = s * L + b;
            sc[ps] = k;
            const int is_target = (target >> s & 1) && (!at_least || b == 0);
            tflags[ps] = (uint8_t)is_target;
            aflags[ps] = (uint8_t)((avoid >> s & 1) && (at_least ? b > 0 || !(target >> s & 1) : !(target >> s & 1)));
            unsigned kk = 0;
            for (unsigned a = 0; a < s; a++)
                kk += m->choices[a];
            for (unsigned j = 0; j < m->choices[s]; j++, k++) {
                ct[k] = t;
                const unsigned rew = (unsigned)r[kk + j];
                const unsigned count = (unsigned)__builtin_popcount(m->support[s][j]);
                if (!at_least && rew > b) {
                    tg[t] = sink;
                    pr[t++] = 1.0;
                    continue;
                }
                const unsigned nb = at_least ? (rew >= b ? 0 : b - rew) : b - rew;
                for (unsigned v = 0; v < m->n; v++)
                    if (m->support[s][j] >> v & 1) {
                        tg[t] = v * L + nb;
                        pr[t++] = 1.0 / count;
                    }
            }
        }
    }
    sc[sink] = k;
    tflags[sink] = 0;
    aflags[sink] = 0;
    sc[sink + 1] = k;
    ct[k] = t;
    memset(c, 0, sizeof *c);
    c->model_type = CSR_MDP;
    c->num_states = sink + 1;
    c->num_choices = k;
    c->num_transitions = t;
    c->state_choices = sc;
    c->choice_transitions = ct;
    c->targets = tg;
    c->probabilities = pr;
}

static uint64_t reward_bounds_checked;

/* reach_solve_reward_bounded (the epochs by interval iteration, or by
 * certified policy iteration) against reach_solve on the product (interval
 * iteration), for bounds 0..MAX_BUDGET, upper and lower, min and max; 0 if
 * all agree (within 1e-6 relative, 1e-12 absolute). */
static int check_reward_bounds(const struct mdp *m, const csr_model *model, uint64_t seed)
{
    unsigned target = 0, avoid = 0;
    for (unsigned s = 0; s < m->n; s++)
        if (below(3) == 0)
            target |= 1u << s;
    if (below(4) == 0)
        avoid = 1u << below(m->n);
    double state_reward[MAX_STATES], flat[MAX_STATES * MAX_CHOICES], r[MAX_STATES * MAX_CHOICES];
    unsigned k = 0;
    for (unsigned s = 0; s < m->n; s++) {
        state_reward[s] = below(4) == 0 ? 1.0 : 0.0;
        for (unsigned a = 0; a < m->choices[s]; a++, k++) {
            flat[k] = below(2) == 0 ? (double)below(3) : 0.0; /* zeros common: reward-0 end components */
            r[k] = state_reward[s] + flat[k];
        }
    }
    uint8_t tflags[MAX_STATES], aflags[MAX_STATES];
    for (unsigned s = 0; s < m->n; s++) {
        tflags[s] = target >> s & 1;
        aflags[s] = avoid >> s & 1; /* not psi; the query layer's avoid excludes targets but under a lower bound */
    }
    reach_options o;
    reach_default_options(&o);
    o.method = seed % 8 ? REACH_II : REACH_PI; /* the epochs by certified policy iteration in one MDP of two */
    for (int at_least = 0; at_least <= 1; at_least++)
        for (unsigned B = 0; B <= MAX_BUDGET; B++)
            for (int maximize = 0; maximize <= 1; maximize++) {
                uint8_t qa[MAX_STATES];
                for (unsigned s = 0; s < m->n; s++)
                    qa[s] = aflags[s] && (at_least || !tflags[s]);
                reach_query q = {tflags, avoid ? qa : NULL, maximize};
                double got[MAX_STATES], want[PRODUCT_STATES];
                reach_stats st;
                memset(&st, 0, sizeof st);
                reach_engine e;
                reach_cpu_engine(model, &e);
                csr_status cs;
                if (reach_solve_reward_bounded(&e, &q, state_reward, flat, at_least, B, &o, got, &st, &cs)) {
                    fprintf(stderr, "oracle: seed %llu: reach_solve_reward_bounded failed\n", (unsigned long long)seed);
                    return 1;
                }
                uint64_t sc[PRODUCT_STATES + 1], ct[PRODUCT_STATES * MAX_CHOICES + 1];
                uint32_t tg[PRODUCT_STATES * MAX_CHOICES * MAX_SUCC];
                double pr[PRODUCT_STATES * MAX_CHOICES * MAX_SUCC];
                uint8_t pt[PRODUCT_STATES], pa[PRODUCT_STATES];
                csr_model prod;
                product_of(m, r, target, avoid, B, at_least, &prod, sc, ct, tg, pr, pt, pa);
                reach_query pq = {pt, avoid ? pa : NULL, maximize};
                reach_engine pe;
                reach_cpu_engine(&prod, &pe);
                memset(&st, 0, sizeof st);
                if (reach_solve(&pe, &pq, &o, want, NULL, NULL, &st)) {
                    fprintf(stderr, "oracle: seed %llu: reach_solve on the product failed\n", (unsigned long long)seed);
                    return 1;
                }
                for (unsigned s = 0; s < m->n; s++) {
                    const double w = want[s * (B + 1) + B], d = fabs(got[s] - w);
                    if (d <= 1e-6 * w || d <= 1e-12)
                        continue;
                    fprintf(stderr, "oracle: seed %llu: P%s [ F{r}%s%u ] of state %u: %.17g, on the product %.17g\n",
                            (unsigned long long)seed, maximize ? "max" : "min", at_least ? ">=" : "<=", B, s,
                            got[s], w);
                    fprintf(stderr, "target:");
                    for (unsigned v = 0; v < m->n; v++)
                        if (target >> v & 1)
                            fprintf(stderr, " %u", v);
                    fprintf(stderr, "; not psi: %x; choice rewards (state + choice):", avoid);
                    for (unsigned i = 0; i < k; i++)
                        fprintf(stderr, " %g", r[i]);
                    fputc('\n', stderr);
                    print_mdp(m);
                    return 1;
                }
                reward_bounds_checked++;
            }
    return 0;
}

/* ---- accepting cycles by brute force --------------------------------------- */

/* Nested DFS, OWCTY and MAP (ref/acc.h) against the definition on the graph of
 * one MDP (an edge for every transition of every choice) with random
 * accepting states and one or two initial states: an accepting cycle exists
 * iff some accepting state reachable from an initial one reaches itself in
 * one step or more (closures); every lasso must be valid (acc_lasso_valid),
 * also those acc_lasso_build makes from all states and from OWCTY's
 * fixpoint.  0 if all agree. */
static int check_accepting(const struct mdp *m, csr_model *model, uint64_t seed, uint64_t *with_cycle)
{
    rng = seed * 0xA24BAED4963EE407ull + 0x9FB21C651E98DF25ull;
    for (int i = 0; i < 4; i++)
        next_random();
    uint8_t accepting[MAX_STATES] = {0}, survivors[MAX_STATES];
    uint32_t initial[2] = {0, 0};
    unsigned adj[MAX_STATES] = {0}, acc = 0, all = (1u << m->n) - 1;
    for (unsigned s = 0; s < m->n; s++) {
        accepting[s] = below(7) == 0;
        acc |= (unsigned)accepting[s] << s;
        for (unsigned j = 0; j < m->choices[s]; j++)
            adj[s] |= m->support[s][j];
    }
    initial[0] = below(m->n);
    initial[1] = below(m->n);
    if (initial[1] < initial[0]) {
        uint32_t t = initial[0];
        initial[0] = initial[1];
        initial[1] = t;
    }
    model->initial_states = initial;
    model->num_initial = initial[1] == initial[0] ? 1 : 2;
    unsigned reach = closure((1u << initial[0]) | (1u << initial[1]), adj, m->n, all);
    int want = 0;
    for (unsigned a = 0; a < m->n; a++)
        if ((acc & reach) >> a & 1 && closure(adj[a], adj, m->n, all) >> a & 1)
            want = 1;
    acc_lasso lasso;
    uint64_t cycle_state = UINT64_MAX;
    int dfs = ref_acc_nested_dfs(model, accepting, &lasso, NULL);
    int ok = dfs == want && (!dfs || acc_lasso_valid(model, accepting, &lasso));
    if (dfs == 1)
        acc_lasso_free(&lasso);
    int owcty = ref_acc_owcty(model, accepting, survivors, NULL);
    int map = ref_acc_map(model, accepting, &cycle_state, NULL);
    ok = ok && owcty == want && map == want;
    if (ok && map) /* MAP's state: accepting, reachable, on a cycle */
        ok = accepting[cycle_state] && (reach >> cycle_state & 1) && (closure(adj[cycle_state], adj, m->n, all) >> cycle_state & 1);
    for (int w = 0; ok && w < 2; w++) {
        int built = acc_lasso_build(model, accepting, w ? survivors : NULL, &lasso);
        ok = built == want && (!built || acc_lasso_valid(model, accepting, &lasso));
        if (built == 1)
            acc_lasso_free(&lasso);
    }
    model->initial_states = NULL;
    model->num_initial = 0;
    if (!ok) {
        fprintf(stderr, "oracle: seed %llu: accepting cycle %s by brute force; nested DFS %d, OWCTY %d, MAP %d (state %llu)\n",
                (unsigned long long)seed, want ? "exists" : "does not exist", dfs, owcty, map,
                (unsigned long long)cycle_state);
        fprintf(stderr, "accepting:");
        for (unsigned v = 0; v < m->n; v++)
            if (accepting[v])
                fprintf(stderr, " %u", v);
        fprintf(stderr, "; initial: %u %u\n", initial[0], initial[1]);
        print_mdp(m);
        return 1;
    }
    *with_cycle += want;
    return 0;
}

/* Systems that certified policy iteration certified (check_values). */
static uint64_t pi_certified;
static uint64_t gs_cores; /* probability cores that Gauss-Seidel solved (CSR_TEST_CORE_GS_MIN=0) */

/* reach_solve against brute force on one MDP; 0 if all agree. */
static int check_values(const struct mdp *m, const csr_model *model, uint64_t seed, uint64_t *checked)
{
    rng = seed * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull;
    for (int i = 0; i < 4; i++)
        next_random();
    unsigned target = 0, avoid = 0;
    for (unsigned s = 0; s < m->n; s++)
        if (below(3) == 0)
            target |= 1u << s;
    if (below(4) == 0)
        avoid = (1u << below(m->n)) & ~target;
    uint8_t tflags[MAX_STATES], aflags[MAX_STATES];
    for (unsigned s = 0; s < m->n; s++) {
        tflags[s] = target >> s & 1;
        aflags[s] = avoid >> s & 1;
    }
    reach_options o;
    reach_default_options(&o);
    reach_pi_stats pis;
    memset(&pis, 0, sizeof pis);
    o.pi_stats = &pis;
    reach_topo_stats topo;
    memset(&topo, 0, sizeof topo);
    for (int maximize = 0; maximize <= 1; maximize++) {
        double exact[MAX_STATES], got[MAX_STATES];
        brute_values(m, target, avoid, maximize, exact);
        reach_query q = {tflags, aflags, maximize};
        { /* gpu-vi --cpu's Prob0/Prob1 (incremental Prob1E) against the reference's, byte for byte: over
           * a transpose of its own, and (every 8th MDP) over the one a run's cache keeps, built by a task
           * per CPU as on a large model (CSR_TEST_GRAIN): counters shared, or (every 16th) each task's own,
           * then the same entries in the same order as the reference's transpose */
            uint8_t want_cls[MAX_STATES], got_cls[MAX_STATES], kept_cls[MAX_STATES];
            int differ = ref_reach_prob01(model, &q, want_cls) || reach_prob01_cpu(model, NULL, &q, got_cls) ||
                         memcmp(want_cls, got_cls, m->n);
            if (!differ && seed % 8 == 0) {
                reach_cache *cache = reach_cache_new(m->n);
                const char *grain = getenv("CSR_TEST_GRAIN");
                char *kept_grain = grain ? strdup(grain) : NULL;
                setenv("CSR_TEST_GRAIN", "1", 1);
                if (seed % 16 == 0)
                    setenv("CSR_TEST_TRANSPOSE_OWN", "1", 1);
                const ref_transpose *kept = cache ? reach_cache_transpose(cache, model) : NULL;
                differ = !kept || reach_prob01_cpu(model, cache, &q, kept_cls) || memcmp(want_cls, kept_cls, m->n);
                ref_transpose want = {0};
                if (!differ && seed % 16 == 0) {
                    const uint64_t t = model->num_transitions, c = model->num_choices;
                    differ = ref_transpose_build(model, &want) ||
                             memcmp(want.first, kept->first, (m->n + 1) * sizeof *want.first) ||
                             memcmp(want.choice, kept->choice, t * sizeof *want.choice) ||
                             memcmp(want.owner, kept->owner, c * sizeof *want.owner);
                }
                ref_transpose_free(&want);
                if (kept_grain)
                    setenv("CSR_TEST_GRAIN", kept_grain, 1);
                else
                    unsetenv("CSR_TEST_GRAIN");
                free(kept_grain);
                unsetenv("CSR_TEST_TRANSPOSE_OWN");
                reach_cache_free(cache);
            }
            if (differ) {
                fprintf(stderr, "oracle: seed %llu: reach_prob01_cpu, or the run's transpose, differs from the reference's (%s)\n",
                        (unsigned long long)seed, maximize ? "max" : "min");
                print_mdp(m);
                return 1;
            }
            /* Prob1E by the MEC quotient at once: the same classes, and the maybe states' MECs */
            uint32_t got_mec[MAX_STATES];
            uint64_t want_mec[MAX_STATES];
            int found = 0, rc;
            setenv("CSR_TEST_PROB1E_ROUNDS", "0", 1);
            rc = reach_prob01_mecs_cpu(model, NULL, &q, got_cls, got_mec, &found);
            unsetenv("CSR_TEST_PROB1E_ROUNDS");
            csr_model sub;
            ref_mec_stats ms;
            if (!rc && maximize && !(rc = reach_maybe_graph(model, want_cls, NULL, &sub))) {
                rc = ref_mec_basic(&sub, want_mec, &ms);
                csr_free(&sub);
            }
            int same = !rc && found == maximize && !memcmp(want_cls, got_cls, m->n);
            for (unsigned s = 0; same && maximize && s < m->n; s++)
                same = got_mec[s] == (want_mec[s] == REF_NONE ? REACH_NO_MEC : (uint32_t)want_mec[s]);
            if (!same) {
                fprintf(stderr, "oracle: seed %llu: Prob1E by the MEC quotient differs from ref_reach_prob01 and "
                                "the maybe states' MECs (%s)\n", (unsigned long long)seed, maximize ? "max" : "min");
                print_mdp(m);
                return 1;
            }
        }
        /* splits 0-2 by interval iteration, 3 whole by certified policy
         * iteration (CSR_TEST_PI_JACOBI=0, set in main: the policies from
         * the start), each system whole; 4 SCC by SCC
         * (reach_solve_topological), certified policy iteration in the cores;
         * 5 the same, Gauss-Seidel in the cores first (CSR_TEST_CORE_GS_MIN=0) */
        for (int split = 0; split <= 5; split++) {
            if (split == 2 && seed % 8)
                continue;
            o.method = split >= 3 ? REACH_PI : REACH_II;
            o.topological = split >= 4;
            gauss_seidel_cores(split == 5, &o, &topo);
            reach_stats st;
            memset(&st, 0, sizeof st);
            /* split 2, one MDP in 8 (its Jacobi sweeps take 10x the
             * sequential ones' time): the iteration over 1 to 8 parts */
            reach_parts_context pcx;
            memset(&pcx, 0, sizeof pcx);
            pcx.parts = 1 + (uint32_t)(seed / 8 % 8);
            reach_engine e;
            reach_cpu_engine(model, &e);
            if (split == 1)
                e.budget = 1;
            if (split == 2) { /* the references' steps (NULL members) but the solver over parts */
                memset(&e, 0, sizeof e);
                e.model = model;
                e.budget = UINT64_MAX;
                e.solve = reach_solve_partitioned;
                e.ctx = &pcx;
            }
            if (reach_solve(&e, &q, &o, got, NULL, NULL, &st)) {
                fprintf(stderr, "oracle: seed %llu: reach_solve failed\n", (unsigned long long)seed);
                return 1;
            }
            for (unsigned s = 0; s < m->n; s++) {
                double d = fabs(got[s] - exact[s]);
                int ok = exact[s] < 1e-12 ? got[s] == 0.0
                       : exact[s] > 1.0 - 1e-12 ? got[s] == 1.0
                                                : d <= 1e-6 * exact[s] || d <= 1e-12;
                if (!ok) {
                    fprintf(stderr, "oracle: seed %llu: P%s of reaching {", (unsigned long long)seed,
                            maximize ? "max" : "min");
                    for (unsigned v = 0; v < m->n; v++)
                        if (target >> v & 1)
                            fprintf(stderr, " %u", v);
                    fprintf(stderr, " } avoiding {");
                    for (unsigned v = 0; v < m->n; v++)
                        if (avoid >> v & 1)
                            fprintf(stderr, " %u", v);
                    fprintf(stderr, " }%s: state %u: %.17g, exactly %.17g\n",
                            split == 5   ? " (SCC by SCC, Gauss-Seidel)"
                            : split == 4 ? " (SCC by SCC)"
                            : split == 3 ? " (certified policy iteration)"
                            : split == 2 ? " (over parts)"
                            : split      ? " (split)"
                                         : "",
                            s, got[s], exact[s]);
                    print_mdp(m);
                    return 1;
                }
            }
        }
    }
    (*checked)++;
    pi_certified += pis.certified;
    gs_cores += topo.gauss_seidel;
    return 0;
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

/* The disjoint union of the MDPs drawn, with their brute-force SCC and MEC ids. */
struct mdp_union {
    uint64_t n, c, t;
    uint64_t *sc, *ct, *scc, *mec;
    uint32_t *tg;
    double *pr;
};

static int union_add(struct mdp_union *u, const csr_model *m, const uint64_t *scc, const uint64_t *mec)
{
    uint64_t n = u->n + m->num_states, c = u->c + m->num_choices, t = u->t + m->num_transitions;
    uint64_t *sc = realloc(u->sc, (n + 1) * sizeof *sc), *ct = sc ? realloc(u->ct, (c + 1) * sizeof *ct) : NULL;
    if (sc)
        u->sc = sc;
    if (ct)
        u->ct = ct;
    uint64_t *si = ct ? realloc(u->scc, n * sizeof *si) : NULL;
    if (si)
        u->scc = si;
    uint64_t *mi = si ? realloc(u->mec, n * sizeof *mi) : NULL;
    if (mi)
        u->mec = mi;
    uint32_t *tg = mi ? realloc(u->tg, (t ? t : 1) * sizeof *tg) : NULL;
    if (tg)
        u->tg = tg;
    double *pr = tg ? realloc(u->pr, (t ? t : 1) * sizeof *pr) : NULL;
    if (!pr)
        return -1;
    u->pr = pr;
    for (uint64_t s = 0; s < m->num_states; s++) {
        u->sc[u->n + s] = u->c + m->state_choices[s];
        u->scc[u->n + s] = u->n + scc[s];
        u->mec[u->n + s] = mec[s] == REF_NONE ? REF_NONE : u->n + mec[s];
    }
    for (uint64_t k = 0; k < m->num_choices; k++)
        u->ct[u->c + k] = u->t + m->choice_transitions[k];
    for (uint64_t i = 0; i < m->num_transitions; i++) {
        u->tg[u->t + i] = (uint32_t)(u->n + m->targets[i]);
        u->pr[u->t + i] = m->probabilities[i];
    }
    u->n = n;
    u->c = c;
    u->t = t;
    u->sc[n] = c;
    u->ct[c] = t;
    return 0;
}

static int write_labels(const char *base, const char *ext, const uint64_t *ids, uint64_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", base, ext);
    FILE *f = fopen(path, "w");
    int rc = !f || labels_write(f, ids, n);
    if (f && fclose(f))
        rc = 1;
    return rc;
}

static int union_write(const struct mdp_union *u, const char *base)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.csr", base);
    uint32_t initial = 0;
    csr_model m;
    memset(&m, 0, sizeof m);
    m.model_type = CSR_MDP;
    m.num_states = u->n;
    m.num_choices = u->c;
    m.num_transitions = u->t;
    m.state_choices = u->sc;
    m.choice_transitions = u->ct;
    m.targets = u->tg;
    m.probabilities = u->pr;
    m.initial_states = &initial;
    m.num_initial = 1;
    csr_status st;
    FILE *f = fopen(path, "wb");
    int rc = !f || csr_validate(&m, &st) || csr_write_fd(fileno(f), &m, &st);
    if (f && fclose(f))
        rc = 1;
    return rc || write_labels(base, "sccs", u->scc, u->n) || write_labels(base, "mecs", u->mec, u->n);
}

int main(int argc, char **argv)
{
    uint64_t count = 10000, first = 1;
    int verbose = 0, accepting_only = 0, c;
    setenv("CSR_TEST_PI_JACOBI", "0", 1); /* certified policy iteration from the start on these small MDPs */
    const char *union_base = NULL;
    struct mdp_union all;
    memset(&all, 0, sizeof all);
    while ((c = getopt(argc, argv, "n:s:u:va")) != -1) {
        switch (c) {
        case 'a': accepting_only = 1; break;
        case 'n': count = strtoull(optarg, NULL, 10); break;
        case 's': first = strtoull(optarg, NULL, 10); break;
        case 'u': union_base = optarg; break;
        case 'v': verbose = 1; break;
        default: fprintf(stderr, "usage: oracle [-n count] [-s first_seed] [-u base] [-v] [-a]\n"); return 2;
        }
    }
    uint64_t sc[MAX_STATES + 1], ct[MAX_STATES * MAX_CHOICES + 1], mecs = 0, states_in_mecs = 0, valued = 0;
    uint64_t with_cycle = 0;
    uint32_t tg[MAX_STATES * MAX_CHOICES * MAX_SUCC];
    double pr[MAX_STATES * MAX_CHOICES * MAX_SUCC];
    for (uint64_t seed = first; seed < first + count; seed++) {
        struct mdp m;
        csr_model model;
        draw(&m, seed);
        to_csr(&m, &model, sc, ct, tg, pr);
        if (accepting_only) {
            if (check_accepting(&m, &model, seed, &with_cycle))
                return 1;
            continue;
        }
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
        { /* ref_mec_basic_within on a part of the states (about 3 in 4, every choice allowed, those that
           * leave the part too) over a transpose with each state's entries reversed: the MECs of the part's
           * sub-MDP built whole (reach_maybe_graph) */
            uint8_t part[MAX_STATES], within[MAX_STATES];
            for (unsigned s = 0; s < m.n; s++) {
                const uint64_t h = (seed * 0x9E3779B97F4A7C15ull + s) * 0xBF58476D1CE4E5B9ull;
                within[s] = (h >> 62) != 0;
                part[s] = within[s] ? REACH_MAYBE : REACH_NO;
            }
            uint64_t part_mec[MAX_STATES], within_mec[MAX_STATES];
            csr_model sub;
            ref_transpose tr = {0};
            int rc = reach_maybe_graph(&model, part, NULL, &sub);
            if (!rc) {
                rc = ref_mec_basic(&sub, part_mec, NULL);
                csr_free(&sub);
            }
            if (!rc && !(rc = ref_transpose_build(&model, &tr))) {
                for (unsigned v = 0; v < m.n; v++)
                    for (uint64_t a = tr.first[v], b = tr.first[v + 1]; b > a + 1; a++, b--) {
                        const uint64_t x = tr.choice[a];
                        tr.choice[a] = tr.choice[b - 1];
                        tr.choice[b - 1] = x;
                    }
                rc = ref_mec_basic_within(&model, &tr, within, NULL, within_mec, NULL);
            }
            ref_transpose_free(&tr);
            if (rc || memcmp(part_mec, within_mec, m.n * sizeof *within_mec)) {
                fprintf(stderr, "oracle: seed %llu: ref_mec_basic_within differs from the part's sub-MDP's MECs\n",
                        (unsigned long long)seed);
                print_mdp(&m);
                print_ids("part's sub-MDP:", part_mec, m.n);
                print_ids("within:", within_mec, m.n);
                return 1;
            }
        }
        if (m.n <= MAX_VI_STATES &&
            (check_values(&m, &model, seed, &valued) || check_rewards_and_bounds(&m, &model, seed) ||
             (seed % 4 == 0 && check_reward_bounds(&m, &model, seed))))
            return 1;
        if (union_base && union_add(&all, &model, want_scc, want_mec)) {
            fprintf(stderr, "oracle: out of memory\n");
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
    if (accepting_only) {
        printf("oracle: %llu random graphs (seeds %llu to %llu): nested DFS, OWCTY and MAP agree with brute force "
               "on the accepting cycles (%llu have one), every lasso valid\n",
               (unsigned long long)count, (unsigned long long)first, (unsigned long long)(first + count - 1),
               (unsigned long long)with_cycle);
        return 0;
    }
    if (union_base && union_write(&all, union_base)) {
        fprintf(stderr, "oracle: cannot write %s.csr, .sccs or .mecs\n", union_base);
        return 1;
    }
    free(all.sc);
    free(all.ct);
    free(all.scc);
    free(all.mec);
    free(all.tg);
    free(all.pr);
    printf("oracle: %llu random MDPs (seeds %llu to %llu): Tarjan and the basic MEC algorithm agree with "
           "brute force (%llu MECs holding %llu states); interval iteration and certified policy iteration "
           "(%llu systems certified), each system whole and SCC by SCC (%llu SCCs by Gauss-Seidel), agree with "
           "the exact Pmax and Pmin, and optimistic value iteration and certified policy iteration (%llu systems "
           "certified), whole and SCC by SCC (%llu SCCs by Gauss-Seidel), with the exact Rmax and Rmin, step-bounded iteration with the tree of paths (0 to 4 steps), on the %llu of at most %d "
           "states; reward bounds (<= and >= 0 to %d) by epochs with the product's values, %llu queries\n",
           (unsigned long long)count, (unsigned long long)first, (unsigned long long)(first + count - 1),
           (unsigned long long)mecs, (unsigned long long)states_in_mecs, (unsigned long long)pi_certified,
           (unsigned long long)gs_cores, (unsigned long long)pi_reward_certified, (unsigned long long)gs_reward_cores, (unsigned long long)valued, MAX_VI_STATES, MAX_BUDGET,
           (unsigned long long)reward_bounds_checked);
    return 0;
}
