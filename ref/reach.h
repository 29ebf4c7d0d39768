/*
 * reach.h - minimal and maximal reachability probabilities of MDPs and DTMCs:
 * the graph precomputations Prob0/Prob1, the MEC quotient that makes the
 * upper bound of interval iteration converge, the split into groups of SCCs
 * in topological order, and the sequential solver that is gpu-vi's --cpu
 * reference and benchmark baseline.  The GPU solver (gpu/reach_vi.h) uses
 * the same systems, the same initial bounds and the same stopping rule.
 *
 * Query: P_opt(avoid-free path U target), opt = max or min over all
 * schedulers (Baier & Katoen, Principles of Model Checking, ch. 10.6;
 * Berger 2014, ch. 2.5-2.7 and 3).  States are the model's (a restructured
 * model's numbering; tools map back through its permutation).
 *
 * Method (default): interval iteration (Haddad & Monmege 2018; Baier, Klein,
 * Leuschner, Parker & Wunderlich, CAV 2017): a lower bound iterated from 0
 * and an upper bound iterated from 1 on the maybe states, until for every
 * maybe state s  u(s) - l(s) <= eps * u(s)  (relative, default) or
 * u(s) - l(s) <= eps (absolute).  The answer is (l + u) / 2, so it is within
 * eps/2 (absolute) or eps / (2 (1 - eps)) < eps (relative) of the exact
 * value, up to floating-point rounding.  The upper bound converges because
 *  - min: every state with Pmin = 0 is in Prob0 (Prob0E), so the maybe
 *    states hold no end component and the fixpoint is unique;
 *  - max: the maximal end components of the maybe states are collapsed
 *    (each MEC's upper bound is the best of its states' choices that leave it).
 * REACH_OVI is optimistic value iteration (Hartmanns & Kaminski, CAV 2020)
 * on the GPU (gpu_reach_iterate): value iteration from below, then a guessed
 * upper bound verified as a pre-fixpoint (B(u) <= u) and narrowed as in
 * interval iteration, with the same guarantee; ref_reach_iterate solves it
 * by interval iteration.
 * REACH_PI is certified policy iteration (ref_reach_pi, below): interval
 * iteration in Jacobi order for a while, then the optimal scheduler found by
 * policy iteration with each scheduler's chain solved by a Krylov method
 * (IDR(s)), and bounds l <= value <= u certified by one Bellman step each
 * (l a post-fixpoint, u a pre-fixpoint, with floating-point error bounds);
 * where it cannot certify within eps, interval iteration goes on from the
 * bounds it has.  The same guarantee as interval iteration.
 * REACH_VI is plain value iteration from below (PRISM's and Berger's): it
 * stops when no value changed by more than eps (relative or absolute) in one
 * iteration, which bounds nothing (PRISM's answer for coin4 is 2e-5 off).
 */
#ifndef REACH_H
#define REACH_H

#include <math.h>
#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

enum reach_class { REACH_MAYBE = 0, REACH_NO = 1, REACH_YES = 2 };
enum reach_method { REACH_II = 0, REACH_VI = 1, REACH_OVI = 2, REACH_PI = 3 };
#define REACH_NO_MEC UINT32_MAX
#define REACH_DEFAULT_EPSILON 1e-6
#define REACH_DEFAULT_MAX_ITERATIONS 1000000u

typedef struct reach_query {
    const uint8_t *target; /* num_states flags: 1 = labelled with the target label */
    const uint8_t *avoid;  /* num_states flags: 1 = must not be passed (and not a target); NULL: none */
    int maximize;          /* 1: Pmax, 0: Pmin (a DTMC has one choice per state: both agree) */
} reach_query;

/* What certified policy iteration (REACH_PI) did, summed over the systems
 * it was tried on (ref_reach_pi, gpu_reach_iterate). */
