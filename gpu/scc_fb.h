/*
 * scc_fb.h - SCC decomposition on the GPU by forward-backward search with
 * trimming: FBT (Wijs, Katoen & Bosnacki, FMSD 2016, Algorithm 1, sections
 * 2.2 and 5) and its bounding variant BFBT (Algorithm 2), all regions of a
 * recursion level searched at once.
 *
 * Input: the graph of a csr_model (edges: all transitions of all choices),
 * n <= 2^32 - 2 states.  Output: scc[s] = the smallest state of s's SCC, for
 * every state, in the model's numbering.  Device memory: about
 * 8(n+1) * 2 + 4t * 2 (the CSR and its transpose) + 26n bytes; when the
 * transpose does not fit (or transpose = 0), the backward search scans the
 * forward CSR instead.
 */
#ifndef SCC_FB_H
#define SCC_FB_H

#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_scc_options {
    int hybrid;          /* 1: one kernel advances forward and backward search (default); 0: "nh" */
    int bounding;        /* 1: BFBT (Algorithm 2) */
    int warp_aggregation;/* 1: pivot hashing aggregated per warp (Algorithm 6, boxed code) */
    int transpose;       /* 1: build the transpose on the GPU when it fits (default); 0: never */
    int cache_iterations;/* local-cache iterations per sweep (FMSD Alg. 4; the c of F_c,u); 0: none */
    int queue_trimming;  /* 1: trimming over frontier queues with per-state counters, in the persistent
                            kernel when the transpose is there (default); 0: sweeps over all states */
    int persistent_blocks;/* blocks of the persistent kernel; 0: as many as fit on the GPU at once */
    int persistent;      /* 1: trimming and searches loop inside one cooperative kernel, sweeps
                            separated by grid barriers (default); 0: one launch per sweep and a
                            flag read back by the host after each, as in the article */
} gpu_scc_options;

typedef struct gpu_scc_stats {
    uint64_t sccs, trivial_sccs;  /* trivial: one state without a self-loop */
    uint64_t trimmed;             /* states removed by trimming */
    uint64_t rounds;              /* recursion levels: pivot selection + search */
    uint64_t trim_sweeps, search_sweeps;
    int used_transpose;
    uint64_t device_bytes;        /* device memory allocated */
    double h2d_s, transpose_s, trim_s, pivot_s, search_s, d2h_s, total_s; /* seconds, by CUDA events */
} gpu_scc_stats;

void gpu_scc_default_options(gpu_scc_options *options);

/* Decompose model's graph; scc has num_states entries.  Errors: CSR_ERR_NOMEM
 * (device memory), CSR_ERR_IO (a CUDA failure, text in status),
 * CSR_ERR_TOO_LARGE. */
int gpu_scc_fb(const csr_model *model, const gpu_scc_options *options, uint32_t *scc, gpu_scc_stats *stats,
               csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
