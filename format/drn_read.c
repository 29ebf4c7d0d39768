/*
 * drn_read.c - Storm's DRN format to csr_model (drn.h).  One pass over the
 * text, a line at a time, with arrays that grow with what was read; every
 * error names its line (status->line).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drn.h"
#include "intern.h"
#include "numparse.h"
#include "prism_text.h"

int drn_sniff(const char *head, size_t length)
{
    const char *p = head, *end = head + length;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < end && *p == '\n') {
            p++;
            continue;
        }
        if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl)
                return 0;
            p = nl + 1;
            continue;
        }
        return p < end && *p == '@';
    }
    return 0;
}

#define DRN_MAX_REWARD_MODELS 64

/* What the header lines set. */
enum { EXPECT_NONE, EXPECT_PARAMETERS, EXPECT_REWARDS, EXPECT_STATES, EXPECT_CHOICES };

typedef struct drn_reader {
    csr_status *st;
    double tol;
    int sums_are_warnings;
    drn_report *rep;
    int is_mdp;
    uint64_t n, c, reward_models;
    char *reward_names[DRN_MAX_REWARD_MODELS]; /* @reward_models, in order */
    vec state_rewards, choice_rewards;         /* double: reward_models values per state / per choice */
    /* the model as it is read */
    vec state_first, choice_first, targets, probs, actions; /* u64, u64, u32, double, u32 */
    int any_action;
    names action_names, label_names; /* both with name 0 = "" */
    vec *label_states;               /* per label name: u32 states */
    uint64_t label_cap;
    int64_t state;          /* the state being read, -1 before the first */
    uint64_t state_choices; /* choices of that state so far */
    int in_choice;          /* a choice is open */
    double sum;             /* of the open choice */
    uint64_t state_line, choice_line, transition_line; /* where the open state, choice, last transition are */
    uint64_t fault_line;    /* the line a fault found later belongs to (0: the current line) */
    /* state valuations ("//[x=1 & !b]" after a state line; read_valuation) */
    int skip_valuations;    /* asked to, or what was read cannot be kept (why: rep->skipped_why) */
    uint64_t positions;     /* items of the first valuation: the variables */
    uint64_t position_cap;  /* room in position_name and position_bool */
    char **position_name;   /* each position's variable name, once a line names it */
    int8_t *position_bool;  /* 1 bool, 0 int */
    uint64_t valued_states; /* states 0 .. valued_states - 1 have a valuation */
    vec values;             /* int64: positions values per state */
} drn_reader;

/* Give up the valuations (the model is read without them): why, at line,
 * naming the variable name[0 .. len) when name is not NULL. */
static int drop_valuations(drn_reader *r, uint64_t line, const char *why, const char *name, size_t len)
{
    if (!r->skip_valuations) {
        r->skip_valuations = 1;
        snprintf(r->rep->skipped_why, sizeof r->rep->skipped_why, "line %llu: %s%s%.*s%s", (unsigned long long)line,
                 why, name ? " \"" : "", name ? (int)(len > 40 ? 40 : len) : 0, name ? name : "", name ? "\"" : "");
    }
    return CSR_OK;
}

/*
 * A state valuation, as Storm writes it after a state line (io/
 * DirectEncodingExporter: "//" and StateValuations::toString): "[" items
 * joined by "\t& " "]", an item "x=5" (an integer), "!b" (false) or "b"
 * (true); Storm 2.0 writes a true bool as an empty item, so a variable is
 * known by its position, named by the lines where it is not empty.
 * Anything this reader cannot keep (another syntax, a non-integer value, a
 * state without a valuation) drops the valuations, not the model: they are
 * comments.  Returns CSR_OK or CSR_ERR_NOMEM.
 */
