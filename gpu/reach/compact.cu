/*
 * compact.cu - the maybe subsystem compacted on the host (compact.h): a
 * task per CPU counts, numbers the slots and fills the arrays; the
 * probabilities become a dictionary where they are few.
 */
#include <new>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "hugepages.h"
#include "parallel.h"

/* Open-addressing set of probabilities (bit patterns; UINT64_MAX empty: no
 * probability in (0, 1] has that pattern) with a u16 index each, and the
 * values in the order inserted.  It starts small and grows fourfold when a
 * quarter full (PRISM's models have a handful of values: a table sized for
 * VI_DICTIONARY_MAX in every task cost coin6_4's compaction some 10 ms of
 * page faults and merging on 16 threads). */
struct prob_hash {
    uint64_t *keys = nullptr;
    uint16_t *index = nullptr;
    double *values = nullptr; /* [count] in insertion order */
    uint64_t slots = 0, count = 0;
    bool full = false; /* more than VI_DICTIONARY_MAX distinct values offered */
    ~prob_hash() { release(); }
    void release()
    {
        free(keys);
        free(index);
        free(values);
        keys = nullptr;
        index = nullptr;
        values = nullptr;
    }
    bool init() { return resize(64); }
    bool resize(uint64_t want)
    {
        uint64_t *k = (uint64_t *)malloc(want * sizeof(uint64_t));
        uint16_t *ix = (uint16_t *)malloc(want * sizeof(uint16_t));
        double *v = (double *)realloc(values, (want / 4 + 1) * sizeof(double));
        if (!k || !ix || !v) {
            free(k);
            free(ix);
            if (v)
                values = v;
            return false;
        }
        values = v;
        memset(k, 0xff, want * sizeof(uint64_t));
        uint64_t *old_keys = keys;
        uint16_t *old_index = index;
        const uint64_t old_slots = slots;
        keys = k;
        index = ix;
        slots = want;
        for (uint64_t h = 0; h < old_slots; h++)
            if (old_keys[h] != UINT64_MAX) {
                uint64_t at = probe(old_keys[h]);
                keys[at] = old_keys[h];
                index[at] = old_index[h];
            }
        free(old_keys);
        free(old_index);
        return true;
    }
    /* The slot holding bits, or the empty one where it would go. */
    uint64_t probe(uint64_t bits) const
    {
        for (uint64_t h = (bits * 0x9E3779B97F4A7C15ull) >> 40;; h++) {
            uint64_t at = h & (slots - 1);
            if (keys[at] == bits || keys[at] == UINT64_MAX)
                return at;
        }
    }
    static uint64_t bits_of(double p)
    {
        uint64_t bits;
        memcpy(&bits, &p, sizeof bits);
        return bits;
    }
    /* Insert p (table: where a new value goes, or NULL); its index, -1 when
     * full, -2 when out of memory. */
    long insert(double p, double *table)
    {
        const uint64_t bits = bits_of(p);
        uint64_t at = probe(bits);
        if (keys[at] == bits)
            return index[at];
        if (count == VI_DICTIONARY_MAX) {
            full = true;
            return -1;
        }
        if (4 * (count + 1) > slots) {
            if (!resize(4 * slots))
                return -2;
            at = probe(bits);
        }
        keys[at] = bits;
        index[at] = (uint16_t)count;
        values[count] = p;
        if (table)
            table[count] = p;
        return (long)count++;
    }
    /* The index of a value inserted before. */
    uint16_t find(double p) const { return index[probe(bits_of(p))]; }
};

/* One task of the parallel compaction: the model's states [first, last). */
struct compact_task {
    const reach_system *y;
    const double *lower, *upper;
    compact_system *cs;
    uint32_t *slot_of;
    uint8_t *needed;
    const prob_hash *global; /* pass 2: the merged dictionary (NULL: none) */
    uint64_t first, last;
    uint64_t choices, branches; /* pass 1: counts; pass 2: where this task's start */
    uint64_t maybe, kept;       /* pass 1: maybe states; slots: fixed states kept; then the slot of each's first */
    prob_hash local;            /* pass 1: the distinct probabilities seen */
    bool nomem;
    bool inexact; /* pass 1: a kept branch enters a fixed state whose bounds differ */
};

