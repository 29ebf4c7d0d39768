/*
 * reach.h - the query layer of reachability (after Storm's split of model
 * checker and solvers): a query (Pmin/Pmax of avoid-free paths to a target,
 * an expected reward, a step bound) becomes Prob0/Prob1, the maybe system
 * (with the MEC quotient where needed, whole or split into groups of SCCs),
 * a solver's bounds, and the answer; every step that touches the model runs
 * on an engine (reach_engine, below), which holds the model for a whole run
 * and answers through one contract: the sequential references
 * (ref/reach_ref.h, gpu-vi --cpu), the GPU (gpu/reach.h: the model resident
 * on the device), or the model in parts (-g).
 *
 * Query: P_opt(avoid-free path U target), opt = max or min over all
 * schedulers (Baier & Katoen, Principles of Model Checking, ch. 10.6;
 * Berger 2014, ch. 2.5-2.7 and 3).  States are the model's (a restructured
 * model's numbering; tools map back through its permutation).  The methods
 * and their guarantee: check/reach_system.h.
 */
#ifndef REACH_H
#define REACH_H

#include <stdint.h>

#include "csr.h"
#include "reach_system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct reach_query {
    const uint8_t *target; /* num_states flags: 1 = a target state */
    const uint8_t *avoid;  /* num_states flags: 1 = must not be passed (and not a target); NULL: none */
    int maximize;          /* 1: Pmax, 0: Pmin (a DTMC has one choice per state: both agree) */
} reach_query;

typedef struct reach_stats {
    uint64_t yes, no, maybe;        /* Prob1, Prob0 and remaining states */
    uint64_t mecs, mec_states;      /* Pmax: MECs of the maybe states, collapsed */
    uint64_t groups;                /* systems solved: 1, or the groups of SCCs of the split */
    uint64_t sccs;                  /* SCCs of the maybe states when split */
    uint64_t iterations;            /* summed over the groups */
    uint64_t cpu_groups;            /* groups solved on the CPU because too large for the engine */
    double final_difference;        /* largest u - l (II) or last change (VI), relative or absolute */
    uint64_t bytes_needed;          /* memory of the whole system (reach_system_bytes) */
    int split;                      /* 1: solved in groups of SCCs */
    int method;                     /* the method that answered (enum reach_method) */
    double prob01_s, mec_s, split_s, iterate_s, total_s; /* seconds */
} reach_stats;

/*
 * Prob0/Prob1 results kept across the queries of a run (reach_cache.c):
 * the classes of each distinct (target, avoid, direction), and the maybe
 * states' MECs where a maximising query had them, for up to
 * REACH_CACHE_ENTRIES queries (the oldest goes first); 5n / 4 bytes an
 * entry, 4n more with MECs.  The query layer consults it through the
 * engine's cache member (Pmin and Rmax of one target share Prob1A's
 * classes; Pmax and Rmin Prob1E's).  Out of memory an entry is not kept.
 */
#define REACH_CACHE_ENTRIES 8
typedef struct reach_cache reach_cache;
reach_cache *reach_cache_new(uint64_t n); /* NULL: out of memory */
/* A cache of its own classes that reads keeper's transpose (keeper's own
 * keeper where it has one: built once for them all, under its lock; the
 * properties of a run at once share one), keeper outliving it; NULL: out
 * of memory. */
reach_cache *reach_cache_new_sharing(uint64_t n, reach_cache *keeper);
void reach_cache_free(reach_cache *cache);
/* The classes of q (u8[n]) if kept, else NULL; *mec (if mec): its MECs or NULL. */
const uint8_t *reach_cache_find(const reach_cache *cache, const reach_query *q, const uint32_t **mec);
/* Keep cls (u8[n]) and mec (u32[n] or NULL) as q's, counted as computed. */
void reach_cache_put(reach_cache *cache, const reach_query *q, const uint8_t *cls, const uint32_t *mec);
/* The Prob0/Prob1 computations put so far. */
uint64_t reach_cache_computed(const reach_cache *cache);
/* The choice-level transpose of model (ref_transpose_build's shapes, each
 * state's entries in no particular order: a task per CPU builds it), built
 * at the first call and kept for the run (Prob0/Prob1 on the CPU and the
 * expected rewards' zero-valued states search it, property after property:
 * 8 (n + c + t) bytes, and while it is built 8n more, or up to 2t where
 * the tasks count apart); NULL without a cache, for another model than the
 * first one asked for, or where building it ran out of memory (not tried
 * again in the run: the callers build their own).  Safe from several
 * threads on caches that share one keeper. */
struct ref_transpose;
const struct ref_transpose *reach_cache_transpose(reach_cache *cache, const csr_model *model);
/* The transpose of model that cache keeps (reach_cache_transpose), else one
 * built into own by ref_transpose_build (own zeroed by the caller, who frees
 * it with ref_transpose_free either way); NULL: out of memory. */