static int read_valuation(drn_reader *r, const char *p, uint64_t line)
{
    r->rep->valuations++;
    if (r->skip_valuations)
        return CSR_OK;
    if (r->state < 0)
        return drop_valuations(r, line, "a valuation before the first state", NULL, 0);
    if (r->valued_states != (uint64_t)r->state)
        return drop_valuations(r, line, r->valued_states > (uint64_t)r->state ? "a second valuation of a state"
                                                                           : "a state without a valuation before it",
                               NULL, 0);
    const char *end = strrchr(p, ']');
    if (*p != '[' || !end || *num_skip_spaces(end + 1))
        return drop_valuations(r, line, "not \"[...]\"", NULL, 0);
    p++;
    uint64_t k = 0;
    for (;; k++) {
        const char *item = num_skip_spaces(p), *stop = item;
        while (stop < end && *stop != '&')
            stop++;
        const char *last = stop;
        while (last > item && num_is_space(last[-1]))
            last--;
        if (r->valued_states == 0 && !(item == end && k == 0)) { /* the first line sets the positions */
            if (k == r->position_cap) {
                const uint64_t cap = k ? 2 * k : 16;
                char **names = realloc(r->position_name, cap * sizeof *names);
                int8_t *bools = names ? realloc(r->position_bool, cap) : NULL;
                if (names)
                    r->position_name = names;
                if (!names || !bools)
                    return csr_fail(r->st, CSR_ERR_NOMEM, "state valuations");
                r->position_bool = bools;
                r->position_cap = cap;
            }
            r->position_name[k] = NULL;
            r->positions = k + 1;
        }
        if (item == end && k == 0)
            return drop_valuations(r, line, "an empty valuation", NULL, 0);
        if (k >= r->positions)
            return drop_valuations(r, line, "more values than the first valuation has", NULL, 0);
        const char *eq = memchr(item, '=', (size_t)(last - item));
        int is_bool = eq == NULL, neg = is_bool && last > item && *item == '!';
        const char *name = item + neg, *name_end = eq ? eq : last;
        while (eq && name_end > name && num_is_space(name_end[-1]))
            name_end--;
        int64_t value = !neg;
        if (eq) {
            const char *v = num_skip_spaces(eq + 1);
            int minus = *v == '-';
            uint64_t mag = 0;
            const char *digits = v += minus;
            for (; *v >= '0' && *v <= '9' && v < last; v++) {
                if (mag > (UINT64_MAX - 9) / 10)
                    break;
                mag = mag * 10 + (uint64_t)(*v - '0');
            }
            if (v == digits || v != last || mag > (uint64_t)INT64_MAX + minus)
                return drop_valuations(r, line, "a value that is not a 64-bit integer, of", name,
                                       (size_t)(name_end - name));
            value = minus ? (int64_t)(0 - mag) : (int64_t)mag;
        }
        if (r->valued_states == 0)
            r->position_bool[k] = (int8_t)is_bool;
        else if (r->position_bool[k] != is_bool)
            return drop_valuations(r, line, "a variable both bool and integer", NULL, 0);
        if (name_end > name) {
            char **known = &r->position_name[k];
            if (!*known && !(*known = strndup(name, (size_t)(name_end - name))))
                return csr_fail(r->st, CSR_ERR_NOMEM, "state valuations");
            if (strlen(*known) != (size_t)(name_end - name) || memcmp(*known, name, (size_t)(name_end - name)))
                return drop_valuations(r, line, "another variable at the position of", *known, strlen(*known));
        } else if (!is_bool || neg) {
            return drop_valuations(r, line, "an item without a variable name", NULL, 0);
        }
        if (VEC_PUSH(r->values, int64_t, value))
            return csr_fail(r->st, CSR_ERR_NOMEM, "state valuations");
        if (stop == end)
            break;
        p = stop + 1;
    }
    if (k + 1 != r->positions)
        return drop_valuations(r, line, "fewer values than the first valuation has", NULL, 0);
    r->valued_states++;
    return CSR_OK;
}

