/*
 * check.c - the model checker of properties (check.h): the property's form
 * to the queries of reach.h, their values to its answer.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Record the property's own failure (code, and a sentence); returns CSR_OK:
 * the next property is checked. */
static int fail(check_result *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(check_result *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
    r->code = code;
    return CSR_OK;
}

/* Whether rc takes every property with it (else it is this property's). */
static int global_failure(int rc)
{
    return rc == CSR_ERR_NOMEM || rc == CSR_ERR_DEVICE;
}

/* The first initial state (the model's numbering), or 0. */
static uint64_t first_initial(const csr_model *m)
{
    return m->num_initial ? m->initial_states[0] : 0;
}

/* A solver's failure as the property's, with the bounds reached in the
 * first initial state. */
static int solver_failed(check_result *r, const csr_model *m, int rc, const reach_options *o, const double *lower,
                         const double *upper, const csr_status *engine_status)
{
    const uint64_t s = first_initial(m);
    const double l = lower ? lower[s] : NAN, u = upper ? upper[s] : NAN;
    r->lower = l;
    r->upper = u;
    const uint64_t orig = m->permutation ? m->permutation[s] : s;
    if ((rc == CSR_ERR_STALLED || rc == CSR_ERR_NOT_CONVERGED) && !lower) /* bounds not kept: the epochs' */
        return fail(r, rc, "%s (difference %.3g > %g)", rc == CSR_ERR_STALLED ? "the bounds stopped changing"
                                                                               : "no convergence",
                    r->stats.final_difference, o->epsilon);
    if (rc == CSR_ERR_STALLED)
        return fail(r, rc,
                    "the bounds stopped changing at [%.17g, %.17g] in state %llu (difference %.3g > %g: the "
                    "floating-point resolution of these values); ask for a larger -e",
                    l, u, (unsigned long long)orig, r->stats.final_difference, o->epsilon);
    if (rc == CSR_ERR_NOT_CONVERGED && isinf(u))
        return fail(r, rc, "no upper bound found within %llu iterations; the lower bound %.17g in state %llu",
                    (unsigned long long)o->max_iterations, l, (unsigned long long)orig);
    if (rc == CSR_ERR_NOT_CONVERGED)
        return fail(r, rc,
                    "no convergence within %llu iterations: bounds [%.17g, %.17g] in state %llu (difference %.3g > "
                    "%g); raise --max-iters",
                    (unsigned long long)o->max_iterations, l, u, (unsigned long long)orig,
                    r->stats.final_difference, o->epsilon);
    return fail(r, rc, "%s%s%s", csr_strerror(rc), engine_status && engine_status->detail[0] ? ": " : "",
                engine_status ? engine_status->detail : "");
}

/* The states of a state formula of p, as flags u8[n] (NULL formula: all
 * true); CSR_OK, or the property's failure recorded (returns its code). */
static int states_of(const csr_model *m, const props_file *file, const expr *f, uint8_t *flags, check_result *r)
{
    if (!f) {
        memset(flags, 1, m->num_states);
        return CSR_OK;
    }
    csr_status st;
    memset(&st, 0, sizeof st);
    int rc = props_states(m, file, f, flags, &st);
    if (rc && !global_failure(rc))
        fail(r, rc, "%s", st.detail[0] ? st.detail : csr_strerror(rc));
    return rc;
}

/* The reward structure named (or numbered) in a property: its arrays, or
 * the property's failure recorded (-1). */
static int reward_arrays(const csr_model *m, const char *name, int64_t index, const double **sr, const double **cr,
                         check_result *r)
{
    int64_t k = name ? csr_find_reward(m, name) : index >= 0 ? index : 0;
    if (k >= 0 && (uint64_t)k < m->rewards.count) {
        csr_reward_arrays(m, (uint64_t)k, sr, cr);
        return 0;
    }
    if (!m->rewards.count) {
        fail(r, CSR_ERR_USAGE, "the model has no reward structure (convert from a UMB export with rewards)");
        return -1;
    }
    char list[256] = "";
    size_t at = 0;
    for (uint64_t i = 0; i < m->rewards.count && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, " %llu=\"%s\"", (unsigned long long)i + 1,
                               m->rewards.names[i]);
    if (name)
        fail(r, CSR_ERR_USAGE, "no reward structure \"%s\"; the model's:%s", name, list);
    else
        fail(r, CSR_ERR_USAGE, "no reward structure %lld; the model's:%s", (long long)index + 1, list);
    return -1;
}

/* x'(s) = opt over s's choices of (reward + sum p x(t)), `steps` Jacobi
 * steps from x (f64[n], in place); states without choices keep 0 (C<=k:
 * the reward gathered in k steps) or their x (I=k: the state reward after k
 * steps, reward NULL). */
static int jacobi_steps(const csr_model *m, int maximize, const double *sr, const double *cr, uint64_t steps,
                        double *x)
{
    const uint64_t n = m->num_states;
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y)
        return CSR_ERR_NOMEM;
    const int cumulative = sr || cr;
    for (uint64_t i = 0; i < steps; i++) {
        for (uint64_t s = 0; s < n; s++) {
            const uint64_t kb = m->state_choices[s], ke = m->state_choices[s + 1];
            if (kb == ke) {
                y[s] = cumulative ? 0.0 : x[s];
                continue;
            }
            double best = maximize ? -INFINITY : INFINITY;
            for (uint64_t k = kb; k < ke; k++) {
                double sum = cumulative ? (sr ? sr[s] : 0.0) + (cr ? cr[k] : 0.0) : 0.0;
                for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
                    sum += m->probabilities[j] * x[m->targets[j]];
                best = maximize ? fmax(best, sum) : fmin(best, sum);
            }
            y[s] = best;
        }
        memcpy(x, y, n * sizeof *x);
    }
    free(y);
    return CSR_OK;
}