typedef struct reach_pi_stats {
    uint64_t attempts;  /* systems it was tried on */
    uint64_t certified; /* of these, certified within epsilon (interval iteration not needed) */
    uint64_t jacobi;    /* Jacobi interval iterations before the policies */
    uint64_t steps;     /* policy evaluations after the first */
    uint64_t matvecs;   /* products with a scheduler's matrix: the IDR(s) solves of values and exit times */
    uint64_t rounds;    /* exit time solved again for ties */
    double certificate; /* the largest d of a certificate that held */
} reach_pi_stats;

typedef struct reach_options {
    int method;              /* enum reach_method */
    int relative;            /* 1: relative differences (default), 0: absolute */
    double epsilon;          /* > 0 */
    uint64_t max_iterations; /* per group of SCCs; reaching it is CSR_ERR_NOT_CONVERGED */
    reach_pi_stats *pi_stats; /* REACH_PI: what it did, added (NULL: not kept) */
} reach_options;

void reach_default_options(reach_options *options);

/*
 * A system of equations x(s) = opt over choices k of s of sum p * x(target),
 * for the states with fixed[s] == 0; the others keep their bounds.
 * Shapes as in csr_model: state_choices u64[n+1], choice_transitions
 * u64[c+1], targets u32[t], probabilities f64[t].  For Pmax interval
 * iteration, mec[s] (u32[n]) is the MEC of a maybe state or REACH_NO_MEC and
 * leaving[k] (u8[c]) says whether choice k leaves its state's MEC (NULL, NULL:
 * no MECs, every choice leaves).
 */
typedef struct reach_system {
    uint64_t num_states, num_choices, num_transitions;
    const uint64_t *state_choices, *choice_transitions;
    const uint32_t *targets;
    const double *probabilities;
    const uint8_t *fixed;
    const uint32_t *mec;
    const uint8_t *leaving;
    uint64_t num_mecs; /* mec ids are dense: [0, num_mecs) */
    int maximize;
    /* Expected rewards: f64[c], choice k's reward (its state's reward plus its
     * own), added to each choice's value: x(s) = opt_k (r(k) + sum p x(t)).
     * NULL: probabilities.  Fixed states may hold INFINITY (both bounds). */
    const double *choice_reward;
} reach_system;

typedef struct reach_stats {
    uint64_t yes, no, maybe;        /* Prob1, Prob0 and remaining states */
    uint64_t mecs, mec_states;      /* Pmax: MECs of the maybe states, collapsed */
    uint64_t groups;                /* systems solved: 1, or the groups of SCCs of the split */
    uint64_t sccs;                  /* SCCs of the maybe states when split */
    uint64_t iterations;            /* summed over the groups */
    uint64_t cpu_groups;            /* groups solved on the CPU because too large for the GPU */
    double final_difference;        /* largest u - l (II) or last change (VI), relative or absolute */
    uint64_t bytes_needed;          /* memory of the whole system (reach_system_bytes) */
    int split;                      /* 1: solved in groups of SCCs */
    double prob01_s, mec_s, split_s, iterate_s, total_s; /* seconds */
} reach_stats;

/*
 * Prob0 and Prob1 of the query (Baier & Katoen, Algorithms 45-47): cls[s] =
 * REACH_YES (probability exactly 1), REACH_NO (exactly 0) or REACH_MAYBE,
 * for the model's n states.  Max: Prob0A (no choice sequence reaches a
 * target) and Prob1E (nested fixpoint); min: Prob0E (a scheduler avoids the
 * targets forever) and Prob1A (no scheduler can reach a Prob0E state).  Avoid
 * states and states without choices that are not targets are REACH_NO.
 * O(n + t) memory, O(n * t) worst case time (backward sweeps over the forward
 * CSR).  Errors: CSR_ERR_NOMEM.
 */
int ref_reach_prob01(const csr_model *model, const reach_query *query, uint8_t *cls);

/* stats->yes, no and maybe: the states of each class in cls (u8[n]). */
void reach_count_classes(uint64_t n, const uint8_t *cls, reach_stats *stats);