/* Close the open choice: at least one transition, its sum near 1. */
static int close_choice(drn_reader *r)
{
    if (!r->in_choice)
        return CSR_OK;
    r->in_choice = 0;
    uint64_t first = ((uint64_t *)r->choice_first.data)[r->choice_first.len - 1];
    if (r->targets.len == first) {
        r->fault_line = r->choice_line;
        return csr_fail(r->st, CSR_ERR_EMPTY_CHOICE, "state %llu, choice %llu", (unsigned long long)r->state,
                        (unsigned long long)r->state_choices - 1);
    }
    double err = fabs(r->sum - 1.0);
    if (!(err <= r->tol)) {
        r->fault_line = r->transition_line;
        if (!r->sums_are_warnings)
            return csr_fail(r->st, CSR_ERR_PROBABILITY_SUM, "state %llu, choice %llu sums to %.17g",
                            (unsigned long long)r->state, (unsigned long long)r->state_choices - 1, r->sum);
        r->fault_line = 0;
        if (r->rep->bad_sums++ == 0)
            r->rep->first_bad_sum_line = r->transition_line;
    }
    if (err > r->rep->worst_sum_error && err == err)
        r->rep->worst_sum_error = err;
    return CSR_OK;
}

/* Close the state being read: at least one choice (a DTMC: exactly one). */
static int close_state(drn_reader *r)
{
    int rc = close_choice(r);
    if (rc || r->state < 0)
        return rc;
    r->fault_line = r->state_line;
    if (r->state_choices == 0)
        return csr_fail(r->st, CSR_ERR_SYNTAX, "state %llu has no action (Storm gives a deadlock a self-loop)",
                        (unsigned long long)r->state);
    if (!r->is_mdp && r->state_choices != 1)
        return csr_fail(r->st, CSR_ERR_DTMC_CHOICES, "state %llu has %llu actions", (unsigned long long)r->state,
                        (unsigned long long)r->state_choices);
    r->fault_line = 0;
    return CSR_OK;
}

/* The next token: a word, or a "quoted" string (no escapes); *len bytes at
 * the returned pointer, *p past it; NULL with a syntax error for an
 * unterminated quote. */
static const char *next_token(drn_reader *r, const char **p, size_t *len)
{
    const char *s = num_skip_spaces(*p);
    if (*s == '"') {
        const char *q = strchr(s + 1, '"');
        if (!q) {
            csr_fail(r->st, CSR_ERR_SYNTAX, "a label's quote is not closed");
            return NULL;
        }
        *len = (size_t)(q - s - 1);
        *p = q + 1;
        return s + 1;
    }
    const char *e = s;
    while (!num_token_end(*e))
        e++;
    *len = (size_t)(e - s);
    *p = e;
    return s;
}

/* The reward list "[r1, r2, ...]" at *p, one value per reward model,
 * appended to out (zeros where the line has none); each finite and
 * non-negative. */
static int read_rewards(drn_reader *r, const char **p, vec *out)
{
    const char *s = num_skip_spaces(*p);
    if (*s != '[') {
        for (uint64_t k = 0; k < r->reward_models; k++)
            if (VEC_PUSH(*out, double, 0.0))
                return csr_fail(r->st, CSR_ERR_NOMEM, "rewards");
        return CSR_OK;
    }
    s++;
    for (uint64_t k = 0; k < r->reward_models; k++) {
        s = num_skip_spaces(s);
        char token[64];
        size_t len = 0;
        while (s[len] && s[len] != ',' && s[len] != ']' && s[len] != ' ' && len < sizeof token - 1)
            len++;
        memcpy(token, s, len);
        token[len] = '\0';
        const char *t = token;
        double v;
        if (!len || num_parse_double(&t, &v) || *t || !(v >= 0.0 && v <= DBL_MAX))
            return csr_fail(r->st, CSR_ERR_NUMBER, "reward %llu of %llu: \"%.30s\" is not a finite non-negative number",
                            (unsigned long long)k + 1, (unsigned long long)r->reward_models, token);
        s = num_skip_spaces(s + len);
        if (k + 1 < r->reward_models && *s++ != ',')
            return csr_fail(r->st, CSR_ERR_SYNTAX, "a reward list with fewer values than the %llu reward models",
                            (unsigned long long)r->reward_models);
        if (VEC_PUSH(*out, double, v))
            return csr_fail(r->st, CSR_ERR_NOMEM, "rewards");
    }
    s = num_skip_spaces(s);
    if (*s != ']')
        return csr_fail(r->st, CSR_ERR_SYNTAX, "a reward list \"[...\" with more values than the %llu reward models, or not closed",
                        (unsigned long long)r->reward_models);
    *p = s + 1;
    return CSR_OK;
}

