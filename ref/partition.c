/*
 * partition.c - a model split into parts for several GPUs, and value
 * iteration over the parts on the CPU (partition.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lower_bound.h"
#include "parallel.h"
#include "partition.h"

void csr_partition_exchange(const csr_partition *p, csr_exchange_fn *fn, void *ctx)
{
    const uint32_t P = p->parts;
    for (uint32_t o = 0; o < P; o++)
        for (uint32_t r = 0; r < P; r++) {
            const csr_part *q = &p->part[r];
            const uint64_t a = p->send_first[(uint64_t)o * P + r], b = p->send_first[(uint64_t)o * P + r + 1];
            for (uint64_t k = a; k < b; k++)
                fn(ctx, o, p->send_index[k], r, q->num_states + q->recv_first[o] + (k - a));
        }
}

void csr_partition_free(csr_partition *p)
{
    if (p->part)
        for (uint32_t i = 0; i < p->parts; i++) {
            free(p->part[i].foreign);
            free(p->part[i].local_targets);
            free(p->part[i].recv_first);
        }
    free(p->part);
    free(p->send_first);
    free(p->send_index);
    memset(p, 0, sizeof *p);
}

uint32_t csr_partition_owner(const csr_partition *p, uint64_t s)
{
    /* the last part whose range starts at or before s: it holds s (an empty
     * part starts where the next one does, so it is never the last such) */
    uint32_t lo = 0, hi = p->parts - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (p->part[mid].first_state <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The first state of each part: part i starts at the first state whose rows
 * begin at or after i * t / P transitions (monotone, so ranges are
 * contiguous; states without transitions go with the part before). */
static void cut_ranges(const csr_model *m, uint32_t parts, csr_part *part)
{
    const uint64_t n = m->num_states, t = m->num_transitions;
    uint64_t s = 0;
    for (uint32_t i = 0; i < parts; i++) {
        const uint64_t goal = (uint64_t)((unsigned __int128)t * i / parts);
        while (s < n && m->choice_transitions[m->state_choices[s]] < goal)
            s++;
        part[i].first_state = s;
    }
    for (uint32_t i = 0; i < parts; i++) {
        csr_part *q = &part[i];
        const uint64_t end = i + 1 < parts ? part[i + 1].first_state : n;
        q->num_states = end - q->first_state;
        q->first_choice = m->state_choices[q->first_state];
        q->num_choices = m->state_choices[end] - q->first_choice;
        q->first_transition = m->choice_transitions[q->first_choice];
        q->num_transitions = m->choice_transitions[q->first_choice + q->num_choices] - q->first_transition;
    }
}

int ref_radix_sort_u32(uint32_t *a, uint32_t *scratch, uint64_t n)
{
    uint64_t *count = malloc(65536 * sizeof *count);
    if (!count)
        return CSR_ERR_NOMEM;
    uint32_t *from = a, *to = scratch;
    for (unsigned shift = 0; shift < 32; shift += 16) {
        memset(count, 0, 65536 * sizeof *count);
        for (uint64_t i = 0; i < n; i++)
            count[(from[i] >> shift) & 0xffff]++;
        uint64_t at = 0;
        for (unsigned d = 0; d < 65536; d++) {
            const uint64_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (uint64_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & 0xffff]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    free(count); /* two passes: the result is back in a */
    return CSR_OK;
}

/* One chunk of a part's transitions [first, end) for localise's parallel
 * passes: by sort, 0 counts the cross transitions, 1 writes their targets
 * from `at`, 2 writes the local targets through the buckets; by bitmap, 3
 * marks the cross transitions' targets in `seen`, 4 writes the local
 * targets through `rank`. */
enum { PASS_COUNT, PASS_GATHER, PASS_BY_BUCKET, PASS_MARK, PASS_BY_RANK };
typedef struct localise_chunk {
    csr_part *q;
    const uint32_t *tg;
    uint64_t first, end, cross, at;
    const uint64_t *bucket;
    uint64_t *seen;       /* bit w: state w is a cross transition's target */
    const uint32_t *rank; /* [w / 64]: the marked states before word w / 64 */
    unsigned shift, pass;
} localise_chunk;

static void *localise_pass(void *arg)
{
    localise_chunk *c = arg;
    csr_part *q = c->q;
    const uint64_t lo = q->first_state, hi = q->first_state + q->num_states;
    const uint32_t *tg = c->tg;
    if (c->pass == PASS_MARK) {
        uint64_t *seen = c->seen;
        for (uint64_t i = c->first; i < c->end; i++) {
            const uint32_t w = tg[i];
            const uint64_t bit = 1ull << (w & 63);
            if ((w < lo || w >= hi) && !(__atomic_load_n(&seen[w >> 6], __ATOMIC_RELAXED) & bit))
                __atomic_fetch_or(&seen[w >> 6], bit, __ATOMIC_RELAXED);
        }
    } else if (c->pass == PASS_BY_RANK) {
        const uint64_t *seen = c->seen;
        for (uint64_t i = c->first; i < c->end; i++) {
            const uint32_t w = tg[i];
            q->local_targets[i] = w >= lo && w < hi ? (uint32_t)(w - lo)
                                                    : (uint32_t)(q->num_states + c->rank[w >> 6] +
                                                                 __builtin_popcountll(seen[w >> 6] &
                                                                                      ((1ull << (w & 63)) - 1)));
        }
    } else if (c->pass == PASS_COUNT) {
        uint64_t cross = 0;
        for (uint64_t i = c->first; i < c->end; i++)
            cross += tg[i] < lo || tg[i] >= hi;
        c->cross = cross;
    } else if (c->pass == PASS_GATHER) {
        uint64_t k = c->at;
        for (uint64_t i = c->first; i < c->end; i++)
            if (tg[i] < lo || tg[i] >= hi)
                q->foreign[k++] = tg[i];
    } else {
        for (uint64_t i = c->first; i < c->end; i++) {
            uint32_t w = tg[i];
            if (w >= lo && w < hi) {
                q->local_targets[i] = (uint32_t)(w - lo);
                continue;
            }
            /* w is in foreign[0 .. u), in its bucket */
            const uint64_t b = w >> c->shift;
            q->local_targets[i] =
                (uint32_t)(q->num_states + lower_bound_u32(q->foreign, c->bucket[b], c->bucket[b + 1], w));
        }
    }
    return NULL;
}

/* localise by a bitmap of the model's states: the cross transitions'
 * targets marked (in chunks at once), the foreign states read off it in
 * order, each word's rank (the marked states before it) kept, and each
 * cross transition's local target its rank plus the marked bits below it
 * in its word.  n / 8 + n / 16 bytes (n: the model's states), O(t_part + n / 64). */
static int localise_by_bitmap(const csr_model *m, csr_part *q, localise_chunk *chunk, unsigned count)
{
    const uint64_t t = q->num_transitions, words = (m->num_states + 63) / 64;
    uint64_t *seen = calloc(words ? words : 1, sizeof *seen);
    uint32_t *rank = malloc((words ? words : 1) * sizeof *rank);
    q->local_targets = malloc((t ? t : 1) * sizeof *q->local_targets);
    if (!seen || !rank || !q->local_targets) {
        free(seen);
        free(rank);
        return CSR_ERR_NOMEM;
    }
    for (unsigned i = 0; i < count; i++) {
        chunk[i].pass = PASS_MARK;
        chunk[i].seen = seen;
        chunk[i].rank = rank;
    }
    parallel_run(localise_pass, chunk, sizeof chunk[0], count);
    uint64_t u = 0;
    for (uint64_t k = 0; k < words; k++) {
        rank[k] = (uint32_t)u; /* fewer than 2^32 - 1 states (csr_partition_build) */
        u += (uint64_t)__builtin_popcountll(seen[k]);
    }
    q->foreign = malloc((u ? u : 1) * sizeof *q->foreign);
    if (!q->foreign) {
        free(seen);
        free(rank);
        return CSR_ERR_NOMEM;
    }
    q->num_foreign = u;
    for (uint64_t k = 0, at = 0; k < words; k++)
        for (uint64_t bits = seen[k]; bits; bits &= bits - 1)
            q->foreign[at++] = (uint32_t)(64 * k + (uint64_t)__builtin_ctzll(bits));
    for (unsigned i = 0; i < count; i++)
        chunk[i].pass = PASS_BY_RANK;
    parallel_run(localise_pass, chunk, sizeof chunk[0], count);
    free(seen);
    free(rank);
    return CSR_OK;
}

/* Foreign states and local targets of part q, the passes over its
 * transitions in `threads` chunks at once.  Where the model's states are
 * at most 32 times the part's transitions (its bitmap no larger than the
 * local targets), by a bitmap (localise_by_bitmap: phil7 in 2 parts, 9M
 * states, 3.9M foreign, on the lent 2x H200 host 0.34 s by sort, 0.10 s by
 * the bitmap); else the cross transitions' targets radix-sorted and made
 * unique, then each looked up through a table of buckets of the foreign
 * states by their high bits (about one foreign state a bucket), so that the
 * whole costs O(t_part + foreign) instead of a comparison sort and a binary
 * search a transition.  The same foreign states and local targets either
 * way. */
static int localise(const csr_model *m, csr_part *q, unsigned threads)
{
    const uint32_t *tg = m->targets + q->first_transition;
    const uint64_t t = q->num_transitions;
    localise_chunk chunk[PARALLEL_MAX_TASKS];
    unsigned count = parallel_tasks(t, parallel_grain(1 << 20));
    if (count > threads)
        count = threads;
    for (unsigned i = 0; i < count; i++)
        chunk[i] = (localise_chunk){q, tg, t * i / count, t * (i + 1) / count, 0, 0, NULL, NULL, NULL, 0, PASS_COUNT};
    if (t && m->num_states <= 32 * t && !getenv("CSR_TEST_PARTITION_BY_SORT"))
        return localise_by_bitmap(m, q, chunk, count);
    parallel_run(localise_pass, chunk, sizeof chunk[0], count);
    uint64_t cross = 0;
    for (unsigned i = 0; i < count; i++) {
        chunk[i].at = cross;
        chunk[i].pass = PASS_GATHER;
        cross += chunk[i].cross;
    }
    q->local_targets = malloc((t ? t : 1) * sizeof *q->local_targets);
    q->foreign = malloc((cross ? cross : 1) * sizeof *q->foreign);
    uint32_t *scratch = malloc((cross ? cross : 1) * sizeof *scratch);
    if (!q->local_targets || !q->foreign || !scratch) {
        free(scratch);
        return CSR_ERR_NOMEM;
    }
    parallel_run(localise_pass, chunk, sizeof chunk[0], count);
    int rc = ref_radix_sort_u32(q->foreign, scratch, cross);
    free(scratch);
    if (rc)
        return rc;
    uint64_t u = 0;
    for (uint64_t i = 0; i < cross; i++)
        if (u == 0 || q->foreign[u - 1] != q->foreign[i])
            q->foreign[u++] = q->foreign[i];
    q->num_foreign = u;
    /* bucket b = w >> shift holds foreign[bucket[b] .. bucket[b + 1]) */
    unsigned shift = 0;
    while (u && (uint64_t)(q->foreign[u - 1] >> shift) >= u)
        shift++;
    const uint64_t buckets = u ? ((uint64_t)q->foreign[u - 1] >> shift) + 1 : 0;
    uint64_t *bucket = calloc(buckets + 1, sizeof *bucket);
    if (!bucket)
        return CSR_ERR_NOMEM;
    for (uint64_t i = 0; i < u; i++)
        bucket[(q->foreign[i] >> shift) + 1]++;
    for (uint64_t b = 0; b < buckets; b++)
        bucket[b + 1] += bucket[b];
    for (unsigned i = 0; i < count; i++) {
        chunk[i].pass = PASS_BY_BUCKET;
        chunk[i].bucket = bucket;
        chunk[i].shift = shift;
    }
    parallel_run(localise_pass, chunk, sizeof chunk[0], count);
    free(bucket);
    return CSR_OK;
}

/* Parts first, first + stride, ... of a partition localised by one task. */
typedef struct localise_task {
    const csr_model *m;
    csr_part *part;
    uint32_t parts, first, stride;
    unsigned threads; /* for the passes over one part's transitions */
    int rc;
} localise_task;

static void *localise_parts(void *arg)
{
    localise_task *k = arg;
    k->rc = CSR_OK;
    for (uint32_t i = k->first; i < k->parts && !k->rc; i += k->stride)
        k->rc = localise(k->m, &k->part[i], k->threads);
    return NULL;
}

int csr_partition_build(const csr_model *m, uint32_t parts, csr_partition *out, csr_status *st)
{
    memset(out, 0, sizeof *out);
    if (parts < 1 || parts > 65536)
        return csr_fail(st, CSR_ERR_USAGE, "%u parts: 1 to 65536", parts);
    if (m->num_states >= UINT32_MAX)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "%llu states: a partition takes fewer than 2^32 - 1",
                        (unsigned long long)m->num_states);
    out->parts = parts;
    out->part = calloc(parts, sizeof *out->part);
    out->send_first = calloc((uint64_t)parts * parts + 1, sizeof *out->send_first);
    if (!out->part || !out->send_first)
        goto nomem;
    cut_ranges(m, parts, out->part);
    {
        /* the parts localised by a task per CPU, each part alone (format/parallel.h) */
        localise_task task[PARALLEL_MAX_TASKS];
        /* a task per part, but no more than the transitions make worth a thread */
        const unsigned by_work = parallel_tasks(m->num_transitions, parallel_grain(1 << 16));
        const unsigned by_parts = parallel_tasks(parts, 1);
        const unsigned count = by_parts < by_work ? by_parts : by_work, cpus = parallel_cpus();
        const unsigned threads = cpus > count ? cpus / count : 1; /* fewer parts than CPUs: each part's passes in chunks */
        for (unsigned i = 0; i < count; i++)
            task[i] = (localise_task){m, out->part, parts, i, count, threads, CSR_OK};
        parallel_run(localise_parts, task, sizeof task[0], count);
        for (unsigned i = 0; i < count; i++)
            if (task[i].rc)
                goto nomem;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < parts; i++)
        total += out->part[i].num_foreign;
    /* recv slices: foreign states ascending, owners' ranges ascending */
    for (uint32_t r = 0; r < parts; r++) {
        csr_part *q = &out->part[r];
        q->recv_first = malloc(((uint64_t)parts + 1) * sizeof *q->recv_first);
        if (!q->recv_first)
            goto nomem;
        uint64_t k = 0;
        for (uint32_t o = 0; o < parts; o++) {
            q->recv_first[o] = k;
            const uint64_t end = out->part[o].first_state + out->part[o].num_states;
            while (k < q->num_foreign && q->foreign[k] < end)
                k++;
        }
        q->recv_first[parts] = k;
    }
    /* send lists, pair (o, r) at o * parts + r */
    out->send_index = malloc((total ? total : 1) * sizeof *out->send_index);
    if (!out->send_index)
        goto nomem;
    uint64_t at = 0;
    for (uint32_t o = 0; o < parts; o++)
        for (uint32_t r = 0; r < parts; r++) {
            out->send_first[(uint64_t)o * parts + r] = at;
            const csr_part *q = &out->part[r];
            for (uint64_t k = q->recv_first[o]; k < q->recv_first[o + 1]; k++)
                out->send_index[at++] = (uint32_t)(q->foreign[k] - out->part[o].first_state);
        }
    out->send_first[(uint64_t)parts * parts] = at;
    return CSR_OK;
nomem:
    csr_partition_free(out);
    return csr_fail(st, CSR_ERR_NOMEM, "partition into %u parts", parts);
}

/* One Bellman step of state s's rows: rows [c0, c1) of choices, transitions
 * from `first`, targets `tg` indexing `x`. */
static double bellman(const csr_model *m, uint64_t c0, uint64_t c1, uint64_t first, const uint32_t *tg,
                      const double *x, int maximise)
{
    double best = 0.0;
    for (uint64_t c = c0; c < c1; c++) {
        double sum = 0.0;
        for (uint64_t i = m->choice_transitions[c]; i < m->choice_transitions[c + 1]; i++)
            sum += m->probabilities[i] * x[tg[i - first]];
        if (c == c0 || (maximise ? sum > best : sum < best))
            best = sum;
    }
    return best;
}

int ref_vi_steps(const csr_model *m, const uint8_t *target, int maximise, uint64_t steps, double *x)
{
    const uint64_t n = m->num_states;
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y)
        return CSR_ERR_NOMEM;
    for (uint64_t s = 0; s < n; s++)
        x[s] = target[s] ? 1.0 : 0.0;
    for (uint64_t k = 0; k < steps; k++) {
        for (uint64_t s = 0; s < n; s++)
            y[s] = target[s] ? 1.0
                             : bellman(m, m->state_choices[s], m->state_choices[s + 1], 0, m->targets, x, maximise);
        memcpy(x, y, n * sizeof *x);
    }
    free(y);
    return CSR_OK;
}

static void pull_value(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    double **x = ctx;
    x[r][copy] = x[o][own];
}

int ref_vi_steps_partitioned(const csr_model *m, const csr_partition *p, const uint8_t *target, int maximise,
                             uint64_t steps, double *x)
{
    const uint32_t P = p->parts;
    double **cur = calloc(P, sizeof *cur), **next = calloc(P, sizeof *next);
    int rc = CSR_ERR_NOMEM;
    if (!cur || !next)
        goto out;
    for (uint32_t i = 0; i < P; i++) {
        const csr_part *q = &p->part[i];
        const uint64_t len = q->num_states + q->num_foreign;
        cur[i] = malloc((len ? len : 1) * sizeof **cur);
        next[i] = malloc((len ? len : 1) * sizeof **next);
        if (!cur[i] || !next[i])
            goto out;
        for (uint64_t j = 0; j < q->num_states; j++)
            cur[i][j] = target[q->first_state + j] ? 1.0 : 0.0;
        for (uint64_t j = 0; j < q->num_foreign; j++)
            cur[i][q->num_states + j] = target[q->foreign[j]] ? 1.0 : 0.0;
    }
    for (uint64_t k = 0; k < steps; k++) {
        /* every part computes its own states from its reduced vector */
        for (uint32_t i = 0; i < P; i++) {
            const csr_part *q = &p->part[i];
            for (uint64_t j = 0; j < q->num_states; j++) {
                const uint64_t s = q->first_state + j;
                next[i][j] = target[s] ? 1.0
                                       : bellman(m, m->state_choices[s], m->state_choices[s + 1], q->first_transition,
                                                 q->local_targets, cur[i], maximise);
            }
        }
        /* the exchange: each foreign copy takes its owner's new value (on
         * GPUs: a gather on the owner, one send and one receive a pair) */
        csr_partition_exchange(p, pull_value, next);
        double **swap = cur;
        cur = next;
        next = swap;
    }
    for (uint32_t i = 0; i < P; i++)
        memcpy(x + p->part[i].first_state, cur[i], p->part[i].num_states * sizeof *x);
    rc = CSR_OK;
out:
    for (uint32_t i = 0; i < P; i++) {
        if (cur)
            free(cur[i]);
        if (next)
            free(next[i]);
    }
    free(cur);
    free(next);
    return rc;
}

/* The local targets of own state j of part q (all its choices' transitions):
 * *targets[0 .. return value). */
static uint64_t part_row(const csr_model *m, const csr_part *q, uint64_t j, const uint32_t **targets)
{
    const uint64_t s = q->first_state + j;
    const uint64_t first = m->choice_transitions[m->state_choices[s]];
    *targets = q->local_targets + (first - q->first_transition);
    return m->choice_transitions[m->state_choices[s + 1]] - first;
}

/* ---- label propagation over the parts (the lp engine's scheme) ---------- */

/* One part's copies: own states first, then foreign ones. */
typedef struct lp_part {
    uint32_t *in, *out;
    uint8_t *live;
    uint64_t *cls;
    uint32_t *comp; /* own: the SCC found (its largest state); foreign: pulled */
} lp_part;

static void pull_labels(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    lp_part *lp = ctx;
    lp[r].in[copy] = lp[o].in[own];
    lp[r].out[copy] = lp[o].out[own];
    lp[r].live[copy] = lp[o].live[own];
    lp[r].cls[copy] = lp[o].cls[own];
    lp[r].comp[copy] = lp[o].comp[own];
}

/* Pull: every part's foreign copies take their owners' labels, liveness, class and SCC. */
static void pull(const csr_partition *p, lp_part *lp) { csr_partition_exchange(p, pull_labels, lp); }

typedef struct push_ctx {
    lp_part *lp;
    int changed;
} push_ctx;

static void push_label(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    push_ctx *c = ctx;
    const uint32_t v = c->lp[r].in[copy];
    if (v > c->lp[o].in[own]) {
        c->lp[o].in[own] = v;
        c->changed = 1;
    }
}

/* Push: every owner raises its states' in-labels to what the readers'
 * copies reached (the reverse of the pull, a max-reduction); whether any rose. */
static int push_in(const csr_partition *p, lp_part *lp)
{
    push_ctx c = {lp, 0};
    csr_partition_exchange(p, push_label, &c);
    return c.changed;
}

/* Relax part i's edges (own source, live ends of one class) to a local
 * fixpoint: in[w] >= in[v], out[v] >= out[w]; whether anything rose.  With
 * enabled (u8 a choice of the part, local index), only the transitions of
 * enabled choices are edges (the MEC rounds). */
static int relax_part(const csr_model *m, const csr_part *q, lp_part *l, const uint8_t *enabled)
{
    int any = 0, changed;
    do {
        changed = 0;
        for (uint64_t j = 0; j < q->num_states; j++) {
            if (!l->live[j])
                continue;
            const uint64_t s = q->first_state + j;
            for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
                if (enabled && !enabled[k - q->first_choice])
                    continue;
                const uint32_t *tg = q->local_targets + (m->choice_transitions[k] - q->first_transition);
                const uint64_t count = m->choice_transitions[k + 1] - m->choice_transitions[k];
                for (uint64_t e = 0; e < count; e++) {
                    const uint32_t w = tg[e];
                    if (w == j || !l->live[w] || l->cls[w] != l->cls[j])
                        continue;
                    if (l->in[j] > l->in[w]) {
                        l->in[w] = l->in[j];
                        changed = 1;
                    }
                    if (l->out[w] > l->out[j]) {
                        l->out[j] = l->out[w];
                        changed = 1;
                    }
                }
            }
        }
        any |= changed;
    } while (changed);
    return any;
}

