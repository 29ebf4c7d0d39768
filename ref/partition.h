/*
 * partition.h - a model split into P parts for several GPUs (issue 18), and
 * value iteration over the parts on the CPU: the simulated mode that tests
 * and CI run, with the same partition and exchange that the GPUs will use.
 *
 * After the second partitioning of the DiVinE-CUDA slides (Barnat, Bauch,
 * Brim and Ceska, ICPADS'10, "Employing multiple GPUs to overcome memory
 * limitation"): part i owns a contiguous range of state ids, with their
 * choices and transitions (the rows of the CSR), and keeps a reduced vector
 * of values: its own states first, then its foreign states, the targets of
 * its cross transitions (ascending state id).  Its transitions' targets are
 * rewritten as indices into that vector, so a part computes alone; between
 * two steps every part receives its foreign states' values from their owners
 * (pull).  Because ranges are contiguous and foreign states ascending, the
 * foreign states a part reads from one owner are one contiguous slice of its
 * foreign vector: one send and one receive per ordered pair of parts (NCCL's
 * ncclSend/ncclRecv in a group), the owner gathering the values it sends
 * through send_index.  The slides' host-side exchange of scattered values
 * ("inefficient scattered read/write") becomes a gather on the owner and a
 * contiguous write on the reader.
 *
 * Ranges are cut at state boundaries so that every part holds about t / P
 * transitions; a part may be empty (more parts than states).
 */
#ifndef REF_PARTITION_H
#define REF_PARTITION_H

#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct csr_part {
    uint64_t first_state, num_states;           /* own states: [first_state, first_state + num_states) */
    uint64_t first_choice, num_choices;         /* their choices, in the model's order */
    uint64_t first_transition, num_transitions; /* their transitions */
    uint64_t num_foreign;                       /* foreign states */
    uint32_t *foreign;       /* u32[num_foreign]: their global ids, ascending, none own */
    uint32_t *local_targets; /* u32[num_transitions]: each target as an index into own + foreign */
    /* recv_first[o] .. recv_first[o + 1]: the slice of `foreign` owned by part o (u64[P + 1]) */
    uint64_t *recv_first;
} csr_part;

typedef struct csr_partition {
    uint32_t parts;
    csr_part *part; /* [parts] */
    /* What part o sends to part r (o != r), in r's foreign order: the local
     * indices send_index[send_first[o * parts + r] .. send_first[o * parts + r + 1])
     * of o's own states (u64[parts * parts + 1], u32[total foreign]). */
    uint64_t *send_first;
    uint32_t *send_index;
} csr_partition;

/*
 * Split `model` into `parts` (1 .. 65,536) contiguous ranges of about
 * num_transitions / parts transitions each, with each part's foreign states,
 * local targets and the exchange lists.  O(t log t) time in all (the foreign
 * states sorted per part); memory: 4 bytes a transition, 4 + 4 bytes a
 * foreign state, 8 (parts + 1) a part and 8 parts^2.  Errors (nothing left
 * allocated): CSR_ERR_USAGE for a part count out of range, CSR_ERR_NOMEM,
 * CSR_ERR_TOO_LARGE for 2^32 - 1 states or more.
 */
int csr_partition_build(const csr_model *model, uint32_t parts, csr_partition *out, csr_status *status);
void csr_partition_free(csr_partition *p);

/*
 * Part of the state s (0 .. parts - 1); s < num_states of the model.
 */
uint32_t csr_partition_owner(const csr_partition *p, uint64_t s);

/*
 * Every entry of the exchange lists, pair by pair (owner o ascending, then
 * reader r): fn(ctx, o, own, r, copy) says that part o's own state `own` (an
 * index from its first state) is part r's foreign copy `copy` (an index
 * into r's own + foreign vector).  The CPU's pulls and pushes.
 */
typedef void csr_exchange_fn(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy);
void csr_partition_exchange(const csr_partition *p, csr_exchange_fn *fn, void *ctx);

/*
 * Value iteration, `steps` Jacobi steps of the Bellman operator of reaching
 * `target` (u8[n], nonzero: a target state), maximising (maximise != 0) or
 * minimising over choices, from x = 1 on targets and 0 elsewhere: x'(s) = 1
 * for a target, else the best over s's choices of sum p(t) x(t) (0 for a
 * state without choices).  ref_vi_steps runs it on the whole model;
 * ref_vi_steps_partitioned on the parts, each computing its own states from
 * its reduced vector and then pulling its foreign values through the
 * exchange lists: the same sums in the same order, so the results are equal
 * bit for bit.  x: f64[n], the values after the last step.  Errors:
 * CSR_ERR_NOMEM.
 */