static int state_line(drn_reader *r, const char *p, uint64_t line)
{
    int rc = close_state(r);
    if (rc)
        return rc;
    uint64_t s;
    p = num_skip_spaces(p + 5);
    if (num_parse_u64(&p, &s))
        return csr_fail(r->st, CSR_ERR_NUMBER, "state number");
    if (s != (uint64_t)(r->state + 1)) {
        if (r->state < 0)
            return csr_fail(r->st, CSR_ERR_ORDER, "the first state is %llu, not 0", (unsigned long long)s);
        return csr_fail(r->st, CSR_ERR_ORDER, "state %llu after state %lld", (unsigned long long)s, (long long)r->state);
    }
    if (s >= r->n)
        return csr_fail(r->st, CSR_ERR_COUNTS, "state %llu, but @nr_states is %llu", (unsigned long long)s,
                        (unsigned long long)r->n);
    r->state = (int64_t)s;
    r->state_choices = 0;
    r->state_line = line;
    if (VEC_PUSH(r->state_first, uint64_t, r->choice_first.len))
        return csr_fail(r->st, CSR_ERR_NOMEM, "states");
    if ((rc = read_rewards(r, &p, &r->state_rewards)))
        return rc;
    for (;;) {
        size_t len;
        const char *t = next_token(r, &p, &len);
        if (!t)
            return CSR_ERR_SYNTAX;
        if (len == 0)
            break;
        int64_t l = names_intern(&r->label_names, t, len);
        if (l < 0)
            return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
        if ((uint64_t)l >= r->label_cap) {
            uint64_t cap = r->label_cap ? r->label_cap * 2 : 16;
            while (cap <= (uint64_t)l)
                cap *= 2;
            vec *bigger = realloc(r->label_states, cap * sizeof *bigger);
            if (!bigger)
                return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
            memset(bigger + r->label_cap, 0, (cap - r->label_cap) * sizeof *bigger);
            r->label_states = bigger;
            r->label_cap = cap;
        }
        vec *v = &r->label_states[l];
        if (v->len && ((uint32_t *)v->data)[v->len - 1] == (uint32_t)s)
            return csr_fail(r->st, CSR_ERR_LABEL, "label \"%.40s\" twice for state %llu", r->label_names.list[l],
                            (unsigned long long)s);
        if (VEC_PUSH(*v, uint32_t, (uint32_t)s))
            return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
    }
    return CSR_OK;
}

static int action_line(drn_reader *r, const char *p, uint64_t line)
{
    int rc = close_choice(r);
    if (rc)
        return rc;
    if (r->state < 0)
        return csr_fail(r->st, CSR_ERR_SYNTAX, "an action before the first state");
    size_t len;
    p += 6;
    const char *name = next_token(r, &p, &len);
    if (!name)
        return CSR_ERR_SYNTAX;
    if (len == 0)
        return csr_fail(r->st, CSR_ERR_SYNTAX, "an action without a name");
    /* no action: __NOLABEL__, or the choice's index where Storm had no choice labels */
    uint32_t action = 0;
    char index[24];
    int n = snprintf(index, sizeof index, "%llu", (unsigned long long)r->state_choices);
    if (!(len == 11 && memcmp(name, "__NOLABEL__", 11) == 0) && !((size_t)n == len && memcmp(name, index, len) == 0)) {
        int64_t a = names_intern(&r->action_names, name, len);
        if (a < 0)
            return csr_fail(r->st, CSR_ERR_NOMEM, "actions");
        action = (uint32_t)a;
        r->any_action = 1;
    }
    if ((rc = read_rewards(r, &p, &r->choice_rewards)))
        return rc;
    if (*num_skip_spaces(p))
        return csr_fail(r->st, CSR_ERR_SYNTAX, "trailing text after \"action NAME [rewards]\"");
    if (VEC_PUSH(r->choice_first, uint64_t, r->targets.len) || VEC_PUSH(r->actions, uint32_t, action))
        return csr_fail(r->st, CSR_ERR_NOMEM, "choices");
    r->state_choices++;
    r->choice_line = line;
    r->in_choice = 1;
    r->sum = 0.0;
    return CSR_OK;
}

