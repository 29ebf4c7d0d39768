/*
 * reach_internal.h - steps of the query layer that its own files share
 * (check/reach.c, reach_epochs.c, reach_cpu.c, reach_prob01.c); not for
 * the tools.
 */
#ifndef REACH_INTERNAL_H
#define REACH_INTERNAL_H

#include <stdint.h>

#include "csr.h"
#include "reach.h"
#include "ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a solver's rc leaves an answer in the bounds reached (CSR_OK,
 * CSR_ERR_NOT_CONVERGED, CSR_ERR_STALLED: reach_solver keeps them). */
static inline int reach_answered(int rc)
{
    return rc == CSR_OK || rc == CSR_ERR_NOT_CONVERGED || rc == CSR_ERR_STALLED;
}

/* The references' REF_NONE-or-state ids (u64[n]) as the contract's u32 ids
 * (REACH_NO_MEC for none): ids u32[n]. */
static inline void reach_narrow_ids(const uint64_t *wide, uint32_t *ids, uint64_t n)
{
    for (uint64_t s = 0; s < n; s++)
        ids[s] = wide[s] == REF_NONE ? REACH_NO_MEC : (uint32_t)wide[s];
}

/* The engine's maybe_mecs, or the reference's where it has none (reach_engine). */
int reach_engine_maybe_mecs(const reach_engine *e, const uint8_t *cls, const double *choice_reward, uint32_t *mec);

/*
 * The system of model m (the engine's, or one derived from it: fixed[s]
 * kept, 0 solved; MECs and rewards as reach_system) solved whole when
 * st->bytes_needed fits the engine's budget, else split into groups of SCCs
 * (reach_solve_split); *t3: when the SCCs were found.  lower/upper f64[n].
 * Errors: the solver's.
 */
int reach_solve_whole_or_split(const reach_engine *e, const csr_model *m, const uint8_t *fixed, const uint32_t *mec,
                               uint64_t num_mecs, const uint8_t *leaving, int maximize, const double *reward,
                               const reach_options *o, double *lower, double *upper, reach_stats *st, double *t3);

/*
 * The quotient of a system by the MECs of its zero-reward choices: each MEC
 * (ids[s] = its smallest state, REACH_NO_MEC outside MECs) becomes its
 * smallest state, which takes every choice of its members except the
 * zero-reward choices that stay inside; every transition into a member goes
 * to that state; the other members keep no choice and are fixed (the
 * caller copies the representative's value back).  q's arrays are its own
 * (csr_free); *reward_out f64[qc] (free); fixed u8[n]: cls != REACH_MAYBE or
 * a member.  Errors: CSR_ERR_NOMEM.
 */
int reach_zero_reward_quotient(const csr_model *m, const uint8_t *cls, const uint32_t *ids, const double *reward,
                               csr_model *q, double **reward_out, uint8_t *fixed);

/*
 * A subsystem of system src: members (count states of src, none fixed there)
 * as local states [0, count) in the given order, then every successor of a
 * member outside them as a fixed local state, with the bounds of lower/upper
 * (f64[src n]).  MEC ids of src (dense, src->num_mecs) are renumbered
 * densely within the subsystem, so that its solver's work does not grow
 * with src's MECs; members must hold whole MECs.  local_of (u32[src n], all
 * UINT32_MAX) and mec_local (u32[src->num_mecs], all UINT32_MAX; NULL
 * without MECs) are scratch, given back as received.  The subsystem's
 * arrays are its own (reach_subsystem_free).  Errors: CSR_ERR_NOMEM.
 */
typedef struct reach_subsystem {
    reach_system y;
    uint32_t *states; /* local -> src state: members, then the fixed successors */
    double *lower, *upper;
    void *owned[11];
} reach_subsystem;
int reach_subsystem_build(const reach_system *src, const uint32_t *members, uint64_t count, const double *lower,
                          const double *upper, uint32_t *local_of, uint32_t *mec_local, reach_subsystem *sub);
/* The members' bounds back into lower/upper (f64[src n]). */
void reach_subsystem_store(const reach_subsystem *sub, uint64_t count, double *lower, double *upper);
void reach_subsystem_free(reach_subsystem *sub);

/*
 * Interval iteration on system y in Gauss-Seidel order, from its last state
 * to its first (backwards 1) or from its first to its last (0)
 * (check/reach_gauss_seidel.c), optimistic value iteration's
 * guesses where an upper bound is infinite (expected rewards) or where
 * guess_first asks (probabilities: the guesses first, the a-priori upper
 * bound kept where none is verified), until every
 * unfixed state's bounds meet eps (as reach_solver's rule) or the rate of
 * convergence predicts more than `budget` sweeps in all.  No MECs (y->mec
 * unused: Pmin after Prob0, Pmax without MECs, expected rewards after their
 * quotient).  lower/upper f64[n]: the bounds, improved in place (an upper
 * bound never verified left as it was).  *sweeps, *difference: what it
 * took.  Returns CSR_OK, CSR_ERR_NOT_CONVERGED (gave up: the bounds valid),
 * CSR_ERR_STALLED, CSR_ERR_NOMEM.
 */
int reach_gauss_seidel(const reach_system *y, const reach_options *o, double eps, uint64_t budget, int backwards,
                       int guess_first, double *lower, double *upper, uint64_t *sweeps, double *difference);

#ifdef __cplusplus
}
#endif

#endif
