/*
 * parts.cu - a partitioned model on several GPUs and the SCCs by label
 * propagation over its parts (gpu/multi.h; the CPU loops of
 * ref/partition.c, ref_scc_partitioned, on the devices).
 *
 * Each part lives on its device with a stream of its own: its rows (local
 * transition offsets of its own states), its local targets, its labels
 * (in, out, live, class) over own + foreign states, its send lists and one
 * exchange buffer (as large as its sends, or its receives, whichever is
 * larger).  An exchange step is three stages over all ordered pairs (o, r)
 * with something to move, each stage finished on every device before the
 * next begins: gather on o (or, for a push, nothing), transfer, scatter on
 * the receiver (pull: nothing, the transfer lands in r's foreign slice;
 * push: a max into o's own labels).  The transfer is one ncclSend on o and
 * one ncclRecv on r inside ncclGroupStart/End (NCCL, loaded with dlopen when
 * asked for, so that the tools need it only then), or cudaMemcpyPeerAsync.
 * With peer access (exchange.h) a pull is a gather on the reader from the
 * owner's arrays, a phase's label propagation has no rounds (propagate_peer:
 * passes over every part's edge list at once, against copies of the
 * foreign labels refreshed each pass, the owners' in-labels raised in
 * place), and the trimming's decrements and flags are the owners' in place.
 * The parts' drains and counters are read back together, one
 * synchronisation of every part a step, so that the GPUs work at once.
 */
#include <cooperative_groups/reduce.h>
#include <cub/cub.cuh>

#include "exchange.h"
#include "model.h"
#include "peel.h"

using namespace multi;

