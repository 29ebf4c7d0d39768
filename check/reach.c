/*
 * reach.c - the query layer of reachability (reach.h): the maybe system and
 * its MEC quotient, the whole query, expected rewards, step bounds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "hugepages.h"
#include "parallel.h"
#include "reach.h"
#include "reach_internal.h"
#include "reach_ref.h"
#include "ref.h"

void reach_default_options(reach_options *o)
{
    o->method = REACH_II;
    o->relative = 1;
    o->epsilon = REACH_DEFAULT_EPSILON;
    o->max_iterations = REACH_DEFAULT_MAX_ITERATIONS;
    o->pi_stats = NULL;
    o->topological = 1;
    o->topo_stats = NULL;
    o->pi_warmup_early = 0;
}

void reach_count_classes(uint64_t n, const uint8_t *cls, reach_stats *st)
{
    st->yes = st->no = st->maybe = 0;
    for (uint64_t s = 0; s < n; s++)
        cls[s] == REACH_YES ? st->yes++ : cls[s] == REACH_NO ? st->no++ : st->maybe++;
}

/* ---- MECs of the maybe states -------------------------------------------- */

/* One task of reach_maybe_graph or reach_mec_arrays: the states [first, last). */
typedef struct maybe_task {
    const csr_model *m;
    const uint8_t *cls;
    const double *choice_reward;
    const uint32_t *smallest;
    uint64_t first, last;
    uint64_t c, t;     /* maybe graph: counted (pass 0), then where the task's choices and transitions start */
    uint64_t mecs, in; /* MEC arrays: representatives counted, then the task's first dense id; states in MECs */
    int pass;
    uint64_t *sc, *ct;
    uint32_t *tg, *dense;
    uint8_t *leaving;
} maybe_task;

/* Whether choice c (of a maybe state) is kept in the maybe graph: every successor a maybe state, no reward. */
static int maybe_choice_kept(const maybe_task *k, uint64_t c)
{
    const csr_model *m = k->m;
    if (k->choice_reward && k->choice_reward[c] != 0.0)
        return 0;
    for (uint64_t j = m->choice_transitions[c]; j < m->choice_transitions[c + 1]; j++)
        if (k->cls[m->targets[j]] != REACH_MAYBE)
            return 0;
    return 1;
}

static void *maybe_graph_task(void *arg)
{
    maybe_task *k = arg;
    const csr_model *m = k->m;
    uint64_t c = k->c, t = k->t;
    for (uint64_t s = k->first; s < k->last; s++) {
        if (k->pass)
            k->sc[s] = c;
        if (k->cls[s] != REACH_MAYBE)
            continue;
        for (uint64_t x = m->state_choices[s]; x < m->state_choices[s + 1]; x++) {
            if (!maybe_choice_kept(k, x))
                continue;
            const uint64_t b = m->choice_transitions[x], e = m->choice_transitions[x + 1];
            if (k->pass) {
                memcpy(k->tg + t, m->targets + b, (e - b) * sizeof *k->tg);
                k->ct[c + 1] = t + (e - b);
            }
            c++;
            t += e - b;
        }
    }
    k->c = c;
    k->t = t;
    return NULL;
}

/* Up to PARALLEL_MAX_TASKS tasks over the model's states, about `grain`
 * states or more each; returns their number. */
static unsigned state_tasks(const csr_model *m, maybe_task *task, uint64_t grain)
{
    const uint64_t n = m->num_states;
    const unsigned count = parallel_tasks(n, parallel_grain(grain));
    for (unsigned i = 0; i < count; i++) {
        memset(&task[i], 0, sizeof task[i]);
        task[i].m = m;
        task[i].first = n * i / count;
        task[i].last = n * (i + 1) / count;
    }
    return count;
}