const struct ref_transpose *reach_cache_transpose_or_build(reach_cache *cache, const csr_model *model,
                                                           struct ref_transpose *own);

/*
 * The engine contract.  An engine holds one model for a run (its `model`)
 * and answers the query layer's steps on it; ctx is passed to each.  A NULL
 * member is done by the sequential reference (ref/reach_ref.h) instead.
 *   prob01:      Prob0/Prob1 of q (ref_reach_prob01's contract): cls u8[n];
 *                cache: the run's (the query layer's), where an engine may
 *                keep what serves the next queries (reach_cache_transpose),
 *                or NULL.
 *   prob01_mecs: (maximising q on an MDP; optional) cls and, in one step,
 *                mec u32[n]: the smallest state of the MEC of each maybe
 *                state in the maybe states' sub-MDP, REACH_NO_MEC elsewhere;
 *                CSR_ERR_NOMEM: the query layer takes prob01 and maybe_mecs.
 *   maybe_mecs:  the MECs of the sub-MDP of the states with cls[s] ==
 *                REACH_MAYBE and the choices whose successors all are, and,
 *                given choice_reward (f64[c]), whose reward is 0: mec u32[n]
 *                as above.
 *   sccs:        SCC ids (smallest state, u32[n]) of model (the engine's or a
 *                quotient of it) for the split, within budget bytes.
 *   solve:       one system (reach_solver); step-bounded: bounded, q over
 *                `steps` Jacobi steps (ref_reach_bounded's contract).
 *   budget:      bytes a whole system may take (reach_system_bytes), else the
 *                split; UINT64_MAX: never split.
 *   cache:       the run's Prob0/Prob1 results (NULL: none kept), not the
 *                engine's but its caller's.
 *   status:      where the engine describes a failure of its own (NULL: none).
 * Errors: the contract's codes (CSR_ERR_NOMEM, CSR_ERR_DEVICE with the text
 * in the engine's status, ...).
 */
typedef struct reach_engine {
    const csr_model *model;
    void *ctx;
    int (*prob01)(void *ctx, reach_cache *cache, const reach_query *q, uint8_t *cls);
    int (*prob01_mecs)(void *ctx, reach_cache *cache, const reach_query *q, uint8_t *cls, uint32_t *mec);
    int (*maybe_mecs)(void *ctx, const uint8_t *cls, const double *choice_reward, uint32_t *mec);
    int (*sccs)(void *ctx, const csr_model *model, uint64_t budget, uint32_t *scc);
    reach_solver solve;
    int (*bounded)(void *ctx, const reach_query *q, uint64_t steps, double *values);
    uint64_t budget;
    reach_cache *cache;
    csr_status *status;
} reach_engine;

/*
 * The engine of the sequential references (ref/reach_ref.h) on model (which
 * must outlive it): Prob0/Prob1 by reach_prob01_cpu (ref_reach_prob01's
 * classes, incrementally), the MECs of the maybe
 * states by reach_maybe_graph and ref_mec_basic, SCCs by ref_scc_tarjan,
 * systems by reach_solve_topological (ref_reach_iterate where
 * options->topological is 0), step bounds by ref_reach_bounded; budget
 * UINT64_MAX.  ctx is the model.
 */
void reach_cpu_engine(const csr_model *model, reach_engine *engine);

/*
 * Prob0/Prob1 of q on the CPU (reach_prob01.c): the classes of
 * ref_reach_prob01 byte for byte (cls u8[n]: REACH_NO, REACH_MAYBE,
 * REACH_YES).  Max: Prob0A, then Prob1E's nested fixpoint made incremental
 * (each choice's flag cleared once, each round searching what is left; the
 * searches are ref_reach_backward_closure), O(t + rounds x (n + t_u)) time,
 * t_u the transitions into states still in play; after 2 rounds (the
 * environment's CSR_TEST_PROB1E_ROUNDS, for the tests, in its place), Prob1E by
 * the MEC quotient instead (the MECs of Prob0A's complement minus the
 * targets by ref_mec_basic_within over the same transpose, then one backward
 * search: gpu/reach's prob1e_quotient); min: ref_reach_prob01's two searches (no fixpoint).  Over
 * the model's transpose that cache keeps for the run (reach_cache_transpose:
 * a task per CPU builds it at the first query, herman 15's 14.3M transitions
 * on one core 0.25 s), else (cache NULL, or out of memory there) over one
 * built here by ref_transpose_build and freed: 8 (n + 1) + 8 t + 8 c bytes.
 * Memory besides c + 7 n bytes, and the quotient's c + 25 n with
 * ref_mec_basic_within's c + 26 n and Tarjan's 28 n.  Errors: CSR_ERR_NOMEM.  reach_cpu_engine's prob01.
 * reach_prob01_mecs_cpu: the same classes, and where the quotient gave
 * them (*mecs_found = 1) the maybe states' MECs (mec u32[n], as the
 * contract's prob01_mecs; NULL: not asked); *mecs_found = 0: mec untouched.
 */