namespace {

/* ---- kernels ------------------------------------------------------------------- */

/* A phase's start: every live own state labelled with its global id. */
static __global__ void phase_labels(uint64_t ns, uint64_t first_state, const uint8_t *__restrict__ live,
                                    uint32_t *in, uint32_t *out)
{
    for (uint64_t j = thread_index(); j < ns; j += thread_count())
        if (live[j])
            in[j] = out[j] = (uint32_t)(first_state + j);
}

/* Relax the edges [b, e) of own state j (class c): in[w] >= in[j], out[j]
 * >= out[w] for every live w of class c; whether a label rose. */
static __device__ __forceinline__ int relax_edges(uint64_t j, uint64_t b, uint64_t e, uint64_t c,
                                                  const uint32_t *__restrict__ target, const uint8_t *__restrict__ live,
                                                  const uint64_t *__restrict__ cls, uint32_t *in, uint32_t *out)
{
    int rose = 0;
    for (; b < e; b++) {
        const uint32_t w = target[b];
        if (w == j || !live[w] || cls[w] != c)
            continue;
        const uint32_t a = *(volatile uint32_t *)&in[j];
        if (a > *(volatile uint32_t *)&in[w] && atomicMax(&in[w], a) < a)
            rose = 1;
        const uint32_t o = *(volatile uint32_t *)&out[w];
        if (o > *(volatile uint32_t *)&out[j] && atomicMax(&out[j], o) < o)
            rose = 1;
    }
    return rose;
}

/* One pass over the part's own edges between live states of one class:
 * in[w] >= in[j], out[j] >= out[w] (w own or foreign); *changed = 1 if a
 * label rose.  Choices: only the transitions of enabled choices (crow: own
 * states' local choice offsets, ctr: choices' local transition offsets; the
 * MEC rounds), else every transition (row).  Racy reads only delay a rise to
 * the next pass; the fixpoint is the same. */
template <bool Choices>
static __global__ void relax_pass(uint64_t ns, const uint64_t *__restrict__ row, const uint64_t *__restrict__ crow,
                                  const uint64_t *__restrict__ ctr, const uint32_t *__restrict__ enabled,
                                  const uint32_t *__restrict__ target, const uint8_t *__restrict__ live,
                                  const uint64_t *__restrict__ cls, uint32_t *in, uint32_t *out, unsigned *changed)
{
    int rose = 0;
    for (uint64_t j = thread_index(); j < ns; j += thread_count()) {
        if (!live[j])
            continue;
        const uint64_t c = cls[j];
        if (Choices) {
            for (uint64_t k = crow[j]; k < crow[j + 1]; k++)
                if (enabled[k])
                    rose |= relax_edges(j, ctr[k], ctr[k + 1], c, target, live, cls, in, out);
        } else {
            rose |= relax_edges(j, row[j], row[j + 1], c, target, live, cls, in, out);
        }
    }
    if (__syncthreads_or(rose) && threadIdx.x == 0)
        *changed = 1;
}

/* The owners' arrays where the devices map each other's memory (peer;
 * peer_of): lab[o], flag[o] and in_left[o] are part o's packed labels (two
 * words a state: in, out; propagate_peer), trimming flags and in-counts (on
 * its device), and foreign state f of a part (local index ns + f) is own
 * state idx[f] of part own[f].  All null without peer. */
struct peer_arrays {
    uint32_t *const *lab, *const *flag, *const *in_left; /* [P] each */
    const uint32_t *own, *idx;                           /* [nf] each */
};

/* The edges of a phase over every part at once (peer), as a list: each
 * part's edges (v, w) from a live own state v to another live state w of
 * v's class (own or foreign, local indices), of enabled choices with
 * Choices; built per phase by a count (Write false), its scan and a
 * write (Write true), in row order.  Within a phase the live states and
 * classes do not change, so the passes read only this list (the lp
 * engine's compacted edge list, gpu/scc/lp). */
template <bool Choices, bool Write>
static __global__ void edges_peer(uint64_t ns, const uint64_t *__restrict__ row, const uint64_t *__restrict__ crow,
                                  const uint64_t *__restrict__ ctr, const uint32_t *__restrict__ enabled,
                                  const uint32_t *__restrict__ target, const uint8_t *__restrict__ live,
                                  const uint64_t *__restrict__ cls, unsigned long long *count,
                                  const unsigned long long *__restrict__ first, uint2 *edges)
{
    for (uint64_t j = thread_index(); j <= ns; j += thread_count()) {
        unsigned long long kept = 0;
        if (j < ns && live[j]) {
            const uint64_t c = cls[j];
            unsigned long long at = Write ? first[j] : 0;
            auto edge = [&](uint64_t b) {
                const uint32_t w = target[b];
                if (w == j || !live[w] || cls[w] != c)
                    return;
                if (Write)
                    edges[at++] = make_uint2((uint32_t)j, w);
                kept++;
            };
            if (Choices) {
                for (uint64_t k = crow[j]; k < crow[j + 1]; k++)
                    if (enabled[k])
                        for (uint64_t b = ctr[k]; b < ctr[k + 1]; b++)
                            edge(b);
            } else {
                for (uint64_t b = row[j]; b < row[j + 1]; b++)
                    edge(b);
            }
        }
        if (!Write)
            count[j] = kept;
    }
}

/* A phase's start with peer: every live own state's packed labels (in,
 * out) = its global id (the lp engine's one 8-byte pair a state, gpu/scc/lp). */
static __global__ void phase_labels_packed(uint64_t ns, uint64_t first_state, const uint8_t *__restrict__ live,
                                           uint2 *lab)
{
    for (uint64_t j = thread_index(); j < ns; j += thread_count())
        if (live[j])
            lab[j] = make_uint2((uint32_t)(first_state + j), (uint32_t)(first_state + j));
}

/* After a phase's passes with peer: the packed labels of the live own
 * states back into in and out (phase_finish reads them; nothing reads the
 * foreign copies' with peer). */
static __global__ void unpack_labels(uint64_t len, const uint8_t *__restrict__ live, const uint2 *__restrict__ lab,
                                     uint32_t *in, uint32_t *out)
{
    for (uint64_t j = thread_index(); j < len; j += thread_count())
        if (live[j]) {
            const uint2 l = lab[j];
            in[j] = l.x;
            out[j] = l.y;
        }
}

/* The foreign states' labels as last read from their owners (peer): each
 * live foreign copy's pair (local ns + f) takes its owner's, one 8-byte
 * read, once a pass before the edges are relaxed; a copy is a lower bound of
 * its owner's labels (labels only rise). */
static __global__ void refresh_foreign(uint64_t ns, uint64_t nf, const uint8_t *__restrict__ live, peer_arrays pl,
                                       uint2 *lab)
{
    for (uint64_t f = thread_index(); f < nf; f += thread_count()) {
        if (!live[ns + f])
            continue;
        const unsigned long long pair =
            *(volatile const unsigned long long *)(pl.lab[pl.own[f]] + 2 * (uint64_t)pl.idx[f]);
        lab[ns + f] = make_uint2((uint32_t)pair, (uint32_t)(pair >> 32));
    }
}

/* Raise the label word `word` of the part's packed labels to value where
 * `seen` (read before) is smaller; whether it grew.  In-labels are raised
 * by other parts too (at system scope), out-labels only by their owner
 * (other parts read them in refresh_foreign, racily: a stale read is a
 * smaller label, and the passes end only with one that raised nothing). */
static __device__ __forceinline__ bool raise_in(uint32_t *words, uint64_t word, uint32_t seen, uint32_t value)
{
    return value > seen && atomicMax_system(&words[word], value) < value;
}
static __device__ __forceinline__ bool raise_out(uint32_t *words, uint64_t word, uint32_t seen, uint32_t value)
{
    return value > seen && atomicMax(&words[word], value) < value;
}

/* Relax edge v -> w (v own; w own or foreign, local) over the packed labels
 * (lab[s] = (in, out); labels are global ids, first: the part's first
 * state), as the lp engine's relax (gpu/scc/lp) where a label names an own
 * state: with a = lab[v] and b = lab[w], in = max(in[v], in[in[v]])
 * reaches v and w, out = max(out[w], out[out[w]]) is reached from v and w;
 * raised: in of w and v, out of v and (own) w, and the representatives' own
 * labels out[in[v]] and in[out[w]] where they are own states.  A foreign w's
 * labels are its copies (refresh_foreign): in[w] raises the copy and, where
 * the copy rose, the owner's by a reduction of system scope (nothing read
 * back across the link; a foreign label's hop, read at its owner, cost more
 * than the passes it saved: bench/RESULTS.md).  A pass where no part raises
 * anything changed no label anywhere, so the copies it read were the
 * owners' labels: the fixpoint of the whole model's edges. */
static __device__ __forceinline__ int relax_edge_peer(uint32_t v, uint32_t w, uint64_t ns, uint64_t first, uint2 *lab,
                                                      const peer_arrays &pl)
{
    uint32_t *words = reinterpret_cast<uint32_t *>(lab);
    const uint2 a = __ldcg(&lab[v]), b = __ldcg(&lab[w]);
    const uint64_t rv = (uint64_t)a.x - first, rw = (uint64_t)b.y - first;
    const bool hop_v = rv < ns && rv != v, hop_w = rw < ns && rw != w;
    const uint2 ra = hop_v ? __ldcg(&lab[rv]) : a;
    const uint2 rb = hop_w ? __ldcg(&lab[rw]) : b;
    const uint32_t in = a.x > ra.x ? a.x : ra.x;
    const uint32_t out = b.y > rb.y ? b.y : rb.y;
    int rose = 0;
    if (w < ns) {
        rose |= raise_in(words, 2 * (uint64_t)w, b.x, in);
        rose |= raise_out(words, 2 * (uint64_t)w + 1, b.y, out);
    } else if (in > b.x && atomicMax(&words[2 * (uint64_t)w], in) < in) {
        atomicMax_system(pl.lab[pl.own[w - ns]] + 2 * (uint64_t)pl.idx[w - ns], in);
        rose = 1;
    }
    rose |= raise_in(words, 2 * (uint64_t)v, a.x, in);
    rose |= raise_out(words, 2 * (uint64_t)v + 1, a.y, out);
    if (hop_v)
        rose |= raise_out(words, 2 * rv + 1, ra.y, out);
    if (hop_w)
        rose |= raise_in(words, 2 * rw, rb.x, in);
    return rose;
}

/* One pass of the label propagation over a part's edge list (peer), every
 * part at once: each block sweeps its share of the list up to `sweeps`
 * times while it raises a label, the list descending in odd passes (chains
 * numbered in exploration order go far both ways); *changed = 1 if a label
 * rose.  Racy reads only delay a rise to a later sweep or pass. */
static __global__ void relax_pass_peer(const unsigned long long *__restrict__ count, const uint2 *__restrict__ edges,
                                       uint64_t ns, uint64_t first, uint2 *lab, peer_arrays pl, int sweeps,
                                       bool descending, unsigned *changed)
{
    const uint64_t ne = *count;
    int rose_any = 0;
    for (int sweep = 0; sweep < sweeps; sweep++) {
        int rose = 0;
        for (uint64_t t = thread_index(); t < ne; t += thread_count()) {
            const uint2 vw = edges[descending ? ne - 1 - t : t];
            rose |= relax_edge_peer(vw.x, vw.y, ns, first, lab, pl);
        }
        rose_any |= rose;
        if (!__syncthreads_or(rose))
            break;
    }
    if (__syncthreads_or(rose_any) && threadIdx.x == 0)
        *changed = 1;
}

/* After a phase's rounds: every live own state takes (in, out) as its class;
 * with in == out it is done, its SCC named by in. */
static __global__ void phase_finish(uint64_t ns, uint8_t *live, const uint32_t *__restrict__ in,
                                    const uint32_t *__restrict__ out, uint64_t *cls, uint32_t *comp,
                                    unsigned long long *done)
{
    unsigned long long mine = 0;
    for (uint64_t j = thread_index(); j < ns; j += thread_count()) {
        if (!live[j])
            continue;
        cls[j] = (uint64_t)in[j] << 32 | out[j];
        if (in[j] == out[j]) {
            comp[j] = in[j];
            live[j] = 0;
            mine++;
        }
    }
    gpu::block_add<kThreads>(done, mine);
}

/* Push: labels[index[k]] = max(labels[index[k]], buffer[k]); *changed = 1 if one rose. */
static __global__ void scatter_max(uint64_t count, const uint32_t *__restrict__ index,
                                   const uint32_t *__restrict__ buffer, uint32_t *labels, unsigned *changed)
{
    int rose = 0;
    for (uint64_t k = thread_index(); k < count; k += thread_count()) {
        const uint32_t v = buffer[k];
        if (v > labels[index[k]] && atomicMax(&labels[index[k]], v) < v)
            rose = 1;
    }
    if (__syncthreads_or(rose) && threadIdx.x == 0)
        *changed = 1;
}

/* ---- trimming over the parts, within the live states' classes (ref/partition.c's trim_run) */

/* The flags of the peeling (gpu/scc/peel), whose drain the trimming uses;
 * the MEC rounds use the same. */
using gpu::kLive;
using gpu::kQueued;
using gpu::kRemoved;

/* Queue own state j if it is still live (one thread wins). */
static __device__ __forceinline__ void trim_queue(uint32_t *flag, uint32_t j, uint32_t *next, unsigned *count)
{
    if (atomicCAS(&flag[j], kLive, kQueued) == kLive)
        next[atomicAdd(count, 1u)] = j;
}

/* Queue own state j for the peeling's drain if it is still live. */
static __device__ __forceinline__ void peel_queue(uint32_t *flag, uint32_t j, const gpu::worklist &wl)
{
    if (atomicCAS(&flag[j], kLive, kQueued) == kLive)
        gpu::worklist_push(gpu::worklist_tail(wl), j);
}

/* The trimming's flags: live states kLive, the others kRemoved. */
static __global__ void trim_flags(uint64_t len, const uint8_t *__restrict__ live, uint32_t *flag)
{
    for (uint64_t x = thread_index(); x < len; x += thread_count())
        flag[x] = live[x] ? kLive : kRemoved;
}

/* The counts of the edges that count (between other live states of one
 * class), a state or foreign copy s per group of kRowLanes lanes over its
 * row and transposed row, without atomics: out_left[j] = own j's edges to
 * other states, in_left[j] = other own states' into j (the other parts'
 * come by the first push), outbox[f] = own states' into foreign copy f. */
static __global__ void trim_count(uint64_t ns, uint64_t nf, const uint64_t *__restrict__ row,
                                  const uint32_t *__restrict__ target, const uint64_t *__restrict__ rfirst,
                                  const uint32_t *__restrict__ rsource, const uint8_t *__restrict__ live,
                                  const uint64_t *__restrict__ cls, uint32_t *in_left, uint32_t *out_left,
                                  uint32_t *outbox)
{
    const auto group = gpu::row_group();
    for (uint64_t s = gpu::group_index(); s < ns + nf; s += gpu::group_count()) {
        uint32_t in = 0, out = 0;
        if (live[s]) {
            const uint64_t c = cls[s];
            for (uint64_t e = rfirst[s] + group.thread_rank(); e < rfirst[s + 1]; e += gpu::kRowLanes) {
                const uint32_t v = rsource[e];
                in += v != s && live[v] && cls[v] == c;
            }
            if (s < ns)
                for (uint64_t e = row[s] + group.thread_rank(); e < row[s + 1]; e += gpu::kRowLanes) {
                    const uint32_t w = target[e];
                    out += w != s && live[w] && cls[w] == c;
                }
        }
        in = cooperative_groups::reduce(group, in, cooperative_groups::plus<uint32_t>());
        out = cooperative_groups::reduce(group, out, cooperative_groups::plus<uint32_t>());
        if (group.thread_rank() != 0)
            continue;
        if (s < ns) {
            in_left[s] = in;
            out_left[s] = out;
        } else {
            outbox[s - ns] = in;
        }
    }
}

/* Push: own counts raised (first) or lowered (after) by the readers' outboxes. */
static __global__ void trim_push(uint64_t count, const uint32_t *__restrict__ index, const uint32_t *__restrict__ buffer,
                                 int first, uint32_t *in_left, uint32_t *flag, gpu::worklist wl)
{
    for (uint64_t k = thread_index(); k < count; k += thread_count()) {
        const uint32_t d = buffer[k], j = index[k];
        if (!d)
            continue;
        if (first)
            atomicAdd(&in_left[j], d);
        else if (flag[j] != kRemoved && atomicSub(&in_left[j], d) == d)
            peel_queue(flag, j, wl);
    }
}

/* The first queue: own states without an in- or out-transition left. */
static __global__ void trim_seed(uint64_t ns, const uint32_t *__restrict__ in_left,
                                 const uint32_t *__restrict__ out_left, uint32_t *flag, gpu::worklist wl)
{
    for (uint64_t j = thread_index(); j < ns; j += thread_count())
        if (in_left[j] == 0 || out_left[j] == 0)
            peel_queue(flag, (uint32_t)j, wl);
}

/* What the part's worklist holds and has not drained (tail - done) into
 * *pending. */
static __global__ void trim_pending(const unsigned long long *__restrict__ counter, unsigned *pending)
{
    *pending = (unsigned)(counter[gpu::WL_TAIL] - counter[gpu::WL_DONE]);
}

/* Pull of the flags (staged[k]: the owner's flag of foreign copy ns + k;
 * with peer, pa.flag not null, read at the owner in place, pa.flag[own[k]] +
 * idx[k]): a foreign state newly removed takes an out-transition from each
 * own source of its class of an edge into it. */
static __global__ void trim_pull(uint64_t ns, uint64_t nf, const uint32_t *__restrict__ staged,
                                 peer_arrays pa, const uint64_t *__restrict__ rfirst,
                                 const uint32_t *__restrict__ rsource, const uint64_t *__restrict__ cls, uint32_t *flag,
                                 uint32_t *out_left, gpu::worklist wl)
{
    for (uint64_t k = thread_index(); k < nf; k += thread_count()) {
        const uint64_t c = ns + k;
        if (flag[c] == kRemoved)
            continue;
        const uint32_t f = pa.flag ? *(volatile const uint32_t *)(pa.flag[pa.own[k]] + pa.idx[k]) : staged[k];
        if (f != kRemoved)
            continue;
        flag[c] = kRemoved;
        for (uint64_t e = rfirst[c]; e < rfirst[c + 1]; e++) {
            const uint32_t v = rsource[e];
            if (cls[v] == cls[c] && flag[v] != kRemoved && atomicSub(&out_left[v], 1u) == 1u)
                peel_queue(flag, v, wl);
        }
    }
}

/* Peer, after a drain: the own states of the send list (send[k], k <
 * count) whose in-count the readers' decrements took to 0 in place are
 * queued (a state queued or removed already stays as it is). */
static __global__ void trim_requeue(uint64_t count, const uint32_t *__restrict__ send,
                                    const uint32_t *__restrict__ in_left, uint32_t *flag, gpu::worklist wl)
{
    for (uint64_t k = thread_index(); k < count; k += thread_count()) {
        const uint32_t j = send[k];
        if (flag[j] == kLive && *(volatile const uint32_t *)&in_left[j] == 0)
            peel_queue(flag, j, wl);
    }
}

static __global__ void fill_u32(uint64_t count, uint32_t value, uint32_t *x)
{
    for (uint64_t i = thread_index(); i < count; i += thread_count())
        x[i] = value;
}

/* After the trimming: each removed live own state is an SCC of its own, out
 * of the phases. */
static __global__ void trim_finish(uint64_t ns, uint64_t first_state, const uint32_t *__restrict__ flag, uint8_t *live,
                                   uint32_t *comp, unsigned long long *removed)
{
    unsigned long long mine = 0;
    for (uint64_t j = thread_index(); j < ns; j += thread_count())
        if (flag[j] == kRemoved && live[j]) {
            live[j] = 0;
            comp[j] = (uint32_t)(first_state + j);
            mine++;
        }
    gpu::block_add<kThreads>(removed, mine);
}

/* ---- MEC rounds over the parts (ref_mec_partitioned on the devices) ------------- */

/* A round's start: the own states in play (flag not removed) are live for
 * the label propagation; their count into *count. */
static __global__ void mec_round_start(uint64_t ns, const uint32_t *__restrict__ flag, uint8_t *live,
                                       unsigned long long *count)
{
    unsigned long long mine = 0;
    for (uint64_t j = thread_index(); j < ns; j += thread_count()) {
        live[j] = flag[j] != kRemoved;
        mine += live[j];
    }
    gpu::block_add<kThreads>(count, mine);
}

/* Algorithm 7: every enabled choice of an own state in play with a
 * transition out of the state's SCC (or into a state out of play) is
 * removed; a state left without choices is queued.  A choice is only ever
 * touched here by its own state's thread.  removed[1]: choices removed. */
static __global__ void mec_remove_leaving(uint64_t ns, const uint64_t *__restrict__ crow,
                                          const uint64_t *__restrict__ ctr, const uint32_t *__restrict__ target,
                                          const uint32_t *__restrict__ comp, uint32_t *flag, uint32_t *enabled,
                                          uint32_t *cleft, uint32_t *next, unsigned *queued,
                                          unsigned long long *removed)
{
    unsigned long long mine = 0;
    for (uint64_t j = thread_index(); j < ns; j += thread_count()) {
        if (flag[j] != kLive)
            continue;
        const uint32_t c = comp[j];
        uint32_t left = cleft[j];
        for (uint64_t k = crow[j]; k < crow[j + 1]; k++) {
            if (!enabled[k])
                continue;
            for (uint64_t e = ctr[k]; e < ctr[k + 1]; e++) {
                const uint32_t w = target[e];
                if (*(volatile uint32_t *)&flag[w] == kRemoved || comp[w] != c) {
                    enabled[k] = 0;
                    left--;
                    mine++;
                    break;
                }
            }
        }
        cleft[j] = left;
        if (left == 0)
            trim_queue(flag, (uint32_t)j, next, queued);
    }
    gpu::block_add<kThreads>(&removed[1], mine);
}

/* Local index x left play (Lemma 1's attractor): every enabled choice of an
 * own state with a transition into x is removed (rchoice beside rsource in
 * the local transpose); a state left without choices is queued.  Returns the
 * choices removed. */
static __device__ __forceinline__ unsigned long long mec_enter_removed(
    uint64_t x, const uint64_t *__restrict__ rfirst, const uint32_t *__restrict__ rsource,
    const uint32_t *__restrict__ rchoice, uint32_t *flag, uint32_t *enabled, uint32_t *cleft, uint32_t *next,
    unsigned *queued)
{
    unsigned long long removed = 0;
    for (uint64_t r = rfirst[x]; r < rfirst[x + 1]; r++) {
        const uint32_t k = rchoice[r];
        if (!*(volatile uint32_t *)&enabled[k] || atomicExch(&enabled[k], 0u) == 0u)
            continue;
        removed++;
        const uint32_t v = rsource[r];
        if (atomicSub(&cleft[v], 1u) == 1u)
            trim_queue(flag, v, next, queued);
    }
    return removed;
}

/* One level of a part's attractor: the *size_at states of level leave play; what
 * they free joins next.  removed[0]: states, removed[1]: choices. */
static __global__ void mec_attract_level(const uint32_t *__restrict__ level, const unsigned *size_at,
                                         const uint64_t *__restrict__ rfirst, const uint32_t *__restrict__ rsource,
                                         const uint32_t *__restrict__ rchoice, uint32_t *flag, uint32_t *enabled,
                                         uint32_t *cleft, uint32_t *next, unsigned *queued,
                                         unsigned long long *removed)
{
    const unsigned size = *size_at;
    unsigned long long choices = 0, states = 0;
    for (uint64_t i = thread_index(); i < size; i += thread_count()) {
        const uint32_t j = level[i];
        flag[j] = kRemoved;
        states++;
        choices += mec_enter_removed(j, rfirst, rsource, rchoice, flag, enabled, cleft, next, queued);
    }
    gpu::block_add<kThreads>(&removed[0], states);
    __syncthreads(); /* block_add's shared storage used again */
    gpu::block_add<kThreads>(&removed[1], choices);
}

/* Pull of the flags (staged[k]: the owner's flag of foreign copy ns + k): a
 * foreign state newly out of play takes the choices into it. */
static __global__ void mec_attract_pull(uint64_t ns, uint64_t nf, const uint32_t *__restrict__ staged,
                                        const uint64_t *__restrict__ rfirst, const uint32_t *__restrict__ rsource,
                                        const uint32_t *__restrict__ rchoice, uint32_t *flag, uint32_t *enabled,
                                        uint32_t *cleft, uint32_t *next, unsigned *queued,
                                        unsigned long long *removed)
{
    unsigned long long choices = 0;
    for (uint64_t k = thread_index(); k < nf; k += thread_count()) {
        const uint64_t c = ns + k;
        if (staged[k] != kRemoved || flag[c] == kRemoved)
            continue;
        flag[c] = kRemoved;
        choices += mec_enter_removed(c, rfirst, rsource, rchoice, flag, enabled, cleft, next, queued);
    }
    gpu::block_add<kThreads>(&removed[1], choices);
}

/* After a round that removed something: the own states in play take their
 * SCC as the next round's region (class). */
static __global__ void mec_regions(uint64_t ns, const uint32_t *__restrict__ flag, const uint32_t *__restrict__ comp,
                                   uint64_t *cls)
{
    for (uint64_t j = thread_index(); j < ns; j += thread_count())
        if (flag[j] != kRemoved)
            cls[j] = comp[j];
}

/* The result: comp of the own states in play, GPU_MEC_NONE for the others. */
static __global__ void mec_result(uint64_t ns, const uint32_t *__restrict__ flag, uint32_t *comp)
{
    for (uint64_t j = thread_index(); j < ns; j += thread_count())
        if (flag[j] == kRemoved)
            comp[j] = UINT32_MAX;
}

/* From a part's local offsets: row[j] = own state j's first transition,
 * cleft[j] (or NULL) its choice count. */
static __global__ void local_rows(uint64_t ns, const uint64_t *__restrict__ crow, const uint64_t *__restrict__ ctr,
                                  uint64_t *row, uint32_t *cleft)
{
    for (uint64_t j = thread_index(); j <= ns; j += thread_count()) {
        row[j] = ctr[crow[j]];
        if (cleft && j < ns)
            cleft[j] = (uint32_t)(crow[j + 1] - crow[j]);
    }
}

/* ---- the parts on their devices ------------------------------------------------- */

struct part_device : part_base {
    device_array<uint64_t> row;      /* [ns + 1] local offsets of own states' transitions */
    device_array<uint32_t> in, out, comp; /* peer: in and out of own states from lab (unpack_labels) */
    device_array<uint8_t> live;
    device_array<uint64_t> cls;
    device_array<unsigned> changed;
    device_array<unsigned long long> done;
    /* trimming: the local transpose (sources of the edges into own and
     * foreign states, self-loops left out), counts, flags, outbox, queues */
    gpu::arena tarena;
    gpu::graph_transpose tr;
    device_array<uint32_t> in_left, out_left, outbox, tflag, list_a, list_b;
    gpu::arena parena;
    gpu::peel_buffers peel; /* SCCs: the trimming's worklist (ns slots), drained by the peeling */
    device_array<unsigned> counts; /* [2]: the MEC attractor's list to drain next and level being built;
                                      the trimming's pending count in [0] (trim_pending) */
    /* MECs: own states' local choice offsets, choices' local transition
     * offsets, enabled flags, choices left a state, the choice of each
     * transposed transition, removed states and choices */
    device_array<uint32_t> enabled, cleft;
    device_array<unsigned long long> removed;
    uint32_t *cur = nullptr, *nxt = nullptr;
    /* peer: every part's packed labels and trimming arrays (lab[P],
     * tflag[P], in_left[P]; on the first part of each device, shared by the
     * others there) and the owner of each foreign state with its index there */
    device_array<uint32_t *> peer_table;
    uint32_t **table = nullptr;
    device_array<uint32_t> fown, fidx;
    /* peer: a phase's edge list (edges_peer): [nt] edges, [ns + 1] counts
     * and their exclusive scan (first[ns]: the edges), the scan's space */
    device_array<uint2> edges;
    device_array<unsigned long long> ecount, efirst;
    device_array<uint2> lab; /* peer: [ns + nf] the phase's labels (in, out) a state, packed */
    device_array<unsigned char> scan_temp;
    size_t scan_bytes = 0;
};

typedef multi::parted<part_device> parted;

/* Part q's view of every part's arrays (the table's layout, written by
 * open_peer_labels: lab[P], tflag[P], in_left[P]); all null without peer. */
static peer_arrays peer_of(const part_device &q, uint32_t P)
{
    if (!q.table)
        return peer_arrays{nullptr, nullptr, nullptr, nullptr, nullptr};
    return peer_arrays{q.table, q.table + P, q.table + 2 * P, q.fown.p, q.fidx.p};
}

/* Push: every owner's in-labels raised to the largest its readers' copies
 * reached; *changed when one rose. */
int push_in(parted &x, bool *changed, csr_status *status)
{
    const uint32_t P = x.p->parts;
    TRY(x.gather_back([](part_device &q) { return q.in.p + q.ns; }, status));
    for (uint32_t o = 0; o < P; o++) {
        part_device &q = *x.part[o];
        const uint64_t total = x.sends(o);
        CUDA_TRY(cudaSetDevice(q.device));
        CUDA_TRY(cudaMemsetAsync(q.changed.p, 0, sizeof(unsigned), q.stream));
        if (!total)
            continue;
        scatter_max<<<grid_for(total, kThreads), kThreads, 0, q.stream>>>(total, q.send.p, (const uint32_t *)q.xbuf.p,
                                                                         q.in.p, q.changed.p);
        CUDA_TRY_LAUNCH();
    }
    unsigned rose = 0;
    TRY(x.sum([](part_device &q) { return q.changed.p; }, &rose, status));
    *changed = *changed || rose;
    return CSR_OK;
}

/* Part i of the partition onto its device: rows, local targets, send list,
 * the labels' buffers, the local transpose; with mec, the choices' arrays
 * too (all choices enabled). */
int upload_part(const csr_model *m, const csr_partition *p, uint32_t i, int device, bool mec, part_device &q,
                csr_status *status)
{
    TRY(q.open(m, p, i, device, 8, status));
    const uint64_t len = q.ns + q.nf;
    TRY(q.row.alloc(q.ns + 1, NULL, status));
    TRY(q.in.alloc(len, NULL, status));
    TRY(q.out.alloc(len, NULL, status));
    TRY(q.comp.alloc(len, NULL, status));
    TRY(q.live.alloc(len, NULL, status));
    TRY(q.cls.alloc(len, NULL, status));
    TRY(q.changed.alloc(1, NULL, status));
    TRY(q.done.alloc(1, NULL, status));
    /* row (own states' transitions) from the local offsets; crow and ctr
     * (their choices, the choices' transitions) kept for the MECs only */
    if (mec) {
        TRY(q.enabled.alloc(q.nc, NULL, status));
        TRY(q.cleft.alloc(q.ns, NULL, status));
        TRY(q.removed.alloc(2, NULL, status));
        CUDA_TRY(cudaMemset(q.removed.p, 0, 2 * sizeof(unsigned long long)));
        fill_u32<<<grid_for(q.nc ? q.nc : 1, kThreads), kThreads>>>(q.nc, 1u, q.enabled.p);
        CUDA_TRY_LAUNCH();
    }
    local_rows<<<grid_for(q.ns + 1, kThreads), kThreads>>>(q.ns, q.crow.p, q.ctr.p, q.row.p,
                                                         mec ? q.cleft.p : nullptr);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemset(q.live.p, 1, len ? len : 1));
    CUDA_TRY(cudaMemset(q.cls.p, 0, (len ? len : 1) * sizeof(uint64_t)));
    /* the local transpose on the device (gpu/common/model.h), with each
     * transition's choice (a local index) for the MECs; self-loops are in it,
     * and harmless: a state leaves only once it has nothing left to lose */
    TRY(gpu::plan_and_allocate(q.tarena, [&](gpu::arena &a) { q.tr.plan(a, len, q.nt, mec); }, NULL, status));
    TRY(q.tr.build_over(q.ns, len, mec ? q.crow.p : nullptr, mec ? q.ctr.p : q.row.p, q.target.p, status));
    CUDA_TRY(cudaDeviceSynchronize());
    if (!mec) {
        q.crow.release();
        q.ctr.release();
    }
    TRY(q.in_left.alloc(q.ns, NULL, status));
    TRY(q.out_left.alloc(q.ns, NULL, status));
    TRY(q.outbox.alloc(q.nf, NULL, status));
    TRY(q.tflag.alloc(len, NULL, status));
    TRY(q.rbuf.alloc(q.nf, NULL, status));
    TRY(q.counts.alloc(2, NULL, status));
    if (mec) { /* the attractor's level lists (drain_parts) */
        TRY(q.list_a.alloc(q.ns, NULL, status));
        TRY(q.list_b.alloc(q.ns, NULL, status));
        q.cur = q.list_a.p;
        q.nxt = q.list_b.p;
    } else { /* the trimming's worklist (peel_drain) */
        TRY(gpu::plan_and_allocate(q.parena, [&](gpu::arena &a) { q.peel.plan(a, q.ns ? q.ns : 1); }, NULL,
                                   status));
    }
    CUDA_TRY(cudaDeviceSynchronize()); /* the default stream's fills and copies before the part's stream */
    return CSR_OK;
}