int reach_maybe_graph(const csr_model *m, const uint8_t *cls, const double *choice_reward, csr_model *sub)
{
    const uint64_t n = m->num_states;
    memset(sub, 0, sizeof *sub);
    maybe_task task[PARALLEL_MAX_TASKS];
    const unsigned count = state_tasks(m, task, 1u << 16);
    for (unsigned i = 0; i < count; i++) {
        task[i].cls = cls;
        task[i].choice_reward = choice_reward;
    }
    /* Count the kept choices and transitions of each task's states. */
    parallel_run(maybe_graph_task, task, sizeof task[0], count);
    uint64_t c = 0, t = 0;
    for (unsigned i = 0; i < count; i++) {
        uint64_t tc = task[i].c, tt = task[i].t;
        task[i].c = c;
        task[i].t = t;
        task[i].pass = 1;
        c += tc;
        t += tt;
    }
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg);
    if (!sc || !ct || !tg) {
        free(sc);
        free(ct);
        free(tg);
        return CSR_ERR_NOMEM;
    }
    /* fresh memory faulted in 2 MiB at a time (the tasks fill it at once) */
    advise_huge_pages(sc, (n + 1) * sizeof *sc);
    advise_huge_pages(ct, (c + 1) * sizeof *ct);
    advise_huge_pages(tg, (t ? t : 1) * sizeof *tg);
    ct[0] = 0;
    for (unsigned i = 0; i < count; i++) {
        task[i].sc = sc;
        task[i].ct = ct;
        task[i].tg = tg;
    }
    parallel_run(maybe_graph_task, task, sizeof task[0], count);
    sc[n] = c;
    sub->model_type = CSR_MDP;
    sub->num_states = n;
    sub->num_choices = c;
    sub->num_transitions = t;
    sub->state_choices = sc;
    sub->choice_transitions = ct;
    sub->targets = tg;
    sub->owned[0] = sc;
    sub->owned[1] = ct;
    sub->owned[2] = tg;
    sub->num_owned = 3;
    return CSR_OK;
}

/* Pass 0: count the representatives (smallest[s] == s); 1: dense ids for
 * them and REACH_NO_MEC outside MECs; 2: the other members take their
 * representative's (smaller: assigned in pass 1); 3: the leaving flags. */
static void *mec_arrays_task(void *arg)
{
    maybe_task *k = arg;
    const csr_model *m = k->m;
    const uint32_t *smallest = k->smallest;
    uint32_t *dense = k->dense;
    uint64_t id = k->mecs;
    for (uint64_t s = k->first; s < k->last; s++) {
        switch (k->pass) {
        case 0: k->mecs += smallest[s] == s; break;
        case 1:
            if (smallest[s] == REACH_NO_MEC)
                dense[s] = REACH_NO_MEC;
            else if (smallest[s] == s)
                dense[s] = (uint32_t)id++;
            break;
        case 2:
            if (smallest[s] != REACH_NO_MEC) {
                k->in++;
                if (smallest[s] != s)
                    dense[s] = dense[smallest[s]];
            }
            break;
        default:
            for (uint64_t x = m->state_choices[s]; x < m->state_choices[s + 1]; x++) {
                uint8_t leaves = dense[s] == REACH_NO_MEC;
                for (uint64_t j = m->choice_transitions[x]; !leaves && j < m->choice_transitions[x + 1]; j++)
                    leaves = dense[m->targets[j]] != dense[s];
                k->leaving[x] = leaves;
            }
        }
    }
    return NULL;
}

uint64_t reach_mec_arrays(const csr_model *m, const uint32_t *smallest, uint32_t *dense, uint8_t *leaving,
                          uint64_t *states)
{
    maybe_task task[PARALLEL_MAX_TASKS];
    const unsigned count = state_tasks(m, task, 1u << 16);
    for (unsigned i = 0; i < count; i++) {
        task[i].smallest = smallest;
        task[i].dense = dense;
        task[i].leaving = leaving;
    }
    uint64_t mecs = 0, in = 0;
    for (int pass = 0; pass < 4; pass++) {
        if (pass == 1) /* dense ids in order of smallest state */
            for (unsigned i = 0; i < count; i++) {
                uint64_t here = task[i].mecs;
                task[i].mecs = mecs;
                mecs += here;
            }
        for (unsigned i = 0; i < count; i++)
            task[i].pass = pass;
        parallel_run(mec_arrays_task, task, sizeof task[0], count);
    }
    for (unsigned i = 0; i < count; i++)
        in += task[i].in;
    if (states)
        *states = in;
    return mecs;
}

void reach_initial_bounds(uint64_t n, const uint8_t *cls, double *lower, double *upper)
{
    for (uint64_t s = 0; s < n; s++) {
        lower[s] = cls[s] == REACH_YES ? 1.0 : 0.0;
        upper[s] = cls[s] == REACH_NO ? 0.0 : 1.0;
    }
}

void reach_answer(uint64_t n, int method, const double *lower, const double *upper, double *values)
{
    for (uint64_t s = 0; s < n; s++)
        values[s] = method != REACH_VI ? 0.5 * (lower[s] + upper[s]) : lower[s];
}

uint64_t reach_system_bytes(uint64_t n, uint64_t c, uint64_t t)
{
    /* targets 4t + probabilities 8t; choice offsets 8c + leaving flags c;
     * state offsets 8n, lower and upper 16n, fixed 1n, MEC 4n + MEC maxima 16n
     * (at most one MEC per state, two buffers), maybe list 4n, differences 8n,
     * and 1 MB for CUB's temporary storage and the flags. */
    return 12 * t + 9 * c + 57 * n + (1u << 20);
}

