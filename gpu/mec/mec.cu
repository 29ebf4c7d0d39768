/*
 * mec.cu - MEC decomposition on the GPU (gpu/mec.h) on the SCC contract
 * (gpu/scc/engine.h): the interleaved scheme is one decomposition of the
 * MEC goal; the round-based scheme (FMSD sections 2.3-2.4, section 6 and
 * Algorithm 7, Lemmas 1 and 2) asks for SCCs round after round.
 *
 * Differences of the round-based scheme from the article:
 * - Choices are flags of their own (enabled[c]) instead of bits in the
 *   transition words, and a choice with a transition leaving its state's SCC
 *   is removed before the SCC is judged: an SCC is a MEC only when it lost
 *   neither a state nor a choice (ref.h explains why section 2.3 needs this).
 * - The attractor of the sets U (Lemma 1) goes backwards over a choice-level
 *   transpose with a per-state count of choices left, over a worklist drained
 *   asynchronously (no barrier per level; one launch per breadth-first level
 *   with --host-loop), instead of sweeps over all states.
 * - A round's SCCs are searched in the regions of the round before (region
 *   hints of the contract), over the enabled choices of the states in play.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <string.h>

#include "cuda_check.h"
#include "engine.h"
#include "launch.h"
#include "mec.h"
#include "mec_live.h"
#include "worklist.h"
#include "timer.h"

namespace gpu {

namespace {

namespace cg = cooperative_groups;
constexpr int kThreads = 256;

struct mec_counters {
    unsigned long long removed_choices, removed_states, queued, remaining;
};

/* Every state in play (live: only those with live[s]; NULL: all), its
 * choices enabled (given: only those with given[k]; NULL: all) and
 * counted, in no MEC yet; a state a group of kRowLanes lanes over its
 * choices (model.h). */
static __global__ void init_state(uint64_t n, const uint64_t *__restrict__ state_choices,
                                  const uint8_t *__restrict__ live, const uint32_t *__restrict__ given,
                                  uint8_t *__restrict__ alive, uint32_t *__restrict__ choices_left,
                                  uint32_t *__restrict__ enabled, uint32_t *__restrict__ mec)
{
    const auto group = row_group();
    for (uint64_t s = group_index(); s < n; s += group_count()) {
        const uint8_t in_play = !live || live[s];
        uint32_t count = 0;
        for (uint64_t k = state_choices[s] + group.thread_rank(); k < state_choices[s + 1]; k += kRowLanes) {
            const uint32_t on = in_play && (!given || given[k]);
            enabled[k] = on;
            count += on;
        }
        count = cg::reduce(group, count, cg::plus<uint32_t>());
        if (group.thread_rank() == 0) {
            alive[s] = in_play;
            choices_left[s] = count;
            mec[s] = GPU_MEC_NONE;
        }
    }
}

/* Algorithm 7, with the choices: each enabled choice of a state in play with
 * a transition out of the state's SCC is removed; a state left without
 * choices is in U, leaves play and starts the attractor.  The targets of an
 * enabled choice are all in play (they were in its SCC's region).  A state a
 * group of kRowLanes lanes over its row (model.h); a choice with several
 * leaving transitions is removed once (the lane whose exchange takes it). */
static __global__ void remove_leaving_choices(uint64_t n, const uint64_t *__restrict__ state_choices,
                                              const uint64_t *__restrict__ choice_transitions,
                                              const uint64_t *__restrict__ row, const uint32_t *__restrict__ targets,
                                              const uint32_t *__restrict__ scc, uint32_t *__restrict__ enabled,
                                              uint32_t *__restrict__ choices_left, uint8_t *__restrict__ alive,
                                              uint8_t *__restrict__ changed, uint8_t *__restrict__ lost_choice,
                                              uint32_t *__restrict__ queue, mec_counters *__restrict__ counters)
{
    const auto group = row_group();
    unsigned long long removed = 0;
    for (uint64_t s = group_index(); s < n; s += group_count()) {
        if (!alive[s])
            continue;
        const uint32_t c = scc[s];
        uint32_t lost = 0;
        for (uint64_t i = row[s] + group.thread_rank(); i < row[s + 1]; i += kRowLanes) {
            if (scc[targets[i]] == c)
                continue;
            const uint64_t k = choice_of(state_choices, choice_transitions, s, i);
            if (enabled[k] && atomicExch(&enabled[k], 0u))
                lost++;
        }
        lost = cg::reduce(group, lost, cg::plus<uint32_t>());
        if (group.thread_rank() != 0)
            continue;
        removed += lost;
        const uint32_t left = choices_left[s] - lost;
        if (lost) {
            choices_left[s] = left;
            changed[c] = 1;
            lost_choice[s] = 1;
        }
        if (left == 0) { /* also a state without any choice */
            changed[c] = 1;
            alive[s] = 0;
            queue[atomicAdd(&counters->queued, 1ull)] = (uint32_t)s;
        }
    }
    if (removed)
        atomicAdd(&counters->removed_choices, removed);
}

