/*
 * check_pool.c - the properties of one run checked at once (check.h,
 * check_pool_*): threads each with its own engine (the sequential
 * references', or what the caller's check_pool_engines opens: gpu-vi's
 * GPU engines, each with the model resident on the device and its own
 * stream) and its own Prob0/Prob1 cache, taking the chosen properties in
 * the file's order; the caller takes the results in that order, each as
 * soon as it is done.  Storm checks one property after the other on one
 * core; the properties of a run share the model, which is read only, and
 * its transpose, which the taker's cache keeps (built once, under its
 * lock: reach_cache_new_sharing).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parallel.h"

enum { WAITING = 0, RUNNING = 1, DONE = 2, TAKEN = 3 };

typedef struct pool_worker {
    struct check_pool *pool;
    reach_engine engine;
    reach_cache *cache; /* the worker's (the taker's: the caller's, not freed here) */
    csr_status status;
    pthread_t thread;
    int started;
} pool_worker;

struct check_pool {
    const props_file *file;
    const reach_options *options;
    const csr_model *model;
    check_pool_engines engines; /* open NULL: the references' */
    uint64_t budget;
    size_t count, next;     /* properties; the next one a worker takes */
    size_t window_end;      /* none started from here on (window_after the next one to be taken) */
    const uint8_t *chosen;  /* u8[count] */
    uint8_t *state;         /* u8[count]: WAITING, RUNNING, DONE, TAKEN */
    int *rc;                /* [count] check_property's return */
    check_result *result;   /* [count] */
    csr_status **failure;   /* [count] the worker's engine status where check_property failed (NULL: none) */
    int stop;               /* no property started after this is set */
    pthread_mutex_t lock;
    pthread_cond_t done;
    unsigned workers;
    pool_worker worker[]; /* workers threads' and the taker's */
};

/* Just past the 2 workers-th chosen property from `from` on (count if fewer
 * remain): the results held at once are bounded by the window's
 * properties, not by the file's. */
static size_t window_after(const check_pool *p, size_t from)
{
    size_t j = 0;
    for (size_t k = from; k < p->count; k++)
        if (p->chosen[k] && ++j == 2 * (size_t)p->workers)
            return k + 1;
    return p->count;
}

/* The next chosen property not started, marked running, once it is within
 * the window of those not yet taken (waits for the taker); count if none. */
static size_t take_next(check_pool *p)
{
    for (;;) {
        while (p->next < p->count && (!p->chosen[p->next] || p->state[p->next] != WAITING))
            p->next++;
        if (p->stop || p->next == p->count)
            return p->count;
        if (p->next < p->window_end)
            break;
        pthread_cond_wait(&p->done, &p->lock);
    }
    p->state[p->next] = RUNNING;
    return p->next++;
}

static void check_one(check_pool *p, pool_worker *w, size_t i)
{
    check_result r;
    const int rc = check_property(&w->engine, p->file, &p->file->properties[i], p->options, &r);
    /* what a worker's engine said of a failure that takes the run (out of memory: none); the taker's engine
     * writes the caller's status itself */
    csr_status *failure = NULL;
    if (rc && w != &p->worker[p->workers] && w->engine.status && (failure = malloc(sizeof *failure)))
        *failure = *w->engine.status;
    pthread_mutex_lock(&p->lock);
    p->failure[i] = failure;
    p->result[i] = r;
    p->rc[i] = rc;
    p->state[i] = DONE;
    pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->lock);
}

/* A worker: its engine opened on its own thread, properties until none is
 * left, its engine closed; one that does not open takes none. */
static void *worker_run(void *arg)
{
    pool_worker *w = arg;
    check_pool *p = w->pool;
    if (p->engines.open) {
        if (p->engines.open(p->engines.ctx, p->model, &w->engine, &w->status))
            return NULL;
    } else {
        reach_cpu_engine(p->model, &w->engine);
    }
    w->engine.status = &w->status;
    w->engine.budget = p->budget;
    w->engine.cache = w->cache;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const size_t i = take_next(p);
        pthread_mutex_unlock(&p->lock);
        if (i == p->count)
            break;
        check_one(p, w, i);
    }
    if (p->engines.close)
        p->engines.close(p->engines.ctx, &w->engine);
    return NULL;
}