static int transition_line(drn_reader *r, const char *p, uint64_t line)
{
    if (!r->in_choice)
        return csr_fail(r->st, CSR_ERR_SYNTAX, "a transition outside an action");
    uint64_t t;
    double prob;
    if (num_parse_u64(&p, &t))
        return csr_fail(r->st, CSR_ERR_NUMBER, "target state");
    p = num_skip_spaces(p);
    if (*p != ':')
        return csr_fail(r->st, CSR_ERR_SYNTAX, "expected \"target : probability\"");
    p = num_skip_spaces(p + 1);
    if (num_parse_double(&p, &prob))
        return csr_fail(r->st, CSR_ERR_NUMBER, "probability");
    if (*num_skip_spaces(p))
        return csr_fail(r->st, CSR_ERR_SYNTAX, "trailing text after \"target : probability\"");
    if (t >= r->n)
        return csr_fail(r->st, CSR_ERR_RANGE, "target state %llu >= %llu states", (unsigned long long)t,
                        (unsigned long long)r->n);
    uint64_t first = ((uint64_t *)r->choice_first.data)[r->choice_first.len - 1];
    if (r->targets.len > first && t <= ((uint32_t *)r->targets.data)[r->targets.len - 1])
        return csr_fail(r->st, CSR_ERR_TARGET_ORDER, "state %llu after state %u", (unsigned long long)t,
                        ((uint32_t *)r->targets.data)[r->targets.len - 1]);
    if (!(prob > 0.0 && prob <= 1.0 + r->tol))
        return csr_fail(r->st, CSR_ERR_PROBABILITY, "%g", prob);
    if (prob > 1.0)
        prob = 1.0;
    if (VEC_PUSH(r->targets, uint32_t, (uint32_t)t) || VEC_PUSH(r->probs, double, prob))
        return csr_fail(r->st, CSR_ERR_NOMEM, "transitions");
    r->sum += prob;
    r->transition_line = line;
    return CSR_OK;
}

static int header_line(drn_reader *r, const char *p, int *expect, int *have)
{
    if (strncmp(p, "@type:", 6) == 0) {
        size_t len;
        p += 6;
        const char *t = next_token(r, &p, &len);
        if (t && len == 3 && strncasecmp(t, "MDP", 3) == 0)
            r->is_mdp = 1;
        else if (t && len == 4 && strncasecmp(t, "DTMC", 4) == 0)
            r->is_mdp = 0;
        else
            return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "DRN model type \"%.*s\": prism2csr reads DTMCs and MDPs",
                            t ? (int)(len > 20 ? 20 : len) : 0, t ? t : "");
        *have |= 1;
    } else if (strncmp(p, "@value_type:", 12) == 0) {
        size_t len;
        p += 12;
        const char *t = next_token(r, &p, &len);
        if (!t || len != 6 || memcmp(t, "double", 6) != 0)
            return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "DRN values of type \"%.*s\": only double",
                            t ? (int)(len > 20 ? 20 : len) : 0, t ? t : "");
    } else if (strcmp(p, "@parameters") == 0) {
        *expect = EXPECT_PARAMETERS;
    } else if (strcmp(p, "@reward_models") == 0) {
        *expect = EXPECT_REWARDS;
    } else if (strcmp(p, "@nr_states") == 0) {
        *expect = EXPECT_STATES;
    } else if (strcmp(p, "@nr_choices") == 0) {
        *expect = EXPECT_CHOICES;
    } else if (strcmp(p, "@placeholders") == 0) {
        return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "a parametric DRN model (@placeholders)");
    } else {
        return csr_fail(r->st, CSR_ERR_SYNTAX, "unknown DRN section \"%.30s\"", p);
    }
    return CSR_OK;
}