/* ---- the whole query ---------------------------------------------------------- */

/* The phases' seconds from their boundaries: Prob0/Prob1 [t0, t1), MECs
 * [t1, t2), SCCs of the split [t2, t3), iteration [t3, t4). */
static void phase_seconds(reach_stats *st, double t0, double t1, double t2, double t3, double t4)
{
    st->prob01_s = t1 - t0;
    st->mec_s = t2 - t1;
    st->split_s = t3 - t2;
    st->iterate_s = t4 - t3;
    st->total_s = t4 - t0;
}

/* The engine's steps, or the references' where it has none; Prob0/Prob1
 * through the run's cache. */
static int engine_prob01(const reach_engine *e, const reach_query *q, uint8_t *cls)
{
    const uint8_t *kept = reach_cache_find(e->cache, q, NULL);
    if (kept) {
        memcpy(cls, kept, e->model->num_states);
        return CSR_OK;
    }
    ref_transpose own = {0};
    const ref_transpose *tr = e->prob01 ? NULL : reach_cache_transpose_or_build(e->cache, e->model, &own);
    int rc = e->prob01 ? e->prob01(e->ctx, e->cache, q, cls)
             : tr      ? ref_reach_prob01_transposed(e->model, tr, q, cls)
                       : CSR_ERR_NOMEM;
    ref_transpose_free(&own);
    if (!rc)
        reach_cache_put(e->cache, q, cls, NULL);
    return rc;
}

int reach_engine_maybe_mecs(const reach_engine *e, const uint8_t *cls, const double *choice_reward, uint32_t *mec)
{
    if (e->maybe_mecs)
        return e->maybe_mecs(e->ctx, cls, choice_reward, mec);
    reach_engine ref;
    reach_cpu_engine(e->model, &ref);
    return ref.maybe_mecs(ref.ctx, cls, choice_reward, mec);
}

int reach_engine_solve(const reach_engine *e, const reach_system *y, const reach_options *o, double eps,
                       double *lower, double *upper, uint64_t *iterations, double *difference)
{
    return e->solve ? e->solve(y, o, eps, lower, upper, iterations, difference, e->ctx)
                    : ref_reach_iterate(y, o, eps, lower, upper, iterations, difference, NULL);
}

/* The system of model m (the engine's, or a quotient of it; fixed[s]: kept,
 * 0: solved; MECs and rewards as reach_system) solved whole when
 * st->bytes_needed fits the engine's budget, else split into groups of SCCs
 * (reach_solve_split); *t3: when the SCCs were found. */
int reach_solve_whole_or_split(const reach_engine *e, const csr_model *m, const uint8_t *fixed, const uint32_t *mec,
                                uint64_t num_mecs, const uint8_t *leaving, int maximize, const double *reward,
                                const reach_options *o, double *lower, double *upper, reach_stats *st, double *t3)
{
    const uint64_t n = m->num_states;
    if (st->bytes_needed <= e->budget) {
        reach_system y = {n,     m->num_choices, m->num_transitions, m->state_choices, m->choice_transitions,
                          m->targets, m->probabilities, fixed, mec, leaving, num_mecs, maximize, reward};
        st->groups = 1;
        st->split = 0;
        return reach_engine_solve(e, &y, o, o->epsilon, lower, upper, &st->iterations, &st->final_difference);
    }
    st->split = 1;
    uint32_t *scc = malloc((n ? n : 1) * sizeof *scc);
    int rc = CSR_ERR_NOMEM;
    if (scc) {
        if (e->sccs) {
            rc = e->sccs(e->ctx, m, e->budget, scc);
        } else {
            reach_engine ref;
            reach_cpu_engine(m, &ref);
            rc = ref.sccs(ref.ctx, m, e->budget, scc);
        }
    }
    *t3 = monotonic_seconds();
    if (!rc)
        rc = reach_solve_split(m, fixed, scc, e->budget, mec, num_mecs, leaving, maximize, reward, o, e, lower, upper,
                               st);
    free(scc);
    return rc;
}

