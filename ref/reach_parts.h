/*
 * reach_parts.h - interval and value iteration of a reach_system over a
 * model split into parts (issue 18): the CPU's iteration over the parts,
 * gpu-vi --cpu -g N, and the host side that the GPUs' (gpu/multi.h,
 * gpu_reach_iterate_partitioned) share with it.
 *
 * The maybe states' rows are cut into the contiguous state ranges of
 * ref/partition.h (the DiVinE-CUDA slides' second partitioning, Barnat,
 * Bauch, Brim and Ceska, ICPADS'10); each part keeps both bounds of its own
 * and its foreign states (its reduced vector) and computes its own states'
 * new bounds from it, then pulls its foreign states' new bounds from their
 * owners.  Every sweep is Jacobi's (every bound from the iteration before,
 * Berger 2014 section 3.2's iteration x' = opt (C x + b) with two vectors),
 * so the bounds after each iteration do not depend on the parts: the CPU
 * here and the GPUs do the same operations in the same order per state (no
 * fused multiply-add), and give the same bits for every part count.
 *
 * Interval iteration (check/reach_system.h): l' = max(l, B(l)), u' = min(u, B(u)),
 * with, for Pmax, each MEC's upper bound the best of its states' choices
 * that leave it (the MECs of reach_mec_arrays); a MEC with states in several
 * parts (a spanning MEC) takes the maximum of the parts' maxima, one word a
 * MEC moved per iteration (gathered on part 0, reduced, sent back).  Value
 * iteration: l' = B(l).  The stopping rule (ref_reach_iterate's: for every
 * maybe state u - l <= eps u, relative, or <= eps; value iteration: no
 * change above eps) is checked after every REACH_PARTS_CHECK_EVERY
 * iterations and after the last allowed, on the iteration just done: the
 * GPUs read it back that often.  Not Gauss-Seidel: about twice the
 * iterations of the sequential sweep (bench/RESULTS.md).
 */
#ifndef REACH_PARTS_H
#define REACH_PARTS_H

#include <stdint.h>

#include "csr.h"
#include "partition.h"
#include "reach.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REACH_PARTS_CHECK_EVERY 16

/* A reach_system's maybe rows split into parts (reach_parts_build). */
typedef struct reach_parts {
    csr_model rows;         /* the system's n states; only the maybe states' choices and transitions */
    const uint8_t *fixed;   /* u8[n], the system's */
    uint8_t *leaving;       /* u8[rows.num_choices]: the choice leaves its state's MEC; NULL: no MECs */
    csr_partition partition;
    uint64_t *local_mecs;   /* [parts]: the MECs with a state in the part */
    uint32_t **mec_local;   /* [parts][own states]: the state's MEC as an index in its part, or REACH_NO_MEC */
    uint32_t **mec_span;    /* [parts][local_mecs]: the MEC's index among the spanning MECs, or REACH_NO_MEC */
    uint64_t span_mecs;     /* MECs with states in more than one part */
    void *owned[4];
} reach_parts;

/*
 * Split system's maybe rows (the choices of the states with fixed == 0)
 * into `parts` parts (csr_partition_build on them: about t_maybe / parts
 * transitions each) with the MECs' local and spanning indices.  Memory: the
 * maybe rows again (8 a choice, 12 a transition, 8 a state) and the
 * partition's.  Errors: CSR_ERR_USAGE (parts out of range; expected
 * rewards, which the parts do not iterate), CSR_ERR_TOO_LARGE (2^32 - 1
 * states or choices, or more), CSR_ERR_NOMEM.
 */
int reach_parts_build(const reach_system *system, uint32_t parts, reach_parts *out, csr_status *status);
void reach_parts_free(reach_parts *rp);

/* What the iteration over parts counts. */
typedef struct reach_parts_stats {
    uint32_t parts;
    uint64_t foreign;        /* foreign states over all parts */
    uint64_t span_mecs;      /* MECs with states in several parts */
    uint64_t exchanged;      /* bytes moved between parts an iteration, summed: 16 a foreign state, and 16 (P - 1)
                                a spanning MEC (to part 0 and back) */
    uint64_t passes;         /* the GPUs: iteration launches, summed over the parts */
    const char *exchange;    /* the GPUs: "nccl" or "copies"; NULL on the CPU */
    double partition_s;      /* reach_parts_build */
    double upload_s, resident_s, download_s; /* the GPUs: seconds */
} reach_parts_stats;

/*
 * The iteration over the parts on the CPU, the parts one after the other
 * (a reach_solver's contract: lower, upper f64[n] hold the initial bounds
 * and receive the final ones; *iterations, *difference).  Errors:
 * CSR_ERR_NOT_CONVERGED, CSR_ERR_STALLED (an iteration changed no bound),
 * CSR_ERR_USAGE (optimistic value iteration; expected rewards), CSR_ERR_NOMEM.
 */
int ref_reach_iterate_partitioned(const reach_system *system, const reach_parts *rp, const reach_options *options,
                                  double epsilon, double *lower, double *upper, uint64_t *iterations,
                                  double *difference);

/* reach_solver's ctx for reach_solve_partitioned (the GPUs' solver in
 * gpu/multi.h takes it too). */
typedef struct reach_parts_context {
    uint32_t parts;          /* 1 .. 65,536 */
    const void *gpus;        /* gpu_parts_options for the GPUs' solver; unused here */
    csr_status *status;      /* where a failure is described */
    reach_parts_stats stats; /* summed over the systems solved */
} reach_parts_context;

/* What both solvers do first: refuse optimistic value iteration and
 * expected rewards (CSR_ERR_USAGE, described in cx->status), then
 * reach_parts_build into *rp, its seconds, parts, foreign states and
 * spanning MECs added to cx->stats.  Errors: reach_parts_build's. */
int reach_parts_open(const reach_system *system, const reach_options *options, reach_parts_context *cx,
                     reach_parts *rp);

/* A reach_solver (ctx: reach_parts_context): reach_parts_open, then
 * ref_reach_iterate_partitioned. */
int reach_solve_partitioned(const reach_system *system, const reach_options *options, double epsilon,
                            double *lower, double *upper, uint64_t *iterations, double *difference, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
