/*
 * mec_fb.cu - MEC decomposition on the GPU (mec_fb.h): Wijs, Katoen &
 * Bosnacki, FMSD 2016, sections 2.3-2.4 (the algorithm and the J sets),
 * section 6 and Algorithm 7 (the sets U in one sweep), Lemmas 1 and 2.
 *
 * Differences from the article:
 * - Choices are flags of their own (enabled[c]) instead of bits in the
 *   transition words, and a choice with a transition leaving its state's SCC
 *   is removed before the SCC is judged: an SCC is a MEC only when it lost
 *   neither a state nor a choice (ref.h explains why section 2.3 needs this).
 * - The attractor of the sets U (Lemma 1) goes backwards over a choice-level
 *   transpose with a per-state count of choices left, level by level over
 *   queues (all levels in one cooperative kernel; one launch per level with
 *   --host-loop), instead of sweeps over all states.
 * - From the second round on, the SCC search runs on a graph rebuilt on the
 *   GPU from the remaining choices (counts, CUB's exclusive scan, scatter), so
 *   that scc_fb's kernels need no choice bookkeeping; the first round reads
 *   the model itself, interleaved segments included.
 */
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <string.h>

#include "cuda_check.h"
#include "fb_internal.h"
#include "mec_fb.h"

namespace {

namespace cg = cooperative_groups;
using fb::kDone;
using fb::phase_timer;
using fb::thread_count;
using fb::thread_index;
constexpr int kThreads = 256;

/* choice_state[k] = the state of choice k. */
static __global__ void choice_owner(uint64_t n, const uint64_t *__restrict__ state_choices,
                                    uint32_t *__restrict__ choice_state)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        for (uint64_t k = state_choices[s]; k < state_choices[s + 1]; k++)
            choice_state[k] = (uint32_t)s;
}

/* Choice-level transpose: rev_choice[rev_first[v] ..] = the choices with a transition to v. */
static __global__ void count_into(uint64_t t, const uint32_t *__restrict__ targets, unsigned long long *__restrict__ in)
{
    for (uint64_t i = thread_index(); i < t; i += thread_count())
        atomicAdd(&in[targets[i]], 1ull);
}

static __global__ void scatter_choices(uint64_t c, const uint64_t *__restrict__ choice_transitions,
                                       const uint32_t *__restrict__ targets, unsigned long long *__restrict__ fill,
                                       uint32_t *__restrict__ rev_choice)
{
    for (uint64_t k = thread_index(); k < c; k += thread_count())
        for (uint64_t i = choice_transitions[k]; i < choice_transitions[k + 1]; i++)
            rev_choice[atomicAdd(&fill[targets[i]], 1ull)] = (uint32_t)k;
}

static __global__ void init_state(uint64_t n, const uint64_t *__restrict__ state_choices, uint8_t *__restrict__ alive,
                                  uint32_t *__restrict__ choices_left, uint32_t *__restrict__ mec)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        alive[s] = 1;
        choices_left[s] = (uint32_t)(state_choices[s + 1] - state_choices[s]);
        mec[s] = GPU_MEC_NONE;
    }
}

/* The graph of the remaining choices: count[s] = transitions of s's enabled
 * choices (0 for a state out of play), then, after the scan, their targets. */
static __global__ void count_remaining(uint64_t n, const uint64_t *__restrict__ state_choices,
                                       const uint64_t *__restrict__ choice_transitions,
                                       const uint32_t *__restrict__ enabled, const uint8_t *__restrict__ alive,
                                       unsigned long long *__restrict__ count)
{
    for (uint64_t s = thread_index(); s <= n; s += thread_count()) {
        unsigned long long sum = 0;
        if (s < n && alive[s])
            for (uint64_t k = state_choices[s]; k < state_choices[s + 1]; k++)
                if (enabled[k])
                    sum += choice_transitions[k + 1] - choice_transitions[k];
        count[s] = sum;
    }
}

static __global__ void copy_remaining(uint64_t n, const uint64_t *__restrict__ state_choices,
                                      const uint64_t *__restrict__ choice_transitions,
                                      const uint32_t *__restrict__ targets, const uint32_t *__restrict__ enabled,
                                      const uint8_t *__restrict__ alive, const uint64_t *__restrict__ row,
                                      uint32_t *__restrict__ col)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (!alive[s])
            continue;
        uint64_t at = row[s];
        for (uint64_t k = state_choices[s]; k < state_choices[s + 1]; k++)
            if (enabled[k])
                for (uint64_t i = choice_transitions[k]; i < choice_transitions[k + 1]; i++)
                    col[at++] = targets[i];
    }
}