/* What the attractor levels read and write. */
struct attractor_params {
    const uint64_t *rev_first;
    const uint32_t *rev_source, *rev_choice, *scc;
    uint32_t *enabled, *choices_left;
    uint8_t *alive, *changed, *lost_choice;
    mec_counters *counters;
};

/* The attractor step from a removed state v (Lemma 1): the choices into v
 * are removed, and a state whose last choice goes is pushed to `out`.  Such
 * choices stay inside their SCC (the others went in remove_leaving_choices),
 * so the attractor stays inside it too.  Returns the choices removed.  The
 * choices into v go kAttractBatch at a time, the loads, then the exchanges,
 * then the counts, then the pushes of a batch in flight together: a step
 * costs a few rounds of dependent memory operations, not a few for each
 * choice into v (coin6_4's attractor, 2.38M states in 88 levels: 6.5 ms one
 * choice at a time, 2.6 ms batched, 1.9 ms with the pushes batched too;
 * H100, issue 13). */
constexpr int kAttractBatch = 8;
__device__ __forceinline__ unsigned long long attract(const attractor_params &P, uint32_t v, const push_target &out)
{
    unsigned long long removed = 0;
    P.changed[P.scc[v]] = 1;
    const uint64_t end = P.rev_first[v + 1];
    for (uint64_t r = P.rev_first[v]; r < end; r += kAttractBatch) {
        uint32_t k[kAttractBatch], s[kAttractBatch];
        bool on[kAttractBatch];
        load_transpose_batch(P.rev_source, P.rev_choice, r, end, s, k, on);
#pragma unroll
        for (int j = 0; j < kAttractBatch; j++)
            on[j] = on[j] && __ldcg(&P.enabled[k[j]]);
#pragma unroll
        for (int j = 0; j < kAttractBatch; j++)
            on[j] = on[j] && atomicExch(&P.enabled[k[j]], 0u) != 0u;
        unsigned left[kAttractBatch];
#pragma unroll
        for (int j = 0; j < kAttractBatch; j++) {
            left[j] = 0;
            if (on[j]) {
                removed++;
                P.lost_choice[s[j]] = 1;
                left[j] = atomicSub(&P.choices_left[s[j]], 1u);
            }
        }
        unsigned freed = 0;
#pragma unroll
        for (int j = 0; j < kAttractBatch; j++)
            if (left[j] == 1u) {
                P.alive[s[j]] = 0;
                freed |= 1u << j;
            }
        worklist_push_batch(out, s, freed);
    }
    return removed;
}

/* One breadth-first level (--host-loop): the states level[0..size), what
 * they free pushed to `next`.  Adds the level's states and choices to the
 * counters. */
static __global__ void attractor_level(attractor_params P, const uint32_t *__restrict__ level, unsigned long long size,
                                       push_target next)
{
    unsigned long long choices = 0;
    for (uint64_t q = thread_index(); q < size; q += thread_count())
        choices += attract(P, level[q], next);
    block_add<kThreads>(&P.counters->removed_choices, choices);
    if (thread_index() == 0)
        atomicAdd(&P.counters->removed_states, size);
}