/* The whole reward bound of F{"r"} rel b: *bound and *at_least, or -1 when
 * nothing satisfies it (a bound below 0). */
static int whole_reward_bound(int relation, double b, uint64_t *bound, int *at_least)
{
    double k;
    switch (relation) {
    case EXPR_LE: k = floor(b); *at_least = 0; break;
    case EXPR_LT: k = ceil(b) - 1.0; *at_least = 0; break;
    case EXPR_GE: k = ceil(b); *at_least = 1; break;
    default: k = floor(b) + 1.0; *at_least = 1; break; /* EXPR_GT */
    }
    if (*at_least && k < 0.0)
        k = 0.0;
    if (k < 0.0)
        return -1;
    *bound = k >= 1.8e19 ? UINT64_MAX : (uint64_t)k;
    return 0;
}

/* P [ path ] into r->values; CSR_OK (the property's own failure recorded in
 * r), or a failure of every property. */
static int check_probability(const reach_engine *e, const props_file *file, const props_property *p, int maximize,
                             const reach_options *o, check_result *r)
{
    const csr_model *m = e->model;
    const uint64_t n = m->num_states;
    int rc;
    if (p->path != PROPS_EVENTUALLY && p->path != PROPS_UNTIL && p->path != PROPS_GLOBALLY &&
        p->path != PROPS_NEXT)
        return fail(r, CSR_ERR_UNSUPPORTED, "this path formula is not supported (F, U, G, X)");
    if (!m->probabilities)
        return fail(r, CSR_ERR_USAGE, "the model has no probabilities (a graph-only CSR file)");
    r->target = malloc(n ? n : 1);
    r->avoid = p->path == PROPS_UNTIL ? malloc(n ? n : 1) : NULL;
    double *lower = malloc((n ? n : 1) * sizeof *lower), *upper = malloc((n ? n : 1) * sizeof *upper);
    rc = r->target && (p->path != PROPS_UNTIL || r->avoid) && lower && upper ? CSR_OK : CSR_ERR_NOMEM;
    if (!rc && (rc = states_of(m, file, p->target, r->target, r)))
        goto out;
    if (!rc && r->avoid && (rc = states_of(m, file, p->avoid, r->avoid, r))) /* the states the path stays in */
        goto out;
    if (rc)
        goto out;
    const int globally = p->path == PROPS_GLOBALLY;
    if (globally) { /* P_opt [ G phi ] = 1 - P_opposite [ F !phi ] */
        for (uint64_t s = 0; s < n; s++)
            r->target[s] = !r->target[s];
        maximize = !maximize;
    }
    if (p->path == PROPS_NEXT) { /* one step */
        for (uint64_t s = 0; s < n; s++) {
            const uint64_t kb = m->state_choices[s], ke = m->state_choices[s + 1];
            double best = kb == ke ? 0.0 : maximize ? -INFINITY : INFINITY;
            for (uint64_t k = kb; k < ke; k++) {
                double sum = 0.0;
                for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
                    sum += r->target[m->targets[j]] ? m->probabilities[j] : 0.0;
                best = maximize ? fmax(best, sum) : fmin(best, sum);
            }
            r->values[s] = best;
        }
        goto out;
    }
    /* !psi, not a target: where a path of psi U phi may not pass */
    const int at_least = p->reward_bound_relation == EXPR_GE || p->reward_bound_relation == EXPR_GT;
    for (uint64_t s = 0; r->avoid && s < n; s++)
        r->avoid[s] = !r->avoid[s] && (at_least || !r->target[s]);
    /* A DTMC's min and max are one value: min's Prob0E and Prob1A are two linear searches, where max's Prob1E
     * is a nested fixpoint or a MEC decomposition (crowds (4, 10) here: 4.6 -> 1.6 ms); its classes are those of the
     * model's expected rewards (Rmax's), kept once.  (Not under a reward bound: epochs build MDPs of their own.) */
    if (m->model_type == CSR_DTMC && !p->reward_bound_relation)
        maximize = 0;
    r->query = (reach_query){r->target, r->avoid, maximize};
    if (p->reward_bound_relation) {
        if (p->steps >= 0)
            return fail(r, CSR_ERR_UNSUPPORTED, "a step bound and a reward bound together are not supported");
        const double *sr, *cr;
        if (reward_arrays(m, p->reward_bound_name, -1, &sr, &cr, r) < 0)
            goto out;
        uint64_t bound;
        int lower_bound;
        if (whole_reward_bound(p->reward_bound_relation, p->reward_bound, &bound, &lower_bound) < 0) {
            memset(r->values, 0, n * sizeof *r->values); /* no path gathers less than nothing */
            goto out;
        }
        csr_status st;
        memset(&st, 0, sizeof st);
        rc = reach_solve_reward_bounded(e, &r->query, sr, cr, lower_bound, bound, o, r->values, &r->stats, &st);
        if (rc == CSR_ERR_UNSUPPORTED) {
            rc = CSR_OK;
            fail(r, CSR_ERR_UNSUPPORTED, "%s", st.detail);
        }
    } else if (p->steps >= 0) {
        rc = reach_solve_bounded(e, &r->query, (uint64_t)p->steps, r->values, &r->stats);
    } else {
        rc = reach_solve(e, &r->query, o, r->values, lower, upper, &r->stats);
        r->scheduler = !globally;
    }
    if (rc == CSR_ERR_NOT_CONVERGED || rc == CSR_ERR_STALLED) {
        solver_failed(r, m, rc, o, p->steps < 0 && !p->reward_bound_relation ? lower : NULL,
                      p->steps < 0 && !p->reward_bound_relation ? upper : NULL, NULL);
        rc = CSR_OK;
    }
    if (!rc && !r->code && globally)
        for (uint64_t s = 0; s < n; s++)
            r->values[s] = 1.0 - r->values[s];
out:
    free(lower);
    free(upper);
    return rc;
}