typedef struct trim_part trim_part;
static uint64_t peel_classes(const csr_model *m, const csr_partition *p, trim_part *tp, lp_part *lp,
                             ref_scc_parts_stats *st);
static trim_part *trim_open(const csr_model *m, const csr_partition *p);
static void trim_close(trim_part *tp, uint32_t parts);

/* The phases of label propagation over the `left` live states of lp (their
 * classes as given; foreign copies pulled): each live own state gets comp =
 * the largest state of its SCC and leaves live.  enabled: per part, its
 * choices' flags (NULL: every transition an edge).  tp (or NULL): the
 * lp engine's peeling first and between phases (peel_classes: the trimming
 * within the classes, each state trimmed an SCC of its own).  Counts into
 * st. */
static void lp_phases(const csr_model *m, const csr_partition *p, lp_part *lp, uint8_t *const *enabled, uint64_t left,
                      trim_part *tp, ref_scc_parts_stats *st)
{
    const uint32_t P = p->parts;
    if (tp)
        left -= peel_classes(m, p, tp, lp, st);
    while (left > 0) {
        st->phases++;
        for (uint32_t i = 0; i < P; i++)
            for (uint64_t j = 0; j < p->part[i].num_states; j++)
                if (lp[i].live[j])
                    lp[i].in[j] = lp[i].out[j] = (uint32_t)(p->part[i].first_state + j);
        pull(p, lp);
        /* rounds: every part to its local fixpoint, then the exchange, until
         * no label rises anywhere (a GPU would run its part's passes, then
         * one push and one pull through NCCL) */
        for (int changed = 1; changed;) {
            st->rounds++;
            changed = 0;
            for (uint32_t i = 0; i < P; i++)
                changed |= relax_part(m, &p->part[i], &lp[i], enabled ? enabled[i] : NULL);
            changed |= push_in(p, lp);
            pull(p, lp);
        }
        /* in == out: done, in names the SCC; the rest keep (in, out) as class */
        for (uint32_t i = 0; i < P; i++)
            for (uint64_t j = 0; j < p->part[i].num_states; j++) {
                if (!lp[i].live[j])
                    continue;
                lp[i].cls[j] = (uint64_t)lp[i].in[j] << 32 | lp[i].out[j];
                if (lp[i].in[j] == lp[i].out[j]) {
                    lp[i].comp[j] = lp[i].in[j];
                    lp[i].live[j] = 0;
                    left--;
                }
            }
        pull(p, lp);
        if (tp && left > 0)
            left -= peel_classes(m, p, tp, lp, st);
    }
}