static int expected_line(drn_reader *r, const char *p, int expect, int *have)
{
    uint64_t v;
    switch (expect) {
    case EXPECT_PARAMETERS:
        if (*num_skip_spaces(p))
            return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "a parametric DRN model (parameters \"%.30s\")", p);
        return CSR_OK;
    case EXPECT_REWARDS:
        for (;;) {
            size_t len;
            const char *t = next_token(r, &p, &len);
            if (!t)
                return CSR_ERR_SYNTAX;
            if (len == 0)
                break;
            if (r->reward_models == DRN_MAX_REWARD_MODELS)
                return csr_fail(r->st, CSR_ERR_TOO_LARGE, "more than %d reward models", DRN_MAX_REWARD_MODELS);
            if (!(r->reward_names[r->reward_models] = strndup(t, len)))
                return csr_fail(r->st, CSR_ERR_NOMEM, "reward models");
            r->reward_models++;
        }
        return CSR_OK;
    default:
        p = num_skip_spaces(p);
        if (num_parse_u64(&p, &v) || *num_skip_spaces(p))
            return csr_fail(r->st, CSR_ERR_NUMBER, expect == EXPECT_STATES ? "@nr_states" : "@nr_choices");
        if (expect == EXPECT_STATES) {
            if (v > CSR_MAX_STATES)
                return csr_fail(r->st, CSR_ERR_TOO_LARGE, "%llu states (at most 2^32)", (unsigned long long)v);
            if (v == 0)
                return csr_fail(r->st, CSR_ERR_SYNTAX, "a model needs at least one state");
            r->n = v;
            *have |= 2;
        } else {
            r->c = v;
            *have |= 4;
        }
        return CSR_OK;
    }
}

static int compare_label(const void *a, const void *b, void *names_list)
{
    char **list = names_list;
    const char *x = list[*(const uint64_t *)a], *y = list[*(const uint64_t *)b];
    /* init, deadlock, then byte order */
    int rx = strcmp(x, "init") == 0 ? 0 : strcmp(x, "deadlock") == 0 ? 1 : 2;
    int ry = strcmp(y, "init") == 0 ? 0 : strcmp(y, "deadlock") == 0 ? 1 : 2;
    return rx != ry ? rx - ry : strcmp(x, y);
}

/* The model from what was read; the arrays move into m. */
static int build(drn_reader *r, csr_model *m)
{
    memset(m, 0, sizeof *m);
    m->model_type = r->is_mdp ? CSR_MDP : CSR_DTMC;
    m->version_major = CSR_VERSION_MAJOR;
    m->version_minor = CSR_VERSION_MINOR;
    m->num_states = r->n;
    m->num_choices = r->choice_first.len;
    m->num_transitions = r->targets.len;
    if (VEC_PUSH(r->state_first, uint64_t, r->choice_first.len) ||
        VEC_PUSH(r->choice_first, uint64_t, r->targets.len) || vec_grow(&r->targets, 4, 1) ||
        vec_grow(&r->probs, 8, 1))
        return csr_fail(r->st, CSR_ERR_NOMEM, "model");
    m->state_choices = r->state_first.data;
    m->choice_transitions = r->choice_first.data;
    m->targets = r->targets.data;
    m->probabilities = r->probs.data;
    csr_adopt(m, r->state_first.data);
    csr_adopt(m, r->choice_first.data);
    csr_adopt(m, r->targets.data);
    csr_adopt(m, r->probs.data);
    r->state_first.data = r->choice_first.data = r->targets.data = r->probs.data = NULL;
    if (r->any_action) {
        m->choice_actions = r->actions.data;
        csr_adopt(m, r->actions.data);
        r->actions.data = NULL;
        if (attach_names(m, &m->actions, r->action_names.list, r->action_names.count))
            return csr_fail(r->st, CSR_ERR_NOMEM, "actions");
    }
    /* labels: 1 .. count-1 of label_names (0 is ""), sorted */
    uint64_t count = r->label_names.count > 0 ? r->label_names.count - 1 : 0, total = 0;
    int64_t init = -1;
    uint64_t *first = malloc((count + 1) * sizeof *first);
    if (!first || csr_adopt(m, first)) /* csr_adopt frees what it cannot keep */
        return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
    uint64_t *order = malloc((count ? count : 1) * sizeof *order);
    char **sorted = malloc((count ? count : 1) * sizeof *sorted);
    if (!order || !sorted) {
        free(order);
        free(sorted);
        return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
    }
    for (uint64_t i = 0; i < count; i++) {
        order[i] = i + 1;
        total += i + 1 < r->label_cap ? r->label_states[i + 1].len : 0;
    }
    qsort_r(order, count, sizeof *order, compare_label, r->label_names.list);
    uint32_t *states = malloc((total ? total : 1) * sizeof *states);
    if (!states || csr_adopt(m, states)) { /* csr_adopt frees what it cannot keep */
        free(order);
        free(sorted);
        return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
    }
    first[0] = 0;
    for (uint64_t i = 0; i < count; i++) {
        const vec *v = &r->label_states[order[i]];
        sorted[i] = r->label_names.list[order[i]];
        if (v->len)
            memcpy(states + first[i], v->data, v->len * sizeof *states);
        first[i + 1] = first[i] + v->len;
        if (strcmp(sorted[i], "init") == 0)
            init = (int64_t)i;
    }
    m->label_first = first;
    m->label_states = states;
    int rc = attach_names(m, &m->labels, sorted, count) ? CSR_ERR_NOMEM : CSR_OK;
    free(order);
    free(sorted);
    if (rc)
        return csr_fail(r->st, rc, "labels");
    if (init < 0 || first[init + 1] == first[init])
        return csr_fail(r->st, CSR_ERR_NO_INITIAL, "no state is labelled \"init\"");
    m->initial_states = states + first[init];
    m->num_initial = first[init + 1] - first[init];
    return CSR_OK;
}