int reach_prob01_cpu(const csr_model *model, reach_cache *cache, const reach_query *q, uint8_t *cls);
int reach_prob01_mecs_cpu(const csr_model *model, reach_cache *cache, const reach_query *q, uint8_t *cls,
                          uint32_t *mec, int *mecs_found);

/*
 * The topological solver (PRISM's -topological, Storm's topological
 * solver; the CPU engine's unless options->topological is 0): the unfixed
 * states of system y in SCCs (Tarjan's algorithm without recursion), taken
 * successors first.  A state alone in its SCC whose successors are solved
 * is solved by one Bellman step, exact given their values: x = opt over its
 * choices (those inside its MEC left out) of (r + sum over the other
 * successors p x) / (1 - p(s -> s)), for each bound (not where a choice
 * returns with probability above 1 - 1e-6).  An SCC of several states whose
 * successors are solved is tried on its own: interval iteration (value
 * iteration for REACH_VI) for at most 64 sweeps, to its successors' largest
 * difference plus epsilon / 2G (G: the most such SCCs on a path), so that
 * those on any path together take at most half of epsilon.  The others form a core, one subsystem
 * (reach_subsystem_build, in the model's order) solved by ref_reach_iterate
 * with the options' method, with the states alone that they wait for; where
 * those outnumber the core, the core is solved first, then they, and the
 * SCC starts the next core.  A core whose successors hold two bounds leaves
 * room for the later ones (its successors' difference plus half of what is
 * left of epsilon; the last: epsilon) and, by certified policy iteration,
 * is solved twice, its successors at their lower and at their upper bounds
 * (the values are monotone in them).  Where the bounds reached still miss
 * epsilon (a relative difference grows a little through a minimiser's
 * state), ref_reach_iterate goes on over the whole system from them.
 * Contract, guarantee and errors: reach_solver's (*iterations: the
 * iterations' sum; ctx unused); options->topo_stats receives the counts.
 * Memory: about 70n bytes, then the largest subsystem.
 */
int reach_solve_topological(const reach_system *y, const reach_options *options, double epsilon, double *lower,
                            double *upper, uint64_t *iterations, double *difference, void *ctx);

/* A system solved by the engine's solver, or by the reference where it has none. */
int reach_engine_solve(const reach_engine *e, const reach_system *y, const reach_options *options, double eps,
                       double *lower, double *upper, uint64_t *iterations, double *difference);

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
 * From MEC ids (smallest u32[n]: the smallest state of each state's MEC or
 * REACH_NO_MEC, as the engines give them): dense u32[n] (ids 0, 1, ... in
 * order of smallest state, or REACH_NO_MEC) and leaving[k] (u8[c]) for
 * reach_system, a task per CPU.  Returns the number of MECs; *states the
 * states in them.
 */
uint64_t reach_mec_arrays(const csr_model *model, const uint32_t *smallest, uint32_t *dense, uint8_t *leaving,
                          uint64_t *states);

/* Initial bounds: l = 1 on YES, else 0; u = 0 on NO, else 1. */
void reach_initial_bounds(uint64_t n, const uint8_t *cls, double *lower, double *upper);

/* The answer from the bounds: (l + u) / 2, or l for value iteration. */
void reach_answer(uint64_t n, int method, const double *lower, const double *upper, double *values);

/*
 * The split of Berger's thesis, section 3.3, for a system that does not fit
 * the engine's budget.  The SCCs of the model (scc[s] = smallest state of
 * s's SCC, u32[n]) restricted to the maybe states are ordered so that each
 * comes after every SCC it reaches (Kahn's algorithm on the condensation),
 * then joined greedily in that order while the group's system needs at most
 * budget bytes (reach_system_bytes, counting every transition that leaves
 * the group as a state).  Group g's system holds its maybe states and, as
 * fixed states, its successors outside it with their bounds, so groups are
 * solved in order by the engine's solver; a single SCC over the budget is
 * solved by the sequential reference.  Group g of G stops at epsilon (g +
 * 1) / G, so that the bounds passed on from earlier groups never keep a
 * later group from reaching its own (and the last reaches epsilon).
 * lower/upper (f64[n]) hold the initial bounds, receive the final ones.
 * mec/leaving: as reach_system, for the model's states (or NULL);
 * choice_reward: as reach_system, for the model's choices (or NULL).
 * stats: groups, sccs, cpu_groups, iterations, final_difference.
 * Errors: CSR_ERR_NOMEM, CSR_ERR_NOT_CONVERGED, the solver's.
 */