/*
 * The model's choices between maybe states as a graph for MEC decomposition:
 * every state is kept, but only the choices of maybe states whose successors
 * are all maybe states (a choice that may leave the maybe states is never
 * part of their end components) and, when choice_reward (f64[c]) is given,
 * whose reward is 0 (Rmin's zero-reward end components).  sub gets its own
 * arrays (csr_free).  A task per CPU over ranges of states (format/parallel.h;
 * coin6_4 on the 16-core host: 0.11 -> 0.02 s).  Errors: CSR_ERR_NOMEM.
 */
int reach_maybe_graph(const csr_model *model, const uint8_t *cls, const double *choice_reward, csr_model *sub);

/*
 * From the MEC ids of the maybe graph (smallest state or UINT64_MAX; a mec
 * array as ref_mec_basic and gpu_mec_fb give, widened): mec32[s] (dense ids
 * 0, 1, ... in order of smallest state, or REACH_NO_MEC) and leaving[k] for
 * reach_system, a task per CPU.  Returns the number of MECs; *states the
 * states in them.
 */
uint64_t reach_mec_arrays(const csr_model *model, const uint64_t *mec, uint32_t *mec32, uint8_t *leaving,
                          uint64_t *states);

/*
 * Initial bounds: l = 1 on YES, else 0; u = 0 on NO, else 1.
 */
void reach_initial_bounds(uint64_t n, const uint8_t *cls, double *lower, double *upper);

/*
 * Solve system on the CPU, sequentially, in place (Gauss-Seidel order: a
 * state's new bound is used by the states after it in the same sweep; both
 * bounds stay sound because the operators are monotone).  lower and upper
 * (f64[n]) hold the initial bounds and receive the final ones; with REACH_VI
 * only lower is iterated.  epsilon may be tighter than options->epsilon (the
 * split gives earlier groups a tighter one).  *iterations and *difference
 * receive what it took.  Errors: CSR_ERR_NOT_CONVERGED after
 * options->max_iterations iterations, CSR_ERR_STALLED when a whole sweep
 * changes no bound while they are still more than epsilon apart (the
 * floating-point resolution of the values: no later sweep would change one);
 * the bounds so far are kept either way.
 */
int ref_reach_iterate(const reach_system *system, const reach_options *options, double epsilon, double *lower,
                      double *upper, uint64_t *iterations, double *difference);

/* The change from older to newer that the stopping rules measure: |newer -
 * older|, relative to the larger of the two when relative (0 when equal);
 * on the host and, compiled by nvcc, on the device. */
#ifdef __CUDACC__
#define REACH_HOST_DEVICE __host__ __device__
#else
#define REACH_HOST_DEVICE
#endif
static inline REACH_HOST_DEVICE double reach_difference(double newer, double older, int relative)
{
    double d = fabs(newer - older);
    return relative && d > 0.0 ? d / fabs(newer > older ? newer : older) : d;
}

/* ---- certified policy iteration (REACH_PI; ref/reach_pi.c, gpu/reach_pi.cu) ----
 * The constants both implementations share. */
#define REACH_PI_JACOBI 512u          /* interval iterations in Jacobi order before the policies */
#ifndef REACH_PI_IDR_S
#define REACH_PI_IDR_S 4              /* the dimension of IDR(s)'s shadow space (a build may set another) */
#endif
#define REACH_PI_NOISE 100.0          /* values solved to need / NOISE: closer ties are noise */
#define REACH_PI_MAX_STEPS 32u        /* policy improvements */
#define REACH_PI_MAX_ROUNDS 32u       /* exit time solved again for ties */
#define REACH_PI_MAX_MATVECS 16384u   /* products with a scheduler's matrix, all solves of a system */

/* Shadow vector k of IDR(s) at slot i: a fixed pseudo-random value in
 * [-1/2, 1/2) (splitmix64 of i S + k), the same on the host and the device. */