/* The valuations read, every state's, into the model; else dropped (why in
 * the report).  CSR_OK or CSR_ERR_NOMEM. */
static int keep_valuations(drn_reader *r, csr_model *m, uint64_t line)
{
    if (r->valued_states != r->n)
        return drop_valuations(r, line, "not every state has a valuation", NULL, 0);
    for (uint64_t k = 0; k < r->positions; k++)
        if (!r->position_name[k])
            return drop_valuations(r, line, "a variable true in every state, whose name Storm 2.0 does not write", NULL, 0);
    uint32_t *types = malloc(r->positions * sizeof *types);
    if (!types)
        return csr_fail(r->st, CSR_ERR_NOMEM, "state valuations");
    for (uint64_t k = 0; k < r->positions; k++)
        types[k] = r->position_bool[k] ? CSR_VAR_BOOL : CSR_VAR_INT;
    int rc = csr_set_valuations(m, r->positions, (const char *const *)r->position_name, types, NULL, NULL,
                                r->values.data);
    free(types);
    if (rc == CSR_ERR_NOMEM || rc == CSR_ERR_TOO_LARGE)
        return csr_fail(r->st, rc, "state valuations");
    if (rc)
        return drop_valuations(r, line, "two variables of one name", NULL, 0);
    r->rep->variables = r->positions;
    return CSR_OK;
}

