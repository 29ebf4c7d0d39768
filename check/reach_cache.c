/*
 * reach_cache.c - Prob0/Prob1 results kept across the queries of a run
 * (reach.h, reach_cache): each distinct (target, avoid, direction) computed
 * once; its maybe MECs too where a maximising query had them; the model's
 * transpose.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "reach.h"
#include "ref.h"

typedef struct cache_entry {
    uint64_t *target, *avoid; /* bit sets of n; avoid NULL: none */
    int maximize;
    uint8_t *cls;  /* u8[n] */
    uint32_t *mec; /* u32[n], the maybe MECs' smallest states, or NULL */
} cache_entry;

struct reach_cache {
    uint64_t n;
    unsigned count, next, capacity;
    uint64_t computed;
    cache_entry entry[REACH_CACHE_ENTRIES];
    reach_cache *keeper;         /* the cache whose transpose this one reads, or NULL: its own */
    pthread_mutex_t lock;        /* over transposed and tr */
    const csr_model *transposed; /* the model of tr, or NULL */
    int failed;                  /* building tr ran out of memory: not tried again */
    ref_transpose tr;
};

reach_cache *reach_cache_new_sharing(uint64_t n, reach_cache *keeper)
{
    reach_cache *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->lock, NULL)) {
        free(c);
        return NULL;
    }
    if (c) {
        c->n = n;
        c->capacity = REACH_CACHE_ENTRIES;
        c->keeper = keeper && keeper->keeper ? keeper->keeper : keeper;
    }
    return c;
}

reach_cache *reach_cache_new(uint64_t n)
{
    return reach_cache_new_sharing(n, NULL);
}

static void entry_free(cache_entry *e)
{
    free(e->target);
    free(e->avoid);
    free(e->cls);
    free(e->mec);
    memset(e, 0, sizeof *e);
}

void reach_cache_free(reach_cache *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->count; i++)
        entry_free(&c->entry[i]);
    ref_transpose_free(&c->tr);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* One task of transpose_build: the states [first, last).  Pass 0: the
 * owners, and the transitions counted by successor: into the task's own
 * row of counts (own) or, shared, by atomic additions into tr->first + 1;
 * pass 1: the entries, each at its successor's cursor (the task's own, or
 * the shared one by atomic additions). */
typedef struct transpose_task {
    const csr_model *m;
    ref_transpose *tr;
    uint64_t *cursor; /* u64[n]: the task's own (own) or every task's */
    uint64_t first, last;
    int pass, own;
} transpose_task;

static void *transpose_task_run(void *arg)
{
    transpose_task *k = arg;
    const csr_model *m = k->m;
    uint64_t *cursor = k->cursor, *count = k->own ? cursor : k->tr->first + 1, *choice = k->tr->choice;
    for (uint64_t s = k->first; s < k->last; s++)
        for (uint64_t x = m->state_choices[s]; x < m->state_choices[s + 1]; x++) {
            if (!k->pass)
                k->tr->owner[x] = s;
            const uint64_t jb = m->choice_transitions[x], je = m->choice_transitions[x + 1];
            if (k->own && k->pass)
                for (uint64_t j = jb; j < je; j++)
                    choice[cursor[m->targets[j]]++] = x;
            else if (k->own)
                for (uint64_t j = jb; j < je; j++)
                    count[m->targets[j]]++;
            else if (k->pass)
                for (uint64_t j = jb; j < je; j++)
                    choice[__atomic_fetch_add(&cursor[m->targets[j]], 1, __ATOMIC_RELAXED)] = x;
            else
                for (uint64_t j = jb; j < je; j++)
                    __atomic_fetch_add(&count[m->targets[j]], 1, __ATOMIC_RELAXED);
        }
    return NULL;
}

/* ref_transpose_build's shapes by a task per CPU over ranges of states.
 * Where two tasks' own counts (8 n bytes a task) or more take at most a
 * quarter of the entries' bytes (many transitions into few states, as
 * herman's 14.3M into 32,768, where atomic additions on the same counters
 * cost more than one core's counting sort: 0.71 s on two cores against
 * 0.38), each task (as many as fit so, at most one per CPU) counts and
 * places its own, and the entries come out in choice order, as
 * ref_transpose_build's; elsewhere the tasks share the counters by atomic
 * additions and each state's entries lie in no particular order (the
 * searches read them as a set).  Errors: CSR_ERR_NOMEM, nothing left
 * allocated. */