/* Whether the branch into t is kept (its successor is not a fixed state of bounds 0). */
static inline bool branch_kept(const reach_system *y, const double *lower, const double *upper, uint32_t t)
{
    return !y->fixed[t] || lower[t] != 0.0 || upper[t] != 0.0;
}

/* Pass 1: count choices and branches, mark the fixed successors kept,
 * collect the distinct probabilities. */
static void *compact_count(void *arg)
{
    compact_task *k = (compact_task *)arg;
    const reach_system *y = k->y;
    k->choices = k->branches = k->maybe = 0;
    k->nomem = !k->local.init();
    k->inexact = false;
    double last_p = -1.0; /* the value inserted last: most branches repeat it */
    for (uint64_t s = k->first; s < k->last; s++) {
        if (y->fixed[s])
            continue;
        k->maybe++;
        for (uint64_t c = y->state_choices[s]; c < y->state_choices[s + 1]; c++) {
            uint64_t kept = 0;
            double only = 0.0;
            for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++) {
                uint32_t t = y->targets[j];
                if (!branch_kept(y, k->lower, k->upper, t))
                    continue;
                if (y->fixed[t]) {
                    __atomic_store_n(&k->needed[t], 1, __ATOMIC_RELAXED);
                    k->inexact = k->inexact || k->lower[t] != k->upper[t];
                }
                kept++;
                only = y->probabilities[j];
                if (only != last_p && !k->nomem && !k->local.full) {
                    k->nomem = k->local.insert(only, NULL) == -2;
                    last_p = only;
                }
            }
            k->choices++;
            if (!k->cs->words || !(kept == 0 || (kept == 1 && only == 1.0)))
                k->branches += kept;
        }
    }
    return NULL;
}

/* Slots of the maybe states of this task's range (from k->maybe, its
 * first), and the fixed states kept among them counted into k->kept. */
static void *compact_maybe_slots(void *arg)
{
    compact_task *k = (compact_task *)arg;
    const reach_system *y = k->y;
    uint64_t slot = k->maybe, kept = 0;
    for (uint64_t s = k->first; s < k->last; s++) {
        if (!y->fixed[s])
            k->slot_of[s] = (uint32_t)slot++;
        else
            kept += k->needed[s];
    }
    k->kept = kept;
    return NULL;
}

/* Slots of the kept fixed states of this task's range (from k->kept, its
 * first), with their model states and bounds. */
static void *compact_fixed_slots(void *arg)
{
    compact_task *k = (compact_task *)arg;
    uint64_t slot = k->kept;
    for (uint64_t s = k->first; s < k->last; s++)
        if (k->needed[s]) {
            k->slot_of[s] = (uint32_t)slot;
            k->cs->slot_state[slot] = (uint32_t)s;
            k->cs->bounds[slot] = vi_bounds{k->lower[s], k->upper[s]};
            slot++;
        }
    return NULL;
}

