/*
 * reach_topological.c - the topological solver (reach.h,
 * reach_solve_topological): a system solved SCC by SCC, successors first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "reach_internal.h"
#include "reach_ref.h"
#include "ref.h"

/* A self-loop probability above this is left to the iteration: dividing by
 * 1 - p loses more than the answer's precision. */
#define ALONE_SWEEPS 64   /* an SCC's sweeps alone before it joins the core */
#define ALONE_STATES 1024 /* an SCC tried alone: at most this many states, or 1/16 of the system's */
#define SELF_LOOP_LIMIT (1.0 - 1e-6)
/* A core's sweeps of Gauss-Seidel interval iteration (reach_gauss_seidel)
 * before certified policy iteration takes over, probabilities and expected
 * rewards alike (consensus N=4 K=4 Pmin: 1,840 sweeps 0.3-0.4 s, policy
 * iteration 1.19 s; wlan 5's maximal expected rewards: 1,558-1,836 sweeps
 * 0.9 s, policy iteration 4.2-5.1 s; consensus's expected steps: 1,477-2,113
 * sweeps, as many instructions as policy iteration after 640) */
#define CORE_SWEEPS 4096
/* A core of fewer states goes to policy iteration directly: its solves cost
 * little there and answer to some ulps (consensus N=2's expected steps: 75,
 * where Gauss-Seidel's bounds give 75 +- 1e-6 and R<=75 would say false) */
#define CORE_GS_MIN_STATES 1024

/*
 * The SCCs of y's unfixed states (edges: every transition of an unfixed
 * state to an unfixed one) by the reference's Tarjan (ref_scc_tarjan_order),
 * in the order it completes them: every SCC after the SCCs it reaches.
 * order (u32[n]): their members one SCC after the other; end (u64[n]):
 * where SCC i ends in order.  Returns the number of SCCs, or UINT64_MAX out
 * of memory.
 */
static uint64_t unfixed_sccs(const reach_system *y, uint32_t *order, uint64_t *end)
{
    const uint64_t n = y->num_states;
    csr_model graph;
    memset(&graph, 0, sizeof graph);
    graph.num_states = n;
    graph.num_choices = y->num_choices;
    graph.num_transitions = y->num_transitions;
    graph.state_choices = y->state_choices;
    graph.choice_transitions = y->choice_transitions;
    graph.targets = y->targets;
    uint8_t *alive = malloc(n ? n : 1);
    uint64_t *comp = malloc((n ? n : 1) * sizeof *comp);
    ref_scc_stats st;
    uint64_t K = UINT64_MAX;
    if (alive && comp) {
        for (uint64_t s = 0; s < n; s++)
            alive[s] = !y->fixed[s];
        if (ref_scc_tarjan_order(&graph, alive, NULL, comp, order, end, &st) == CSR_OK)
            K = st.sccs;
    }
    free(alive);
    free(comp);
    return K;
}

/*
 * Whether the SCC {s} is solved by one Bellman step, and if so both bounds:
 * x = opt over s's choices (MEC-internal ones left out) of (r + sum over the
 * other successors p x) / (1 - p(s -> s)), exact given the successors'
 * values, monotone in them (so bounds give bounds).  Not: no such choice, or
 * one that returns to s with probability above SELF_LOOP_LIMIT.
 */
static int solve_single(const reach_system *y, uint32_t s, double *lower, double *upper)
{
    const int max = y->maximize;
    const int in_mec = y->mec && y->mec[s] != REACH_NO_MEC;
    double best_l = max ? -INFINITY : INFINITY, best_u = best_l;
    int any = 0;
    for (uint64_t k = y->state_choices[s]; k < y->state_choices[s + 1]; k++) {
        if (in_mec && y->leaving && !y->leaving[k])
            continue;
        double self = 0.0, l = y->choice_reward ? y->choice_reward[k] : 0.0, u = l;
        for (uint64_t j = y->choice_transitions[k]; j < y->choice_transitions[k + 1]; j++) {
            const double p = y->probabilities[j];
            const uint32_t t = y->targets[j];
            if (p == 0.0)
                continue;
            if (t == s) {
                self += p;
            } else {
                l += p * lower[t];
                u += p * upper[t];
            }
        }
        if (self > SELF_LOOP_LIMIT)
            return 0;
        if (self > 0.0) {
            l /= 1.0 - self;
            u /= 1.0 - self;
        }
        if (max ? l > best_l : l < best_l)
            best_l = l;
        if (max ? u > best_u : u < best_u)
            best_u = u;
        any = 1;
    }
    if (!any)
        return 0;
    if (best_l > lower[s])
        lower[s] = best_l;
    if (best_u < upper[s])
        upper[s] = best_u;
    return 1;
}