int reach_solve(const reach_engine *e, const reach_query *q, const reach_options *o, double *values, double *lower_out,
                double *upper_out, reach_stats *st)
{
    const csr_model *m = e->model;
    const uint64_t n = m->num_states, c = m->num_choices;
    uint8_t *cls = malloc(n ? n : 1), *leaving = NULL;
    uint32_t *smallest = NULL, *mec = NULL; /* the maybe states' MECs: smallest state, then dense ids */
    double *lower = lower_out ? lower_out : malloc((n ? n : 1) * sizeof *lower);
    double *upper = upper_out ? upper_out : malloc((n ? n : 1) * sizeof *upper);
    int rc = cls && lower && upper ? CSR_OK : CSR_ERR_NOMEM;
    if (!rc) { /* first touched below: 512 times fewer page faults (coin6_4: 24 ms of them for the bounds) */
        advise_huge_pages(cls, n);
        advise_huge_pages(lower, n * sizeof *lower);
        advise_huge_pages(upper, n * sizeof *upper);
    }
    st->method = o->method;
    double t0 = monotonic_seconds(), t1 = t0, t2 = t0, t3 = t0;
    /* Pmax by interval iteration on an MDP: the MECs of the maybe states */
    const int want_mecs = q->maximize && o->method != REACH_VI && m->model_type == CSR_MDP;
    int have_mecs = 0; /* smallest holds them (from prob01_mecs) */
    if (!rc && want_mecs) {
        smallest = malloc((n ? n : 1) * sizeof *smallest);
        mec = malloc((n ? n : 1) * sizeof *mec);
        leaving = malloc(c ? c : 1);
        if (smallest && mec && leaving) {
            advise_huge_pages(smallest, n * sizeof *smallest);
            advise_huge_pages(mec, n * sizeof *mec);
            advise_huge_pages(leaving, c);
        } else {
            rc = CSR_ERR_NOMEM;
        }
    }
    int have_classes = 0; /* kept from an earlier query (Rmin's, Pmax's by value iteration): no prob01_mecs */
    if (!rc && want_mecs) { /* the classes and MECs of this query kept from an earlier one */
        const uint32_t *kept_mec;
        const uint8_t *kept = reach_cache_find(e->cache, q, &kept_mec);
        have_classes = kept != NULL;
        if (kept && kept_mec) {
            memcpy(cls, kept, n);
            memcpy(smallest, kept_mec, n * sizeof *smallest);
            have_mecs = 1;
        }
    }
    if (!rc && want_mecs && !have_mecs && !have_classes && e->prob01_mecs) {
        rc = e->prob01_mecs(e->ctx, e->cache, q, cls, smallest);
        have_mecs = rc == CSR_OK;
        if (have_mecs)
            reach_cache_put(e->cache, q, cls, smallest);
        if (rc == CSR_ERR_NOMEM) /* the engine cannot take it: the two steps apart */
            rc = CSR_OK;
    }
    if (!rc && !have_mecs)
        rc = engine_prob01(e, q, cls);
    if (!rc)
        reach_count_classes(n, cls, st);
    t1 = monotonic_seconds();
    if (!rc && want_mecs && st->maybe) {
        if (!have_mecs) {
            rc = reach_engine_maybe_mecs(e, cls, NULL, smallest);
            if (!rc)
                reach_cache_put(e->cache, q, cls, smallest);
        }
        if (!rc)
            st->mecs = reach_mec_arrays(m, smallest, mec, leaving, &st->mec_states);
    }
    t2 = t3 = monotonic_seconds();
    st->bytes_needed = reach_system_bytes(n, c, m->num_transitions);
    if (!rc) {
        reach_initial_bounds(n, cls, lower, upper);
        /* cls doubles as the fixed flags: REACH_MAYBE is 0 */
        rc = reach_solve_whole_or_split(e, m, cls, mec, st->mecs, leaving, q->maximize, NULL, o, lower, upper, st, &t3);
        if (reach_answered(rc))
            reach_answer(n, o->method, lower, upper, values);
    }
    phase_seconds(st, t0, t1, t2, t3, monotonic_seconds());
    free(cls);
    free(leaving);
    free(smallest);
    free(mec);
    if (lower != lower_out)
        free(lower);
    if (upper != upper_out)
        free(upper);
    return rc;
}

/* ---- expected reachability rewards ------------------------------------------ */

