/*
 * scc.h - SCC decomposition on the GPU: the options, statistics and entry
 * points of the SCC engines (the public C interface of gpu/; the contract
 * the engines implement is gpu/scc/engine.h).
 *
 * Engines:
 *   lp  label propagation after ECL-SCC (Alabandi, Sands, Biros & Burtscher,
 *       SC'23): every state is a pivot at once; (in, out) = the largest state
 *       known to reach it / to be reached from it, raised over an edge list
 *       until a fixpoint; in == out names the state's SCC; asynchronous
 *       peeling of trivial SCCs first and between phases (gpu/scc/peel).
 *       Finds MECs too (the interleaved scheme of gpu/mec.h).
 *   fb  forward-backward search with trimming: FBT and BFBT of Wijs, Katoen
 *       & Bosnacki, FMSD 2016, Algorithms 1-4 and 6, in all the article's
 *       configurations.
 *   auto (the default): lp.
 *
 * Input: a csr_model, n <= 2^32 - 2 states, c <= 2^32 - 1 choices.  Output:
 * scc[s] = the smallest state of s's SCC, in the model's numbering.
 */
#ifndef GPU_SCC_H
#define GPU_SCC_H

#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpu_scc_engine_id { GPU_SCC_AUTO = 0, GPU_SCC_LP = 1, GPU_SCC_FB = 2 } gpu_scc_engine_id;

/* lp: which state names a label in a phase (gpu/scc/lp/lp.cu): the smallest
 * in odd phases and the largest in even ones (the default), or one of them in
 * every phase (largest: ECL-SCC's). */
typedef enum gpu_lp_label_order {
    GPU_LP_ALTERNATE = 0,
    GPU_LP_LARGEST = 1,
    GPU_LP_SMALLEST = 2
} gpu_lp_label_order;

typedef struct gpu_scc_options {
    gpu_scc_engine_id engine;
    int peel;            /* peeling of trivial SCCs first: 1 yes, 0 no, -1 the engine's default (lp yes, fb no) */
    int peel_async;      /* 1: drain the peeling asynchronously (no barriers); 0: by levels while they are
                            wide, then asynchronously (the default) */
    int blocks;          /* blocks of the persistent kernels; 0: as many as are resident on the device */
    /* lp */
    int sweeps;          /* lp: sweeps of a block over its share of the edges in a pass; 0: the default (2) */
    gpu_lp_label_order label_order; /* lp: which state names a label in each phase */
    /* fb: the article's configurations */
    int hybrid;           /* 1: one kernel advances forward and backward search (default); 0: "nh" */
    int bounding;         /* 1: BFBT (Algorithm 2) */
    int warp_aggregation; /* 1: pivot hashing aggregated per warp (Algorithm 6, boxed code) */
    int transpose;        /* 1: build the transpose on the GPU when it fits (default); 0: never */
    int cache_iterations; /* local-cache iterations per sweep (FMSD Alg. 4; the c of F_c,u); 0: none */
    int queue_trimming;   /* 1: trimming over queues with per-state counters (default); 0: sweeps */
    int persistent;       /* 1: one cooperative kernel with grid barriers (default); 0: one launch per sweep */
} gpu_scc_options;

/*
 * Engine-neutral statistics of one decomposition (or several, summed).
 * Times in seconds, by CUDA events; `resident_s` is the decomposition with
 * the model already on the device (everything the engine builds there, such
 * as transposes and edge lists, included), `upload_s` the model to the
 * device, `download_s` the canonical ids and their copy back.
 */
typedef struct gpu_scc_stats {
    const char *engine;        /* "lp" or "fb" */
    uint64_t components;       /* SCCs (or MECs) found */
    uint64_t peeled;           /* states removed by peeling or trimming */
    uint64_t peel_levels;      /* levels of the peeling drained by levels (all drains summed) */
    uint64_t phases;           /* lp: label-propagation phases; fb: pivot rounds */
    uint64_t passes;           /* lp: propagation passes over the edges; fb: trimming and search sweeps */
    uint64_t removed_choices;  /* MEC goal: choices disabled */
    uint64_t device_bytes_planned;   /* device memory the plan computed before allocating */
    uint64_t device_bytes_allocated; /* device memory allocated (peak, through the one allocator) */
    double prepare_s, peel_s, search_s, finish_s; /* parts of resident_s */
    double upload_s, resident_s, download_s;
} gpu_scc_stats;

void gpu_scc_default_options(gpu_scc_options *options);

/* The engine's name, or NULL for an unknown id; the id of a name, or -1. */
const char *gpu_scc_engine_name(gpu_scc_engine_id engine);
int gpu_scc_engine_by_name(const char *name);

/*
 * Decompose model's graph (all transitions) into SCCs; scc has num_states
 * entries.  Errors: CSR_ERR_NOMEM (device memory), CSR_ERR_DEVICE (a CUDA
 * failure, text in status), CSR_ERR_TOO_LARGE.
 */
int gpu_scc_decompose(const csr_model *model, const gpu_scc_options *options, uint32_t *scc, gpu_scc_stats *stats,
                      csr_status *status);

/*
 * Device bytes gpu_scc_decompose takes for model with these options: the
 * model on the device and the engine's plan, computed by the code that
 * allocates (0 when there is no device).
 */
uint64_t gpu_scc_bytes_needed(const csr_model *model, const gpu_scc_options *options);

#ifdef __cplusplus
}
#endif

#endif