static void lp_free(lp_part *lp, uint32_t parts)
{
    for (uint32_t i = 0; lp && i < parts; i++) {
        free(lp[i].in);
        free(lp[i].out);
        free(lp[i].live);
        free(lp[i].cls);
        free(lp[i].comp);
    }
    free(lp);
}

/* Every part's label arrays over own + foreign states: all live, class 0. */
static lp_part *lp_alloc(const csr_partition *p)
{
    lp_part *lp = calloc(p->parts, sizeof *lp);
    for (uint32_t i = 0; lp && i < p->parts; i++) {
        const uint64_t len = p->part[i].num_states + p->part[i].num_foreign;
        lp[i].in = malloc((len ? len : 1) * sizeof *lp[i].in);
        lp[i].out = malloc((len ? len : 1) * sizeof *lp[i].out);
        lp[i].live = malloc(len ? len : 1);
        lp[i].cls = calloc(len ? len : 1, sizeof *lp[i].cls);
        lp[i].comp = calloc(len ? len : 1, sizeof *lp[i].comp);
        if (!lp[i].in || !lp[i].out || !lp[i].live || !lp[i].cls || !lp[i].comp) {
            lp_free(lp, p->parts);
            return NULL;
        }
        memset(lp[i].live, 1, len);
    }
    return lp;
}