/* The quotient by zero-reward MECs (reach_internal.h): Rmin's, and the reward bounds' epochs. */
int reach_zero_reward_quotient(const csr_model *m, const uint8_t *cls, const uint32_t *ids, const double *reward,
                                csr_model *q, double **reward_out, uint8_t *fixed)
{
    const uint64_t n = m->num_states;
    memset(q, 0, sizeof *q);
    /* next_member[u]: the next state of u's MEC in increasing order (the
     * representative, the smallest, first), UINT32_MAX after the last */
    uint32_t *next_member = malloc((n ? n : 1) * sizeof *next_member), *last = malloc((n ? n : 1) * sizeof *last);
    if (!next_member || !last) {
        free(next_member);
        free(last);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t u = 0; u < n; u++) {
        next_member[u] = UINT32_MAX;
        if (ids[u] != REACH_NO_MEC) {
            if (ids[u] != u)
                next_member[last[ids[u]]] = (uint32_t)u;
            last[ids[u]] = (uint32_t)u;
        }
    }
    free(last);
    uint64_t c = 0, t = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t *sc = pass ? (uint64_t *)q->state_choices : NULL, *ct = pass ? (uint64_t *)q->choice_transitions : NULL;
        uint32_t *tg = pass ? (uint32_t *)q->targets : NULL;
        double *pr = pass ? (double *)q->probabilities : NULL, *rw = pass ? *reward_out : NULL;
        c = t = 0;
        if (pass)
            ct[0] = 0;
        /* the representative s collects the choices of every u with ids[u] == s */
        for (uint64_t s = 0; s < n; s++) {
            if (pass)
                sc[s] = c;
            if (ids[s] != REACH_NO_MEC && ids[s] != s)
                continue; /* a member: its choices go to its representative */
            uint64_t u = s;
            for (;;) {
                for (uint64_t k = m->state_choices[u]; k < m->state_choices[u + 1]; k++) {
                    int inside = ids[s] != REACH_NO_MEC && reward[k] == 0.0;
                    for (uint64_t j = m->choice_transitions[k]; inside && j < m->choice_transitions[k + 1]; j++)
                        inside = ids[m->targets[j]] == ids[s];
                    if (inside)
                        continue;
                    for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++) {
                        if (pass) {
                            uint32_t v = m->targets[j];
                            tg[t] = ids[v] != REACH_NO_MEC ? (uint32_t)ids[v] : v;
                            pr[t] = m->probabilities[j];
                        }
                        t++;
                    }
                    if (pass) {
                        rw[c] = reward[k];
                        ct[c + 1] = t;
                    }
                    c++;
                }
                if (ids[s] == REACH_NO_MEC || next_member[u] == UINT32_MAX)
                    break;
                u = next_member[u];
            }
        }
        if (pass) {
            sc[n] = c;
            break;
        }
        uint64_t *nsc = malloc((n + 1) * sizeof *nsc), *nct = malloc((c + 1) * sizeof *nct);
        uint32_t *ntg = malloc((t ? t : 1) * sizeof *ntg);
        double *npr = malloc((t ? t : 1) * sizeof *npr);
        *reward_out = malloc((c ? c : 1) * sizeof **reward_out);
        void *all[] = {nsc, nct, ntg, npr};
        for (int i = 0; i < 4; i++)
            q->owned[q->num_owned++] = all[i];
        if (!nsc || !nct || !ntg || !npr || !*reward_out) {
            free(next_member);
            csr_free(q);
            free(*reward_out);
            *reward_out = NULL;
            return CSR_ERR_NOMEM;
        }
        q->state_choices = nsc;
        q->choice_transitions = nct;
        q->targets = ntg;
        q->probabilities = npr;
    }
    free(next_member);
    q->model_type = CSR_MDP;
    q->num_states = n;
    q->num_choices = c;
    q->num_transitions = t;
    for (uint64_t s = 0; s < n; s++)
        fixed[s] = cls[s] != REACH_MAYBE || (ids[s] != REACH_NO_MEC && ids[s] != s);
    return CSR_OK;
}

/* The search of fix_zero_rewards, shared by its tasks: breadth first,
 * a frontier a round, each task expanding a slice of it into its own list,
 * the lists then joined into the next frontier (two barriers a round). */
typedef struct zero_search {
    const csr_model *m;
    const ref_transpose *tr;
    const double *reward;
    const uint8_t *fixed;
    const double *lower, *upper;
    int maximize;
    uint8_t *in;        /* u8[n]: joined (claimed by an atomic exchange) */
    uint64_t *left;     /* u64[c] (min): each choice's transitions not yet into the set */
    uint32_t *frontier[2]; /* u32[n] each */
    uint64_t size[2];
    uint64_t count[PARALLEL_MAX_TASKS]; /* each task's list, this round */
    int failed;         /* a task's list could not grow */
    unsigned tasks;
    parallel_barrier barrier;
} zero_search;

typedef struct zero_task {
    zero_search *z;
    unsigned index;
    uint32_t *list; /* the states this task joined this round */
    uint64_t cap;
} zero_task;

static int zero_push(zero_task *k, uint64_t at, uint32_t s)
{
    if (at == k->cap) {
        const uint64_t cap = k->cap ? 2 * k->cap : 4096;
        uint32_t *grown = realloc(k->list, cap * sizeof *grown);
        if (!grown)
            return 0;
        k->list = grown;
        k->cap = cap;
    }
    k->list[at] = s;
    return 1;
}

/* This task's list into the next frontier, after every task's count.
 * Returns 1 where a task's list could not grow this round (read between
 * the barriers, so that every task stops at the same round). */