/* Each part drains its queue level by level (level(q, size) launches one
 * level from q.cur, *size states (on the device), into q.nxt, counting into
 * q.counts[1]), alone: kLevels levels of every part with something queued
 * launched together, each level's size moved to q.counts[0] on the device,
 * then the sizes read back after one synchronisation of every part (a level
 * with nothing queued launches threads that stop at once). */
template <typename F> int drain_parts(parted &x, F level, csr_status *status)
{
    constexpr int kLevels = 8;
    const uint32_t P = x.p->parts;
    for (uint32_t i = 0; i < P; i++) {
        CUDA_TRY(cudaSetDevice(x.part[i]->device));
        TRY(x.copy_flag(i, x.part[i]->counts.p, status));
    }
    TRY(x.sync_all(status));
    for (bool any = true; any;) { /* kLevels levels of every part with something queued, at once */
        any = false;
        for (uint32_t i = 0; i < P; i++) {
            part_device &q = *x.part[i];
            if (!x.host_flag(i))
                continue;
            any = true;
            CUDA_TRY(cudaSetDevice(q.device));
            for (int l = 0; l < kLevels; l++) {
                CUDA_TRY(cudaMemsetAsync(q.counts.p + 1, 0, sizeof(unsigned), q.stream));
                level(q, (const unsigned *)q.counts.p);
                CUDA_TRY_LAUNCH();
                CUDA_TRY(cudaMemcpyAsync(q.counts.p, q.counts.p + 1, sizeof(unsigned), cudaMemcpyDeviceToDevice,
                                         q.stream));
                std::swap(q.cur, q.nxt);
            }
            TRY(x.copy_flag(i, q.counts.p, status));
        }
        if (any)
            TRY(x.sync_all(status));
    }
    for (auto &q : x.part) {
        CUDA_TRY(cudaSetDevice(q->device));
        CUDA_TRY(cudaMemsetAsync(q->counts.p, 0, sizeof(unsigned), q->stream));
    }
    return x.sync_all(status);
}