/* The attractor without levels (the default): the states of U are the items
 * of a worklist (common/worklist.h), and the thread that takes the last
 * choice from a state pushes it at once, where a waiting thread takes it: a
 * deep attractor (wlan6_2500: 5,592 levels) costs a chain of hand-offs
 * instead of a grid barrier and a launch a level (issue 13). */
static __global__ void __launch_bounds__(kThreads) attractor_drain(attractor_params P, worklist q)
{
    unsigned long long states = 0, choices = 0;
    worklist_drain(q, [&](uint32_t v, const push_target &out) {
        states++;
        choices += attract(P, v, out);
    });
    if (states)
        atomicAdd(&P.counters->removed_states, states);
    if (choices)
        atomicAdd(&P.counters->removed_choices, choices);
}

/* Lemma 2: an SCC that lost nothing is a MEC and leaves play; the states of
 * the others stay in play with their SCC as their next region. */
static __global__ void settle_round(uint64_t n, const uint32_t *__restrict__ scc, const uint8_t *__restrict__ changed,
                                    uint8_t *__restrict__ alive, uint32_t *__restrict__ region,
                                    uint32_t *__restrict__ mec, mec_counters *__restrict__ counters)
{
    unsigned long long remaining = 0;
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (!alive[s])
            continue;
        const uint32_t c = scc[s];
        if (!changed[c]) {
            mec[s] = c;
            alive[s] = 0;
        } else {
            region[s] = c;
            remaining++;
        }
    }
    block_add<kThreads>(&counters->remaining, remaining);
}

/* AUTO by the model's class: the interleaved scheme on sparse models, fewer
 * than kSparseTransitions transitions a state (chains of trivial SCCs, where
 * its peeling does what rounds of attractors would: wlan6_2500, 2.1 a state,
 * 0.110 against 0.168 s), the round-based one on the others (leader7,
 * leader8, phil7, 3.7-9 a state: 9-48 % faster; coin6_4, 5.0 a state, is
 * the exception since 9d6b1c7: the interleaved scheme 11 % faster), and
 * wherever an option asks for it (the fb engine, J sets); the lent H100,
 * commit 9956371, bench/RESULTS.md, issue 13. */
constexpr uint64_t kSparseTransitions = 3;
bool interleaved(const gpu_mec_options *o, const model_shape &s)
{
    if (o->scheme == GPU_MEC_AUTO)
        return o->scc.engine != GPU_SCC_FB && !o->j_set && s.t < kSparseTransitions * s.n;
    return o->scheme == GPU_MEC_INTERLEAVE;
}

/* The name of the scheme that interleaved() chose (gpu_mec_stats.scheme). */
const char *scheme_used(bool inter) { return gpu_mec_scheme_name(inter ? GPU_MEC_INTERLEAVE : GPU_MEC_ROUNDS); }

/* The device buffers of one MEC decomposition besides the SCC engine's
 * (the round-based scheme's attractor reads the model's transpose that the
 * decomposer shares with its engine: scc_decomposer::transpose). */
struct mec_job {
    device_model model;
    uint32_t *mec = nullptr, *scratch = nullptr;
    /* rounds only */
    uint32_t *enabled = nullptr, *choices_left = nullptr, *region = nullptr, *queue_a = nullptr, *queue_b = nullptr;
    uint8_t *alive = nullptr, *changed = nullptr, *lost_choice = nullptr;
    unsigned long long *queue_counters = nullptr; /* the worklist of queue_a (WL_WORDS) */
    mec_counters *counters = nullptr;

    /* own_model: the model's buffers too (else the caller's model is used) */
    void plan(arena &a, const model_shape &s, bool rounds, bool own_model = true)
    {
        if (own_model)
            model.plan(a, s);
        mec = a.take<uint32_t>(s.n);
        scratch = a.take<uint32_t>(s.n);
        if (!rounds)
            return;
        enabled = a.take<uint32_t>(s.c);
        choices_left = a.take<uint32_t>(s.n);
        region = a.take<uint32_t>(s.n);
        queue_a = a.take<uint32_t>(s.n);
        queue_b = a.take<uint32_t>(s.n);
        alive = a.take<uint8_t>(s.n);
        changed = a.take<uint8_t>(s.n);
        lost_choice = a.take<uint8_t>(s.n);
        queue_counters = a.take<unsigned long long>(WL_WORDS);
        counters = a.take<mec_counters>(1);
    }
};

