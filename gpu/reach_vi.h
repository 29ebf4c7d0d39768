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
#include "mec.h"
#include "reach.h"
#include "scc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sweep classes of the iteration (gpu_reach_iterate): the default (coin6_4
 * on the H100, bench/RESULTS.md) and the most. */
#define GPU_REACH_SWEEP_CLASSES 3
#define GPU_REACH_MAX_SWEEP_CLASSES 64

typedef struct gpu_reach_context {
    int threads_per_state; /* 0: chosen from the system's shape (below); 1..32, a power of two */
    unsigned sweep_classes; /* 0: GPU_REACH_SWEEP_CLASSES; 1: Jacobi (every maybe state in one launch);
                               2..GPU_REACH_MAX_SWEEP_CLASSES */
    uint64_t memory_limit;  /* device bytes the iteration may take (0: what is free): the sweep classes only
                               when their renumbering fits */
    gpu_scc_options scc;   /* the SCC and MEC decompositions (gpu_reach_backend) */
    gpu_mec_scheme mec_scheme; /* the MEC decompositions' scheme (GPU_MEC_AUTO, 0: by the model's class) */
    csr_status *status;    /* where a CUDA failure is described */
    uint64_t prob01_sweeps;       /* filled by the backend's Prob0/Prob1: its backward searches (their levels
                                     with scc.persistent == 0, --host-loop) */
    int prob01_on_cpu;            /* the backend's Prob0/Prob1 ran on the CPU: the GPU lacked the memory */
    int prob1e_by_mecs;           /* the backend's Prob1E came from the MEC quotient (gpu_reach_prob01_mecs) */
    const char *mec_scheme_used;  /* the scheme of the backend's last MEC decomposition ("interleave" or
                                     "rounds", gpu_mec_stats); NULL: none ran */
    /* filled by gpu_reach_iterate, summed over calls: */
    uint64_t device_bytes;     /* device memory of the iteration (its buffers, kept across calls) */
    uint64_t bytes_per_iteration; /* device memory one iteration reads and writes (estimate), last call */
    int used_threads, used_rows;  /* mapping of the last call */
    unsigned used_sweep_classes;  /* last call: sweep classes holding states (launches an iteration) */
    uint64_t sweep_rounds;        /* rounds of the sweep classes' levels, summed */
    int used_dictionary;          /* last call: probabilities as u16 indices into a table of distinct values */
    uint64_t ovi_guesses;         /* optimistic value iteration: upper bounds guessed (1: the first was verified) */
    double compact_s, h2d_s, iterate_s, d2h_s; /* seconds: host compaction, upload, iterations, download */
    double sweep_s;               /* seconds of the sweep classes on the device */
    double pi_s;                  /* seconds of certified policy iteration (REACH_PI, gpu/reach_pi.h) */
    double mec_upload_s, mec_resident_s, mec_download_s; /* seconds of the backend's MEC decompositions (gpu_mec_stats) */
    void *workspace;              /* device buffers kept across calls: NULL at first, gpu_reach_release */
} gpu_reach_context;

/*
 * Prob0/Prob1 as ref_reach_prob01 (same sets), on the GPU: each closure is a
 * backward search over the model's transpose (built on the GPU with each
 * entry's choice), each state joining at most once (a state joins Prob0A's
 * complement through any transition, Prob0E's complement when the last of
 * its choices enters, Prob1E's inner fixpoint through a choice whose
 * successors all stay in the candidate set), drained asynchronously by one
 * persistent kernel, or with levels != 0 level by level (a launch and a
 * host read each: the article's way, --host-loop); Prob1E's outer fixpoint
 * and every set stay on the device.  cls: u8[n]; *sweeps: the searches
 * (drained) or the levels of all searches (levels).  Device memory 8(n + 1) +
 * 8(c + 1) + 12t + 16(n + 1) + 26n + c/8 + 512 bytes and CUB's scan space.
 * Errors: CSR_ERR_NOMEM (the backend of gpu_reach_backend then computes the
 * sets on the CPU), CSR_ERR_DEVICE (CUDA, text in status).
 */
int gpu_reach_prob01(const csr_model *model, const reach_query *query, int levels, uint8_t *cls, uint64_t *sweeps,
                     csr_status *status);

/*
 * Prob0/Prob1 of a maximising query (cls as gpu_reach_prob01: the same sets
 * as ref_reach_prob01) with Prob1E from one MEC decomposition instead of
 * the nested fixpoint: r = Prob0A's complement by one search, the MECs of
 * the sub-MDP of r minus the targets (gpu/mec/mec_live.h, mo's scheme and
 * engine) on the model already on the device, then one backward search on
 * the MEC quotient (reach_vi.cu, quotient_search: de Alfaro 1997, ch. 3).
 * maybe_mec (u64[n]): the MECs of the maybe states as the backend's mecs
 * gives them on reach_maybe_graph (the smallest state, REF_NONE outside),
 * since each MEC of r minus the targets lies wholly inside or wholly
 * outside Prob1E.  *sweeps: the searches (2); ms: the decomposition's rounds
 * and SCC counts added.  Device memory: gpu_reach_prob01's, then the MEC
 * decomposition's (gpu/mec/mec_live.h) and 25n bytes.  Errors: CSR_ERR_NOMEM
 * (device memory, a search that cannot be resident, or 2^31 states or
 * more: take gpu_reach_prob01 and the MECs apart), CSR_ERR_DEVICE, CSR_ERR_USAGE (not
 * maximising, or interleave with an engine that does not find MECs).
 */