static int transpose_build(const csr_model *m, ref_transpose *tr)
{
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    unsigned count = parallel_tasks(n + t, parallel_grain(1u << 16));
    /* own counts with as many tasks as fit them (on many CPUs fewer tasks); (CSR_TEST_TRANSPOSE_OWN: the
     * tests' way to own counts on their small models) */
    const uint64_t fit = n ? t / 4 / n : 0;
    const int forced = getenv("CSR_TEST_TRANSPOSE_OWN") != NULL, own = count > 1 && (fit >= 2 || forced);
    if (own && !forced && fit < count)
        count = (unsigned)fit;
    tr->first = calloc(n + 1, sizeof *tr->first);
    tr->choice = malloc((t ? t : 1) * sizeof *tr->choice);
    tr->owner = malloc((c ? c : 1) * sizeof *tr->owner);
    uint64_t *cursor = own ? calloc((size_t)count * n, sizeof *cursor) : malloc((n ? n : 1) * sizeof *cursor);
    if (!tr->first || !tr->choice || !tr->owner || !cursor) {
        ref_transpose_free(tr);
        free(cursor);
        return CSR_ERR_NOMEM;
    }
    transpose_task task[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < count; i++)
        task[i] = (transpose_task){m, tr, own ? cursor + (size_t)i * n : cursor, n * i / count,
                                   n * (i + 1) / count, 0, own};
    parallel_run(transpose_task_run, task, sizeof task[0], count);
    if (own) { /* each task's cursor at v: the entries into v of the states before its range */
        uint64_t at = 0;
        for (uint64_t v = 0; v < n; v++) {
            tr->first[v] = at;
            for (unsigned i = 0; i < count; i++) {
                const uint64_t here = task[i].cursor[v];
                task[i].cursor[v] = at;
                at += here;
            }
        }
        tr->first[n] = at;
    } else {
        for (uint64_t v = 0; v < n; v++) {
            tr->first[v + 1] += tr->first[v];
            cursor[v] = tr->first[v];
        }
    }
    for (unsigned i = 0; i < count; i++)
        task[i].pass = 1;
    parallel_run(transpose_task_run, task, sizeof task[0], count);
    free(cursor);
    return CSR_OK;
}

const ref_transpose *reach_cache_transpose(reach_cache *c, const csr_model *m)
{
    if (c && c->keeper)
        c = c->keeper;
    if (!c || m->num_states != c->n)
        return NULL;
    pthread_mutex_lock(&c->lock);
    if (!c->transposed && !c->failed) {
        c->failed = transpose_build(m, &c->tr) != CSR_OK;
        c->transposed = c->failed ? NULL : m;
    }
    const ref_transpose *tr = c->transposed == m ? &c->tr : NULL;
    pthread_mutex_unlock(&c->lock);
    return tr;
}

const ref_transpose *reach_cache_transpose_or_build(reach_cache *c, const csr_model *m, ref_transpose *own)
{
    const ref_transpose *kept = reach_cache_transpose(c, m);
    return kept ? kept : ref_transpose_build(m, own) == CSR_OK ? own : NULL;
}

/* Whether the flags f (u8[n]) are the bit set b. */
static int same_set(const uint64_t *b, const uint8_t *f, uint64_t n)
{
    for (uint64_t s = 0; s < n; s++)
        if (((b[s >> 6] >> (s & 63)) & 1) != (f[s] != 0))
            return 0;
    return 1;
}

static uint64_t *set_of(const uint8_t *f, uint64_t n)
{
    uint64_t *b = calloc(n / 64 + 1, sizeof *b);
    for (uint64_t s = 0; b && s < n; s++)
        if (f[s])
            b[s >> 6] |= UINT64_C(1) << (s & 63);
    return b;
}

const uint8_t *reach_cache_find(const reach_cache *c, const reach_query *q, const uint32_t **mec)
{
    if (mec)
        *mec = NULL;
    for (unsigned i = 0; c && i < c->count; i++) {
        const cache_entry *e = &c->entry[i];
        if (e->maximize != q->maximize || !same_set(e->target, q->target, c->n) || !e->avoid != !q->avoid ||
            (q->avoid && !same_set(e->avoid, q->avoid, c->n)))
            continue;
        if (mec)
            *mec = e->mec;
        return e->cls;
    }
    return NULL;
}

void reach_cache_put(reach_cache *c, const reach_query *q, const uint8_t *cls, const uint32_t *mec)
{
    if (!c)
        return;
    c->computed++;
    const uint64_t n = c->n;
    /* a query already there (its classes found, its MECs now): replaced */
    unsigned i = c->count;
    for (unsigned j = 0; j < c->count; j++) {
        const cache_entry *e = &c->entry[j];
        if (e->maximize == q->maximize && same_set(e->target, q->target, n) && !e->avoid == !q->avoid &&
            (!q->avoid || same_set(e->avoid, q->avoid, n)))
            i = j;
    }
    if (i == c->count) {
        if (c->count < c->capacity)
            c->count++;
        else
            i = c->next++ % c->capacity;
    }
    cache_entry *e = &c->entry[i];
    entry_free(e);
    e->maximize = q->maximize;
    e->target = set_of(q->target, n);
    e->avoid = q->avoid ? set_of(q->avoid, n) : NULL;
    e->cls = malloc(n ? n : 1);
    e->mec = mec ? malloc((n ? n : 1) * sizeof *e->mec) : NULL;
    if (!e->target || (q->avoid && !e->avoid) || !e->cls || (mec && !e->mec)) {
        entry_free(e); /* not kept: no harm */
        e->maximize = -1;
        e->target = calloc(n / 64 + 1, sizeof *e->target); /* never matches: maximize is -1 */
        return;
    }
    memcpy(e->cls, cls, n);
    if (mec)
        memcpy(e->mec, mec, n * sizeof *mec);
}

uint64_t reach_cache_computed(const reach_cache *c)
{
    return c ? c->computed : 0;
}