/* Part q's trimming as the peeling's SCC goal (gpu/scc/peel) over its own
 * states, the edges into its foreign copies taken off at their owners (peer:
 * in place; otherwise counted in the outbox). */
static gpu::peel_params trim_peel_params(part_device &q, uint32_t P, bool peer)
{
    gpu::peel_params p = {};
    p.n = q.ns;
    p.row = q.row.p;
    p.targets = q.target.p;
    p.rfirst = q.tr.first;
    p.rsource = q.tr.source;
    p.cls = q.cls.p;
    p.flag = q.tflag.p;
    p.in_left = q.in_left.p;
    p.out_left = q.out_left.p;
    p.component = q.comp.p; /* trim_finish writes the removed states' ids after */
    p.queue = q.peel.queue();
    p.stats = q.peel.stats();
    p.foreign.first = q.ns;
    if (peer) {
        const peer_arrays pa = peer_of(q, P);
        p.foreign.owner_in_left = pa.in_left;
        p.foreign.owner = pa.own;
        p.foreign.owner_index = pa.idx;
    } else {
        p.foreign.outbox = q.outbox.p;
    }
    return p;
}

/* Each part's pending count (queued, not drained) into x's host flags;
 * whether any part has one. */
static int trim_pending_parts(parted &x, bool *any, csr_status *status)
{
    for (uint32_t i = 0; i < x.p->parts; i++) {
        part_device &q = *x.part[i];
        CUDA_TRY(cudaSetDevice(q.device));
        trim_pending<<<1, 1, 0, q.stream>>>(q.peel.counters, q.counts.p);
        CUDA_TRY_LAUNCH();
        TRY(x.copy_flag(i, q.counts.p, status));
    }
    TRY(x.sync_all(status));
    *any = false;
    for (uint32_t i = 0; i < x.p->parts; i++)
        *any = *any || x.host_flag(i);
    return CSR_OK;
}