/* R [ ... ] into r->values, as check_probability. */
static int check_reward(const reach_engine *e, const props_file *file, const props_property *p, int maximize,
                        const reach_options *o, check_result *r)
{
    const csr_model *m = e->model;
    const uint64_t n = m->num_states;
    const double *sr, *cr;
    if (p->path == PROPS_CUMULATIVE && p->steps < 0)
        return fail(r, CSR_ERR_UNSUPPORTED, "the total reward R [ C ] is not supported; C<=k is");
    if (p->path != PROPS_EVENTUALLY && p->path != PROPS_CUMULATIVE && p->path != PROPS_INSTANT)
        return fail(r, CSR_ERR_UNSUPPORTED, "this reward operator is not supported (F, C<=k, I=k)");
    if (p->path == PROPS_EVENTUALLY && (p->steps >= 0 || p->reward_bound_relation))
        return fail(r, CSR_ERR_UNSUPPORTED, "a bounded F in a reward operator is not supported");
    if (p->time) { /* Storm's T: one step, one unit of time */
        if (!(r->time_reward = malloc((n ? n : 1) * sizeof *r->time_reward)))
            return CSR_ERR_NOMEM;
        for (uint64_t s = 0; s < n; s++)
            r->time_reward[s] = 1.0;
        sr = r->time_reward;
        cr = NULL;
    } else if (reward_arrays(m, p->reward_name, p->reward_index, &sr, &cr, r) < 0) {
        return CSR_OK;
    }
    if (!m->probabilities)
        return fail(r, CSR_ERR_USAGE, "the model has no probabilities (a graph-only CSR file)");
    if (p->path == PROPS_CUMULATIVE) {
        memset(r->values, 0, n * sizeof *r->values);
        return jacobi_steps(m, maximize, sr ? sr : NULL, cr, (uint64_t)p->steps, r->values);
    }
    if (p->path == PROPS_INSTANT) {
        for (uint64_t s = 0; s < n; s++)
            r->values[s] = sr ? sr[s] : 0.0;
        return jacobi_steps(m, maximize, NULL, NULL, (uint64_t)p->steps, r->values);
    }
    r->target = malloc(n ? n : 1);
    double *lower = malloc((n ? n : 1) * sizeof *lower), *upper = malloc((n ? n : 1) * sizeof *upper);
    int rc = r->target && lower && upper ? CSR_OK : CSR_ERR_NOMEM;
    if (!rc && !(rc = states_of(m, file, p->target, r->target, r))) {
        r->query = (reach_query){r->target, NULL, maximize};
        r->state_reward = sr;
        r->choice_reward = cr;
        rc = reach_solve_reward(e, &r->query, sr, cr, o, r->values, lower, upper, &r->stats);
        r->scheduler = 1;
        if (rc == CSR_ERR_NOT_CONVERGED || rc == CSR_ERR_STALLED) {
            solver_failed(r, m, rc, o, lower, upper, NULL);
            rc = CSR_OK;
        }
    } else if (!global_failure(rc)) {
        rc = CSR_OK; /* recorded */
    }
    free(lower);
    free(upper);
    return rc;
}