int ref_vi_steps(const csr_model *model, const uint8_t *target, int maximise, uint64_t steps, double *x);
int ref_vi_steps_partitioned(const csr_model *model, const csr_partition *p, const uint8_t *target, int maximise,
                             uint64_t steps, double *x);

/*
 * SCC decomposition over the parts by label propagation (the scheme of the
 * lp engine, gpu/scc/lp, after ECL-SCC): in phases, every live state starts
 * with in = out = its id; in rounds, every part raises, over its own edges
 * between live states of one class, in[w] to in[v] and out[v] to out[w] to
 * a local fixpoint on its copies, then the owners take the largest in-label
 * any reader's copy of their states reached (push, a max-reduction) and every
 * reader's copies take their owners' labels, liveness and class (pull),
 * until a round raises nothing; then states with in == out are done (their
 * SCC is named by in) and the others keep (in, out) as their class.  Edges
 * are the transitions of all choices.  comp: u64[n], each state's SCC as the
 * smallest state in it (ref.h's convention, so it equals ref_scc_tarjan's
 * byte for byte).  peel: the lp engine's peeling first and between phases:
 * ref_trim_partitioned's rounds over the edges between live states of one
 * class, each state trimmed an SCC of its own.  Errors: CSR_ERR_NOMEM.
 */
typedef struct ref_scc_parts_stats {
    uint64_t trimmed, trim_rounds; /* peel: states trimmed, trimming rounds (first and between phases, summed) */
    uint64_t phases, rounds;       /* label propagation's phases and exchange rounds */
} ref_scc_parts_stats;
int ref_scc_partitioned(const csr_model *model, const csr_partition *p, int peel, uint64_t *comp,
                        ref_scc_parts_stats *stats);

/*
 * Trimming to a fixpoint over the parts (the peeling block's scheme,
 * gpu/scc/peel, FMSD section 2.2): a state without a live in- or
 * out-transition from or to another state is removed, until none is left.
 * Every part counts its own states' transitions and drains its own queue
 * alone; a removal that reaches a foreign state goes to an outbox; then the
 * outboxes are pushed to the owners (summed into their in-counts), the
 * parts pull their foreign states' flags, and each part's sources of edges
 * into foreign states removed since lose an out-transition; rounds until no
 * part has anything queued.  The first push sums the in-counts of edges from
 * other parts.  removed: u8[n], 1 for a trimmed state.  Errors:
 * CSR_ERR_NOMEM.
 */
int ref_trim_partitioned(const csr_model *model, const csr_partition *p, uint8_t *removed, uint64_t *rounds);

/* What ref_mec_partitioned counts. */
typedef struct ref_mec_parts_stats {
    uint64_t mecs, states_in_mecs;
    uint64_t rounds;            /* SCC decompositions over the parts (the last one finds nothing to remove) */
    uint64_t phases, lp_rounds; /* label propagation's phases and exchange rounds, summed over the rounds */
    uint64_t attractor_rounds;  /* exchange rounds of the attractors, summed */
    uint64_t removed_states, removed_choices;
} ref_mec_parts_stats;

/*
 * MEC decomposition over the parts (FMSD sections 2.3-2.4, Algorithm 7, on
 * the scheme above): in rounds, the SCCs of the states in play over their
 * enabled choices by label propagation over the parts (lp_phases, inside the
 * SCCs of the round before); every part removes its enabled choices with a
 * transition out of their state's SCC (the foreign states' SCCs pulled); the
 * states left without choices and their attractor (Lemma 1) leave play, in
 * rounds like trimming's: each part drains its own queue, a state's removal
 * takes the choices into it from its part's own states (a choice-level local
 * transpose), and the parts then pull the foreign states' flags and remove
 * the choices into those removed since.  Only the pull moves data: a choice
 * lives with its state, so no push.  Unlike ref_mec_basic, an SCC that lost
 * nothing does not leave play at once (that needs an OR over an SCC that
 * spans parts): the rounds stop when one removes nothing anywhere (a
 * one-word reduction), when every SCC left is closed under its enabled
 * choices, so an end component, and maximal.  mec: u64[n], the smallest
 * state of each state's MEC or UINT64_MAX (REF_NONE), equal to
 * ref_mec_basic's.  Errors: CSR_ERR_NOMEM.
 */
int ref_mec_partitioned(const csr_model *model, const csr_partition *p, uint64_t *mec, ref_mec_parts_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