/* Trimming to a fixpoint over the parts (ref/partition.c's trim_run, the
 * lp engine's peeling, first and between phases) of the edges between live
 * states of one class: rounds, in each of which every part with something
 * queued drains it by the peeling (peel_drain: its own states, the foreign
 * copies' in-counts at their owners), then the outboxes are pushed to the
 * owners and the flags pulled (peer: the decrements were the owners' in
 * place, the owners queue what reached 0 and the readers read the owners'
 * flags); until no part has anything queued, no round where the counts
 * queue nothing.  The removed states leave the label propagation (live 0,
 * each an SCC of its own; foreign copies pulled); their count added to
 * *trimmed, the rounds to *rounds, the seconds to *seconds. */
int trim_over_parts(parted &x, uint64_t *trimmed, uint64_t *rounds, double *seconds, csr_status *status)
{
    const double t = monotonic_seconds();
    const uint32_t P = x.p->parts;
    const bool peer = x.peer;
    auto outbox_of = [](part_device &q) { return q.outbox.p; };
    std::vector<unsigned> share(P, 0); /* parts on the device of part i: their drains split it */
    for (uint32_t i = 0; i < P; i++)
        for (uint32_t j = 0; j < P; j++)
            share[i] += x.part[j]->device == x.part[i]->device;
    for (auto &q : x.part) {
        const uint64_t len = q->ns + q->nf;
        CUDA_TRY(cudaSetDevice(q->device));
        TRY(q->peel.reset(q->ns, status, q->stream));
        trim_flags<<<grid_for(len ? len : 1, kThreads), kThreads, 0, q->stream>>>(len, q->live.p, q->tflag.p);
        CUDA_TRY_LAUNCH();
        if (len) {
            trim_count<<<gpu::grid_for_rows(len, kThreads), kThreads, 0, q->stream>>>(
                q->ns, q->nf, q->row.p, q->target.p, q->tr.first, q->tr.source, q->live.p, q->cls.p, q->in_left.p,
                q->out_left.p, q->outbox.p);
            CUDA_TRY_LAUNCH();
        }
    }
    TRY(x.sync_all(status));
    /* push the outboxes (first: counts, then: decrements) and queue */
    auto push = [&](int first) -> int {
        TRY(x.gather_back(outbox_of, status));
        for (uint32_t o = 0; o < P; o++) {
            part_device &q = *x.part[o];
            CUDA_TRY(cudaSetDevice(q.device));
            if (x.sends(o)) {
                trim_push<<<grid_for(x.sends(o), kThreads), kThreads, 0, q.stream>>>(
                    x.sends(o), q.send.p, (const uint32_t *)q.xbuf.p, first, q.in_left.p, q.tflag.p,
                    q.peel.queue());
                CUDA_TRY_LAUNCH();
            }
            if (q.nf)
                CUDA_TRY(cudaMemsetAsync(q.outbox.p, 0, q.nf * sizeof(uint32_t), q.stream));
        }
        return x.sync_all(status);
    };
    TRY(push(1));
    for (auto &q : x.part) {
        if (!q->ns)
            continue;
        CUDA_TRY(cudaSetDevice(q->device));
        trim_seed<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->in_left.p, q->out_left.p,
                                                                        q->tflag.p, q->peel.queue());
        CUDA_TRY_LAUNCH();
    }
    bool work = false;
    TRY(trim_pending_parts(x, &work, status));
    if (!work) { /* nothing queued: no round, nothing leaves (as the CPU's trim_run), no pull */
        *seconds += monotonic_seconds() - t;
        return CSR_OK;
    }
    auto tflag_of = [](part_device &q) { return (void *)q.tflag.p; };
    while (work) {
        (*rounds)++;
        for (uint32_t i = 0; i < P; i++) { /* each part drains its queue alone */
            part_device &q = *x.part[i];
            if (!x.host_flag(i))
                continue;
            CUDA_TRY(cudaSetDevice(q.device));
            TRY(gpu::peel_drain(trim_peel_params(q, P, peer), gpu::PEEL_SCCS, gpu::PEEL_BY_LEVELS, 0, status,
                                q.stream, share[i]));
        }
        TRY(x.sync_all(status));
        if (peer) { /* the decrements are in place: the owners queue, the readers read the owners' flags */
            for (uint32_t o = 0; o < P; o++) {
                part_device &q = *x.part[o];
                if (!x.sends(o))
                    continue;
                CUDA_TRY(cudaSetDevice(q.device));
                trim_requeue<<<grid_for(x.sends(o), kThreads), kThreads, 0, q.stream>>>(
                    x.sends(o), q.send.p, q.in_left.p, q.tflag.p, q.peel.queue());
                CUDA_TRY_LAUNCH();
            }
        } else {
            TRY(push(0));
            TRY(x.pull<4>(tflag_of, status, true)); /* the owners' flags into each reader's rbuf */
        }
        for (auto &q : x.part) {
            if (!q->nf)
                continue;
            CUDA_TRY(cudaSetDevice(q->device));
            trim_pull<<<grid_for(q->nf, kThreads), kThreads, 0, q->stream>>>(
                q->ns, q->nf, q->rbuf.p, peer_of(*q, P), q->tr.first, q->tr.source, q->cls.p, q->tflag.p,
                q->out_left.p, q->peel.queue());
            CUDA_TRY_LAUNCH();
        }
        TRY(trim_pending_parts(x, &work, status));
    }
    for (auto &q : x.part) {
        CUDA_TRY(cudaSetDevice(q->device));
        CUDA_TRY(cudaMemsetAsync(q->done.p, 0, sizeof(unsigned long long), q->stream));
        if (!q->ns)
            continue;
        trim_finish<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->first_state, q->tflag.p,
                                                                          q->live.p, q->comp.p, q->done.p);
        CUDA_TRY_LAUNCH();
    }
    unsigned long long removed = 0;
    TRY(x.sum([](part_device &q) { return q.done.p; }, &removed, status));
    *trimmed += removed;
    auto live_of = [](part_device &q) { return (void *)q.live.p; };
    TRY(x.pull<1>(live_of, status));
    *seconds += monotonic_seconds() - t;
    return CSR_OK;
}