/* Pass 2: fill this task's slots, choices and branches. */
static void *compact_fill(void *arg)
{
    compact_task *k = (compact_task *)arg;
    const reach_system *y = k->y;
    compact_system *cs = k->cs;
    const uint32_t zero = (uint32_t)(cs->nm + cs->nf);
    uint64_t kc = k->choices, kb = k->branches;
    double last_p = -1.0; /* the value looked up last, and its index */
    uint16_t last_index = 0;
    for (uint64_t s = k->first; s < k->last; s++) {
        if (y->fixed[s])
            continue;
        uint32_t i = k->slot_of[s];
        cs->slot_state[i] = (uint32_t)s;
        cs->bounds[i] = vi_bounds{k->lower[s], k->upper[s]};
        if (cs->mec)
            cs->mec[i] = y->mec[s];
        cs->state_first[i] = (uint32_t)kc;
        uint8_t near = 0; /* a transition into a fixed state, kept or not */
        for (uint64_t c = y->state_choices[s]; c < y->state_choices[s + 1]; c++, kc++) {
            if (cs->leaving)
                cs->leaving[kc] = y->leaving[c];
            if (cs->reward)
                cs->reward[kc] = y->choice_reward[c];
            uint64_t kept = 0, last_kept = 0;
            for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++) {
                near |= y->fixed[y->targets[j]];
                if (branch_kept(y, k->lower, k->upper, y->targets[j])) {
                    kept++;
                    last_kept = j;
                }
            }
            if (cs->words && kept == 0) {
                cs->choice[kc] = VI_DETERMINISTIC | zero;
                continue;
            }
            if (cs->words && kept == 1 && y->probabilities[last_kept] == 1.0) {
                cs->choice[kc] = VI_DETERMINISTIC | k->slot_of[y->targets[last_kept]];
                continue;
            }
            cs->choice[kc] = (uint32_t)kb;
            for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++) {
                uint32_t t = y->targets[j];
                if (!branch_kept(y, k->lower, k->upper, t))
                    continue;
                double p = y->probabilities[j];
                cs->target[kb] = k->slot_of[t] | (cs->words && j == last_kept ? VI_LAST_BRANCH : 0u);
                if (k->global) {
                    if (p != last_p) {
                        last_index = k->global->find(p);
                        last_p = p;
                    }
                    cs->prob_index[kb] = last_index;
                } else
                    cs->prob[kb] = p;
                kb++;
            }
        }
        cs->near_fixed[i] = near;
    }
    return NULL;
}