struct mec_counters {
    unsigned long long removed_choices, removed_states, queued, remaining, states_in_mecs, mecs;
};

/* Algorithm 7, with the choices: each enabled choice of a state in play with
 * a transition out of the state's SCC is removed; a state left without
 * choices is in U, leaves play and starts the attractor.  The targets of an
 * enabled choice are all in play (they were in its SCC's region). */
static __global__ void remove_leaving_choices(uint64_t n, const uint64_t *__restrict__ state_choices,
                                              const uint64_t *__restrict__ choice_transitions,
                                              const uint32_t *__restrict__ targets, const uint32_t *__restrict__ scc,
                                              uint32_t *__restrict__ enabled, uint32_t *__restrict__ choices_left,
                                              uint8_t *__restrict__ alive, uint8_t *__restrict__ changed,
                                              uint8_t *__restrict__ lost_choice, uint32_t *__restrict__ queue,
                                              mec_counters *__restrict__ counters)
{
    unsigned long long removed = 0;
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (!alive[s])
            continue;
        const uint32_t c = scc[s];
        uint32_t left = choices_left[s];
        for (uint64_t k = state_choices[s]; k < state_choices[s + 1]; k++) {
            if (!enabled[k])
                continue;
            for (uint64_t i = choice_transitions[k]; i < choice_transitions[k + 1]; i++) {
                if (scc[targets[i]] != c) {
                    enabled[k] = 0;
                    left--;
                    removed++;
                    break;
                }
            }
        }
        if (left != choices_left[s]) {
            choices_left[s] = left;
            changed[c] = 1;
            lost_choice[s] = 1;
        }
        if (left == 0) {
            alive[s] = 0;
            changed[c] = 1;
            queue[atomicAdd(&counters->queued, 1ull)] = (uint32_t)s;
        }
    }
    if (removed)
        atomicAdd(&counters->removed_choices, removed);
}

/* One breadth-first level of the attractor (Lemma 1): the choices into a
 * removed state are removed, and a state whose last choice goes joins the
 * next level.  Such choices stay inside their SCC (the others went in
 * remove_leaving_choices), so the attractor stays inside it too. */
static __global__ void attractor_level(const uint32_t *__restrict__ level, uint64_t size,
                                       const uint64_t *__restrict__ rev_first, const uint32_t *__restrict__ rev_choice,
                                       const uint32_t *__restrict__ choice_state, const uint32_t *__restrict__ scc,
                                       uint32_t *__restrict__ enabled, uint32_t *__restrict__ choices_left,
                                       uint8_t *__restrict__ alive, uint8_t *__restrict__ changed,
                                       uint8_t *__restrict__ lost_choice, uint32_t *__restrict__ next,
                                       mec_counters *__restrict__ counters)
{
    unsigned long long removed = 0;
    for (uint64_t q = thread_index(); q < size; q += thread_count()) {
        uint32_t v = level[q];
        changed[scc[v]] = 1;
        for (uint64_t r = rev_first[v]; r < rev_first[v + 1]; r++) {
            uint32_t k = rev_choice[r];
            if (!enabled[k] || atomicExch(&enabled[k], 0u) == 0u)
                continue;
            removed++;
            uint32_t s = choice_state[k];
            lost_choice[s] = 1;
            if (atomicSub(&choices_left[s], 1u) == 1u) {
                alive[s] = 0;
                next[atomicAdd(&counters->queued, 1ull)] = s;
            }
        }
    }
    if (removed)
        atomicAdd(&counters->removed_choices, removed);
}

/* All levels of the attractor in one cooperative kernel, separated by grid
 * barriers (the default; --host-loop launches attractor_level per level).
 * Level sizes go through a ring of three counters: the one of step s+1 is
 * cleared during step s, after its last readers (step s-2) and before its
 * writers (step s+1) (as in scc_fb.cu's grid_counters). */
struct attractor_params {
    uint32_t *queue[2];
    unsigned long long first_size;
    const uint64_t *rev_first;
    const uint32_t *rev_choice, *choice_state, *scc;
    uint32_t *enabled, *choices_left;
    uint8_t *alive, *changed, *lost_choice;
    unsigned long long *ring; /* 3 counters, zero on entry */
    mec_counters *counters;   /* removed_states and queued (the levels) added by the leader */
};