/* The round-based scheme; scc: n entries of the SCC ids of each round;
 * live: the states of the subsystem (NULL: all); given: its choices (NULL:
 * all of the live states'). */
int mec_rounds(const gpu_mec_options *opt, mec_job &J, scc_decomposer &dec, uint32_t *scc, const uint8_t *live,
               const uint32_t *given, gpu_mec_stats *st, csr_status *status)
{
    const device_model &m = J.model;
    const uint64_t n = m.n;
    const unsigned grid_n = grid_for(n, kThreads);
    bool transposed = false; /* the attractor's transpose, asked for the first time U is not empty: where it
                                never is and the engine peels nothing (phil7: 82M transitions) it is never built */
    const unsigned grid_rows = grid_for_rows(n, kThreads);
    init_state<<<grid_rows, kThreads>>>(n, m.state_choices, live, given, J.alive, J.choices_left, J.enabled, J.mec);
    CUDA_TRY_LAUNCH();
    attractor_params A = {nullptr, nullptr, nullptr, scc, J.enabled, J.choices_left, /* rev_*: when transposed */
                          J.alive, J.changed, J.lost_choice, J.counters};
    const unsigned drain_grid = opt->scc.persistent ? resident_blocks((const void *)attractor_drain, kThreads, 0) : 0;
    if (opt->scc.persistent && drain_grid == 0)
        return csr_fail(status, CSR_ERR_DEVICE, "CUDA: the attractor kernel cannot be resident on this device");
    const worklist queue = {J.queue_a, J.queue_counters, n};
    for (;;) {
        st->rounds++;
        /* SCCs inside the regions (the SCCs of the round before); round 1:
         * the whole model, interleaved segments included. */
        scc_subsystem sub;
        sub.live = live; /* round 1: the subsystem; its choices leaving it go in remove_leaving_choices */
        if (given) /* an SCC joined only by choices not given would lose nothing and pass for a MEC */
            sub.enabled = J.enabled;
        if (st->rounds > 1) {
            sub.live = J.alive;
            sub.enabled = J.enabled;
            sub.region = J.region;
            sub.pivot_hint = opt->j_set ? J.lost_choice : nullptr;
        }
        TRY(dec.decompose(m, sub, scc, &st->scc, status));

        /* The sets U (Algorithm 7), their attractors, the MECs. */
        CUDA_TRY(cudaMemsetAsync(J.changed, 0, n));
        CUDA_TRY(cudaMemsetAsync(J.lost_choice, 0, n));
        CUDA_TRY(cudaMemsetAsync(J.counters, 0, sizeof(mec_counters)));
        if (drain_grid) /* the slots past U must read as empty */
            CUDA_TRY(cudaMemsetAsync(J.queue_a, 0xff, n * sizeof(uint32_t)));
        remove_leaving_choices<<<grid_rows, kThreads>>>(n, m.state_choices, m.choice_transitions, m.row, m.targets, scc,
                                                     J.enabled, J.choices_left, J.alive, J.changed, J.lost_choice,
                                                     J.queue_a, J.counters);
        CUDA_TRY_LAUNCH();
        mec_counters got;
        CUDA_TRY(cudaMemcpy(&got, J.counters, sizeof got, cudaMemcpyDeviceToHost));
        unsigned long long size = got.queued, host_levels = 0;
        if (size && !transposed) {
            const graph_transpose *T = nullptr;
            TRY(dec.transpose(m, &T, status));
            A.rev_first = T->first;
            A.rev_source = T->source;
            A.rev_choice = T->choice;
            transposed = true;
        }
        if (drain_grid && size) {
            /* The worklist holds U: head = done = 0, tail = |U|.  (U as one
             * level at the grid's full width first, its pushes then drained,
             * was slower: wlan6_2500 0.164 -> 0.184 s.) */
            unsigned long long c[WL_WORDS] = {};
            c[WL_TAIL] = size;
            CUDA_TRY(cudaMemcpyAsync(J.queue_counters, c, sizeof c, cudaMemcpyHostToDevice));
            attractor_drain<<<drain_grid, kThreads>>>(A, queue);
            CUDA_TRY_LAUNCH();
        } else {
            /* One launch per level, the host reading each level's size
             * (--host-loop: the article's way). */
            uint32_t *level = J.queue_a, *next = J.queue_b;
            while (size) {
                CUDA_TRY(cudaMemsetAsync(&J.counters->queued, 0, sizeof(unsigned long long)));
                attractor_level<<<grid_for(size, kThreads), kThreads>>>(A, level, size,
                                                                         push_target{next, &J.counters->queued});
                CUDA_TRY_LAUNCH();
                host_levels++;
                CUDA_TRY(cudaMemcpy(&size, &J.counters->queued, sizeof size, cudaMemcpyDeviceToHost));
                uint32_t *swap = level;
                level = next;
                next = swap;
            }
        }
        settle_round<<<grid_n, kThreads>>>(n, scc, J.changed, J.alive, J.region, J.mec, J.counters);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpy(&got, J.counters, sizeof got, cudaMemcpyDeviceToHost));
        st->removed_choices += got.removed_choices;
        st->removed_states += got.removed_states;
        st->attractor_levels += host_levels;
        if (got.remaining == 0)
            break;
    }
    return CSR_OK;
}

