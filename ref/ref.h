/*
 * ref.h - sequential CPU references for SCC and MEC decomposition, the
 * baselines of every benchmark and the oracles of the GPU tests.
 *
 * Results are per-state component ids in the model's state numbering: the
 * smallest state of the component (canonical, so results compare byte for
 * byte), or REF_NONE for a state in no MEC.
 */
#ifndef REF_H
#define REF_H

#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REF_NONE UINT64_MAX

typedef struct ref_scc_stats {
    uint64_t sccs;         /* components found */
    uint64_t trivial_sccs; /* single state without a self-loop */
} ref_scc_stats;

/*
 * Tarjan's algorithm (Tarjan 1972), iterative: no recursion, so it takes
 * millions of states.  The graph is the model's restricted to states with
 * alive[s] != 0 and choices with enabled[k] != 0 (NULL: all); edges are the
 * transitions of enabled choices between alive states.  comp must have
 * num_states entries; dead states get REF_NONE.  O(n + t) time, 2 u32 + one
 * stack frame (20 bytes) per state of memory.
 * Returns CSR_OK, CSR_ERR_NOMEM, or CSR_ERR_TOO_LARGE for 2^32 - 1 states or more.
 */
int ref_scc_tarjan(const csr_model *model, const uint8_t *alive, const uint8_t *enabled, uint64_t *comp,
                   ref_scc_stats *stats);

/*
 * ref_scc_tarjan, and where order and end are given (both, with stats):
 * order (u32[n]) the alive states one SCC after the other in the order
 * Tarjan's algorithm completes them, so that every SCC comes after the SCCs
 * it reaches (a topological order of the condensation, successors first),
 * each SCC's states as they leave Tarjan's stack (the last discovered
 * first, which a Gauss-Seidel sweep over the SCC converges in sooner: crowds'
 * small SCCs within 64 sweeps, in discovery order not); end (u64[n]) where
 * SCC i ends in order, for the stats->sccs SCCs.
 */
int ref_scc_tarjan_order(const csr_model *model, const uint8_t *alive, const uint8_t *enabled, uint64_t *comp,
                         uint32_t *order, uint64_t *end, ref_scc_stats *stats);

/* Whether state s has a transition to itself in an enabled choice (enabled
 * NULL: all): a one-state SCC without one is trivial. */
int ref_has_self_loop(const csr_model *model, const uint8_t *enabled, uint64_t s);

/*
 * The choice-level transpose of a model, by counting sort in O(n + c + t):
 * choice[first[v] .. first[v+1]) are the choices with a transition into
 * state v (once per transition, in choice order), owner[k] the state of
 * choice k.  Shapes u64[n+1], u64[t], u64[c].  Errors: CSR_ERR_NOMEM, with
 * nothing left allocated.
 */
typedef struct ref_transpose {
    uint64_t *first, *choice, *owner;
} ref_transpose;
int ref_transpose_build(const csr_model *model, ref_transpose *tr);

/* a[0 .. n) ascending, by two passes of 16 bits (LSD radix sort); scratch:
 * u32[n]; 512 KiB of counts.  Returns CSR_ERR_NOMEM when the counts cannot
 * be had (a untouched).  (ref/partition.c) */
int ref_radix_sort_u32(uint32_t *a, uint32_t *scratch, uint64_t n);
void ref_transpose_free(ref_transpose *tr);

typedef struct ref_mec_stats {
    uint64_t mecs;
    uint64_t states_in_mecs;
    uint64_t rounds;          /* SCC decompositions */
    uint64_t removed_states;  /* states removed as attractors of non-e-closed states */
    uint64_t removed_choices; /* choices removed because they leave their SCC */
} ref_mec_stats;

/*
 * The basic MEC decomposition of the FMSD article (Wijs, Katoen & Bosnacki
 * 2016, section 2.3), each round:
 *   1. SCCs of what remains (ref_scc_tarjan);
 *   2. every choice with a successor outside its state's SCC is removed
 *      (an end component only uses choices that stay inside, Definition 5;
 *      section 2.3 leaves this implicit, and without it an SCC whose strong
 *      connectivity depends on such a choice would be taken for a MEC);
 *   3. U = states left without choices (not e-closed, Definition 4); Attr(U)
 *      is removed (Lemma 1.1), computed backwards over the remaining choices
 *      in O(t) with a per-state count of choices not yet attracted;
 *   4. an SCC that lost neither a choice nor a state is a MEC (Lemma 2 and
 *      Definition 5) and leaves the graph (Lemma 1.2: choices into it leave
 *      their SCC and were removed in step 2);
 * until no state remains.  mec gets the smallest state of each state's MEC
 * or REF_NONE.  Worst case O(n * t) time; O(n + t) memory (a transpose).
 */
int ref_mec_basic(const csr_model *model, uint64_t *mec, ref_mec_stats *stats);

/*
 * ref_mec_basic within a part of model: the states with within[s] != 0 and
 * the choices with allowed[k] != 0 (NULL: all), over model's transpose
 * (ref_transpose_build's, or any with its entries: each state's in any
 * order); a choice with a successor outside within never joins a MEC.  mec
 * as ref_mec_basic's (REF_NONE outside within).  The same MECs as
 * ref_mec_basic on the model with only those states' allowed choices,
 * without building that model or its transpose.
 */
int ref_mec_basic_within(const csr_model *model, const ref_transpose *transpose, const uint8_t *within,
                         const uint8_t *allowed, uint64_t *mec, ref_mec_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