/* Whether value v stands in relation rel to bound b. */
static int holds(int rel, double v, double b)
{
    switch (rel) {
    case EXPR_GE: return v >= b;
    case EXPR_GT: return v > b;
    case EXPR_LE: return v <= b;
    default: return v < b; /* EXPR_LT */
    }
}

/* The property's filter over r's values or truth. */
static int apply_filter(const csr_model *m, const props_file *file, const props_property *p, check_result *r)
{
    const uint64_t n = m->num_states;
    uint8_t *in = malloc(n ? n : 1);
    if (!in)
        return CSR_ERR_NOMEM;
    int rc = states_of(m, file, p->filter_states, in, r);
    if (rc) {
        free(in);
        return global_failure(rc) ? rc : CSR_OK;
    }
    const int truth = r->kind == CHECK_TRUTH;
    double lo = INFINITY, hi = -INFINITY, sum = 0.0;
    uint64_t count = 0, holding = 0, first = UINT64_MAX, first_orig = UINT64_MAX;
    for (uint64_t s = 0; s < n; s++) {
        if (!in[s])
            continue;
        count++;
        const uint64_t orig = m->permutation ? m->permutation[s] : s;
        if (orig < first_orig) {
            first_orig = orig;
            first = s;
        }
        const double v = truth ? (double)r->truth[s] : r->values[s];
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        sum += v;
        holding += truth ? r->truth[s] != 0 : 0;
    }
    free(in);
    r->filter = p->filter;
    r->filter_states = count;
    if (!count && p->filter != EXPR_FILTER_COUNT && p->filter != EXPR_FILTER_FORALL &&
        p->filter != EXPR_FILTER_EXISTS && p->filter != EXPR_FILTER_SUM)
        return fail(r, CSR_ERR_USAGE, "the filter's states are empty");
    switch (p->filter) {
    case EXPR_FILTER_MIN: r->filter_value = lo; break;
    case EXPR_FILTER_MAX: r->filter_value = hi; break;
    case EXPR_FILTER_SUM: r->filter_value = sum; break;
    case EXPR_FILTER_AVG: r->filter_value = sum / (double)count; break;
    case EXPR_FILTER_COUNT:
        if (!truth)
            return fail(r, CSR_ERR_USAGE, "filter(count, ...) counts the states of a true/false property");
        r->filter_value = (double)holding;
        break;
    case EXPR_FILTER_FORALL:
    case EXPR_FILTER_EXISTS:
        if (!truth)
            return fail(r, CSR_ERR_USAGE, "filter(%s, ...) takes a true/false property",
                        props_filter_name(p->filter));
        r->filter_is_truth = 1;
        r->filter_truth = p->filter == EXPR_FILTER_FORALL ? holding == count : holding > 0;
        break;
    case EXPR_FILTER_FIRST:
    case EXPR_FILTER_STATE:
        if (p->filter == EXPR_FILTER_STATE && count != 1)
            return fail(r, CSR_ERR_USAGE, "filter(state, ...) needs exactly one state; %llu satisfy its states",
                        (unsigned long long)count);
        r->filter_is_truth = truth;
        if (truth)
            r->filter_truth = r->truth[first] != 0;
        else
            r->filter_value = r->values[first];
        break;
    default:
        return fail(r, CSR_ERR_UNSUPPORTED, "filter(%s, ...) is not supported (min, max, sum, avg, count, forall, "
                                            "exists, first, state)",
                    props_filter_name(p->filter));
    }
    return CSR_OK;
}