/* comp (u64[n], each state's SCC named by any of its states) renamed to the
 * smallest state of each SCC (ref.h); NONE entries kept.  scratch: u64[n]. */
static void name_by_smallest(uint64_t n, uint64_t *comp, uint64_t *scratch, uint64_t none)
{
    for (uint64_t s = 0; s < n; s++)
        scratch[s] = UINT64_MAX;
    for (uint64_t s = 0; s < n; s++)
        if (comp[s] != none && scratch[comp[s]] == UINT64_MAX)
            scratch[comp[s]] = s;
    for (uint64_t s = 0; s < n; s++)
        if (comp[s] != none)
            comp[s] = scratch[comp[s]];
}

int ref_scc_partitioned(const csr_model *m, const csr_partition *p, int peel, uint64_t *comp, ref_scc_parts_stats *st)
{
    const uint32_t P = p->parts;
    const uint64_t n = m->num_states;
    lp_part *lp = lp_alloc(p);
    uint64_t *smallest = malloc((n ? n : 1) * sizeof *smallest);
    trim_part *tp = peel ? trim_open(m, p) : NULL;
    memset(st, 0, sizeof *st);
    if (!lp || !smallest || (peel && !tp)) {
        lp_free(lp, P);
        free(smallest);
        trim_close(tp, P);
        return CSR_ERR_NOMEM;
    }
    lp_phases(m, p, lp, NULL, n, tp, st);
    for (uint32_t i = 0; i < P; i++)
        for (uint64_t j = 0; j < p->part[i].num_states; j++)
            comp[p->part[i].first_state + j] = lp[i].comp[j];
    /* components named by their largest state, renamed to their smallest (ref.h) */
    name_by_smallest(n, comp, smallest, UINT64_MAX);
    lp_free(lp, P);
    free(smallest);
    trim_close(tp, P);
    return CSR_OK;
}

