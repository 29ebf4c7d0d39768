/*
 * check.h - the model checker of properties (after Storm's split of model
 * checker and solvers): a property of format/props.h becomes the queries of
 * check/reach.h on an engine, and their values become the property's
 * answer: a value or a truth per state, then per initial state (PRISM's and
 * Storm's default) or the property's filter.  One property's failure is its
 * own: it is recorded in its result and the next property is checked.
 *
 * The forms answered (Baier & Katoen ch. 10; the PRISM manual's "Property
 * Specification"):
 *   P / Pmin / Pmax =? or a bound (>= p, > p, <= p, < p), over
 *     F phi, phi U psi        reach_solve
 *     F<=k, U<=k (F<k)        reach_solve_bounded
 *     F{"r"}<=k, F^{rew{"r"}>=k} ... (also with U)   reach_solve_reward_bounded
 *     G phi, G<=k phi         1 - P_opposite [ F !phi ] (Pmin G = 1 - Pmax F !)
 *     X phi                   one step
 *   R{"r"} / Rmin / Rmax =? or a bound (Storm's T: a reward of 1 per step), over
 *     F phi                   reach_solve_reward
 *     C<=k                    the reward gathered in k steps (Jacobi steps)
 *     I=k                     the state reward after k steps (Jacobi steps)
 *   a state formula           its truth per state
 *   a constant expression     its value
 *   filter(op, property, states)  op over the property's values in states
 * A bound without min/max gets PRISM's direction (>= and > ask Pmin, <= and
 * < Pmax); =? on an MDP without min/max is an error.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdint.h>

#include "csr.h"
#include "props.h"
#include "reach.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a property's answer is made of. */
enum check_kind {
    CHECK_NUMBER = 1, /* values: a probability, an expected reward, a constant's value */
    CHECK_TRUTH,      /* truth: a bound query (P>=p), a state formula */
};

typedef struct check_result {
    int code;                /* CSR_OK, or why the property has no answer (message) */
    char message[512];       /* a sentence: what failed, and for a solver that did not converge the bounds
                                reached in the first initial state */
    int kind;                /* enum check_kind */
    double *values;          /* f64[n]: every state's value (CHECK_NUMBER, and a bound's values); NULL if none */
    uint8_t *truth;          /* u8[n]: every state's truth (CHECK_TRUTH); NULL if none */
    int constant;            /* the property is a constant expression: values[0] / truth[0] only */
    int filter;              /* enum expr_filter of the property's filter; 0: none (per initial state) */
    double filter_value;     /* a filter's result: a number (min, max, avg, sum, count, first, state) */
    int filter_truth;        /* a filter's truth (forall, exists; first and state of a truth) */
    int filter_is_truth;     /* filter_truth holds the filter's result, not filter_value */
    uint64_t filter_states;  /* the states the filter ranged over */
    reach_stats stats;       /* of the last query the property asked */
    reach_pi_stats pi;       /* certified policy iteration's figures, summed over its queries */
    reach_topo_stats topo;   /* the topological solver's (the CPU's), summed over its queries */
    double lower, upper;     /* a failure to converge: the bounds reached in the first initial state */
    /* the query behind the values, for reach_scheduler (unbounded P and R only; else scheduler 0) */
    int scheduler;           /* 1: reach_scheduler may take query, state_reward, choice_reward, values */
    reach_query query;
    uint8_t *target, *avoid; /* u8[n], query's flags (owned) */
    const double *state_reward, *choice_reward;
    double *time_reward;     /* f64[n] of 1.0: Storm's T operator's state reward (owned); else NULL */
} check_result;

/*
 * Check property p (bound by props_bind to e's model) on engine e: result
 * r (zeroed here; free with check_result_free).  Returns CSR_OK when the
 * property has an answer (r->code 0) and when it failed on its own
 * (r->code and r->message: an unknown label or reward structure, a form not
 * supported, a solver that did not converge or stalled, a reward not whole
 * under a reward bound); only what takes every property with it is
 * returned: CSR_ERR_NOMEM, CSR_ERR_DEVICE (the engine's status says what).
 */
int check_property(const reach_engine *e, const props_file *file, const props_property *p,
                   const reach_options *options, check_result *r);

void check_result_free(check_result *r);

/*
 * Where the pool's threads get their engines: open gives a worker's engine
 * on that worker's own thread (the pool then sets its status, its budget and
 * its cache), close takes it back on the same thread after its last property.
 * An engine that fails to open leaves its thread's share to the others.
 */
typedef struct check_pool_engines {
    int (*open)(void *ctx, const csr_model *m, reach_engine *e, csr_status *status);
    void (*close)(void *ctx, reach_engine *e);
    void *ctx;
} check_pool_engines;

/*
 * The chosen properties of a run (chosen u8[file->count], nonzero: check
 * it) checked at once by `workers` threads (check/check_pool.c), each with
 * its own engine (engines->open on its thread; NULL engines: the sequential
 * references, reach_cpu_engine on m) and its own Prob0/Prob1 cache (the
 * model's transpose, one for all, kept in taker->cache, which must outlive
 * the pool: reach_cache_new_sharing),
 * starting them in the file's order, none more than 2 workers properties
 * ahead of the next one to be taken (memory: one property's a thread at
 * most, and the results of the window; each engine's budget in bytes as
 * reach_engine's, `budget`).  check_pool_take waits for property i
 * (a chosen one, each taken once, in any order) and gives its result and
 * check_property's return value, with the status of the engine that checked
 * it copied to the taker's where that is not CSR_OK (a property no thread
 * has started yet is checked by the caller on `taker`, the caller's engine,
 * whose cache it keeps).  check_pool_stop starts no more, waits for those running, and
 * frees what was not taken.  NULL: out of memory.  A thread the system
 * refuses, or whose engine does not open, leaves its share to the others
 * (at worst to the caller).
 */
#define CHECK_POOL_MAX_WORKERS 16
typedef struct check_pool check_pool;
check_pool *check_pool_start(const csr_model *m, const props_file *file, const uint8_t *chosen,
                             const reach_options *options, uint64_t budget, unsigned workers,
                             const check_pool_engines *engines, const reach_engine *taker);
int check_pool_take(check_pool *pool, size_t i, check_result *r);
void check_pool_stop(check_pool *pool);
/* The workers for `properties` properties: one per CPU this process may
 * run on (parallel_cpus; the environment's CSR_TEST_WORKERS, for the tests,
 * in its place), at most one per property and CHECK_POOL_MAX_WORKERS, at
 * least 1. */
unsigned check_pool_workers(size_t properties);

#ifdef __cplusplus
}
#endif

#endif