int reach_solve_split(const csr_model *model, const uint8_t *cls, const uint32_t *scc, uint64_t budget,
                      const uint32_t *mec, uint64_t num_mecs, const uint8_t *leaving, int maximize,
                      const double *choice_reward, const reach_options *options, const reach_engine *engine,
                      double *lower, double *upper, reach_stats *stats);

/*
 * The whole query on engine e (its model): Prob0/Prob1; for Pmax by interval
 * iteration on an MDP the MECs of the maybe states; then one system of all
 * states when reach_system_bytes of the model fits the engine's budget, else
 * the split.  values f64[n]: the answer per state.  stats: counts, MECs,
 * path, groups, iterations, final difference, bytes needed, the seconds of
 * each phase.  Errors: CSR_ERR_NOMEM, CSR_ERR_NOT_CONVERGED and
 * CSR_ERR_STALLED (values then hold the answer from the last bounds, and
 * lower/upper, when given (f64[n] each, or NULL), the bounds reached), the
 * engine's.
 */
int reach_solve(const reach_engine *e, const reach_query *query, const reach_options *options, double *values,
                double *lower, double *upper, reach_stats *stats);

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
 * is too low).  The finite states of value exactly 0 are fixed at 0 (Rmax:
 * those that cannot reach a positive reward; Rmin: those from which some
 * scheduler arrives at no cost).  The system then has a unique fixpoint
 * (Bertsekas & Tsitsiklis 1991's stochastic shortest paths) and is solved by
 * certified policy iteration (REACH_PI: bounds around its scheduler's
 * values by the exit time, then interval iteration from them), optimistic
 * value iteration (REACH_II, REACH_OVI), each handing over to the other
 * where it finds no upper bound, or plain value iteration (REACH_VI), whole
 * or split as reach_solve.  values, lower, upper and stats as reach_solve
 * (yes: the targets and the states of value 0, no: the infinite states,
 * mecs: the zero-reward MECs).  Errors: as reach_solve; CSR_ERR_NOT_CONVERGED
 * also where no upper bound could be found (upper INFINITY).
 */
int reach_solve_reward(const reach_engine *e, const reach_query *query, const double *state_reward,
                       const double *choice_reward, const reach_options *options, double *values, double *lower,
                       double *upper, reach_stats *stats);

/* Step-bounded reachability P_opt [ avoid-free U<=steps target ] by the
 * engine's bounded (ref_reach_bounded's contract); stats: iterations (=
 * steps), iterate_s and total_s. */
int reach_solve_bounded(const reach_engine *e, const reach_query *query, uint64_t steps, double *values,
                        reach_stats *stats);

/*
 * Reward-bounded reachability P_opt [ avoid-free U^{rew <= bound} target ]
 * (at_least 0) or [ ... U^{rew >= bound} ... ] (at_least 1), PRISM's and
 * Storm's F{"r"}<=k and QVBS's F^{rew{"r"}<=k}: the probability of reaching
 * a target with the reward gathered before it (state_reward of each state
 * left plus choice_reward of each choice taken, as reach_solve_reward's,
 * whole numbers) at most / at least bound.  Epoch by epoch over the reward
 * levels 0..bound (Hartmanns, Junges, Katoen & Quatmann, TACAS 2018): an
 * epoch's reward-0 choices stay in it, its positive-reward choices are
 * constants from the epochs below; the end components of reward-0 choices
 * among the maybe states are collapsed for a maximiser and fixed at 0 for a
 * minimiser once, the states of value 0 fixed each epoch; each epoch is a
 * system the engine solves (certified policy iteration or interval
 * iteration) to eps / E, E the most positive-reward steps within the bound,
 * so that the last is within eps (relative or absolute).  Under a lower
 * bound epoch 0 is the unbounded query (reach_solve) and a target does not
 * end the path, so query->avoid (not psi of psi U phi) counts on targets too
 * there.  values f64[n]; stats: the last epoch's classes, groups =
 * epochs, iterations summed.  Memory: (min(largest reward, bound) + 4) 8n
 * bytes and a transpose.  Errors: CSR_ERR_UNSUPPORTED (a reward not whole,
 * described in status), the solver's (CSR_ERR_NOT_CONVERGED,
 * CSR_ERR_STALLED from the last epoch), CSR_ERR_NOMEM.
 */
int reach_solve_reward_bounded(const reach_engine *e, const reach_query *query, const double *state_reward,
                               const double *choice_reward, int at_least, uint64_t bound,
                               const reach_options *options, double *values, reach_stats *stats, csr_status *status);

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