/* ---- trimming over the parts (the peeling block's scheme) --------------- */

/* Sources of the edges into each of the local indices [0, len) of a part
 * (own states and foreign ones), from its own rows, self-loops left out:
 * src[first[x] .. first[x + 1]) (once per transition), and with_choices:
 * choice[] beside src, the local index of the edge's choice. */
typedef struct local_transpose {
    uint64_t *first;
    uint32_t *src, *choice;
} local_transpose;

static int local_transpose_build(const csr_model *m, const csr_part *q, int with_choices, local_transpose *tr)
{
    const uint64_t len = q->num_states + q->num_foreign;
    const uint64_t nt = q->num_transitions ? q->num_transitions : 1;
    tr->first = calloc(len + 2, sizeof *tr->first);
    tr->src = malloc(nt * sizeof *tr->src);
    tr->choice = with_choices ? malloc(nt * sizeof *tr->choice) : NULL;
    if (!tr->first || !tr->src || (with_choices && !tr->choice))
        return CSR_ERR_NOMEM;
    /* counting sort: pass 0 counts each target's edges (at first[x + 2]),
     * the prefix sum makes first[x + 1] where x's sources start, pass 1
     * places them (leaving first[x + 1] where they end) */
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t j = 0; j < q->num_states; j++) {
            const uint64_t s = q->first_state + j;
            for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++)
                for (uint64_t i = m->choice_transitions[k]; i < m->choice_transitions[k + 1]; i++) {
                    const uint32_t w = q->local_targets[i - q->first_transition];
                    if (w == j)
                        continue;
                    if (pass == 0) {
                        tr->first[w + 2]++;
                        continue;
                    }
                    if (with_choices)
                        tr->choice[tr->first[w + 1]] = (uint32_t)(k - q->first_choice);
                    tr->src[tr->first[w + 1]++] = (uint32_t)j;
                }
        }
        if (pass == 0)
            for (uint64_t x = 0; x < len; x++)
                tr->first[x + 2] += tr->first[x + 1];
    }
    return CSR_OK;
}