static inline REACH_HOST_DEVICE double reach_pi_shadow(uint64_t i, unsigned k)
{
    uint64_t z = i * REACH_PI_IDR_S + k + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53 - 0.5;
}

/* A double at most / at least the exact value of a sum of `terms` products
 * p v evaluated in floating point (any order, with or without fused
 * multiply-adds) as sum, abs_sum the same evaluation of sum |p v|: the error
 * is at most gamma_terms * sum |p v| (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2002, section 3.1), here taken twice over and one
 * ulp more.  The certificate of REACH_PI rests on these. */
static inline REACH_HOST_DEVICE double reach_pi_round_down(double sum, double abs_sum, uint64_t terms)
{
    const double err = (double)(terms + 1) * 0x1p-52 * abs_sum;
#ifdef __CUDA_ARCH__
    return __dsub_rd(sum, err); /* rounded towards -infinity */
#else
    return nextafter(sum - err, -INFINITY);
#endif
}

static inline REACH_HOST_DEVICE double reach_pi_round_up(double sum, double abs_sum, uint64_t terms)
{
    const double err = (double)(terms + 1) * 0x1p-52 * abs_sum;
#ifdef __CUDA_ARCH__
    return __dadd_ru(sum, err); /* rounded towards +infinity */
#else
    return nextafter(sum + err, INFINITY);
#endif
}

/* REACH_PI_JACOBI, or CSR_TEST_PI_JACOBI's value where set (the tests take
 * small systems through the policies with fewer). */
uint64_t reach_pi_jacobi_limit(void);

/*
 * Whether certified policy iteration applies to system y with these bounds:
 * probabilities (no rewards), no MEC to collapse (so the maybe states hold
 * no end component and the fixpoint is unique: Pmin after Prob0, Pmax
 * without MECs), and every fixed successor of a maybe state with lower ==
 * upper (its value known exactly: not so for the groups of the split).
 */
int reach_pi_eligible(const reach_system *y, const double *lower, const double *upper);

/*
 * Certified policy iteration (REACH_PI) on system y, sequentially (the
 * reference of gpu/reach_pi.cu; the steps are described in reach_pi.c):
 * interval iteration in Jacobi order (REACH_PI_JACOBI iterations at most),
 * then policy iteration with IDR(s) solves, then bounds certified as a
 * post- and a pre-fixpoint.  y must be eligible (reach_pi_eligible).
 * lower/upper (f64[n]) hold sound bounds and receive sound, tighter ones.
 * Returns CSR_OK when they meet eps (relative or absolute, as
 * ref_reach_iterate's rule) in every maybe state; CSR_ERR_NOT_CONVERGED
 * when not (the caller goes on with interval iteration); CSR_ERR_NOMEM.
 * *iterations: the Jacobi iterations; *difference: the largest u - l.
 * options->pi_stats (if set) receives what was done.  Memory: 4n + (108 +
 * 16 S) nm bytes (nm maybe states, S = REACH_PI_IDR_S).
 */
int ref_reach_pi(const reach_system *y, const reach_options *options, double eps, double *lower, double *upper,
                 uint64_t *iterations, double *difference);

/* The answer from the bounds: (l + u) / 2 for interval iteration, l for VI. */
void reach_answer(uint64_t n, int method, const double *lower, const double *upper, double *values);

/* Device bytes of a system of n states, c choices, t transitions on the GPU
 * (gpu/reach_vi.cu: the CSR with u64 offsets, both bounds, the flags, the
 * MEC arrays, the list of maybe states, differences and CUB's reduction
 * space): about 12t + 9c + 57n + 1 MiB. */
uint64_t reach_system_bytes(uint64_t n, uint64_t c, uint64_t t);

/* A solver of one system: ref_reach_iterate's contract, with ctx. */
typedef int (*reach_solver)(const reach_system *system, const reach_options *options, double epsilon,
                            double *lower, double *upper, uint64_t *iterations, double *difference, void *ctx);