int open_peer_labels(parted &x, csr_status *status);

/* The partition on the devices (open_exchange), each part by upload_part. */
int open_parts(const csr_model *m, const gpu_parts_options *o, const csr_partition *p, bool mec, parted &x,
               gpu_parts_stats *st, csr_status *status)
{
    TRY(open_exchange(o, p, x, &st->exchange, &st->foreign, &st->upload_s,
                      [&](uint32_t i, int device, part_device &q) {
                          return upload_part(m, p, i, device, mec, q, status);
                      },
                      status));
    return x.peer ? open_peer_labels(x, status) : CSR_OK;
}

/* peer: each part's table of every part's label and trimming arrays (one a device) and
 * the owner and owner's index of each of its foreign states (from the
 * partition's receive slices and send lists). */
int open_peer_labels(parted &x, csr_status *status)
{
    const csr_partition *p = x.p;
    const uint32_t P = p->parts;
    for (uint32_t i = 0; i < P; i++) {
        part_device &q = *x.part[i];
        CUDA_TRY(cudaSetDevice(q.device));
        TRY(q.lab.alloc(q.ns + q.nf, NULL, status));
    }
    std::vector<uint32_t *> table(3 * (size_t)P);
    for (uint32_t i = 0; i < P; i++) {
        table[i] = reinterpret_cast<uint32_t *>(x.part[i]->lab.p);
        table[P + i] = x.part[i]->tflag.p;
        table[2 * P + i] = x.part[i]->in_left.p;
    }
    std::vector<uint32_t> own, idx;
    for (uint32_t r = 0; r < P; r++) {
        part_device &q = *x.part[r];
        CUDA_TRY(cudaSetDevice(q.device));
        for (uint32_t j = 0; j < r && !q.table; j++)
            if (x.part[j]->device == q.device)
                q.table = x.part[j]->table;
        if (!q.table) {
            TRY(q.peer_table.alloc(3 * (uint64_t)P, NULL, status));
            CUDA_TRY(cudaMemcpy(q.peer_table.p, table.data(), 3 * (size_t)P * sizeof(uint32_t *),
                                cudaMemcpyHostToDevice));
            q.table = q.peer_table.p;
        }
        own.assign(q.nf, 0);
        idx.assign(q.nf, 0);
        for (uint32_t o = 0; o < P; o++) {
            const uint64_t b = x.send_begin(o, r), e = x.send_end(o, r), f = p->part[r].recv_first[o];
            for (uint64_t k = 0; k < e - b; k++) {
                own[f + k] = o;
                idx[f + k] = p->send_index[b + k];
            }
        }
        TRY(q.fown.alloc(q.nf, NULL, status));
        TRY(q.fidx.alloc(q.nf, NULL, status));
        TRY(q.edges.alloc(q.nt, NULL, status));
        TRY(q.ecount.alloc(q.ns + 1, NULL, status));
        TRY(q.efirst.alloc(q.ns + 1, NULL, status));
        q.scan_bytes = 0;
        CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, q.scan_bytes, q.ecount.p, q.efirst.p, q.ns + 1));
        TRY(q.scan_temp.alloc(q.scan_bytes, NULL, status));
        if (q.nf) {
            CUDA_TRY(cudaMemcpy(q.fown.p, own.data(), q.nf * sizeof(uint32_t), cudaMemcpyHostToDevice));
            CUDA_TRY(cudaMemcpy(q.fidx.p, idx.data(), q.nf * sizeof(uint32_t), cudaMemcpyHostToDevice));
        }
    }
    return CSR_OK;
}

/* peer: the label propagation of a phase over every part at once: each
 * part's own labels packed (phase_labels_packed) and its edge list of the
 * phase (edges_peer), then passes, each part's foreign copies refreshed
 * from their owners (refresh_foreign) and its edges relaxed
 * (relax_pass_peer), one launch of each a part a pass and one
 * synchronisation of every part, until a pass raises nothing on any part:
 * the fixpoint of the whole model's edges (rounds: the passes); then the
 * own labels unpacked into in and out (unpack_labels). */
