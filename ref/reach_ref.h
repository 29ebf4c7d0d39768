/*
 * reach_ref.h - the sequential references of reachability: Prob0/Prob1,
 * interval, optimistic and plain value iteration, certified policy
 * iteration and step-bounded iteration, each on one CPU core (gpu-vi --cpu
 * through check/reach.h's reach_cpu_engine; the oracles of the GPU solvers
 * and the benchmark baseline).
 */
#ifndef REACH_REF_H
#define REACH_REF_H

#include <stdint.h>

#include "csr.h"
#include "reach.h"
#include "ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Prob0 and Prob1 of the query (Baier & Katoen, Algorithms 45-47): cls[s] =
 * REACH_YES (probability exactly 1), REACH_NO (exactly 0) or REACH_MAYBE,
 * for the model's n states.  Max: Prob0A (no choice sequence reaches a
 * target) and Prob1E (nested fixpoint); min: Prob0E (a scheduler avoids the
 * targets forever) and Prob1A (no scheduler can reach a Prob0E state).  Avoid
 * states and states without choices that are not targets are REACH_NO.
 * O(n + t) memory, O(n * t) worst case time (backward sweeps over the forward
 * CSR).  Errors: CSR_ERR_NOMEM.
 * ref_reach_prob01_transposed: the same over tr, the model's transpose
 * (ref_transpose_build's shapes; each state's entries in any order: the
 * sets are fixpoints), built by the caller.
 */
int ref_reach_prob01(const csr_model *model, const reach_query *query, uint8_t *cls);
int ref_reach_prob01_transposed(const csr_model *model, const ref_transpose *tr, const reach_query *query,
                                uint8_t *cls);

/*
 * The backward search under Prob0/Prob1: in (u8[n], 1 = in the set) grown
 * in place through the states with allowed[s], from the states already in
 * it, over tr (the model's transpose): s joins when one of its choices
 * (all_choices 0; only those with choice_ok[k] where choice_ok is given)
 * or every one of them (all_choices 1) has a transition into the set.
 * Scratch: queue u32[n], hit u8[c] and remaining u64[n] (all_choices 1
 * only).  O(n + t) time.  ref_reach_prob01's, and reach_prob01_cpu's.
 */
void ref_reach_backward_closure(const csr_model *m, const ref_transpose *tr, uint8_t *in, const uint8_t *allowed,
                                int all_choices, const uint8_t *choice_ok, uint32_t *queue, uint8_t *hit,
                                uint64_t *remaining);

/*
 * Solve a system on the CPU, sequentially, in place (Gauss-Seidel order: a
 * state's new bound is used by the states after it in the same sweep; both
 * bounds stay sound because the operators are monotone): a reach_solver
 * (ctx unused).  REACH_II interval iteration; REACH_PI certified policy
 * iteration first where reach_pi_eligible (ref_reach_pi), then interval
 * iteration from its bounds; rewards (choice_reward) and REACH_OVI:
 * optimistic value iteration; REACH_VI: value iteration, only lower.
 * Errors: as reach_solver (CSR_ERR_STALLED: a whole sweep changed no bound).
 */
int ref_reach_iterate(const reach_system *system, const reach_options *options, double epsilon, double *lower,
                      double *upper, uint64_t *iterations, double *difference, void *ctx);

/*
 * Certified policy iteration (REACH_PI) on system y (the reference of
 * gpu/reach/pi.cu; the steps are described in reach_pi.c; its products,
 * policy improvements, ties and certificates a task per 2^19 transitions of
 * the system, at most one per CPU, each state's sums in one order: the same
 * values on any number of CPUs):
 * interval iteration in Jacobi order (REACH_PI_JACOBI iterations at most),
 * then policy iteration with IDR(s) solves, then bounds certified as a
 * post- and a pre-fixpoint.  y must be eligible (reach_pi_eligible).
 * lower/upper (f64[n]) hold sound bounds and receive sound, tighter ones.
 * Returns CSR_OK when they meet eps (relative or absolute, as
 * ref_reach_iterate's rule) in every maybe state; CSR_ERR_NOT_CONVERGED
 * when not (the caller goes on with interval iteration); CSR_ERR_NOMEM.
 * *iterations: the Jacobi iterations; *difference: the largest u - l.
 * options->pi_stats (if set) receives what was done.  Memory: 4n + (108 +
 * 16 S) nm + 24n bytes (nm maybe states, S = REACH_PI_IDR_S), and 2 to 5
 * bytes a transition of the system (successors in 16 or 32 bits, an 8-bit
 * index a probability where a palette holds them all).
 */
int ref_reach_pi(const reach_system *y, const reach_options *options, double eps, double *lower, double *upper,
                 uint64_t *iterations, double *difference);

/*
 * Step-bounded reachability P_opt [ avoid-free U<=steps target ]: exactly
 * steps Jacobi iterations x_{i+1}(s) = opt_k sum p x_i(t) from x_0 = the
 * target flags, targets fixed at 1, avoid states and states without choices
 * at 0 (Baier & Katoen, ch. 10.6.1: the value is exact, no stopping rule),
 * ended early after a step that changed no value (every later step would
 * give the same, so the values are those of `steps` steps).  values f64[n].
 * O(steps * t) time, 8n bytes besides values.  Errors: CSR_ERR_NOMEM.
 */
int ref_reach_bounded(const csr_model *model, const reach_query *query, uint64_t steps, double *values);

/* Whether every unfixed state of y has a finite upper bound (an expected
 * reward's, once certified or verified; upper f64[n]). */
int ref_reach_upper_bounded(const reach_system *y, const double *upper);

/*
 * What a long step-bounded iteration reports as it goes (ref_reach_bounded
 * every 1024 steps, the GPU's every 64): fn(steps done, steps asked), or
 * NULL (the default) for nothing.  One for the process: the tools set it
 * where standard error is a terminal (gpu-vi's "step N of M").
 */
typedef void (*reach_progress_fn)(uint64_t done, uint64_t total);
void reach_set_bounded_progress(reach_progress_fn fn);
reach_progress_fn reach_bounded_progress(void);

#ifdef __cplusplus
}
#endif

#endif