/*
 * The split of Berger's thesis, section 3.3, for a system that does not fit
 * in budget bytes.  The SCCs of the model (scc[s] = smallest state of s's
 * SCC, from ref_scc_tarjan or gpu_scc_fb) restricted to the maybe states are
 * ordered so that each comes after every SCC it reaches (Kahn's algorithm on
 * the condensation), then joined greedily in that order while the group's
 * system needs at most budget bytes (reach_system_bytes, counting every
 * transition that leaves the group as a state).  Group g's system holds its
 * maybe states and, as fixed states, its successors outside it with their
 * bounds, so groups are solved in order by solve(); a single SCC over the
 * budget is solved by ref_reach_iterate on the CPU.  Group g of G stops at
 * epsilon * (g + 1) / G, so that the bounds passed on from earlier groups
 * never keep a later group from reaching its own (and the last reaches
 * epsilon).  lower/upper (f64[n]) hold the initial bounds, receive the final
 * ones.  mec32/leaving: as reach_system, for the model's states (or NULL);
 * choice_reward: as reach_system, for the model's choices (or NULL).
 * stats: groups, sccs, cpu_groups, iterations, final_difference.
 * Errors: CSR_ERR_NOMEM, CSR_ERR_NOT_CONVERGED, the solver's.
 */
int reach_solve_split(const csr_model *model, const uint8_t *cls, const uint64_t *scc, uint64_t budget,
                      const uint32_t *mec32, uint64_t num_mecs, const uint8_t *leaving, int maximize,
                      const double *choice_reward, const reach_options *options, reach_solver solve, void *ctx,
                      double *lower, double *upper, reach_stats *stats);

/*
 * Where the steps of reach_solve run: NULL members (or a NULL backend) are
 * the CPU references.  prob01: ref_reach_prob01's contract; mecs: MEC ids of
 * a graph as ref_mec_basic gives them (smallest state or REF_NONE); sccs: SCC
 * ids of the model (smallest state), given the memory budget; solve: a
 * reach_solver; bounded: ref_reach_bounded's contract.  ctx is passed to each.
 * prob01_mecs (optional; maximising queries on MDPs): prob01's contract and,
 * in maybe_mec (u64[n]), the MECs of the maybe states as mecs would give
 * them on reach_maybe_graph, in one step; CSR_ERR_NOMEM from it makes
 * reach_solve take prob01 and mecs instead.
 */
typedef struct reach_backend {
    int (*prob01)(const csr_model *model, const reach_query *query, uint8_t *cls, void *ctx);
    int (*mecs)(const csr_model *graph, uint64_t *mec, void *ctx);
    int (*prob01_mecs)(const csr_model *model, const reach_query *query, uint8_t *cls, uint64_t *maybe_mec,
                       void *ctx);
    int (*sccs)(const csr_model *model, uint64_t budget, uint64_t *scc, void *ctx);
    reach_solver solve;
    int (*bounded)(const csr_model *model, const reach_query *query, uint64_t steps, double *values, void *ctx);
    void *ctx;
    void *prob01_ctx; /* prob01's ctx where it differs (a cache in front of the backend's), else NULL: ctx */
} reach_backend;

/*
 * The whole query: Prob0/Prob1; for Pmax interval iteration on an MDP the
 * MECs of the maybe states (reach_maybe_graph); then one system of all
 * states when reach_system_bytes of the model fits in budget bytes, else the
 * split (SCCs, reach_solve_split).  values f64[n]: the answer per state in
 * the model's numbering.  stats: counts, MECs, path (split), groups,
 * iterations, final difference, bytes needed, and the seconds of each phase
 * (prob01_s, mec_s, split_s: the SCCs, iterate_s).
 * Errors: CSR_ERR_NOMEM, CSR_ERR_NOT_CONVERGED (values then hold the answer
 * from the last bounds), the backend's.
 */