int compact_build(const reach_system *y, const double *lower, const double *upper, bool mecs, bool rows,
                  compact_system *cs, uint32_t *slot_of, uint8_t *needed, csr_status *status)
{
    const uint64_t n = y->num_states;
    cs->words = !rows;
    const char *test_max = getenv("CSR_TEST_VI_DICTIONARY_MAX"); /* the f64 path on models with few probabilities */
    if (test_max && strtoull(test_max, NULL, 10) < VI_DICTIONARY_MAX)
        cs->dictionary_max = strtoull(test_max, NULL, 10);
    memset(needed, 0, n);
    const unsigned tasks = parallel_tasks(y->num_transitions, parallel_grain(1u << 18));
    compact_task *task = new (std::nothrow) compact_task[tasks];
    if (!task)
        return CSR_ERR_NOMEM;
    for (unsigned i = 0; i < tasks; i++) {
        task[i].y = y;
        task[i].lower = lower;
        task[i].upper = upper;
        task[i].cs = cs;
        task[i].slot_of = slot_of;
        task[i].needed = needed;
        task[i].global = NULL;
        task[i].first = n * i / tasks;
        task[i].last = n * (i + 1) / tasks;
    }
    parallel_run(compact_count, task, sizeof *task, tasks);
    uint64_t nm = 0;
    for (unsigned i = 0; i < tasks; i++) {
        const uint64_t count = task[i].maybe;
        task[i].maybe = nm;
        nm += count;
    }
    cs->nm = nm;
    parallel_run(compact_maybe_slots, task, sizeof *task, tasks);
    uint64_t mc = 0, mb = 0;
    prob_hash global;
    bool dictionary = global.init();
    cs->table = (double *)malloc(VI_DICTIONARY_MAX * sizeof(double));
    dictionary = dictionary && cs->table;
    for (unsigned i = 0; i < tasks; i++) {
        uint64_t c = task[i].choices, b = task[i].branches;
        task[i].choices = mc;
        task[i].branches = mb;
        mc += c;
        mb += b;
        dictionary = dictionary && !task[i].nomem && !task[i].local.full;
        cs->fixed_exact = cs->fixed_exact && !task[i].inexact;
        for (uint64_t h = 0; dictionary && h < task[i].local.count; h++)
            dictionary = global.insert(task[i].local.values[h], cs->table) >= 0;
        task[i].local.release();
    }
    dictionary = dictionary && global.count <= cs->dictionary_max;
    int rc = CSR_OK;
    if (mc >= UINT32_MAX || mb >= VI_LAST_BRANCH)
        rc = csr_fail(status, CSR_ERR_TOO_LARGE,
                      "%llu choices and %llu transitions of maybe states: the GPU solver takes fewer than 2^32 "
                      "and 2^31", (unsigned long long)mc, (unsigned long long)mb);
    uint64_t nf = 0;
    for (unsigned i = 0; i < tasks; i++) {
        const uint64_t count = task[i].kept;
        task[i].kept = nm + nf;
        nf += count;
    }
    cs->nf = nf;
    cs->mc = mc;
    cs->mb = mb;
    cs->np = dictionary ? global.count : 0;
    cs->dictionary = dictionary;
    const uint64_t slots = nm + nf + 1;
    if (!rc) {
        cs->slot_state = (uint32_t *)malloc(slots * sizeof(uint32_t));
        cs->state_first = (uint32_t *)malloc((nm + 1) * sizeof(uint32_t));
        cs->choice = (uint32_t *)malloc((mc + 1) * sizeof(uint32_t));
        cs->target = (uint32_t *)malloc((mb ? mb : 1) * sizeof(uint32_t));
        if (dictionary)
            cs->prob_index = (uint16_t *)malloc((mb ? mb : 1) * sizeof(uint16_t));
        else
            cs->prob = (double *)malloc((mb ? mb : 1) * sizeof(double));
        cs->bounds = (vi_bounds *)malloc(slots * sizeof(vi_bounds));
        cs->near_fixed = (uint8_t *)malloc(nm ? nm : 1);
        if (mecs) {
            cs->mec = (uint32_t *)malloc((nm ? nm : 1) * sizeof(uint32_t));
            cs->leaving = (uint8_t *)malloc(mc ? mc : 1);
        }
        if (y->choice_reward)
            cs->reward = (double *)malloc((mc ? mc : 1) * sizeof(double));
        void *large[] = {cs->slot_state, cs->state_first, cs->choice, cs->target, cs->prob_index, cs->prob,
                         cs->bounds, cs->mec, cs->leaving, cs->reward};
        const uint64_t large_bytes[] = {4 * slots, 4 * (nm + 1), 4 * (mc + 1), 4 * mb, 2 * mb, 8 * mb, 16 * slots,
                                        4 * nm, mc, 8 * mc};
        for (size_t i = 0; i < sizeof large / sizeof *large; i++) /* filled by all tasks at once: fewer faults */
            if (large[i])
                advise_huge_pages(large[i], large_bytes[i]);
        if (!cs->slot_state || !cs->state_first || !cs->choice || !cs->target ||
            (dictionary ? !cs->prob_index : !cs->prob) || !cs->bounds || !cs->near_fixed ||
            (mecs && (!cs->mec || !cs->leaving)) || (y->choice_reward && !cs->reward))
            rc = CSR_ERR_NOMEM;
    }
    if (!rc) {
        parallel_run(compact_fixed_slots, task, sizeof *task, tasks);
        cs->slot_state[nm + nf] = UINT32_MAX;
        cs->bounds[nm + nf] = vi_bounds{0.0, 0.0};
        for (unsigned i = 0; i < tasks; i++)
            task[i].global = dictionary ? &global : NULL;
        parallel_run(compact_fill, task, sizeof *task, tasks);
        cs->state_first[nm] = (uint32_t)mc;
        cs->choice[mc] = (uint32_t)mb;
    }
    delete[] task;
    return rc;
}

