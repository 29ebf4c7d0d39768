/*
 * reach_vi.h - reachability probabilities on the GPU: the Prob0/Prob1 graph
 * precomputations and the interval / value iteration of ref/reach.h, after
 * Berger 2014 (chapters 2.5-2.7 and 3: one iteration x' = opt (C x + b) as an
 * SpMV kernel and a per-state reduction over the choices, convergence by a
 * device-wide reduction), with the same systems, bounds and stopping rule as
 * the CPU reference ref_reach_iterate.
 */
#ifndef REACH_VI_H
#define REACH_VI_H

#include <stdint.h>

#include "csr.h"
#include "reach.h"
#include "scc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_reach_context {
    int threads_per_state; /* 0: chosen from the system's shape (below); 1..32, a power of two */
    gpu_scc_options scc;   /* the SCC and MEC decompositions (gpu_reach_backend) */
    csr_status *status;    /* where a CUDA failure is described */
    uint64_t prob01_sweeps;       /* filled by the backend's Prob0/Prob1 */
    /* filled by gpu_reach_iterate, summed over calls: */
    uint64_t device_bytes;     /* largest allocation of one call */
    uint64_t bytes_per_iteration; /* device memory one iteration reads and writes (estimate), last call */
    int used_threads, used_rows;  /* mapping of the last call */
    double h2d_s, iterate_s, d2h_s; /* seconds */
} gpu_reach_context;

/*
 * Prob0/Prob1 as ref_reach_prob01 (same sets), by backward fixpoint sweeps
 * over the forward CSR on the GPU: one kernel launch per sweep, each state
 * joining a set when its choices satisfy the set's condition, in place.
 * cls: u8[n].  Device memory 8(n + 1) + 8(c + 1) + 4t + 4n + c bytes.
 * Errors: CSR_ERR_NOMEM, CSR_ERR_DEVICE (CUDA, text in status).
 */
int gpu_reach_prob01(const csr_model *model, const reach_query *query, uint8_t *cls, uint64_t *sweeps,
                     csr_status *status);

/*
 * ref_reach_iterate on the GPU (a reach_solver: ctx is a gpu_reach_context).
 * Mapping (Berger section 3.5, generalised): the choices of a state are
 * handled by a group of G threads; with short choices (fewer than 8
 * transitions on average) each thread takes whole choices and the group
 * reduces max/min by warp shuffles, G the power of two at or above the
 * average choices per maybe state; with long choices a warp takes each
 * choice's transitions (Berger's warp per row) and sums by shuffles.
 * Lower and upper bounds are updated in place (monotone, so sound); for
 * Pmax each MEC's upper bound is the atomic maximum over its states' leaving
 * choices.  Convergence: cub::DeviceReduce::Max over the per-state
 * differences after every 8th iteration (the bounds only tighten, so the
 * extra iterations cost time, never soundness; value iteration may run up to
 * 7 iterations past the first that met its rule).
 */
int gpu_reach_iterate(const reach_system *system, const reach_options *options, double epsilon, double *lower,
                      double *upper, uint64_t *iterations, double *difference, void *ctx);

/*
 * The GPU steps of reach_solve (ctx: the gpu_reach_context): Prob0/Prob1 by
 * gpu_reach_prob01, MECs by gpu_mec_decompose, SCCs by gpu_scc_decompose (by
 * Tarjan on the CPU when the SCC decomposition's memory, gpu_scc_bytes_needed,
 * exceeds the budget),
 * systems by gpu_reach_iterate.
 */
void gpu_reach_backend(gpu_reach_context *cx, reach_backend *backend);

/* Free device memory in bytes (cudaMemGetInfo), 0 on failure. */
uint64_t gpu_free_memory(void);

#ifdef __cplusplus
}
#endif

#endif