/* CORE_GS_MIN_STATES, or CSR_TEST_CORE_GS_MIN's value where set (the
 * oracle takes its small MDPs' cores through Gauss-Seidel with 0). */
static uint64_t core_gs_min_states(void)
{
    const char *test = getenv("CSR_TEST_CORE_GS_MIN");
    return test ? strtoull(test, NULL, 10) : CORE_GS_MIN_STATES;
}

/*
 * The most SCCs of more than one state on a path of y's unfixed states (K
 * SCCs in order and end, as unfixed_sccs gives them): an SCC solved alone
 * ends within its successors' largest difference plus its room, so the
 * differences add up along such paths only, and half of epsilon shared by
 * that many (not by every such SCC: crowds 4-15, 272 of 45 states, at most
 * 4 on a path: 13,862 -> 11,566 sweeps) still bounds every state's.
 * depth: u32[n] scratch.
 */
static uint64_t chain_depth(const reach_system *y, uint64_t K, const uint32_t *order, const uint64_t *end,
                            uint32_t *depth)
{
    uint64_t most = 0;
    for (uint64_t i = 0; i < K; i++) { /* every SCC after the SCCs it reaches */
        const uint64_t from = i ? end[i - 1] : 0;
        uint32_t d = 0;
        for (uint64_t x = from; x < end[i]; x++) /* (members' depths not yet set: 0) */
            depth[order[x]] = 0;
        for (uint64_t x = from; x < end[i]; x++) {
            const uint32_t s = order[x];
            for (uint64_t j = y->choice_transitions[y->state_choices[s]];
                 j < y->choice_transitions[y->state_choices[s + 1]]; j++)
                if (!y->fixed[y->targets[j]] && depth[y->targets[j]] > d)
                    d = depth[y->targets[j]];
        }
        d += end[i] - from > 1;
        for (uint64_t x = from; x < end[i]; x++)
            depth[order[x]] = d;
        most = d > most ? d : most;
    }
    return most;
}

/* A state's standing in the pass of reach_solve_topological. */
enum { OPEN = 0, SOLVED = 1, CORE = 2, PENDING = 3 };

/* The highest standing among s's unfixed successors other than s. */
static uint8_t successors_standing(const reach_system *y, uint32_t s, const uint8_t *standing)
{
    uint8_t worst = SOLVED;
    for (uint64_t j = y->choice_transitions[y->state_choices[s]];
         j < y->choice_transitions[y->state_choices[s + 1]]; j++) {
        const uint32_t t = y->targets[j];
        if (t != s && !y->fixed[t] && standing[t] > worst)
            worst = standing[t];
    }
    return worst;
}

/* What one pass shares: the system, the options, the scratch. */
typedef struct topo_pass {
    const reach_system *y;
    const reach_options *o;
    double eps;
    double *lower, *upper;
    uint8_t *standing;
    uint32_t *local_of, *mec_local;
    uint64_t *iterations;
} topo_pass;

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sort a core's nc state ids ascending: qsort below 4,096, else the
 * partition's radix sort (qsort where its memory cannot be had: zeroconf's
 * cores took 6% of a run's instructions in qsort's comparisons). */
static void sort_states(uint32_t *x, uint64_t nc)
{
    uint32_t *tmp = nc >= 4096 ? malloc(nc * sizeof *tmp) : NULL;
    if (!tmp || ref_radix_sort_u32(x, tmp, nc))
        qsort(x, nc, sizeof *x, cmp_u32);
    free(tmp);
}

/* Whether sub's members (its first `members` states, the only ones with
 * choices) have one choice each: a chain, no policy to choose. */
static int one_choice_each(const reach_subsystem *sub, uint64_t members)
{
    return sub->y.num_choices == members;
}

/* ref_reach_iterate on sub's system (its first `members` states unfixed)
 * from l, u (f64[sub n]), certified policy iteration's warm-up ending early,
 * or none for a chain (reach_options.pi_warmup_early); its iterations
 * counted. */
static int iterate_sub(const topo_pass *t, reach_subsystem *sub, uint64_t members, double eps, double *l, double *u)
{
    uint64_t its = 0;
    double diff = 0.0;
    reach_options o = *t->o;
    /* (herman 15: 32 of 512 sweeps over 14.3M transitions, then 13 products; its chain, none) */
    o.pi_warmup_early = one_choice_each(sub, members) ? 2 : 1;
    int rc = ref_reach_iterate(&sub->y, &o, eps, l, u, &its, &diff, NULL);
    *t->iterations += its;
    return rc;
}