/* What a scheme asks of the SCC contract: the MEC goal (interleaved), or
 * the SCC goal over subsystems that restrict the choices, the attractor
 * reading the decomposer's transpose (rounds).  gpu_mec_bytes_needed counts
 * what init_decomposer allocates. */
struct contract_use {
    scc_goal goal;
    bool choices, caller_transpose;
};
contract_use contract_use_of(bool inter)
{
    return inter ? contract_use{scc_goal::mecs, false, false} : contract_use{scc_goal::sccs, true, true};
}
int init_decomposer(scc_decomposer &dec, const gpu_mec_options *opt, const model_shape &s, bool inter,
                    csr_status *status)
{
    const contract_use u = contract_use_of(inter);
    return dec.init(&opt->scc, s, u.goal, u.choices, u.caller_transpose, status);
}

/* The MECs of J's model (live: the subsystem, NULL: all; enabled: its
 * choices, NULL: all) into J.mec, not yet canonical, by the interleaved
 * scheme (one decomposition of the MEC goal) or the round-based one, on dec
 * from init_decomposer.  Adds rounds, removed states and choices and the
 * engine's counts to *st. */
int decompose_by_scheme(const gpu_mec_options *opt, bool inter, mec_job &J, scc_decomposer &dec,
                        const uint8_t *live, const uint32_t *enabled, gpu_mec_stats *st, csr_status *status)
{
    if (!inter)
        return mec_rounds(opt, J, dec, J.scratch, live, enabled, st, status);
    const gpu_scc_stats before = st->scc;
    scc_subsystem sub;
    sub.live = live;
    sub.enabled = enabled; /* the MEC goal takes a copy (lp: init_enabled) */
    TRY(dec.decompose(J.model, sub, J.mec, &st->scc, status));
    st->rounds += st->scc.phases - before.phases;
    st->removed_states += st->scc.peeled - before.peeled;
    st->removed_choices += st->scc.removed_choices - before.removed_choices;
    return CSR_OK;
}

} /* namespace */