int check_property(const reach_engine *e, const props_file *file, const props_property *p, const reach_options *o,
                   check_result *r)
{
    const csr_model *m = e->model;
    const uint64_t n = m->num_states;
    memset(r, 0, sizeof *r);
    r->lower = r->upper = NAN;
    if (p->status.code)
        return fail(r, p->status.code, "%s", p->status.detail);
    reach_options ro = *o;
    ro.pi_stats = &r->pi;
    ro.topo_stats = &r->topo;
    int maximize = 1;
    if (p->kind == PROPS_PROB || p->kind == PROPS_REWARD) {
        if (m->model_type == CSR_MDP && p->direction == PROP_ANY)
            return fail(r, CSR_ERR_USAGE, "the model is an MDP: %s needs %smin or %smax",
                        p->kind == PROPS_PROB ? "P" : "R", p->kind == PROPS_PROB ? "P" : "R",
                        p->kind == PROPS_PROB ? "P" : "R");
        maximize = m->model_type == CSR_DTMC || p->direction == PROP_MAX;
    }
    int rc = CSR_OK;
    switch (p->kind) {
    case PROPS_VALUE:
        r->constant = 1;
        r->kind = p->value.type == EXPR_BOOL ? CHECK_TRUTH : CHECK_NUMBER;
        r->values = malloc(sizeof *r->values);
        r->truth = malloc(1);
        if (!r->values || !r->truth)
            return CSR_ERR_NOMEM;
        r->values[0] = p->value.type == EXPR_DOUBLE ? p->value.d : (double)p->value.i;
        r->truth[0] = p->value.type == EXPR_BOOL && p->value.i;
        return CSR_OK;
    case PROPS_STATE:
        r->kind = CHECK_TRUTH;
        r->truth = malloc(n ? n : 1);
        if (!r->truth)
            return CSR_ERR_NOMEM;
        rc = states_of(m, file, p->target, r->truth, r);
        break;
    case PROPS_PROB:
    case PROPS_REWARD:
        r->kind = CHECK_NUMBER;
        r->values = malloc((n ? n : 1) * sizeof *r->values);
        if (!r->values)
            return CSR_ERR_NOMEM;
        rc = p->kind == PROPS_PROB ? check_probability(e, file, p, maximize, &ro, r)
                                   : check_reward(e, file, p, maximize, &ro, r);
        break;
    default:
        return fail(r, CSR_ERR_UNSUPPORTED, "%s properties are not supported", props_kind_name(p->kind));
    }
    if (global_failure(rc))
        return rc;
    if (rc && !r->code) /* a failure of this property the steps did not describe: the engine's words */
        fail(r, rc, "%s%s%s", csr_strerror(rc), e->status && e->status->detail[0] ? ": " : "",
             e->status ? e->status->detail : "");
    if (r->code)
        return CSR_OK;
    if ((p->kind == PROPS_PROB || p->kind == PROPS_REWARD) && p->relation != EXPR_QUERY) {
        r->truth = malloc(n ? n : 1);
        if (!r->truth)
            return CSR_ERR_NOMEM;
        for (uint64_t s = 0; s < n; s++)
            r->truth[s] = (uint8_t)holds(p->relation, r->values[s], p->bound);
        r->kind = CHECK_TRUTH;
    }
    if (p->filter)
        return apply_filter(m, file, p, r);
    return CSR_OK;
}

void check_result_free(check_result *r)
{
    free(r->values);
    free(r->truth);
    free(r->target);
    free(r->avoid);
    free(r->time_reward);
    memset(r, 0, sizeof *r);
}