static int zero_join(zero_task *k, int next, uint64_t got)
{
    zero_search *z = k->z;
    z->count[k->index] = got;
    parallel_barrier_wait(&z->barrier);
    const int failed = __atomic_load_n(&z->failed, __ATOMIC_RELAXED);
    uint64_t at = 0, total = 0;
    for (unsigned i = 0; i < z->tasks; i++) {
        at += i < k->index ? z->count[i] : 0;
        total += z->count[i];
    }
    if (got) /* (a task that joined nothing has no list) */
        memcpy(z->frontier[next] + at, k->list, got * sizeof *k->list);
    if (k->index == 0)
        z->size[next] = total;
    parallel_barrier_wait(&z->barrier);
    return failed;
}

static void *zero_search_task(void *arg)
{
    zero_task *k = arg;
    zero_search *z = k->z;
    const csr_model *m = z->m;
    const uint64_t n = m->num_states, c = m->num_choices;
    const unsigned T = z->tasks, i = k->index;
    uint64_t got = 0;
    int ok = 1;
    /* the seeds: max, the maybe states with a positive-reward choice; min, the fixed states of value 0 */
    for (uint64_t s = n * i / T; s < n * (i + 1) / T; s++) {
        int seed = 0;
        if (z->maximize) {
            for (uint64_t x = m->state_choices[s]; !z->fixed[s] && !seed && x < m->state_choices[s + 1]; x++)
                seed = z->reward[x] > 0.0;
        } else {
            seed = z->fixed[s] && z->lower[s] == 0.0 && z->upper[s] == 0.0;
        }
        if (seed) {
            z->in[s] = 1;
            ok = ok && zero_push(k, got++, (uint32_t)s);
        }
    }
    for (uint64_t x = c * i / T; z->left && x < c * (i + 1) / T; x++)
        z->left[x] = m->choice_transitions[x + 1] - m->choice_transitions[x];
    if (!ok)
        __atomic_store_n(&z->failed, 1, __ATOMIC_RELAXED);
    int stop = zero_join(k, 0, ok ? got : 0);
    for (int now = 0; z->size[now] && !stop; now ^= 1) {
        const uint64_t size = z->size[now];
        got = 0;
        for (uint64_t f = size * i / T; ok && f < size * (i + 1) / T; f++) {
            const uint32_t v = z->frontier[now][f];
            for (uint64_t j = z->tr->first[v]; ok && j < z->tr->first[v + 1]; j++) {
                const uint64_t x = z->tr->choice[j], s = z->tr->owner[x];
                if (z->fixed[s] || __atomic_load_n(&z->in[s], __ATOMIC_RELAXED))
                    continue;
                if (!z->maximize &&
                    (z->reward[x] != 0.0 || __atomic_sub_fetch(&z->left[x], 1, __ATOMIC_ACQ_REL) > 0))
                    continue;
                if (__atomic_exchange_n(&z->in[s], 1, __ATOMIC_ACQ_REL) == 0)
                    ok = zero_push(k, got++, (uint32_t)s);
            }
        }
        if (!ok)
            __atomic_store_n(&z->failed, 1, __ATOMIC_RELAXED);
        stop = zero_join(k, now ^ 1, ok ? got : 0);
    }
    return NULL;
}

/*
 * The maybe states of an expected reward's system (fixed[s] == 0) whose
 * value is exactly 0, fixed at 0 (lower = upper = 0): the relative stopping
 * rule asks them for exact zeros, which no bound from an iteration or a
 * certificate gives.  Rmax: those that cannot reach a positive
 * reward through maybe states (every scheduler reaches the target almost
 * surely, so one that can reach such a choice gets a positive reward);
 * Rmin (m the zero-reward quotient: no end component of zero-reward choices
 * among its maybe states): the attractor of the zero-valued fixed states
 * over zero-reward choices, a state joining when one of them has all its
 * successors in, which without such end components is exactly where some
 * scheduler reaches the target almost surely at no cost.  Both are least
 * fixpoints, the same whatever order the search takes: breadth first, a
 * task per CPU on large models (zero_search).  O(n + c + t) work and a
 * transpose's memory (m's, kept in cache for the next properties; NULL:
 * built here and freed), 9n bytes more (8c for Rmin), and each task's list
 * of the states it joined in a round (grown by doubling: up to 8n in all).  Returns the states
 * fixed, or UINT64_MAX when out of memory (nothing fixed: the solvers'
 * bounds still hold).
 */