int propagate_peer(parted &x, bool choices, gpu_parts_stats *st, csr_status *status)
{
    const uint32_t P = x.p->parts;
    constexpr int kSweeps = 2; /* 4: phil7 faster by its rounds (9 -> 5), leader8's MECs slower */
    for (uint32_t i = 0; i < P; i++) {
        part_device &q = *x.part[i];
        if (!q.ns)
            continue;
        CUDA_TRY(cudaSetDevice(q.device));
        phase_labels_packed<<<grid_for(q.ns, kThreads), kThreads, 0, q.stream>>>(q.ns, q.first_state, q.live.p,
                                                                                 q.lab.p);
        CUDA_TRY_LAUNCH();
        const unsigned grid = grid_for(q.ns + 1, kThreads);
        if (choices)
            edges_peer<true, false><<<grid, kThreads, 0, q.stream>>>(q.ns, nullptr, q.crow.p, q.ctr.p, q.enabled.p,
                                                                    q.target.p, q.live.p, q.cls.p, q.ecount.p,
                                                                    nullptr, nullptr);
        else
            edges_peer<false, false><<<grid, kThreads, 0, q.stream>>>(q.ns, q.row.p, nullptr, nullptr, nullptr,
                                                                     q.target.p, q.live.p, q.cls.p, q.ecount.p,
                                                                     nullptr, nullptr);
        CUDA_TRY_LAUNCH();
        size_t bytes = q.scan_bytes;
        CUDA_TRY(cub::DeviceScan::ExclusiveSum(q.scan_temp.p, bytes, q.ecount.p, q.efirst.p, q.ns + 1, q.stream));
        if (choices)
            edges_peer<true, true><<<grid, kThreads, 0, q.stream>>>(q.ns, nullptr, q.crow.p, q.ctr.p, q.enabled.p,
                                                                   q.target.p, q.live.p, q.cls.p, nullptr,
                                                                   q.efirst.p, q.edges.p);
        else
            edges_peer<false, true><<<grid, kThreads, 0, q.stream>>>(q.ns, q.row.p, nullptr, nullptr, nullptr,
                                                                    q.target.p, q.live.p, q.cls.p, nullptr,
                                                                    q.efirst.p, q.edges.p);
        CUDA_TRY_LAUNCH();
    }
    TRY(x.sync_all(status)); /* every owner's labels set before any part reads them */
    for (bool changed = true; changed;) {
        const bool descending = st->rounds & 1;
        st->rounds++;
        for (uint32_t i = 0; i < P; i++) {
            part_device &q = *x.part[i];
            CUDA_TRY(cudaSetDevice(q.device));
            CUDA_TRY(cudaMemsetAsync(q.changed.p, 0, sizeof(unsigned), q.stream));
            if (q.ns) {
                const peer_arrays pl = peer_of(q, P);
                if (q.nf) {
                    refresh_foreign<<<grid_for(q.nf, kThreads), kThreads, 0, q.stream>>>(q.ns, q.nf, q.live.p, pl,
                                                                                        q.lab.p);
                    CUDA_TRY_LAUNCH();
                    x.exchanged += 8 * q.nf; /* at most: dead copies are skipped */
                }
                relax_pass_peer<<<grid_for(q.nt ? q.nt : 1, kThreads), kThreads, 0, q.stream>>>(
                    q.efirst.p + q.ns, q.edges.p, q.ns, q.first_state, q.lab.p, pl, kSweeps, descending,
                    q.changed.p);
                CUDA_TRY_LAUNCH();
                st->passes++;
            }
            TRY(x.copy_flag(i, q.changed.p, status));
        }
        TRY(x.sync_all(status));
        changed = false;
        for (uint32_t i = 0; i < P; i++)
            changed = changed || x.host_flag(i);
    }
    for (auto &q : x.part) {
        if (!q->ns)
            continue;
        CUDA_TRY(cudaSetDevice(q->device));
        unpack_labels<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->live.p, q->lab.p, q->in.p,
                                                                             q->out.p);
        CUDA_TRY_LAUNCH();
    }
    return CSR_OK;
}

/* The phases of label propagation over the `left` live states (classes as
 * set, foreign copies pulled; ref/partition.c's lp_phases): each live own
 * state gets comp, the largest state of its SCC, and leaves live; then the
 * foreign copies' liveness and classes are pulled (and, with choices, their
 * SCCs).  Choices: only enabled choices' transitions are edges; without,
 * the trimming within the classes between phases (trim_over_parts). */
int phases_over_parts(parted &x, uint64_t left, bool choices, gpu_parts_stats *st, csr_status *status)
{
    auto in_of = [](part_device &q) { return (void *)q.in.p; };
    auto out_of = [](part_device &q) { return (void *)q.out.p; };
    auto live_of = [](part_device &q) { return (void *)q.live.p; };
    auto cls_of = [](part_device &q) { return (void *)q.cls.p; };
    auto comp_of = [](part_device &q) { return (void *)q.comp.p; };
    while (left > 0) {
        st->phases++;
        for (auto &q : x.part) {
            if (!q->ns || x.peer) /* peer: propagate_peer's packed labels */
                continue;
            CUDA_TRY(cudaSetDevice(q->device));
            phase_labels<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->first_state, q->live.p,
                                                                                q->in.p, q->out.p);
            CUDA_TRY_LAUNCH();
        }
        TRY(x.sync_all(status));
        const double t = monotonic_seconds();
        if (x.peer)
            TRY(propagate_peer(x, choices, st, status));
        else
            TRY(x.pull<4>(in_of, status));
        if (!x.peer)
            TRY(x.pull<4>(out_of, status));
        for (bool changed = !x.peer; changed;) {
            st->rounds++;
            changed = false;
            for (auto &q : x.part) { /* each part to its local fixpoint */
                if (!q->ns)
                    continue;
                CUDA_TRY(cudaSetDevice(q->device));
                for (unsigned rose = 1; rose;) {
                    CUDA_TRY(cudaMemsetAsync(q->changed.p, 0, sizeof(unsigned), q->stream));
                    if (choices)
                        relax_pass<true><<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(
                            q->ns, q->row.p, q->crow.p, q->ctr.p, q->enabled.p, q->target.p, q->live.p, q->cls.p,
                            q->in.p, q->out.p, q->changed.p);
                    else
                        relax_pass<false><<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(
                            q->ns, q->row.p, nullptr, nullptr, nullptr, q->target.p, q->live.p, q->cls.p, q->in.p,
                            q->out.p, q->changed.p);
                    CUDA_TRY_LAUNCH();
                    CUDA_TRY(cudaMemcpyAsync(&rose, q->changed.p, sizeof rose, cudaMemcpyDeviceToHost, q->stream));
                    CUDA_TRY(cudaStreamSynchronize(q->stream));
                    st->passes++;
                    changed = changed || rose;
                }
            }
            TRY(push_in(x, &changed, status));
            TRY(x.pull<4>(in_of, status));
            TRY(x.pull<4>(out_of, status));
        }
        st->propagate_s += monotonic_seconds() - t;
        for (auto &q : x.part) {
            CUDA_TRY(cudaSetDevice(q->device));
            CUDA_TRY(cudaMemsetAsync(q->done.p, 0, sizeof(unsigned long long), q->stream));
            if (!q->ns)
                continue;
            phase_finish<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->live.p, q->in.p, q->out.p,
                                                                                q->cls.p, q->comp.p, q->done.p);
            CUDA_TRY_LAUNCH();
        }
        unsigned long long finished = 0;
        TRY(x.sum([](part_device &q) { return q.done.p; }, &finished, status));
        if (finished == 0) /* every phase finishes the SCC of the largest live state */
            return csr_fail(status, CSR_ERR_DEVICE, "label propagation over the parts finished no SCC in a phase");
        left -= finished;
        TRY(x.pull<1>(live_of, status));
        TRY(x.pull<8>(cls_of, status));
        if (!choices && left > 0) { /* the lp engine's peeling between phases */
            const uint64_t before = st->trimmed;
            TRY(trim_over_parts(x, &st->trimmed, &st->trim_rounds, &st->trim_s, status));
            left -= st->trimmed - before;
        }
    }
    return choices ? x.pull<4>(comp_of, status) : CSR_OK;
}

/* The own states' ids of every part (comp) into ids, renamed from the
 * largest state of each component to its smallest (none kept). */