int drn_read(textin *in, const drn_read_options *opt, csr_model *m, drn_report *rep, csr_status *st)
{
    drn_report dummy;
    if (!rep)
        rep = &dummy;
    memset(rep, 0, sizeof *rep);
    memset(m, 0, sizeof *m);
    drn_reader r = {.st = st, .rep = rep, .state = -1, .skip_valuations = opt && opt->skip_valuations};
    if (r.skip_valuations)
        snprintf(rep->skipped_why, sizeof rep->skipped_why, "--no-valuations");
    r.tol = opt && opt->sum_tolerance > 0 ? opt->sum_tolerance : PRISM_SUM_TOLERANCE;
    r.sums_are_warnings = opt && opt->sums_are_warnings;
    int rc = CSR_OK, expect = EXPECT_NONE, have = 0, body = 0, got;
    char *line;
    size_t len;
    if (names_intern(&r.action_names, "", 0) != 0 || names_intern(&r.label_names, "", 0) != 0) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "names");
        goto done;
    }
    while ((got = textin_next(in, &line, &len, st)) > 0) {
        const char *p = num_skip_spaces(line);
        if (expect != EXPECT_NONE) { /* the line after @parameters, @reward_models, @nr_... */
            if ((rc = expected_line(&r, p, expect, &have)))
                goto done;
            expect = EXPECT_NONE;
            continue;
        }
        if (p[0] == '/' && p[1] == '/') {
            if (body && p[2] == '[' && (rc = read_valuation(&r, p + 2, in->line)))
                goto done;
            continue;
        }
        if (*p == '\0')
            continue;
        if (!body) {
            if (strcmp(p, "@model") == 0) {
                if ((have & 7) != 7) {
                    rc = csr_fail(st, CSR_ERR_SYNTAX, "@model before %s",
                                  !(have & 1) ? "@type" : !(have & 2) ? "@nr_states" : "@nr_choices");
                    goto done;
                }
                body = 1;
            } else if (*p == '@') {
                if ((rc = header_line(&r, p, &expect, &have)))
                    goto done;
            } else {
                rc = csr_fail(st, CSR_ERR_SYNTAX, "expected a DRN header line (\"@...\") before @model");
                goto done;
            }
            continue;
        }
        if (strncmp(p, "state", 5) == 0 && num_token_end(p[5]))
            rc = state_line(&r, p, in->line);
        else if (strncmp(p, "action", 6) == 0 && num_token_end(p[6]))
            rc = action_line(&r, p, in->line);
        else if (*p >= '0' && *p <= '9')
            rc = transition_line(&r, p, in->line);
        else
            rc = csr_fail(st, CSR_ERR_SYNTAX, "expected \"state\", \"action\" or \"target : probability\"");
        if (rc)
            goto done;
    }
    if (got < 0) {
        rc = -got;
        goto done;
    }
    if (!body) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "no @model section");
        goto done;
    }
    if ((rc = close_state(&r)))
        goto done;
    if ((uint64_t)(r.state + 1) != r.n) {
        rc = csr_fail(st, CSR_ERR_COUNTS, "%llu states, but @nr_states is %llu", (unsigned long long)(r.state + 1),
                      (unsigned long long)r.n);
        goto done;
    }
    if (r.choice_first.len != r.c) {
        rc = csr_fail(st, CSR_ERR_COUNTS, "%llu choices, but @nr_choices is %llu",
                      (unsigned long long)r.choice_first.len, (unsigned long long)r.c);
        goto done;
    }
    rep->reward_models = r.reward_models;
    rc = build(&r, m);
    /* the reward models as CSR reward structures: a part (state or choice
     * rewards) that is zero everywhere is left out, as PRISM's UMB leaves it */
    for (uint64_t k = 0; !rc && k < r.reward_models; k++) {
        const uint64_t R = r.reward_models;
        double *sr = malloc((r.n ? r.n : 1) * sizeof *sr), *cr = malloc((r.c ? r.c : 1) * sizeof *cr);
        int any_s = 0, any_c = 0;
        for (uint64_t s = 0; sr && s < r.n; s++)
            any_s |= (sr[s] = ((const double *)r.state_rewards.data)[s * R + k]) != 0.0;
        for (uint64_t j = 0; cr && j < r.c; j++)
            any_c |= (cr[j] = ((const double *)r.choice_rewards.data)[j * R + k]) != 0.0;
        rc = !sr || !cr ? csr_fail(st, CSR_ERR_NOMEM, "rewards")
                        : csr_add_reward(m, r.reward_names[k], any_s ? sr : NULL, any_c ? cr : NULL);
        if (rc == CSR_ERR_STRING_TABLE)
            csr_fail(st, rc, "two reward models named \"%.40s\"", r.reward_names[k]);
        free(sr);
        free(cr);
    }
    if (!rc && !r.skip_valuations && r.positions)
        rc = keep_valuations(&r, m, in->line);
done:
    if (rc) {
        if (st)
            st->line = r.fault_line ? r.fault_line : in->line;
        csr_free(m);
    }
    free(r.state_first.data);
    free(r.choice_first.data);
    free(r.targets.data);
    free(r.probs.data);
    free(r.actions.data);
    free(r.state_rewards.data);
    free(r.choice_rewards.data);
    for (uint64_t i = 0; i < r.reward_models; i++)
        free(r.reward_names[i]);
    for (uint64_t i = 0; i < r.positions; i++)
        free(r.position_name[i]);
    free(r.position_name);
    free(r.position_bool);
    free(r.values.data);
    for (uint64_t i = 0; i < r.label_cap; i++)
        free(r.label_states[i].data);
    free(r.label_states);
    names_free(&r.action_names);
    names_free(&r.label_names);
    return rc;
}