int mec_decompose_live(const gpu_mec_options *opt, const device_model &m, const uint8_t *live,
                       const uint32_t *enabled, uint32_t *mec, gpu_mec_stats *st, csr_status *status)
{
    /* The scheme as gpu_mec_decompose picks it: the MEC goal of the SCC
     * contract over the live subsystem (its peeling disables the choices
     * that leave it and those of the states outside it), or the rounds. */
    const model_shape shape = {m.n, m.c, m.t, 0, 0}; /* the job plans no model */
    const bool inter = interleaved(opt, shape);
    st->scheme = scheme_used(inter);
    arena job_arena;
    mec_job job;
    scc_decomposer dec;
    TRY(plan_and_allocate(job_arena, [&](arena &a) { job.plan(a, shape, !inter, false); }, nullptr, status));
    job.model = m;
    TRY(init_decomposer(dec, opt, shape, inter, status));
    TRY(decompose_by_scheme(opt, inter, job, dec, live, enabled, st, status));
    TRY(canonical_ids(job.mec, job.scratch, m.n, status));
    CUDA_TRY(cudaMemcpyAsync(mec, job.mec, m.n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
    CUDA_TRY(cudaStreamSynchronize(0)); /* this thread's default stream: not another thread's work */
    return CSR_OK;
}

} /* namespace gpu */

/* ---- the public interface (mec.h) ------------------------------------------ */

extern "C" void gpu_mec_default_options(gpu_mec_options *o)
{
    gpu_scc_default_options(&o->scc);
    o->scheme = GPU_MEC_AUTO;
    o->j_set = 0;
}

extern "C" const char *gpu_mec_scheme_name(gpu_mec_scheme s)
{
    switch (s) {
    case GPU_MEC_AUTO: return "auto";
    case GPU_MEC_INTERLEAVE: return "interleave";
    case GPU_MEC_ROUNDS: return "rounds";
    }
    return NULL;
}

extern "C" int gpu_mec_scheme_by_name(const char *name)
{
    for (int s = GPU_MEC_AUTO; s <= GPU_MEC_ROUNDS; s++)
        if (!strcmp(name, gpu_mec_scheme_name((gpu_mec_scheme)s)))
            return s;
    return -1;
}

extern "C" uint64_t gpu_mec_bytes_needed(const csr_model *m, const gpu_mec_options *o)
{
    const gpu::model_shape s = gpu::shape_of(m);
    const bool inter = gpu::interleaved(o, s);
    const gpu::contract_use u = gpu::contract_use_of(inter);
    uint64_t engine = gpu::scc_decomposer::bytes_needed(&o->scc, s, u.goal, u.choices, u.caller_transpose);
    if (!engine)
        return 0;
    gpu::arena a;
    gpu::mec_job job;
    job.plan(a, s, !inter);
    return a.bytes() + engine;
}

extern "C" int gpu_mec_decompose(const csr_model *m, const gpu_mec_options *opt, uint32_t *mec_out,
                                 gpu_mec_stats *stats, csr_status *status)
{
    gpu_mec_stats st;
    memset(&st, 0, sizeof st);
    const uint64_t n = m->num_states, c = m->num_choices;
    const gpu::model_shape shape = gpu::shape_of(m);
    const bool inter = gpu::interleaved(opt, shape);
    st.scheme = gpu::scheme_used(inter);
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
    const uint64_t base = gpu::device_bytes_now();
    gpu::reset_peak();
    gpu::arena job_arena;
    gpu::mec_job job;
    gpu::scc_decomposer dec;
    gpu::phase_timer timer;
    uint64_t job_bytes = 0;

    timer.begin();
    TRY(gpu::plan_and_allocate(job_arena, [&](gpu::arena &a) { job.plan(a, shape, !inter); }, &job_bytes, status));
    TRY(job.model.upload(m, status));
    st.upload_s = timer.end();
    TRY(gpu::init_decomposer(dec, opt, shape, inter, status));

    timer.begin();
    TRY(gpu::decompose_by_scheme(opt, inter, job, dec, nullptr, nullptr, &st, status));
    st.resident_s = timer.end();

    timer.begin();
    TRY(gpu::canonical_ids(job.mec, job.scratch, n, status));
    CUDA_TRY(cudaMemcpy(mec_out, job.mec, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    st.download_s = timer.end();
    st.device_bytes_planned = job_bytes + dec.planned_bytes();
    st.device_bytes_allocated = gpu::device_bytes_peak() - base;
    st.scc.device_bytes_planned = dec.planned_bytes(); /* the SCC engine's own part */
    st.scc.device_bytes_allocated = dec.allocated_bytes();
    for (uint64_t s = 0; s < n; s++) {
        st.states_in_mecs += mec_out[s] != GPU_MEC_NONE;
        st.mecs += mec_out[s] == s;
    }
    if (stats)
        *stats = st;
    return CSR_OK;
}