/* The largest difference between the bounds of sub's fixed states (its
 * members' successors outside it) that are not exact (infinite ones too). */
static double exits_difference(const reach_subsystem *sub, uint64_t members, int relative)
{
    double d = 0.0;
    for (uint64_t i = members; i < sub->y.num_states; i++)
        if (sub->upper[i] != sub->lower[i]) {
            const double x = reach_difference(sub->upper[i], sub->lower[i], relative);
            if (x > d)
                d = x;
        }
    return d;
}

/* The core of sub (its first nc states) iterated to e with every successor
 * at its lower bound (at_upper 0) or its upper one (1), from sub's bounds
 * (l, u: scratch f64[sub n]); the core's bound of that side kept. */
static int solve_at(const topo_pass *t, reach_subsystem *sub, uint64_t nc, double e, int at_upper, double *l,
                    double *u)
{
    const uint64_t n = sub->y.num_states;
    memcpy(l, sub->lower, n * sizeof *l);
    memcpy(u, sub->upper, n * sizeof *u);
    for (uint64_t i = nc; i < n; i++) {
        if (at_upper)
            l[i] = u[i];
        else
            u[i] = l[i];
    }
    const int rc = iterate_sub(t, sub, nc, e, l, u);
    if (reach_answered(rc))
        memcpy(at_upper ? sub->upper : sub->lower, at_upper ? u : l, nc * sizeof *l);
    return rc;
}

/*
 * A core of nc states (any order; sorted here into the model's, in which
 * its iteration converges as the whole system's does), its successors
 * outside it solved.  Where they hold two bounds, the largest difference d
 * among them, the core may end with up to d + (epsilon - d) / 2 (the last
 * core: epsilon), so that every later core still has room: by interval
 * iteration that is the stopping rule (its difference never exceeds its
 * successors'); certified policy iteration needs exact successors, so it
 * solves the core twice, every successor at its lower bound for the lower
 * one and at its upper bound for the upper one (the values are monotone in
 * them), each to half the room.  Its states then stand solved.
 */
static int solve_core(const topo_pass *t, uint32_t *core, uint64_t nc, int last)
{
    const reach_options *o = t->o;
    sort_states(core, nc);
    reach_subsystem sub;
    int rc = reach_subsystem_build(t->y, core, nc, t->lower, t->upper, t->local_of, t->mec_local, &sub);
    const uint64_t n = sub.y.num_states;
    const double d = rc ? 0.0 : exits_difference(&sub, nc, o->relative);
    const double room = t->eps > d ? t->eps - d : 0.0;
    const int pi = o->method == REACH_PI && !(sub.y.mec && sub.y.num_mecs) &&
                   o->max_iterations >= reach_pi_jacobi_limit() && d > 0.0 && room > 0.0 && !isinf(d);
    double *l = NULL;
    /* interval iteration's target: no room left (rounding through a minimiser's states alone), just past
     * d, which the iteration reaches, the caller's check of the whole system going on from there */
    const double target = room == 0.0 ? 1.5 * d : last ? t->eps : d + room / 2;
    /* Gauss-Seidel first, unless the core is small, or a chain of one choice a state (herman's: one
     * linear solve of policy iteration, 23 products, against 240 sweeps) */
    if (!rc && o->method != REACH_VI && !(sub.y.mec && sub.y.num_mecs) && !one_choice_each(&sub, nc) &&
        nc >= core_gs_min_states()) {
        uint64_t its = 0;
        double diff = 0.0;
        const int grc = reach_gauss_seidel(&sub.y, o, target, CORE_SWEEPS, 1, 1, sub.lower, sub.upper, &its, &diff);
        *t->iterations += its;
        if (grc == CSR_OK) {
            if (o->topo_stats)
                o->topo_stats->gauss_seidel++;
            goto solved;
        }
        if (grc == CSR_ERR_NOMEM)
            rc = grc;
    }
    if (!rc && !pi) {
        rc = iterate_sub(t, &sub, nc, target, sub.lower, sub.upper);
    } else if (!rc && !(l = malloc(2 * n * sizeof *l))) {
        rc = CSR_ERR_NOMEM;
    } else if (!rc) {
        const double e = last ? room / 2 : room / 4;
        rc = solve_at(t, &sub, nc, e, 0, l, l + n);
        if (!rc) /* (the lower bounds just found bound these values from below too) */
            rc = solve_at(t, &sub, nc, e, 1, l, l + n);
    }
    free(l);
solved:
    if (reach_answered(rc))
        reach_subsystem_store(&sub, nc, t->lower, t->upper);
    reach_subsystem_free(&sub);
    for (uint64_t i = 0; i < nc; i++)
        t->standing[core[i]] = SOLVED;
    return rc;
}