int gpu_reach_prob01_mecs(const csr_model *model, const reach_query *query, const gpu_mec_options *mo, uint8_t *cls,
                          uint64_t *maybe_mec, uint64_t *sweeps, gpu_mec_stats *stats, csr_status *status);

/*
 * ref_reach_iterate on the GPU (a reach_solver: ctx is a gpu_reach_context),
 * after Berger 2014, chapter 3, on the maybe states' subsystem only: the
 * host compacts it, one task per CPU (maybe states renumbered 0..nm-1, u32
 * offsets, the branches into fixed states with both bounds 0 dropped, the
 * others pointing at constant slots; a choice with one branch of
 * probability 1 stored as its successor alone; probabilities as u16 indices
 * into a table of distinct values when there are at most 65,536), uploads it
 * once, and iterates.
 * Mapping (Berger section 3.5, generalised): the choices of a state are
 * handled by a group of G threads; with short choices (fewer than 8 branches
 * on average) each thread takes whole choices and the group reduces max/min
 * by warp shuffles, G the power of two at or above the average choices per
 * maybe state but no larger than the device's resident threads allow for
 * every maybe state at once (G = 1 on coin6_4's 740k maybe states: a larger
 * G only makes each thread take more states in turn); with long choices a warp takes each choice's branches
 * (Berger's warp per row) and sums by shuffles.  Interval iteration updates
 * both bounds from one read of a state's choices, in place (monotone, so
 * sound); for Pmax each MEC's upper bound is the atomic maximum over its
 * states' leaving choices.  Each iteration reduces its largest difference
 * and whether any bound changed per block into a device word; 16 iterations
 * run as one CUDA graph and the host reads the word after them (the bounds
 * only tighten, so the extra iterations cost time, never soundness; value
 * iteration may run up to 15 iterations past the first that met its rule).
 * A whole iteration that changes no bound while the difference is above
 * epsilon is CSR_ERR_STALLED (the floating-point resolution of the values).
 * With options->method REACH_PI, on a system without MECs or rewards whose
 * fixed successors have exact values and with max_iterations at least
 * reach_pi_jacobi_limit(), certified policy iteration (gpu/reach_pi.h: the
 * steps of ref/reach_pi.c) runs first on the uploaded system; interval
 * iteration goes on from its bounds where they miss epsilon (*iterations
 * then counts its Jacobi iterations too; cx->pi_s its seconds).
 * Gauss-Seidel by sweep classes (cx->sweep_classes K, default
 * GPU_REACH_SWEEP_CLASSES; choice words only): on the device, each maybe
 * slot's level, the length of its shortest path to a fixed state (1: a
 * transition into one, also one the compaction dropped), by rounds of
 * Bellman-Ford; the slots renumbered by class (level - 1) mod K (a stable
 * radix sort, then the system rebuilt in that order by two scans and a
 * fill); an iteration is then K launches, one a class, nearest first, each
 * reading the bounds the classes before it wrote.  A bound thus crosses K
 * levels towards the far states in one iteration instead of one: coin6_4
 * Pmin, 21,264 Jacobi iterations against 10,416 / 9,648 / 7,344 with K = 3
 * / 4 / 6 (bench/RESULTS.md), at about 6 us a launch more.  Sound in any
 * order (in place, monotone).  The renumbering takes about the system's
 * device memory again: without it (too little free memory) one class.
 * Device memory 4(nm + 1) + 4(mc + 1) + 6 or 12 per kept branch (of the
 * choices with more than one) + 16 per slot (+ 4nm + mc + 16 per MEC for
 * Pmax), with sweep classes about as much again and 10nm + 4(mc + 1) more,
 * kept in ctx's workspace across calls (the groups of the split).  Errors: CSR_ERR_NOMEM, CSR_ERR_DEVICE,
 * CSR_ERR_TOO_LARGE (2^32 maybe choices or 2^31 kept branches or more),
 * CSR_ERR_NOT_CONVERGED, CSR_ERR_STALLED.
 */
int gpu_reach_iterate(const reach_system *system, const reach_options *options, double epsilon, double *lower,
                      double *upper, uint64_t *iterations, double *difference, void *ctx);

/*
 * ref_reach_bounded on the GPU: the model (u64 offsets, targets,
 * probabilities) and two value vectors on the device, one Jacobi step a
 * launch (a thread per state, grid-stride), the same operations in the same
 * order per state as the CPU, so the same values.  Device memory 8(n + 1) +
 * 8(c + 1) + 12t + 17n bytes.  Errors: CSR_ERR_NOMEM (device memory),
 * CSR_ERR_DEVICE (CUDA, text in status).
 */
int gpu_reach_bounded(const csr_model *model, const reach_query *query, uint64_t steps, double *values,
                      csr_status *status);

/*
 * The GPU steps of reach_solve (ctx: the gpu_reach_context): Prob0/Prob1 by
 * gpu_reach_prob01, and of Pmax on an MDP by gpu_reach_prob01_mecs with the
 * maybe states' MECs (not with --host-loop: scc.persistent == 0), MECs by
 * gpu_mec_decompose, SCCs by gpu_scc_decompose (by Tarjan on the CPU when
 * the SCC decomposition's memory, gpu_scc_bytes_needed, exceeds the budget),
 * systems by gpu_reach_iterate, step-bounded queries by gpu_reach_bounded.
 */
void gpu_reach_backend(gpu_reach_context *cx, reach_backend *backend);

/* Free the device buffers gpu_reach_iterate keeps in cx (safe when none). */
void gpu_reach_release(gpu_reach_context *cx);

/* Free device memory in bytes (cudaMemGetInfo), 0 on failure. */
uint64_t gpu_free_memory(void);

#ifdef __cplusplus
}
#endif

#endif
