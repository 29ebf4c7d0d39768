/*
 * peel.h - asynchronous peeling: trimming of trivial SCCs to a fixpoint
 * without a barrier per level, and its MEC form, the attractor of the states
 * that cannot stay (internal to gpu/; a building block of the engines).
 *
 * Every state keeps the number of its live in- and out-transitions from and
 * to other states (self-loops do not count: they do not change that a state
 * is alone in its SCC).  A state whose count reaches 0 is an SCC of its own
 * (trimming, FMSD section 2.2); the thread that brings the count to 0 claims
 * the state (flag kLive -> kQueued) and pushes it on a device worklist
 * (worklist.h) at once, where a waiting thread takes it while the first one
 * finishes its own removal: a link of a chain of dependent removals costs
 * the few dependent memory accesses that free the next state and a hand-off,
 * not a whole removal, nor a grid-wide step.  The worklist is drained asynchronously (the sync-free scheme
 * of Liu et al., Euro-Par 2016: no barrier at all, every thread waiting on a
 * slot of its own), or first by levels while levels are wide or have been
 * narrow for only a few levels in a row (one removal a thread, a grid
 * barrier a level: more removals a second) and the rest, a deep chain of
 * narrow levels, asynchronously.  What limits it is the longest chain (wlan6_2500 has
 * one of about 16,600 states) and, where chains are short, the throughput of
 * the removals.
 *
 * SCC goal: removing s makes it its own component (component[s] = s) and
 * takes one off the in-count of its successors and the out-count of its
 * predecessors, over the edges that count (enabled choices, same class).
 *
 * MEC goal (FMSD sections 2.3-2.4, Lemma 1; the eager removal of INTERLEAVE,
 * Bansal & Singh 2025): a state is removed when it has no enabled choice left
 * (not e-closed) or when one of its counts is 0 (a trivial SCC: a MEC {s} iff
 * one of its enabled choices stays at s with all its transitions); removing s
 * disables its choices and every choice of another state with a transition
 * into s (such a choice leaves its state's MEC), and disabling a choice takes
 * its transitions off the counts and one off its state's choice count.  So
 * the peeling computes, to a fixpoint, the trimming and the attractors of the
 * round-based algorithm (FMSD Algorithm 7) together and without rounds.
 */
#ifndef GPU_PEEL_H
#define GPU_PEEL_H

#include <stdint.h>

#include "csr.h"
#include "memory.h"
#include "model.h"
#include "worklist.h"