static void local_transpose_free(local_transpose *tr)
{
    free(tr->first);
    free(tr->src);
    free(tr->choice);
}

enum { T_REMOVED = 0, T_LIVE = 1, T_QUEUED = 2 };

typedef struct trim_part {
    local_transpose tr;
    uint32_t *in_left, *out_left; /* own states: counted in- and out-transitions from and to other states */
    uint8_t *flag;                /* own + foreign (the foreign ones pulled) */
    uint32_t *outbox;             /* foreign: decrements (or, first, counts) of their owners' in_left */
    uint32_t *queue;              /* own states queued */
    uint64_t queued;
} trim_part;

/* What the trimming exchanges read: the parts, their trimming state and
 * their labels (NULL: every state live, one class). */
typedef struct trim_ctx {
    const csr_partition *p;
    trim_part *tp;
    const lp_part *lp;
} trim_ctx;

/* Whether the edge v -> w of a part (local indices, v != w) counts: both
 * ends live and of one class (l NULL: every edge). */
static int trim_counts(const lp_part *l, uint64_t v, uint64_t w)
{
    return !l || (l->live[v] && l->live[w] && l->cls[v] == l->cls[w]);
}

static void trim_queue(trim_part *t, uint32_t j)
{
    if (t->flag[j] == T_LIVE) {
        t->flag[j] = T_QUEUED;
        t->queue[t->queued++] = j;
    }
}

/* The outbox entry of part r's foreign copy `copy` (a local index). */
static uint32_t *outbox_of(const trim_ctx *c, uint32_t r, uint64_t copy)
{
    return &c->tp[r].outbox[copy - c->p->part[r].num_states];
}

static void push_counts(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    trim_ctx *c = ctx;
    trim_part *tp = c->tp;
    uint32_t *box = outbox_of(c, r, copy);
    tp[o].in_left[own] += *box;
    *box = 0;
}

static void push_decrements(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    trim_ctx *c = ctx;
    trim_part *tp = c->tp;
    uint32_t *box = outbox_of(c, r, copy);
    if (*box) {
        if (tp[o].flag[own] != T_REMOVED && (tp[o].in_left[own] -= *box) == 0)
            trim_queue(&tp[o], own);
        *box = 0;
    }
}

static void pull_flag(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    const trim_ctx *c = ctx;
    trim_part *tp = c->tp;
    const lp_part *l = c->lp ? &c->lp[r] : NULL;
    if (tp[o].flag[own] != T_REMOVED || tp[r].flag[copy] == T_REMOVED)
        return;
    tp[r].flag[copy] = T_REMOVED;
    for (uint64_t e = tp[r].tr.first[copy]; e < tp[r].tr.first[copy + 1]; e++) {
        const uint32_t v = tp[r].tr.src[e];
        if (trim_counts(l, v, copy) && tp[r].flag[v] != T_REMOVED && --tp[r].out_left[v] == 0)
            trim_queue(&tp[r], v);
    }
}

static void trim_close(trim_part *tp, uint32_t parts)
{
    for (uint32_t i = 0; tp && i < parts; i++) {
        local_transpose_free(&tp[i].tr);
        free(tp[i].in_left);
        free(tp[i].out_left);
        free(tp[i].flag);
        free(tp[i].outbox);
        free(tp[i].queue);
    }
    free(tp);
}

/* Every part's trimming state: its local transpose and buffers (NULL: out
 * of memory). */
static trim_part *trim_open(const csr_model *m, const csr_partition *p)
{
    trim_part *tp = calloc(p->parts, sizeof *tp);
    for (uint32_t i = 0; tp && i < p->parts; i++) {
        const csr_part *q = &p->part[i];
        trim_part *t = &tp[i];
        const uint64_t own = q->num_states, len = own + q->num_foreign;
        t->in_left = malloc((own ? own : 1) * sizeof *t->in_left);
        t->out_left = malloc((own ? own : 1) * sizeof *t->out_left);
        t->flag = malloc(len ? len : 1);
        t->outbox = malloc((q->num_foreign ? q->num_foreign : 1) * sizeof *t->outbox);
        t->queue = malloc((own ? own : 1) * sizeof *t->queue);
        if (!t->in_left || !t->out_left || !t->flag || !t->outbox || !t->queue ||
            local_transpose_build(m, q, 0, &t->tr)) {
            trim_close(tp, p->parts);
            return NULL;
        }
    }
    return tp;
}

/* Trimming to a fixpoint over the parts (ref_trim_partitioned's rounds) of
 * the edges that count (trim_counts: with lp, between live states of one
 * class); afterwards a live state with flag T_REMOVED was trimmed.  Rounds
 * added to *rounds (none where the counts queue nothing). */