static uint64_t fix_zero_rewards(const csr_model *m, reach_cache *cache, const double *reward, int maximize,
                                 uint8_t *fixed, double *lower, double *upper)
{
    const uint64_t n = m->num_states, c = m->num_choices;
    /* none where every maybe state has a positive-reward choice (max) or only such choices (min): no
     * transpose then (herman 15's 14.3M transitions, 0.3 s) */
    int none = 1;
    for (uint64_t s = 0; none && s < n; s++) {
        if (fixed[s])
            continue;
        int positive = 0, zero = 0;
        for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
            positive |= reward[k] > 0.0;
            zero |= reward[k] == 0.0;
        }
        none = maximize ? positive : !zero;
    }
    if (none)
        return 0;
    ref_transpose own = {0};
    const ref_transpose *tr = reach_cache_transpose_or_build(cache, m, &own);
    zero_search z = {.m = m, .tr = tr, .reward = reward, .fixed = fixed, .lower = lower, .upper = upper,
                     .maximize = maximize};
    z.in = calloc(n ? n : 1, 1);
    z.frontier[0] = malloc((n ? n : 1) * sizeof(uint32_t));
    z.frontier[1] = malloc((n ? n : 1) * sizeof(uint32_t));
    z.left = maximize ? NULL : malloc((c ? c : 1) * sizeof *z.left);
    uint64_t fixed_now = UINT64_MAX;
    zero_task task[PARALLEL_MAX_TASKS];
    unsigned formed = 0;
    if (!tr || !z.in || !z.frontier[0] || !z.frontier[1] || (!maximize && !z.left))
        goto out;
    z.tasks = parallel_tasks(n + m->num_transitions, parallel_grain(1u << 20));
    for (unsigned i = 0; i < z.tasks; i++)
        task[i] = (zero_task){&z, i, NULL, 0};
    formed = z.tasks;
    parallel_barrier_init(&z.barrier, z.tasks);
    if (z.tasks < 2 || !parallel_team(zero_search_task, task, sizeof task[0], z.tasks)) {
        z.tasks = 1; /* one task, then */
        parallel_barrier_init(&z.barrier, 1);
        zero_search_task(&task[0]);
    }
    if (z.failed)
        goto out;
    fixed_now = 0;
    for (uint64_t s = 0; s < n; s++)
        if (!fixed[s] && (maximize ? !z.in[s] : z.in[s])) {
            fixed[s] = 1;
            lower[s] = upper[s] = 0.0;
            fixed_now++;
        }
out:
    for (unsigned i = 0; i < formed; i++)
        free(task[i].list);
    ref_transpose_free(&own);
    free(z.in);
    free(z.frontier[0]);
    free(z.frontier[1]);
    free(z.left);
    return fixed_now;
}

/* One task of the expected reward's set-up: the states [first, last). */
typedef struct reward_task {
    const csr_model *m;
    const reach_query *q;
    const double *state_reward, *choice_reward;
    uint8_t *cls, *fixed;
    double *reward, *lower, *upper;
    uint64_t first, last;
    uint64_t yes, no, maybe; /* counted */
} reward_task;

/* The classes of the finite values from Prob0/Prob1's (cls: target, else
 * Prob1 (finite), else infinite), each choice's reward (state's + its
 * own), the a-priori bounds; the classes counted. */
static void *reward_setup_task(void *arg)
{
    reward_task *k = arg;
    const csr_model *m = k->m;
    for (uint64_t s = k->first; s < k->last; s++) {
        const uint8_t c = k->q->target[s] ? REACH_YES : k->cls[s] == REACH_YES ? REACH_MAYBE : REACH_NO;
        k->cls[s] = c;
        c == REACH_YES ? k->yes++ : c == REACH_NO ? k->no++ : k->maybe++;
        const double sr = k->state_reward ? k->state_reward[s] : 0.0;
        for (uint64_t x = m->state_choices[s]; x < m->state_choices[s + 1]; x++)
            k->reward[x] = sr + (k->choice_reward ? k->choice_reward[x] : 0.0);
        k->fixed[s] = c != REACH_MAYBE;
        k->lower[s] = c == REACH_NO ? INFINITY : 0.0;
        k->upper[s] = c == REACH_YES ? 0.0 : INFINITY;
    }
    return NULL;
}