namespace gpu {

enum : uint32_t { kLive = 0, kQueued = 1, kRemoved = 2 }; /* flag of a state */
constexpr uint32_t kNoComponent = UINT32_MAX;

/* SCC goal on a part of a model over several GPUs (gpu/multi): the
 * states from `first` on are copies of other parts' states, which only
 * their owners queue; removing a state takes each of its edges into a copy
 * k = w - first (of its class) off the owner's in-count: counted in
 * outbox[k] for the exchange (the owner skips a state it removed), or,
 * where outbox is NULL and the copy is not removed, in place at
 * owner_in_left[owner[k]][owner_index[k]] by an atomic of system scope
 * (peer access).  All zero: a single GPU. */
struct peel_foreign {
    uint64_t first;
    uint32_t *outbox;
    uint32_t *const *owner_in_left;
    const uint32_t *owner, *owner_index;
};

/* What peeling reads and writes; every array has one entry per state
 * (choice for `enabled`) unless said otherwise. */
struct peel_params {
    uint64_t n;
    /* the model's graph (device_model) and its transpose with choices */
    const uint64_t *state_choices, *choice_transitions, *row;
    const uint32_t *targets;
    const uint64_t *rfirst;
    const uint32_t *rsource, *rchoice;
    /* enabled choices (nonzero): MEC goal, written; SCC goal, read only, NULL: all */
    uint32_t *enabled;
    /* SCC goal: class of each state (edges between classes do not count), NULL: one class */
    const uint64_t *cls;
    uint32_t *flag;         /* kLive, kQueued, kRemoved */
    uint32_t *in_left, *out_left;
    uint32_t *choices_left; /* MEC goal: enabled choices of each state */
    uint32_t *component;    /* the result of a removed state */
    /* MEC goal inside a label-propagation phase: the (in, out) label pair of
     * each state (lp.cu); a state that loses a choice or is removed marks
     * changed[in ^ label_mirror] (the state that names the label, lp.cu's
     * init_labels) when in == out (its SCC changed); NULL: no marks */
    const uint2 *labels;
    uint32_t label_mirror;
    uint8_t *changed;
    worklist queue;
    unsigned long long *stats; /* [0] states removed, [1] choices disabled, [2] levels (drain by levels) */
    peel_foreign foreign;      /* SCC goal on a part of several GPUs; zero: none */
};

enum peel_goal { PEEL_SCCS, PEEL_MECS };
enum peel_schedule { PEEL_BY_LEVELS, PEEL_ASYNC };

/* Word offsets in peel_buffers::counters after the worklist's: the drain by
 * levels' ring of level sizes, then the stats; one 128-byte line each. */
enum : unsigned { PEEL_RING = WL_WORDS, PEEL_STATS = WL_WORDS + 16, PEEL_COUNTER_WORDS = WL_WORDS + 32 };

/* The fields of peel_params that come from the model on the device and its
 * transpose with choices; the caller adds its arrays and worklist. */
inline peel_params peel_params_of(const device_model &m, const graph_transpose &tr)
{
    peel_params p = {};
    p.n = m.n;
    p.state_choices = m.state_choices;
    p.choice_transitions = m.choice_transitions;
    p.row = m.row;
    p.targets = m.targets;
    p.rfirst = tr.first;
    p.rsource = tr.source;
    p.rchoice = tr.choice;
    return p;
}

/* The worklist's slots (n) and counters, and the stats counters. */
struct peel_buffers {
    uint32_t *items = nullptr;
    unsigned long long *counters = nullptr; /* PEEL_COUNTER_WORDS words (see above) */
    uint64_t capacity = 0;
    void plan(arena &a, uint64_t n);
    /* Empty worklist of n slots, zero stats (on stream). */
    int reset(uint64_t n, csr_status *status, cudaStream_t stream = 0);
    worklist queue() const { return worklist{items, counters, capacity}; }
    unsigned long long *stats() const { return counters + PEEL_STATS; }
};

/* Count each live state's in- and out-transitions (and, MEC goal, first
 * disable every enabled choice of a live state with a transition to a state
 * that is not live or in another class, then count the enabled choices).
 * in_left must be zero on entry. */
int peel_count(const peel_params &p, peel_goal goal, csr_status *status);

/* Queue every live state with a count of 0 (MEC goal: or no choice left). */
int peel_seed(const peel_params &p, peel_goal goal, csr_status *status);

/* Remove everything queued and whatever that makes removable, until the
 * worklist is drained: asynchronously, or by levels until 32 levels in a row
 * have been narrow and the rest asynchronously; blocks: the persistent
 * kernel's block count (0: all resident ones, divided by share, for drains
 * of `share` parts at once on one device).  On stream; adds to stats.  With
 * p.foreign (SCC goal only) the drain of one part of several GPUs. */
int peel_drain(const peel_params &p, peel_goal goal, peel_schedule schedule, unsigned blocks, csr_status *status,
               cudaStream_t stream = 0, unsigned share = 1);

/* The edges between classes after a label-propagation phase (edge e from
 * edges[e].x to edges[e].y of choice edge_choice[e]; classes: the (in,
 * out) label pairs): SCC goal, each such edge stops counting (its counts are
 * taken down, and states whose count reaches 0 are queued); MEC goal, its
 * choice is disabled (and what that frees is queued).  Drain afterwards. */
int peel_cut(const peel_params &p, peel_goal goal, const uint2 *edges, const uint32_t *edge_choice, uint64_t ne,
             csr_status *status);

} /* namespace gpu */

#endif