static void trim_run(const csr_model *m, const csr_partition *p, trim_part *tp, const lp_part *lp, uint64_t *rounds)
{
    const uint32_t P = p->parts;
    trim_ctx ctx = {p, tp, lp};
    for (uint32_t i = 0; i < P; i++) {
        const csr_part *q = &p->part[i];
        trim_part *t = &tp[i];
        const lp_part *l = lp ? &lp[i] : NULL;
        const uint64_t own = q->num_states, len = own + q->num_foreign;
        memset(t->in_left, 0, (own ? own : 1) * sizeof *t->in_left);
        memset(t->out_left, 0, (own ? own : 1) * sizeof *t->out_left);
        memset(t->outbox, 0, (q->num_foreign ? q->num_foreign : 1) * sizeof *t->outbox);
        t->queued = 0;
        for (uint64_t x = 0; x < len; x++) { /* counts of the edges from this part's own states */
            t->flag[x] = !l || l->live[x] ? T_LIVE : T_REMOVED;
            for (uint64_t k = t->tr.first[x]; k < t->tr.first[x + 1]; k++) {
                const uint32_t v = t->tr.src[k];
                if (!trim_counts(l, v, x))
                    continue;
                if (x < own)
                    t->in_left[x]++;
                else
                    t->outbox[x - own]++;
                t->out_left[v]++;
            }
        }
    }
    /* the first push: in-counts of edges from other parts */
    csr_partition_exchange(p, push_counts, &ctx);
    int work = 0; /* nothing queued: no round (the GPUs' trimming skips it too) */
    for (uint32_t i = 0; i < P; i++) {
        for (uint64_t j = 0; j < p->part[i].num_states; j++)
            if (tp[i].in_left[j] == 0 || tp[i].out_left[j] == 0)
                trim_queue(&tp[i], (uint32_t)j);
        work |= tp[i].queued > 0;
    }
    while (work) {
        (*rounds)++;
        work = 0;
        /* every part drains its queue alone */
        for (uint32_t i = 0; i < P; i++) {
            const csr_part *q = &p->part[i];
            trim_part *t = &tp[i];
            const lp_part *l = lp ? &lp[i] : NULL;
            while (t->queued) {
                const uint32_t j = t->queue[--t->queued];
                t->flag[j] = T_REMOVED;
                const uint32_t *tg;
                const uint64_t count = part_row(m, q, j, &tg);
                for (uint64_t e = 0; e < count; e++) {
                    const uint32_t w = tg[e];
                    if (w == j || !trim_counts(l, j, w))
                        continue;
                    if (w >= q->num_states)
                        t->outbox[w - q->num_states]++;
                    else if (t->flag[w] != T_REMOVED && --t->in_left[w] == 0)
                        trim_queue(t, w);
                }
                for (uint64_t k = t->tr.first[j]; k < t->tr.first[j + 1]; k++) {
                    const uint32_t v = t->tr.src[k];
                    if (trim_counts(l, v, j) && t->flag[v] != T_REMOVED && --t->out_left[v] == 0)
                        trim_queue(t, v);
                }
            }
        }
        /* push the decrements to the owners; pull the flags, and the sources
         * of edges into foreign states removed since lose an out-transition */
        csr_partition_exchange(p, push_decrements, &ctx);
        csr_partition_exchange(p, pull_flag, &ctx);
        for (uint32_t i = 0; i < P; i++)
            work |= tp[i].queued > 0;
    }
}

/* The lp engine's peeling on the parts: trim_run over the live states'
 * classes; each live state trimmed is an SCC of its own (comp) and leaves
 * live (foreign copies pulled).  Returns how many left; counts into st. */
static uint64_t peel_classes(const csr_model *m, const csr_partition *p, trim_part *tp, lp_part *lp,
                             ref_scc_parts_stats *st)
{
    uint64_t peeled = 0;
    trim_run(m, p, tp, lp, &st->trim_rounds);
    for (uint32_t i = 0; i < p->parts; i++)
        for (uint64_t j = 0; j < p->part[i].num_states; j++)
            if (lp[i].live[j] && tp[i].flag[j] == T_REMOVED) {
                lp[i].comp[j] = (uint32_t)(p->part[i].first_state + j);
                lp[i].live[j] = 0;
                peeled++;
            }
    pull(p, lp);
    st->trimmed += peeled;
    return peeled;
}

int ref_trim_partitioned(const csr_model *m, const csr_partition *p, uint8_t *removed, uint64_t *rounds)
{
    trim_part *tp = trim_open(m, p);
    *rounds = 0;
    if (!tp)
        return CSR_ERR_NOMEM;
    trim_run(m, p, tp, NULL, rounds);
    for (uint32_t i = 0; i < p->parts; i++)
        for (uint64_t j = 0; j < p->part[i].num_states; j++)
            removed[p->part[i].first_state + j] = tp[i].flag[j] == T_REMOVED;
    trim_close(tp, p->parts);
    return CSR_OK;
}

/* ---- MEC rounds over the parts ------------------------------------------ */

/* One part's MEC state beside its labels: flag (own + foreign: T_LIVE in
 * play, T_QUEUED own and about to leave, T_REMOVED; foreign ones pulled),
 * its choices' enabled flags and its states' counts of enabled choices, the
 * choice-level local transpose, the queue of own states. */
typedef struct mec_part {
    local_transpose tr;
    uint8_t *flag, *enabled;
    uint32_t *left, *queue;
    uint64_t queued;
} mec_part;

typedef struct mec_ctx {
    const csr_partition *p;
    mec_part *mp;
    ref_mec_parts_stats *st;
} mec_ctx;

static void mec_queue(mec_part *t, uint32_t j)
{
    if (t->flag[j] == T_LIVE) {
        t->flag[j] = T_QUEUED;
        t->queue[t->queued++] = j;
    }
}

/* Local index x (own or foreign) of part t left play: every enabled choice
 * of an own state with a transition into x is removed (Lemma 1's
 * attractor); a state left without choices is queued. */
static void mec_enter_removed(mec_part *t, uint64_t x, ref_mec_parts_stats *st)
{
    for (uint64_t e = t->tr.first[x]; e < t->tr.first[x + 1]; e++) {
        const uint32_t k = t->tr.choice[e], v = t->tr.src[e];
        if (!t->enabled[k])
            continue;
        t->enabled[k] = 0;
        st->removed_choices++;
        if (--t->left[v] == 0)
            mec_queue(t, v);
    }
}