static __global__ void attractor_all_levels(attractor_params P)
{
    cg::grid_group grid = cg::this_grid();
    const bool leader = grid.thread_rank() == 0;
    unsigned long long size = P.first_size, levels = 0, removed = 0;
    for (uint64_t step = 0; size; step++) {
        if (leader)
            P.ring[(step + 1) % 3] = 0;
        const uint32_t *level = P.queue[step & 1];
        uint32_t *next = P.queue[(step & 1) ^ 1];
        unsigned long long *next_size = &P.ring[step % 3];
        unsigned long long mine = 0;
        for (uint64_t q = thread_index(); q < size; q += thread_count()) {
            uint32_t v = level[q];
            P.changed[P.scc[v]] = 1;
            for (uint64_t r = P.rev_first[v]; r < P.rev_first[v + 1]; r++) {
                uint32_t k = P.rev_choice[r];
                if (!P.enabled[k] || atomicExch(&P.enabled[k], 0u) == 0u)
                    continue;
                mine++;
                uint32_t s = P.choice_state[k];
                P.lost_choice[s] = 1;
                if (atomicSub(&P.choices_left[s], 1u) == 1u) {
                    P.alive[s] = 0;
                    next[atomicAdd(next_size, 1ull)] = s;
                }
            }
        }
        if (mine)
            atomicAdd(&P.counters->removed_choices, mine);
        removed += size;
        levels++;
        grid.sync();
        size = *(volatile unsigned long long *)next_size;
    }
    if (leader) {
        P.counters->removed_states = removed;
        P.counters->queued = levels;
    }
}

/* Lemma 2: an SCC that lost nothing is a MEC and leaves play; the states of
 * the others stay in play with their SCC as their next search region. */
static __global__ void settle_round(uint64_t n, const uint32_t *__restrict__ scc, const uint8_t *__restrict__ changed,
                                    uint8_t *__restrict__ alive, uint64_t *__restrict__ key, uint32_t *__restrict__ mec,
                                    mec_counters *__restrict__ counters)
{
    unsigned long long remaining = 0, in_mecs = 0, mecs = 0;
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (!alive[s])
            continue;
        const uint32_t c = scc[s];
        if (!changed[c]) {
            mec[s] = c;
            alive[s] = 0;
            key[s] = kDone;
            in_mecs++;
            mecs += c == s; /* c, a pivot or a trimmed state, is a member */
        } else {
            key[s] = (uint64_t)c << 2; /* low bits 0: no part of a split (scc_fb.cu) */
            remaining++;
        }
    }
    if (remaining)
        atomicAdd(&counters->remaining, remaining);
    if (in_mecs)
        atomicAdd(&counters->states_in_mecs, in_mecs);
    if (mecs)
        atomicAdd(&counters->mecs, mecs);
}

} /* namespace */

extern "C" void gpu_mec_default_options(gpu_mec_options *o)
{
    gpu_scc_default_options(&o->scc);
    o->j_set = 0;
}

