/*
 * mec.h - maximal end component (MEC) decomposition on the GPU (the public C
 * interface of gpu/), on the SCC contract of gpu/scc/engine.h.  Two schemes:
 *
 *   interleave (lp engine only): the choices that leave an SCC are removed
 *       eagerly inside the SCC computation, together with the attractors of
 *       the states that cannot stay, by asynchronous peeling (INTERLEAVE of
 *       Bansal & Singh 2025; gpu/scc/peel, lp.cu); an SCC that lost nothing
 *       is a MEC (FMSD Lemma 2).  Fastest on deep DAGs (wlan6_2500).
 *   rounds (FMSD sections 2.3-2.4, 5.3, 6, Algorithm 7; the default, on any
 *       engine): each round the SCCs of what remains, searched inside the
 *       SCCs of the round before; every choice with a transition leaving its
 *       state's SCC is removed, and the states left without choices (the sets
 *       U) with their attractor inside the SCC (Lemma 1); an SCC that lost
 *       neither a state nor a choice is a MEC and leaves the graph.  The same
 *       rounds as the CPU reference ref_mec_basic (ref.h): the same rounds,
 *       removed states and removed choices.
 *
 * Input: a csr_model (plain or restructured), n <= 2^32 - 2 states and
 * c <= 2^32 - 1 choices.  Output: mec[s] = the smallest state of s's MEC, or
 * GPU_MEC_NONE, in the model's numbering.
 */
#ifndef GPU_MEC_H
#define GPU_MEC_H

#include <stdint.h>

#include "csr.h"
#include "scc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_MEC_NONE UINT32_MAX

typedef enum gpu_mec_scheme { GPU_MEC_AUTO = 0, GPU_MEC_INTERLEAVE = 1, GPU_MEC_ROUNDS = 2 } gpu_mec_scheme;

typedef struct gpu_mec_options {
    gpu_scc_options scc;   /* the SCC engine and its options */
    gpu_mec_scheme scheme; /* AUTO: by the model's class: interleave below 3 transitions a state (and
                              neither fb nor j_set), else rounds (mec.cu, kSparseTransitions) */
    int j_set;             /* rounds: a round's first pivots from J, the states that lost a choice in the
                              round before (FMSD sections 2.4 and 5.3, optimisation 2; fb only) */
} gpu_mec_options;

typedef struct gpu_mec_stats {
    const char *scheme;        /* "interleave" or "rounds" */
    uint64_t mecs, states_in_mecs;
    uint64_t rounds;           /* rounds: SCC decompositions; interleave: label-propagation phases */
    uint64_t removed_states;   /* rounds: the sets U and their attractors; interleave: states peeled */
    uint64_t removed_choices;  /* choices leaving their SCC or entering a removed state */
    uint64_t attractor_levels; /* rounds with --host-loop: breadth-first levels of the attractors (else 0) */
    gpu_scc_stats scc;         /* the SCC engine's statistics, summed over the decompositions */
    uint64_t device_bytes_planned, device_bytes_allocated;
    double upload_s;   /* the model to the device */
    double resident_s; /* the decomposition with the model on the device (all rounds, U, attractors) */
    double download_s; /* canonical ids and their copy back */
} gpu_mec_stats;

void gpu_mec_default_options(gpu_mec_options *options);
const char *gpu_mec_scheme_name(gpu_mec_scheme scheme);
int gpu_mec_scheme_by_name(const char *name); /* -1: unknown */

/* Decompose model into MECs; mec has num_states entries.  Errors:
 * CSR_ERR_NOMEM (device memory), CSR_ERR_DEVICE (a CUDA failure, text in
 * status), CSR_ERR_TOO_LARGE, CSR_ERR_USAGE (interleave with an engine that
 * does not find MECs). */
int gpu_mec_decompose(const csr_model *model, const gpu_mec_options *options, uint32_t *mec, gpu_mec_stats *stats,
                      csr_status *status);

/* Device bytes gpu_mec_decompose takes (0 when there is no device). */
uint64_t gpu_mec_bytes_needed(const csr_model *model, const gpu_mec_options *options);

#ifdef __cplusplus
}
#endif

#endif
