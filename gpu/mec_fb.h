/*
 * mec_fb.h - maximal end component (MEC) decomposition on the GPU, after
 * Wijs, Katoen & Bosnacki, FMSD 2016, sections 2.3, 2.4, 5.3 and 6
 * (Algorithm 7), on the forward-backward SCC decomposition of scc_fb.h.
 *
 * Each round: the SCCs of what remains, searched inside the SCCs of the
 * round before (many pivots at once); every choice with a transition leaving
 * its state's SCC is removed, and the states left without choices (the sets U
 * of Algorithm 7) with their attractor inside the SCC (Lemma 1); an SCC that
 * lost neither a state nor a choice is a MEC and leaves the graph (Lemma 2,
 * Lemma 1.2).  Until no state remains.  The same rounds as the CPU reference
 * ref_mec_basic (ref.h), so both count the same rounds, removed states and
 * removed choices.
 *
 * Input: a csr_model (plain or restructured), n <= 2^32 - 2 states and
 * c <= 2^32 - 1 choices.  Output: mec[s] = the smallest state of s's MEC, or
 * GPU_MEC_NONE, in the model's numbering.  Device memory: about 8t + 16c +
 * 60n bytes for the model, the choice-level transpose and the flags, 4t + 8n
 * more from the second round on (the graph of the remaining choices), the
 * transpose (4t + 16n, when it fits) and the SCC workspace (about 70n,
 * scc_fb.h): about 16t + 16c + 150n in all.
 */
#ifndef MEC_FB_H
#define MEC_FB_H

#include <stdint.h>

#include "csr.h"
#include "scc_fb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_MEC_NONE UINT32_MAX

typedef struct gpu_mec_options {
    gpu_scc_options scc; /* the SCC decomposition of each round */
    int j_set;           /* 1: a round's first pivots come from J, the states that lost a choice in the
                            round before (FMSD section 2.4 and 5.3, optimisation 2) */
} gpu_mec_options;

typedef struct gpu_mec_stats {
    uint64_t mecs, states_in_mecs;
    uint64_t rounds;           /* SCC decompositions */
    uint64_t removed_states;   /* the sets U and their attractors */
    uint64_t removed_choices;  /* choices leaving their SCC or entering a removed state */
    uint64_t attractor_levels; /* breadth-first levels of the attractor computations */
    gpu_scc_stats scc;         /* the SCC decompositions, summed over the rounds */
    uint64_t device_bytes;
    double h2d_s;   /* the model to the device, the choice-level transpose */
    double graph_s; /* each round's graph of the remaining choices and its transpose */
    double scc_s;   /* SCC decompositions */
    double mec_s;   /* the sets U, attractors, MECs found */
    double d2h_s, total_s; /* seconds, by CUDA events */
} gpu_mec_stats;

void gpu_mec_default_options(gpu_mec_options *options);

/* Decompose model into MECs; mec has num_states entries.  Errors:
 * CSR_ERR_NOMEM (device memory), CSR_ERR_IO (a CUDA failure, text in
 * status), CSR_ERR_TOO_LARGE. */
int gpu_mec_fb(const csr_model *model, const gpu_mec_options *options, uint32_t *mec, gpu_mec_stats *stats,
               csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