int download_ids(parted &x, uint64_t n, uint32_t *ids, gpu_parts_stats *st, csr_status *status)
{
    double t = monotonic_seconds();
    for (auto &q : x.part) {
        if (!q->ns)
            continue;
        CUDA_TRY(cudaSetDevice(q->device));
        CUDA_TRY(cudaMemcpy(ids + q->first_state, q->comp.p, q->ns * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    }
    std::vector<uint32_t> smallest(n ? n : 1, UINT32_MAX);
    for (uint64_t s = 0; s < n; s++)
        if (ids[s] != UINT32_MAX && smallest[ids[s]] == UINT32_MAX)
            smallest[ids[s]] = (uint32_t)s;
    for (uint64_t s = 0; s < n; s++)
        if (ids[s] != UINT32_MAX)
            ids[s] = smallest[ids[s]];
    st->download_s = monotonic_seconds() - t;
    st->exchanged_bytes = x.exchanged;
    return CSR_OK;
}

int scc_over_parts(const csr_model *m, const gpu_parts_options *o, const csr_partition *p, uint32_t *scc,
                   gpu_parts_stats *st, csr_status *status)
{
    parted x;
    TRY(open_parts(m, o, p, false, x, st, status));
    double t = monotonic_seconds();
    TRY(trim_over_parts(x, &st->trimmed, &st->trim_rounds, &st->trim_s, status));
    TRY(phases_over_parts(x, m->num_states - st->trimmed, false, st, status));
    st->resident_s = monotonic_seconds() - t;
    return download_ids(x, m->num_states, scc, st, status);
}

int mec_over_parts(const csr_model *m, const gpu_parts_options *o, const csr_partition *p, uint32_t *mec,
                   gpu_parts_stats *st, csr_status *status)
{
    parted x;
    TRY(open_parts(m, o, p, true, x, st, status));
    double t = monotonic_seconds();
    auto live_of = [](part_device &q) { return (void *)q.live.p; };
    auto cls_of = [](part_device &q) { return (void *)q.cls.p; };
    auto tflag_of = [](part_device &q) { return (void *)q.tflag.p; };
    auto removed_of = [](part_device &q) { return q.removed.p; };
    auto removed_choices_of = [](part_device &q) { return q.removed.p + 1; };
    auto queued_of = [](part_device &q) { return q.counts.p; };
    for (auto &q : x.part) { /* every state in play, nothing queued, classes 0 */
        const uint64_t len = q->ns + q->nf;
        CUDA_TRY(cudaSetDevice(q->device));
        fill_u32<<<grid_for(len ? len : 1, kThreads), kThreads, 0, q->stream>>>(len, kLive, q->tflag.p);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemsetAsync(q->counts.p, 0, 2 * sizeof(unsigned), q->stream));
    }
    TRY(x.sync_all(status));
    for (;;) {
        st->mec_rounds++;
        /* the SCCs of the states in play over the enabled choices, inside
         * the round before's (the classes) */
        for (auto &q : x.part) {
            CUDA_TRY(cudaSetDevice(q->device));
            CUDA_TRY(cudaMemsetAsync(q->done.p, 0, sizeof(unsigned long long), q->stream));
            if (!q->ns)
                continue;
            mec_round_start<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->tflag.p, q->live.p,
                                                                                   q->done.p);
            CUDA_TRY_LAUNCH();
        }
        unsigned long long in_play = 0, states = 0, choices = 0;
        TRY(x.sum([](part_device &q) { return q.done.p; }, &in_play, status));
        TRY(x.pull<1>(live_of, status));
        TRY(x.pull<8>(cls_of, status));
        if (!in_play)
            break;
        TRY(phases_over_parts(x, in_play, true, st, status));
        const uint64_t before = st->removed_states + st->removed_choices; /* the counters after the round before */
        /* Algorithm 7: the choices that leave their SCC; the states left without choices queued */
        for (auto &q : x.part) {
            if (!q->ns)
                continue;
            CUDA_TRY(cudaSetDevice(q->device));
            mec_remove_leaving<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(
                q->ns, q->crow.p, q->ctr.p, q->target.p, q->comp.p, q->tflag.p, q->enabled.p, q->cleft.p, q->cur,
                q->counts.p, q->removed.p);
            CUDA_TRY_LAUNCH();
        }
        TRY(x.sync_all(status));
        /* the attractor over the parts: each drains its queue, then the
         * flags are pulled; until no part has anything queued */
        for (;;) {
            unsigned queued = 0;
            TRY(x.sum(queued_of, &queued, status));
            if (!queued)
                break;
            st->attractor_rounds++;
            TRY(drain_parts(
                x,
                [](part_device &q, const unsigned *size) {
                    mec_attract_level<<<grid_for(q.ns, kThreads), kThreads, 0, q.stream>>>(
                        q.cur, size, q.tr.first, q.tr.source, q.tr.choice, q.tflag.p, q.enabled.p, q.cleft.p, q.nxt,
                        q.counts.p + 1, q.removed.p);
                },
                status));
            TRY(x.pull<4>(tflag_of, status, true)); /* the owners' flags into each reader's rbuf */
            for (auto &q : x.part) {
                if (!q->nf)
                    continue;
                CUDA_TRY(cudaSetDevice(q->device));
                mec_attract_pull<<<grid_for(q->nf, kThreads), kThreads, 0, q->stream>>>(
                    q->ns, q->nf, q->rbuf.p, q->tr.first, q->tr.source, q->tr.choice, q->tflag.p, q->enabled.p,
                    q->cleft.p, q->cur, q->counts.p, q->removed.p);
                CUDA_TRY_LAUNCH();
            }
            TRY(x.sync_all(status));
        }
        TRY(x.sum(removed_of, &states, status));
        TRY(x.sum(removed_choices_of, &choices, status));
        st->removed_states = states;
        st->removed_choices = choices;
        if (states + choices == before)
            break; /* nothing left any SCC: each is an end component, and maximal */
        for (auto &q : x.part) { /* the next round's regions: this round's SCCs */
            if (!q->ns)
                continue;
            CUDA_TRY(cudaSetDevice(q->device));
            mec_regions<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->tflag.p, q->comp.p, q->cls.p);
            CUDA_TRY_LAUNCH();
        }
        TRY(x.sync_all(status));
    }
    for (auto &q : x.part) {
        if (!q->ns)
            continue;
        CUDA_TRY(cudaSetDevice(q->device));
        mec_result<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->tflag.p, q->comp.p);
        CUDA_TRY_LAUNCH();
    }
    TRY(x.sync_all(status));
    st->resident_s = monotonic_seconds() - t;
    TRY(download_ids(x, m->num_states, mec, st, status));
    for (uint64_t s = 0; s < m->num_states; s++)
        if (mec[s] != UINT32_MAX) {
            st->states_in_mecs++;
            st->mecs += mec[s] == s;
        }
    return CSR_OK;
}

/* Partition the model and run over_parts on its parts (the checks and the
 * partition shared by the public entries). */
template <typename F>
int run_partitioned(const csr_model *m, const gpu_parts_options *o, uint32_t *ids, gpu_parts_stats *stats,
                    csr_status *status, F over_parts)
{
    gpu_parts_stats st;
    memset(&st, 0, sizeof st);
    st.exchange = "copies";
    if (o->num_devices < 1 || o->num_devices > GPU_PARTS_MAX_DEVICES)
        return csr_fail(status, CSR_ERR_USAGE, "%d devices: 1 to %d", o->num_devices, GPU_PARTS_MAX_DEVICES);
    if (m->num_states >= UINT32_MAX)
        return csr_fail(status, CSR_ERR_TOO_LARGE, "%llu states: the partitioned decompositions take fewer than 2^32 - 1",
                        (unsigned long long)m->num_states);
    if (m->num_choices >= UINT32_MAX)
        return csr_fail(status, CSR_ERR_TOO_LARGE, "%llu choices: the partitioned decompositions take fewer than 2^32 - 1",
                        (unsigned long long)m->num_choices);
    double t = monotonic_seconds();
    csr_partition p;
    memset(&p, 0, sizeof p);
    TRY(csr_partition_build(m, o->parts, &p, status));
    st.partition_s = monotonic_seconds() - t;
    int rc = over_parts(m, o, &p, ids, &st, status);
    csr_partition_free(&p);
    if (stats)
        *stats = st;
    return rc;
}

} /* namespace */

extern "C" const char *gpu_exchange_name(gpu_exchange e)
{
    switch (e) {
    case GPU_EXCHANGE_AUTO: return "auto";
    case GPU_EXCHANGE_COPIES: return "copies";
    case GPU_EXCHANGE_NCCL: return "nccl";
    case GPU_EXCHANGE_PEER: return "peer";
    }
    return NULL;
}

extern "C" int gpu_exchange_by_name(const char *name)
{
    for (int e = GPU_EXCHANGE_AUTO; e <= GPU_EXCHANGE_PEER; e++)
        if (!strcmp(name, gpu_exchange_name((gpu_exchange)e)))
            return e;
    return -1;
}


extern "C" int gpu_scc_partitioned(const csr_model *m, const gpu_parts_options *o, uint32_t *scc,
                                   gpu_parts_stats *stats, csr_status *status)
{
    return run_partitioned(m, o, scc, stats, status, scc_over_parts);
}

extern "C" int gpu_mec_partitioned(const csr_model *m, const gpu_parts_options *o, uint32_t *mec,
                                   gpu_parts_stats *stats, csr_status *status)
{
    return run_partitioned(m, o, mec, stats, status, mec_over_parts);
}

extern "C" int gpu_parts_check_exchange(const gpu_parts_options *o, csr_status *status)
{
    if (o->exchange == GPU_EXCHANGE_PEER) {
        bool peer = false;
        TRY(peer_capable(o, o->parts, &peer, status));
        return peer ? 0 : csr_fail(status, CSR_ERR_USAGE, "peer: the devices do not all map each other's memory "
                                                          "(cudaDeviceCanAccessPeer; use nccl or copies)");
    }
    if (o->exchange != GPU_EXCHANGE_NCCL)
        return 0;
    if (!parts_on_distinct_devices(o, o->parts))
        return nccl_placement_refused(o, o->parts, status);
    nccl_api api;
    if (o->parts > 1 && !api.load())
        return csr_fail(status, CSR_ERR_USAGE, "NCCL: libnccl.so.2 cannot be loaded: %s", dlerror());
    return 0;
}