extern "C" int gpu_mec_fb(const csr_model *m, const gpu_mec_options *opt, uint32_t *mec_out, gpu_mec_stats *stats,
                          csr_status *status)
{
    gpu_mec_stats st;
    memset(&st, 0, sizeof st);
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    if (n >= UINT32_MAX - 1 || c >= UINT32_MAX)
        return csr_fail(status, CSR_ERR_TOO_LARGE,
                        "%llu states, %llu choices: the GPU MEC decomposition takes at most 2^32 - 2 states "
                        "and 2^32 - 1 choices",
                        (unsigned long long)n, (unsigned long long)c);
    if (n == 0) {
        if (stats)
            *stats = st;
        return CSR_OK;
    }
    const int T = kThreads;
    fb::model_graph mg;
    fb::transpose tr;
    fb::workspace w;
    fb::device_array<uint64_t> rev_first, rest_row;
    fb::device_array<uint32_t> rev_choice, choice_state, enabled, choices_left, mec, queue_a, queue_b, rest_col;
    fb::device_array<uint8_t> alive, changed, lost_choice, scan_temp;
    fb::device_array<unsigned long long> fill, ring;
    fb::device_array<mec_counters> counters;
    phase_timer timer, whole;
    int rc;
    whole.begin();

    /* The model, the choice owners and the choice-level transpose. */
    timer.begin();
    if ((rc = fb::upload_model_graph(m, mg, &st.device_bytes, status)))
        return rc;
    if ((rc = rev_first.alloc(n + 1, &st.device_bytes, status)) ||
        (rc = rev_choice.alloc(t, &st.device_bytes, status)) ||
        (rc = choice_state.alloc(c, &st.device_bytes, status)) || (rc = enabled.alloc(c, &st.device_bytes, status)) ||
        (rc = choices_left.alloc(n, &st.device_bytes, status)) || (rc = mec.alloc(n, &st.device_bytes, status)) ||
        (rc = queue_a.alloc(n, &st.device_bytes, status)) || (rc = queue_b.alloc(n, &st.device_bytes, status)) ||
        (rc = alive.alloc(n, &st.device_bytes, status)) || (rc = changed.alloc(n, &st.device_bytes, status)) ||
        (rc = lost_choice.alloc(n, &st.device_bytes, status)) || (rc = fill.alloc(n + 1, &st.device_bytes, status)) ||
        (rc = counters.alloc(1, &st.device_bytes, status)))
        return rc;
    size_t scan_bytes = 0;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, fill.p, (unsigned long long *)rev_first.p, n + 1));
    if ((rc = scan_temp.alloc(scan_bytes, &st.device_bytes, status)))
        return rc;
    choice_owner<<<grid_for(n, T), T>>>(n, mg.state_choices.p, choice_state.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemset(fill.p, 0, (n + 1) * sizeof(unsigned long long)));
    count_into<<<grid_for(t, T), T>>>(t, mg.col.p, fill.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.p, scan_bytes, fill.p, (unsigned long long *)rev_first.p, n + 1));
    CUDA_TRY(cudaMemcpy(fill.p, rev_first.p, (n + 1) * sizeof(uint64_t), cudaMemcpyDeviceToDevice));
    scatter_choices<<<grid_for(c, T), T>>>(c, mg.choice_transitions.p, mg.col.p, fill.p, rev_choice.p);
    CUDA_TRY_LAUNCH();
    /* Every choice enabled: any non-zero word will do (attractor_level swaps it for 0). */
    CUDA_TRY(cudaMemset(enabled.p, 0x01, c * sizeof(uint32_t)));
    init_state<<<grid_for(n, T), T>>>(n, mg.state_choices.p, alive.p, choices_left.p, mec.p);
    CUDA_TRY_LAUNCH();
    st.h2d_s = timer.end();

    /* The transpose of each round's graph, and the SCC workspace. */
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const int with_transpose = opt->scc.transpose && fb::transpose_bytes(n, t) + 4 * t + 8 * n < free_bytes;
    if (with_transpose && (rc = fb::transpose_alloc(tr, n, t, &st.device_bytes, status)))
        return rc;
    if ((rc = fb::workspace_alloc(w, n, with_transpose, &opt->scc, &st.device_bytes, status)))
        return rc;
    st.scc.used_transpose = with_transpose;
    CUDA_TRY(cudaMemset(w.key.p, 0, n * sizeof(uint64_t))); /* round 1: one region, the whole graph */

    /* The attractor levels in one cooperative kernel, unless the rounds are host-driven. */
    int device = 0, sms = 0, per_sm = 0;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, attractor_all_levels, T, 0));
    const bool cooperative = opt->scc.persistent && per_sm > 0;
    const unsigned cooperative_blocks = (unsigned)(sms * per_sm);
    if ((rc = ring.alloc(3, &st.device_bytes, status)))
        return rc;

    fb::device_graph g = mg.graph(n, m->interleaved_states);
    for (;;) {
        st.rounds++;
        timer.begin();
        if (st.rounds > 1) {
            /* The graph of the remaining choices of the states in play. */
            if (!rest_row.p &&
                ((rc = rest_row.alloc(n + 1, &st.device_bytes, status)) ||
                 (rc = rest_col.alloc(t, &st.device_bytes, status))))
                return rc;
            count_remaining<<<grid_for(n + 1, T), T>>>(n, mg.state_choices.p, mg.choice_transitions.p, enabled.p,
                                                       alive.p, fill.p);
            CUDA_TRY_LAUNCH();
            CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.p, scan_bytes, fill.p,
                                                   (unsigned long long *)rest_row.p, n + 1));
            copy_remaining<<<grid_for(n, T), T>>>(n, mg.state_choices.p, mg.choice_transitions.p, mg.col.p,
                                                  enabled.p, alive.p, rest_row.p, rest_col.p);
            CUDA_TRY_LAUNCH();
            g = fb::device_graph{rest_row.p, rest_col.p, nullptr, nullptr, n, 0, nullptr, nullptr};
        }
        if (with_transpose && (rc = fb::transpose_build(g, tr, status)))
            return rc;
        st.graph_s += timer.end();

        /* SCCs inside the regions (the SCCs of the round before). */
        timer.begin();
        const uint8_t *candidate = opt->j_set && st.rounds > 1 ? lost_choice.p : nullptr;
        if ((rc = fb::decompose(g, w, &opt->scc, candidate, &st.scc, status)))
            return rc;
        st.scc_s += timer.end();

        /* The sets U (Algorithm 7), their attractors, the MECs. */
        timer.begin();
        CUDA_TRY(cudaMemset(changed.p, 0, n));
        CUDA_TRY(cudaMemset(lost_choice.p, 0, n));
        CUDA_TRY(cudaMemset(counters.p, 0, sizeof(mec_counters)));
        remove_leaving_choices<<<grid_for(n, T), T>>>(n, mg.state_choices.p, mg.choice_transitions.p, mg.col.p,
                                                      w.scc.p, enabled.p, choices_left.p, alive.p, changed.p,
                                                      lost_choice.p, queue_a.p, counters.p);
        CUDA_TRY_LAUNCH();
        mec_counters got;
        CUDA_TRY(cudaMemcpy(&got, counters.p, sizeof got, cudaMemcpyDeviceToHost));
        if (cooperative && got.queued) {
            /* All attractor levels in one launch. */
            CUDA_TRY(cudaMemset(ring.p, 0, 3 * sizeof(unsigned long long)));
            attractor_params P = {{queue_a.p, queue_b.p}, got.queued, rev_first.p, rev_choice.p, choice_state.p,
                                  w.scc.p, enabled.p, choices_left.p, alive.p, changed.p, lost_choice.p, ring.p,
                                  counters.p};
            void *args[] = {&P};
            unsigned grid = grid_for(got.queued, T);
            if (grid > cooperative_blocks)
                grid = cooperative_blocks;
            CUDA_TRY(cudaLaunchCooperativeKernel((void *)attractor_all_levels, grid, T, args, 0, 0));
            CUDA_TRY_LAUNCH();
            mec_counters after;
            CUDA_TRY(cudaMemcpy(&after, counters.p, sizeof after, cudaMemcpyDeviceToHost));
            st.removed_states += after.removed_states;
            st.attractor_levels += after.queued;
            got.queued = 0; /* nothing left for the host loop */
        }
        uint32_t *level = queue_a.p, *next = queue_b.p;
        for (unsigned long long size = got.queued; size;) {
            st.removed_states += size;
            st.attractor_levels++;
            CUDA_TRY(cudaMemset(&counters.p->queued, 0, sizeof(unsigned long long)));
            attractor_level<<<grid_for(size, T), T>>>(level, size, rev_first.p, rev_choice.p, choice_state.p, w.scc.p,
                                                      enabled.p, choices_left.p, alive.p, changed.p, lost_choice.p,
                                                      next, counters.p);
            CUDA_TRY_LAUNCH();
            CUDA_TRY(cudaMemcpy(&size, &counters.p->queued, sizeof size, cudaMemcpyDeviceToHost));
            uint32_t *swap = level;
            level = next;
            next = swap;
        }
        settle_round<<<grid_for(n, T), T>>>(n, w.scc.p, changed.p, alive.p, w.key.p, mec.p, counters.p);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpy(&got, counters.p, sizeof got, cudaMemcpyDeviceToHost));
        st.removed_choices += got.removed_choices;
        st.states_in_mecs += got.states_in_mecs;
        st.mecs += got.mecs;
        st.mec_s += timer.end();
        if (got.remaining == 0)
            break;
    }

    /* Canonical ids and the way back. */
    timer.begin();
    if ((rc = fb::canonical_ids(mec.p, queue_a.p, n, status)))
        return rc;
    CUDA_TRY(cudaMemcpy(mec_out, mec.p, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    st.d2h_s = timer.end();
    st.total_s = whole.end();
    st.scc.device_bytes = st.device_bytes;
    if (stats)
        *stats = st;
    return CSR_OK;
}