int reach_solve_reward(const reach_engine *e, const reach_query *q, const double *state_reward,
                       const double *choice_reward, const reach_options *o, double *values, double *lower_out,
                       double *upper_out, reach_stats *st)
{
    const csr_model *m = e->model;
    const uint64_t n = m->num_states, c = m->num_choices;
    uint8_t *cls = malloc(n ? n : 1), *fixed = malloc(n ? n : 1);
    double *reward = malloc((c ? c : 1) * sizeof *reward), *qreward = NULL;
    double *lower = lower_out ? lower_out : malloc((n ? n : 1) * sizeof *lower);
    double *upper = upper_out ? upper_out : malloc((n ? n : 1) * sizeof *upper);
    uint32_t *ids = NULL;
    csr_model quotient = {0};
    const csr_model *solved = m;
    int rc = cls && fixed && reward && lower && upper ? CSR_OK : CSR_ERR_NOMEM;
    reach_options ro = *o;
    if (ro.method == REACH_II)
        ro.method = REACH_OVI; /* no a-priori upper bound: interval iteration from a verified guess */
    st->method = ro.method;
    double t0 = monotonic_seconds(), t1 = t0, t2 = t0, t3 = t0;
    /* 1. Finite values: Rmin where some scheduler reaches the target almost
     * surely (Prob1E), Rmax where all do (Prob1A); the rest is infinite. */
    reach_query pq = {q->target, NULL, !q->maximize};
    if (!rc)
        rc = engine_prob01(e, &pq, cls);
    if (!rc) { /* a task per CPU (format/parallel.h) */
        reward_task task[PARALLEL_MAX_TASKS];
        const unsigned count = parallel_tasks(n, parallel_grain(1u << 16));
        for (unsigned i = 0; i < count; i++)
            task[i] = (reward_task){m,      q,     state_reward, choice_reward, cls, fixed, reward, lower,
                                    upper, n * i / count, n * (i + 1) / count, 0, 0, 0};
        parallel_run(reward_setup_task, task, sizeof task[0], count);
        st->yes = st->no = st->maybe = 0;
        for (unsigned i = 0; i < count; i++) {
            st->yes += task[i].yes;
            st->no += task[i].no;
            st->maybe += task[i].maybe;
        }
    }
    t1 = monotonic_seconds();
    /* 2. Rmin on an MDP: collapse the zero-reward MECs of the finite states. */
    if (!rc && !q->maximize && m->model_type == CSR_MDP && st->maybe) {
        ids = malloc((n ? n : 1) * sizeof *ids);
        rc = ids ? reach_engine_maybe_mecs(e, cls, reward, ids) : CSR_ERR_NOMEM;
        uint64_t in = 0;
        for (uint64_t s = 0; !rc && s < n; s++)
            if (ids[s] != REACH_NO_MEC) {
                in++;
                st->mecs += ids[s] == s;
            }
        st->mec_states = in;
        if (!rc && in) {
            rc = reach_zero_reward_quotient(m, cls, ids, reward, &quotient, &qreward, fixed);
            solved = &quotient;
        }
    }
    const double *solved_reward = solved == m ? reward : qreward;
    /* 3. The finite states of value 0, exactly. */
    if (!rc && st->maybe) {
        /* the model's transpose kept for the run's next properties; a quotient's its own */
        const uint64_t zeros = fix_zero_rewards(solved, solved == m ? e->cache : NULL, solved_reward, q->maximize,
                                                fixed, lower, upper);
        if (zeros == UINT64_MAX) {
            rc = CSR_ERR_NOMEM;
        } else {
            st->yes += zeros;
            st->maybe -= zeros < st->maybe ? zeros : st->maybe;
        }
    }
    t2 = t3 = monotonic_seconds();
    st->bytes_needed = reach_system_bytes(n, solved->num_choices, solved->num_transitions) + 8 * solved->num_choices;
    if (!rc) {
        /* fixed doubles as the classes of the split: 0 (REACH_MAYBE) is solved */
        rc = reach_solve_whole_or_split(e, solved, fixed, NULL, 0, NULL, q->maximize, solved_reward, &ro, lower, upper, st,
                                  &t3);
        if (reach_answered(rc)) {
            for (uint64_t s = 0; ids && s < n; s++)
                if (ids[s] != REACH_NO_MEC && ids[s] != s) {
                    lower[s] = lower[ids[s]];
                    upper[s] = upper[ids[s]];
                }
            /* an upper bound never verified is infinite: the answer is then the lower bound */
            for (uint64_t s = 0; s < n; s++)
                values[s] = ro.method == REACH_VI || isinf(upper[s]) ? lower[s] : 0.5 * (lower[s] + upper[s]);
        }
    }
    phase_seconds(st, t0, t1, t2, t3, monotonic_seconds());
    csr_free(&quotient);
    free(qreward);
    free(cls);
    free(fixed);
    free(reward);
    if (lower != lower_out)
        free(lower);
    if (upper != upper_out)
        free(upper);
    free(ids);
    return rc;
}

/* ---- step-bounded reachability ---------------------------------------------- */

int reach_solve_bounded(const reach_engine *e, const reach_query *q, uint64_t steps, double *values, reach_stats *st)
{
    double t0 = monotonic_seconds();
    int rc = e->bounded ? e->bounded(e->ctx, q, steps, values) : ref_reach_bounded(e->model, q, steps, values);
    st->iterations = steps;
    st->groups = 1;
    st->iterate_s = st->total_s = monotonic_seconds() - t0;
    return rc;
}