/*
 * An SCC of count states (order's), its successors solved, by interval
 * iteration alone (Gauss-Seidel's, reach_gauss_seidel, where it holds no
 * MEC; or value iteration, as asked) within ALONE_SWEEPS sweeps
 * (a few for the small SCCs of a chain, as in crowds; those that need more,
 * as consensus's, go to the core, where certified policy iteration serves
 * them better), to its successors' largest difference plus room (the SCCs
 * of more than one state on a path share half of epsilon: chain_depth).
 * 1: solved, its bounds kept; 0: not (the bounds as they were); negative:
 * an error.
 */
static int solve_alone(const topo_pass *t, const uint32_t *members, uint64_t count, double room)
{
    reach_subsystem sub;
    int rc = reach_subsystem_build(t->y, members, count, t->lower, t->upper, t->local_of, t->mec_local, &sub);
    if (rc) {
        reach_subsystem_free(&sub);
        return -rc;
    }
    const double d = exits_difference(&sub, count, t->o->relative);
    reach_options o = *t->o;
    if (o.method != REACH_VI)
        o.method = REACH_II;
    o.max_iterations = ALONE_SWEEPS;
    o.pi_stats = NULL;
    uint64_t its = 0;
    double diff = 0.0;
    int solved = 0;
    if (d + room <= t->eps) {
        const int gs = o.method != REACH_VI && !(sub.y.mec && sub.y.num_mecs);
        rc = gs ? reach_gauss_seidel(&sub.y, &o, d + room, ALONE_SWEEPS, 0, 0, sub.lower, sub.upper, &its, &diff)
                : ref_reach_iterate(&sub.y, &o, d + room, sub.lower, sub.upper, &its, &diff, NULL);
        *t->iterations += its;
        solved = rc == CSR_OK;
        if (rc == CSR_ERR_NOMEM)
            solved = -CSR_ERR_NOMEM;
        if (solved == 1 && gs && t->o->topo_stats)
            t->o->topo_stats->gauss_seidel++;
    }
    if (solved == 1) {
        reach_subsystem_store(&sub, count, t->lower, t->upper);
        for (uint64_t i = 0; i < count; i++)
            t->standing[members[i]] = SOLVED;
    }
    reach_subsystem_free(&sub);
    return solved;
}

/* The pending states in order, their successors solved: one step each, or
 * (a self-loop too likely) iterated alone. */
static int solve_pending(const topo_pass *t, const uint32_t *pending, uint64_t np)
{
    for (uint64_t x = 0; x < np; x++) {
        if (!solve_single(t->y, pending[x], t->lower, t->upper)) {
            reach_subsystem sub;
            int rc = reach_subsystem_build(t->y, pending + x, 1, t->lower, t->upper, t->local_of, t->mec_local,
                                           &sub);
            if (!rc)
                rc = iterate_sub(t, &sub, 1, t->eps, sub.lower, sub.upper);
            if (reach_answered(rc))
                reach_subsystem_store(&sub, 1, t->lower, t->upper);
            reach_subsystem_free(&sub);
            if (rc)
                return rc;
        }
        t->standing[pending[x]] = SOLVED;
    }
    return CSR_OK;
}