int reach_solve(const csr_model *model, const reach_query *query, const reach_options *options, uint64_t budget,
                const reach_backend *backend, double *values, reach_stats *stats);

/*
 * Expected reachability reward R{r}opt=? [ F target ] (PRISM's and Storm's
 * semantics, Baier & Katoen ch. 10.5; Forejt, Kwiatkowska, Norman & Parker,
 * SFM 2011, section 3.4): the reward accumulated until the first target
 * state, state_reward (f64[n], of each state left, or NULL) plus
 * choice_reward (f64[c], of each choice taken, or NULL), non-negative;
 * INFINITY where the target is not reached almost surely under some
 * scheduler (Rmax: outside Prob1A) or under every scheduler (Rmin: outside
 * Prob1E).  Rmin on an MDP first collapses the end components of the finite
 * states that use only zero-reward choices (a scheduler staying in one pays
 * nothing but never arrives: without the quotient the least fixpoint from 0
 * is too low).  The system then has a unique fixpoint and is solved by
 * optimistic value iteration (REACH_II and REACH_OVI; no a-priori upper
 * bound is needed) or plain value iteration (REACH_VI), whole or split as
 * reach_solve.  values f64[n]; stats as reach_solve (yes: the targets, no:
 * the infinite states, mecs: the zero-reward MECs).  Errors: as reach_solve.
 */
int reach_solve_reward(const csr_model *model, const reach_query *query, const double *state_reward,
                       const double *choice_reward, const reach_options *options, uint64_t budget,
                       const reach_backend *backend, double *values, reach_stats *stats);

/*
 * Step-bounded reachability P_opt [ avoid-free U<=steps target ]: exactly
 * steps Jacobi iterations x_{i+1}(s) = opt_k sum p x_i(t) from x_0 = the
 * target flags, targets fixed at 1, avoid states and states without choices
 * at 0 (Baier & Katoen, ch. 10.6.1: the value is exact, no stopping rule).
 * values f64[n].  O(steps * t) time, 8n bytes besides values.  Errors:
 * CSR_ERR_NOMEM.
 */
int ref_reach_bounded(const csr_model *model, const reach_query *query, uint64_t steps, double *values);

/* ref_reach_bounded through the backend's bounded (NULL: the CPU); stats:
 * iterations (= steps), iterate_s and total_s. */
int reach_solve_bounded(const csr_model *model, const reach_query *query, uint64_t steps,
                        const reach_backend *backend, double *values, reach_stats *stats);

#define REACH_NO_CHOICE UINT32_MAX /* reach_scheduler: a state without choices */

/*
 * A memoryless deterministic scheduler that attains values (f64[n], the
 * answer of reach_solve or reach_solve_reward for query q; state_reward
 * and choice_reward as reach_solve_reward, both NULL for probabilities):
 * choice_of[s] (u32[n]) = the index within s of its choice (0 for its
 * first), REACH_NO_CHOICE for a state without choices.  A choice is
 * optimal when its value (reward plus sum p values) is within tolerance
 * (relative to the best, absolute below 1) of the best of its state; every
 * state takes its first optimal choice, except where optimal choices alone
 * may never arrive (Pmax: an end component of optimal choices; Rmin: one of
 * zero reward): there a state takes the optimal choice through which a
 * backward breadth-first search from the targets over optimal choices
 * reached it, so that the scheduler's chain reaches a target from every
 * state of positive probability / finite reward (Baier & Katoen, Lemma
 * 10.102's construction; Forejt et al., SFM 2011, section 3.3).  Greedy
 * choices suffice for Pmin and Rmax.  Where the value is infinite (Rmax)
 * the choice is the first optimal one, which need not attain infinity.
 * Errors: CSR_ERR_NOMEM.
 */
int reach_scheduler(const csr_model *model, const reach_query *query, const double *state_reward,
                    const double *choice_reward, const double *values, double tolerance, uint32_t *choice_of);

#ifdef __cplusplus
}
#endif

#endif