static void mec_pull_flag(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    mec_ctx *c = ctx;
    if (c->mp[o].flag[own] != T_REMOVED || c->mp[r].flag[copy] == T_REMOVED)
        return;
    c->mp[r].flag[copy] = T_REMOVED;
    mec_enter_removed(&c->mp[r], copy, c->st);
}

int ref_mec_partitioned(const csr_model *m, const csr_partition *p, uint64_t *mec, ref_mec_parts_stats *st)
{
    const uint32_t P = p->parts;
    const uint64_t n = m->num_states;
    lp_part *lp = lp_alloc(p);
    mec_part *mp = calloc(P, sizeof *mp);
    uint8_t **enabled = calloc(P, sizeof *enabled);
    uint64_t *scratch = malloc((n ? n : 1) * sizeof *scratch);
    mec_ctx ctx = {p, mp, st};
    int rc = CSR_ERR_NOMEM;
    memset(st, 0, sizeof *st);
    if (!lp || !mp || !enabled || !scratch)
        goto out;
    for (uint32_t i = 0; i < P; i++) {
        const csr_part *q = &p->part[i];
        mec_part *t = &mp[i];
        const uint64_t own = q->num_states, len = own + q->num_foreign;
        t->flag = malloc(len ? len : 1);
        t->enabled = malloc(q->num_choices ? q->num_choices : 1);
        t->left = malloc((own ? own : 1) * sizeof *t->left);
        t->queue = malloc((own ? own : 1) * sizeof *t->queue);
        if (!t->flag || !t->enabled || !t->left || !t->queue || local_transpose_build(m, q, 1, &t->tr))
            goto out;
        memset(t->flag, T_LIVE, len);
        memset(t->enabled, 1, q->num_choices);
        for (uint64_t j = 0; j < own; j++)
            t->left[j] = (uint32_t)(m->state_choices[q->first_state + j + 1] - m->state_choices[q->first_state + j]);
        enabled[i] = t->enabled;
    }
    for (;;) {
        st->rounds++;
        /* the SCCs of the states in play over the enabled choices, inside
         * the SCCs of the round before (lp's classes; 0 in the first round) */
        uint64_t in_play = 0;
        for (uint32_t i = 0; i < P; i++)
            for (uint64_t j = 0; j < p->part[i].num_states; j++) {
                lp[i].live[j] = mp[i].flag[j] != T_REMOVED;
                in_play += lp[i].live[j];
            }
        pull(p, lp);
        if (!in_play)
            break;
        ref_scc_parts_stats ls = {0, 0, 0, 0};
        lp_phases(m, p, lp, enabled, in_play, NULL, &ls);
        st->phases += ls.phases;
        st->lp_rounds += ls.rounds;
        /* Algorithm 7: a choice with a transition out of its state's SCC
         * (or into a state out of play) is removed; a state left without
         * choices is queued (the sets U) */
        const uint64_t removed_before = st->removed_choices + st->removed_states;
        for (uint32_t i = 0; i < P; i++) {
            const csr_part *q = &p->part[i];
            mec_part *t = &mp[i];
            for (uint64_t j = 0; j < q->num_states; j++) {
                if (t->flag[j] != T_LIVE)
                    continue;
                const uint64_t s = q->first_state + j;
                for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
                    const uint64_t lk = k - q->first_choice;
                    if (!t->enabled[lk])
                        continue;
                    for (uint64_t e = m->choice_transitions[k]; e < m->choice_transitions[k + 1]; e++) {
                        const uint32_t w = q->local_targets[e - q->first_transition];
                        if (t->flag[w] == T_REMOVED || lp[i].comp[w] != lp[i].comp[j]) {
                            t->enabled[lk] = 0;
                            t->left[j]--;
                            st->removed_choices++;
                            break;
                        }
                    }
                }
                if (t->left[j] == 0)
                    mec_queue(t, (uint32_t)j);
            }
        }
        /* the attractor (Lemma 1) over the parts: each part drains its queue
         * alone, then the flags are pulled and the choices into foreign
         * states removed since go; until no part has anything queued */
        for (int work = 1; work;) {
            work = 0;
            for (uint32_t i = 0; i < P; i++)
                work |= mp[i].queued > 0;
            if (!work)
                break;
            st->attractor_rounds++;
            for (uint32_t i = 0; i < P; i++) {
                mec_part *t = &mp[i];
                while (t->queued) {
                    const uint32_t j = t->queue[--t->queued];
                    t->flag[j] = T_REMOVED;
                    st->removed_states++;
                    mec_enter_removed(t, j, st);
                }
            }
            csr_partition_exchange(p, mec_pull_flag, &ctx);
        }
        if (st->removed_choices + st->removed_states == removed_before)
            break; /* nothing left any SCC: each is an end component, and maximal */
        /* the next round's regions: this round's SCCs */
        for (uint32_t i = 0; i < P; i++)
            for (uint64_t j = 0; j < p->part[i].num_states; j++)
                lp[i].cls[j] = lp[i].comp[j];
    }
    for (uint32_t i = 0; i < P; i++)
        for (uint64_t j = 0; j < p->part[i].num_states; j++)
            mec[p->part[i].first_state + j] = mp[i].flag[j] == T_REMOVED ? UINT64_MAX : lp[i].comp[j];
    name_by_smallest(n, mec, scratch, UINT64_MAX);
    for (uint64_t s = 0; s < n; s++)
        if (mec[s] != UINT64_MAX) {
            st->states_in_mecs++;
            st->mecs += mec[s] == s;
        }
    rc = CSR_OK;
out:
    for (uint32_t i = 0; mp && i < P; i++) {
        local_transpose_free(&mp[i].tr);
        free(mp[i].flag);
        free(mp[i].enabled);
        free(mp[i].left);
        free(mp[i].queue);
    }
    free(mp);
    free(enabled);
    free(scratch);
    lp_free(lp, P);
    return rc;
}