int reach_solve_topological(const reach_system *y, const reach_options *o, double eps, double *lower,
                            double *upper, uint64_t *iterations, double *difference, void *ctx)
{
    const uint64_t n = y->num_states;
    if (n >= UINT32_MAX) /* beyond ref_scc_tarjan_order */
        return ref_reach_iterate(y, o, eps, lower, upper, iterations, difference, ctx);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order), *local_of = NULL, *mec_local = NULL, *core = NULL;
    uint32_t *pending = NULL;
    uint64_t *end = malloc((n ? n : 1) * sizeof *end);
    uint8_t *standing = NULL;
    int rc = CSR_ERR_NOMEM;
    *iterations = 0;
    *difference = 0.0;
    if (!order || !end)
        goto out;
    const uint64_t K = unfixed_sccs(y, order, end);
    if (K == UINT64_MAX)
        goto out;
    standing = calloc(n ? n : 1, 1);
    core = malloc((n ? n : 1) * sizeof *core);
    pending = malloc((n ? n : 1) * sizeof *pending);
    local_of = malloc((n ? n : 1) * sizeof *local_of);
    if (!standing || !core || !pending || !local_of ||
        (y->mec && y->num_mecs && !(mec_local = malloc(y->num_mecs * sizeof *mec_local))))
        goto out;
    memset(local_of, 0xff, n * sizeof *local_of);
    if (mec_local)
        memset(mec_local, 0xff, y->num_mecs * sizeof *mec_local);
    const topo_pass t = {y, o, eps, lower, upper, standing, local_of, mec_local, iterations};
    /* The SCCs, successors first: a state alone whose successors are all
     * solved is solved; one that waits for the core is pending; the others
     * join the core.  An SCC that waits for pending states takes them into
     * the core, unless they outnumber it: then the core is solved first,
     * the pending states after it, and the SCC starts the next core. */
    uint64_t nc = 0, np = 0, iterated = 0, cores = 0, alone_sccs = 0;
    const uint64_t G = chain_depth(y, K, order, end, core);
    const double room = G ? eps / (2.0 * (double)G) : 0.0;
    const uint64_t unfixed = K ? end[K - 1] : 0;
    rc = CSR_OK;
    for (uint64_t i = 0; i < K && !rc; i++) {
        const uint64_t from = i ? end[i - 1] : 0, count = end[i] - from;
        if (count == 1) {
            const uint32_t s = order[from];
            const uint8_t w = successors_standing(y, s, standing);
            if (w == SOLVED && solve_single(y, s, lower, upper)) {
                standing[s] = SOLVED;
                continue;
            }
            if (w != SOLVED) {
                standing[s] = PENDING;
                pending[np++] = s;
                continue;
            }
        }
        uint8_t w = SOLVED;
        for (uint64_t x = from; x < end[i]; x++) {
            const uint8_t sx = successors_standing(y, order[x], standing);
            if (sx > w)
                w = sx;
        }
        /* waits for nothing: on its own, if it converges soon; not an SCC of much of the system, whose
         * sweeps would cost more than the core's (herman 15: 64 sweeps over 14.3M transitions) */
        if (w == SOLVED && count > 1 && (count <= ALONE_STATES || count <= unfixed / 16)) {
            const int solved = solve_alone(&t, order + from, count, room);
            if (solved < 0) {
                rc = -solved;
                break;
            }
            if (solved) {
                alone_sccs++;
                continue;
            }
        }
        const int waits = w == PENDING;
        if (waits && np > nc) {
            iterated += nc;
            cores += nc > 0;
            if (!(rc = solve_core(&t, core, nc, 0)))
                rc = solve_pending(&t, pending, np);
            nc = np = 0;
        } else if (waits) { /* every pending state so far joins the core, in order */
            for (uint64_t x = 0; x < np; x++) {
                standing[pending[x]] = CORE;
                core[nc++] = pending[x];
            }
            np = 0;
        }
        for (uint64_t x = from; x < end[i]; x++) {
            standing[order[x]] = CORE;
            core[nc++] = order[x];
        }
    }
    iterated += nc;
    cores += nc > 0;
    if (!rc && nc)
        rc = solve_core(&t, core, nc, 1);
    if (!rc)
        rc = solve_pending(&t, pending, np);
    if (o->topo_stats) {
        o->topo_stats->systems++;
        o->topo_stats->sccs += K;
        o->topo_stats->core += iterated;
        o->topo_stats->cores += cores;
        o->topo_stats->sccs_alone += alone_sccs;
        o->topo_stats->alone += unfixed - iterated;
    }
    if (rc)
        goto out;
    if (o->method == REACH_VI)
        goto out;
    /* 4. Bounds that still miss epsilon (a relative difference may grow a
     * little through a minimiser's state): the whole system, from them. */
    double worst = 0.0;
    for (uint64_t s = 0; s < n; s++)
        if (!y->fixed[s]) {
            double d = reach_difference(upper[s], lower[s], o->relative);
            if (d > worst)
                worst = d;
        }
    *difference = worst;
    if (worst > eps) {
        if (o->topo_stats)
            o->topo_stats->whole++;
        uint64_t its = 0;
        rc = ref_reach_iterate(y, o, eps, lower, upper, &its, difference, NULL);
        *iterations += its;
    }
out:
    free(order);
    free(end);
    free(standing);
    free(core);
    free(pending);
    free(local_of);
    free(mec_local);
    return rc;
}