check_pool *check_pool_start(const csr_model *m, const props_file *file, const uint8_t *chosen,
                             const reach_options *options, uint64_t budget, unsigned workers,
                             const check_pool_engines *engines, const reach_engine *taker)
{
    if (workers < 1)
        workers = 1;
    check_pool *p = calloc(1, sizeof *p + (workers + 1) * sizeof p->worker[0]);
    if (!p)
        return NULL;
    p->file = file;
    p->options = options;
    p->model = m;
    if (engines)
        p->engines = *engines;
    p->budget = budget;
    p->count = file->count;
    p->chosen = chosen;
    p->workers = workers;
    p->window_end = window_after(p, 0);
    p->state = calloc(p->count ? p->count : 1, 1);
    p->rc = calloc(p->count ? p->count : 1, sizeof *p->rc);
    p->result = calloc(p->count ? p->count : 1, sizeof *p->result);
    p->failure = calloc(p->count ? p->count : 1, sizeof *p->failure);
    const int locked = p->state && p->rc && p->result && p->failure && !pthread_mutex_init(&p->lock, NULL);
    const int waits = locked && !pthread_cond_init(&p->done, NULL);
    int ok = waits;
    for (unsigned i = 0; ok && i < workers; i++) {
        p->worker[i].pool = p;
        ok = (p->worker[i].cache = reach_cache_new_sharing(m->num_states, taker->cache)) != NULL;
    }
    p->worker[workers].pool = p; /* the taker's: the caller's engine */
    p->worker[workers].engine = *taker;
    if (!ok) {
        for (unsigned i = 0; i < workers; i++)
            reach_cache_free(p->worker[i].cache);
        if (waits)
            pthread_cond_destroy(&p->done);
        if (locked)
            pthread_mutex_destroy(&p->lock);
        free(p->state);
        free(p->rc);
        free(p->result);
        free(p->failure);
        free(p);
        return NULL;
    }
    /* a thread refused: the properties it would have taken are checked by the others, or by the taker */
    for (unsigned i = 0; i < workers; i++)
        p->worker[i].started = !pthread_create(&p->worker[i].thread, NULL, worker_run, &p->worker[i]);
    return p;
}

int check_pool_take(check_pool *p, size_t i, check_result *r)
{
    pthread_mutex_lock(&p->lock);
    if (p->state[i] == WAITING) { /* no worker has it yet: checked here, on the taker's engine */
        p->state[i] = RUNNING;
        pthread_mutex_unlock(&p->lock);
        check_one(p, &p->worker[p->workers], i);
        pthread_mutex_lock(&p->lock);
    }
    while (p->state[i] != DONE)
        pthread_cond_wait(&p->done, &p->lock);
    p->state[i] = TAKEN;
    const size_t end = window_after(p, i + 1); /* the window moves on */
    p->window_end = end > p->window_end ? end : p->window_end;
    pthread_cond_broadcast(&p->done);
    *r = p->result[i];
    const int rc = p->rc[i];
    csr_status *said = p->worker[p->workers].engine.status; /* the caller's */
    if (rc && p->failure[i] && said)
        *said = *p->failure[i];
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void check_pool_stop(check_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->workers; i++)
        if (p->worker[i].started)
            pthread_join(p->worker[i].thread, NULL);
    for (size_t i = 0; i < p->count; i++)
        if (p->state[i] == DONE)
            check_result_free(&p->result[i]);
    for (size_t i = 0; i < p->count; i++)
        free(p->failure[i]);
    for (unsigned i = 0; i < p->workers; i++)
        reach_cache_free(p->worker[i].cache);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p->state);
    free(p->rc);
    free(p->result);
    free(p->failure);
    free(p);
}

unsigned check_pool_workers(size_t properties)
{
    /* CSR_TEST_WORKERS: the tests' count, CPUs or not (1 to CHECK_POOL_MAX_WORKERS) */
    const char *test = getenv("CSR_TEST_WORKERS");
    const unsigned long asked = test ? strtoul(test, NULL, 10) : 0;
    const unsigned cpus = asked >= 1 && asked <= CHECK_POOL_MAX_WORKERS ? (unsigned)asked : parallel_cpus();
    unsigned w = cpus < CHECK_POOL_MAX_WORKERS ? cpus : CHECK_POOL_MAX_WORKERS;
    return properties < w ? (unsigned)(properties ? properties : 1) : w;
}
