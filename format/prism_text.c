/*
 * prism_text.c - PRISM explicit .tra and .lab readers (prism_text.h).
 *
 * One pass over the text, a line at a time, with arrays that grow with what
 * was actually read: no count from the header is trusted for an allocation.
 * Every error names its line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugepages.h"
#include "intern.h"
#include "numparse.h"
#include "parallel.h"
#include "prism_text.h"

_Static_assert(PRISM_MAX_THREADS <= PARALLEL_MAX_TASKS, "a task per thread of the parallel reader");

/* ---- .tra ------------------------------------------------------------ */

static int is_action_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The first line of a file that is not a .tra but looks like something else
 * a user may give: say what it looks like (0 when it looks like none). */
static int what_tra_is_not(const char *p, csr_status *st)
{
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        return csr_fail(st, CSR_ERR_SYNTAX, "the file starts with a UTF-8 byte order mark, which PRISM's exports "
                                            "do not have: remove those 3 bytes");
    if ((p[0] == '/' && p[1] == '/') || p[0] == '@')
        return csr_fail(st, CSR_ERR_UNSUPPORTED, "\"%.30s\" looks like Storm's DRN format: prism2csr reads PRISM's "
                                                 ".tra (with its .lab) and UMB archives",
                        p);
    if (strstr(p, "=\"init\"") || strstr(p, "=\"deadlock\""))
        return csr_fail(st, CSR_ERR_SYNTAX, "this looks like a PRISM label file (.lab): give it with -l, and the "
                                            ".tra as the input");
    return CSR_OK;
}

/* Header line: returns 0 and fills counts, or an error code. */
static int parse_tra_header(const char *p, int *is_mdp, uint64_t counts[3], csr_status *st)
{
    int k = 0;
    p = num_skip_spaces(p);
    while (*p && k < 3) {
        if (num_parse_u64(&p, &counts[k]))
            return csr_fail(st, CSR_ERR_NUMBER, "in the header \"n [c] t\"");
        k++;
        p = num_skip_spaces(p);
    }
    if (*p)
        return csr_fail(st, CSR_ERR_SYNTAX, "trailing garbage after the header \"n [c] t\"");
    if (k < 2)
        return csr_fail(st, CSR_ERR_SYNTAX, "header must be \"n t\" (DTMC) or \"n c t\" (MDP)");
    *is_mdp = k == 3;
    if (!*is_mdp) {
        counts[2] = counts[1];
        counts[1] = counts[0];
    }
    if (counts[0] > CSR_MAX_STATES)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "%llu states (at most 2^32)", (unsigned long long)counts[0]);
    if (counts[0] == 0)
        return csr_fail(st, CSR_ERR_SYNTAX, "a model needs at least one state");
    return CSR_OK;
}

/*
 * Make m the model of a .tra read into these arrays, state 0 its initial
 * state: n states, c choices, t transitions; state_first n + 1 and
 * choice_first c + 1 offsets, targets and probs t entries; actions the
 * choices' indices into names[0..num_names), or NULL where no line named an
 * action.  The model owns the arrays from here on, also on failure, when it
 * is freed: returns CSR_OK, or CSR_ERR_NOMEM with *what saying for what.
 */
static int adopt_tra_arrays(csr_model *m, int is_mdp, uint64_t n, uint64_t c, uint64_t t, uint64_t *state_first,
                            uint64_t *choice_first, uint32_t *targets, double *probs, uint32_t *actions,
                            char **names, uint64_t num_names, const char **what)
{
    uint32_t *initial = malloc(sizeof *initial);
    m->model_type = is_mdp ? CSR_MDP : CSR_DTMC;
    m->version_major = CSR_VERSION_MAJOR;
    m->version_minor = CSR_VERSION_MINOR;
    m->num_states = n;
    m->num_choices = c;
    m->num_transitions = t;
    m->state_choices = state_first;
    m->choice_transitions = choice_first;
    m->targets = targets;
    m->probabilities = probs;
    m->choice_actions = actions;
    csr_adopt(m, state_first);
    csr_adopt(m, choice_first);
    csr_adopt(m, targets);
    csr_adopt(m, probs);
    csr_adopt(m, actions);
    if (!initial) {
        csr_free(m);
        *what = "initial states";
        return CSR_ERR_NOMEM;
    }
    initial[0] = 0;
    m->initial_states = initial;
    m->num_initial = 1;
    csr_adopt(m, initial);
    if (actions && attach_names(m, &m->actions, names, num_names)) {
        csr_free(m);
        *what = "action names";
        return CSR_ERR_NOMEM;
    }
    return CSR_OK;
}

/* One transition line, "s [k] t p [action]". */
typedef struct tra_line {
    uint64_t s, k, t;
    double prob;
    const char *action; /* NULL: none */
    size_t action_len;
} tra_line;

/*
 * Parse the transition line at p (the text up to end holds its '\n') of a
 * model of n states into *ln, with the checks of every line on its own
 * (numbers, source and target below n, probability in (0, 1 + tol], one
 * above 1 stored as 1): returns the
 * position after its '\n', or NULL with *rc set by csr_fail (st may be NULL).
 */
static inline const char *parse_tra_line(const char *p, const char *end, int is_mdp, uint64_t n, double tol, tra_line *ln,
                                         csr_status *st, int *rc)
{
    const char *q = p;
    if (num_parse_u64(&q, &ln->s)) {
        *rc = csr_fail(st, CSR_ERR_NUMBER, "source state");
        return NULL;
    }
    q = num_skip_spaces(q);
    if (is_mdp) {
        if (num_parse_u64(&q, &ln->k)) {
            *rc = csr_fail(st, *q != '\n' && *q != '\r' ? CSR_ERR_NUMBER : CSR_ERR_SYNTAX, "choice index%s",
                           *q != '\n' && *q != '\r' ? "" : " missing");
            return NULL;
        }
        q = num_skip_spaces(q);
    } else {
        ln->k = 0;
    }
    if (num_parse_u64(&q, &ln->t)) {
        *rc = csr_fail(st, *q != '\n' && *q != '\r' ? CSR_ERR_NUMBER : CSR_ERR_SYNTAX, "target state%s",
                       *q != '\n' && *q != '\r' ? "" : " missing");
        return NULL;
    }
    q = num_skip_spaces(q);
    const char *prob_text = q;
    if (num_parse_double(&q, &ln->prob)) {
        *rc = csr_fail(st, *q != '\n' && *q != '\r' ? CSR_ERR_NUMBER : CSR_ERR_SYNTAX, "probability%s",
                       *q != '\n' && *q != '\r' ? "" : " missing");
        return NULL;
    }
    q = num_skip_spaces(q);
    ln->action = NULL;
    ln->action_len = 0;
    if (*q != '\n' && *q != '\r') {
        const char *a = q;
        while (is_action_char(*q))
            q++;
        if (q == a || !num_token_end(*q)) {
            *rc = csr_fail(st, CSR_ERR_SYNTAX, "bad action name");
            return NULL;
        }
        ln->action = a;
        ln->action_len = (size_t)(q - a);
        q = num_skip_spaces(q);
    }
    if (*q == '\r')
        q++;
    if (*q != '\n') {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        *rc = csr_fail(st, CSR_ERR_SYNTAX, "trailing garbage \"%.*s\"", (int)(nl - q < 40 ? nl - q : 40), q);
        return NULL;
    }
    if (ln->s >= n) {
        *rc = csr_fail(st, CSR_ERR_RANGE, "source state %llu >= %llu states", (unsigned long long)ln->s,
                       (unsigned long long)n);
        return NULL;
    }
    if (ln->t >= n) {
        *rc = csr_fail(st, CSR_ERR_RANGE, "target state %llu >= %llu states", (unsigned long long)ln->t,
                       (unsigned long long)n);
        return NULL;
    }
    if (!(ln->prob > 0.0 && ln->prob <= 1.0 + tol)) {
        int digits = 0; /* a nonzero digit before the exponent: a positive number below the doubles' range */
        for (const char *d = prob_text; d < q && *d != 'e' && *d != 'E'; d++)
            digits |= *d >= '1' && *d <= '9';
        if (ln->prob == 0.0 && digits)
            *rc = csr_fail(st, CSR_ERR_PROBABILITY, "%.*s is below the smallest double (it reads as 0)",
                           (int)(q - prob_text < 40 ? q - prob_text : 40), prob_text);
        else
            *rc = csr_fail(st, CSR_ERR_PROBABILITY, "%.17g", ln->prob);
        return NULL;
    }
    if (ln->prob > 1.0)
        ln->prob = 1.0; /* a rounding error above 1, within the sum tolerance */
    return q + 1;
}

/* ---- .tra, parallel ---------------------------------------------------- */

/*
 * The parallel reader for a .tra held whole in memory (a mapped regular
 * file): the body after the header is cut into one chunk per thread at line
 * boundaries.  Pass A counts each chunk's transition lines (and refuses NUL
 * bytes), so every chunk knows where its transitions go; pass B parses each
 * chunk straight into the model's target and probability arrays, with every
 * check of prism_read_tra that a chunk can make alone (each line's numbers
 * and ranges, the order of consecutive lines, one action per choice, the
 * sums of the choices that begin and end inside it); the stitch then makes,
 * in file order, the checks across chunk boundaries (a choice that goes on
 * in the next chunk, the order of the first line after the last, the sums of
 * the choices cut in two, adding their probabilities in file order as the
 * sequential reader does, the header's counts) and numbers the actions by
 * first appearance; pass C writes the choice and state arrays.
 *
 * It never reports an error itself: on any problem it gives up and the
 * sequential reader, which reports the first error of the file with its
 * line, reads the input from the start.  So its result, and every message,
 * are the sequential reader's.
 */

typedef struct tra_choice {
    uint64_t first;  /* global index of its first transition */
    uint32_t state;
    uint32_t action; /* chunk-local action index (0 = none), TRA_FIRST_CHOICE when it is its state's first */
} tra_choice;

#define TRA_FIRST_CHOICE 0x80000000u

typedef struct tra_chunk {
    const char *begin, *end;
    int is_mdp;
    uint64_t n;
    double tol;            /* sum tolerance */
    uint64_t lines;        /* pass A: transition lines */
    uint64_t first_trans;  /* global index of its first transition */
    uint32_t *targets;     /* the model's arrays */
    double *probs;
    vec choices;           /* tra_choice */
    uint64_t first_index, last_index; /* k of choices[0] and of the last choice */
    names actions;         /* chunk-local names, 0 = "" */
    int any_action;
    int failed;
    double worst_sum_error; /* of the choices inside it */
    uint64_t first_choice;  /* stitch: global index of choices[0] (or of [1] when [0] goes on) */
    int continues;          /* stitch: choices[0] is the previous chunk's last choice */
    uint32_t *action_map;   /* stitch: local action -> global */
    uint64_t *progress;     /* textin's progress counter, or NULL: bytes parsed are added */
} tra_chunk;

/* A comment line ('#' in column 1) or a blank one: not a transition. */
static inline int tra_skip_line(const char *p)
{
    if (*p == '#')
        return 1;
    p = num_skip_spaces(p);
    if (*p == '\r')
        p++;
    return *p == '\n';
}

static void *tra_count_chunk(void *arg)
{
    tra_chunk *c = arg;
    size_t len = (size_t)(c->end - c->begin);
    if (memchr(c->begin, '\0', len)) {
        c->failed = 1;
        return NULL;
    }
    uint64_t lines = 0;
    for (const char *p = c->begin; p < c->end;) {
        const char *nl = memchr(p, '\n', (size_t)(c->end - p));
        lines += !tra_skip_line(p);
        p = nl + 1;
    }
    c->lines = lines;
    return NULL;
}

static void *tra_parse_chunk(void *arg)
{
    tra_chunk *c = arg;
    uint64_t at = c->first_trans;
    tra_choice cur = {0};
    uint64_t cur_index = 0;
    double sum = 0.0;
    int have = 0, rc = 0;
    int64_t last_action = -1;
    size_t last_action_len = 0;
    c->worst_sum_error = 0.0;
    if (names_intern(&c->actions, "", 0) != 0)
        goto fail;
    const char *reported = c->begin; /* progress: bytes up to here added */
    for (const char *p = c->begin; p < c->end;) {
        if (c->progress && p - reported >= ((ptrdiff_t)4 << 20)) {
            __atomic_fetch_add(c->progress, (uint64_t)(p - reported), __ATOMIC_RELAXED);
            reported = p;
        }
        if (tra_skip_line(p)) {
            p = (const char *)memchr(p, '\n', (size_t)(c->end - p)) + 1;
            continue;
        }
        tra_line ln;
        const char *q = parse_tra_line(num_skip_spaces(p), c->end, c->is_mdp, c->n, c->tol, &ln, NULL, &rc);
        if (!q)
            goto fail;
        p = q;
        uint32_t action = 0;
        if (ln.action) {
            if (last_action >= 0 && ln.action_len == last_action_len &&
                same_bytes(ln.action, c->actions.list[last_action], ln.action_len)) {
                action = (uint32_t)last_action;
            } else {
                int64_t a = names_intern(&c->actions, ln.action, ln.action_len);
                if (a < 0 || a >= (int64_t)TRA_FIRST_CHOICE)
                    goto fail;
                action = (uint32_t)a;
                last_action = a;
                last_action_len = ln.action_len;
            }
            c->any_action = 1;
        }
        int new_choice;
        if (!have)
            new_choice = 1;
        else if (ln.s == cur.state && ln.k == cur_index)
            new_choice = 0;
        else if ((ln.s == cur.state && ln.k == cur_index + 1) || (ln.s == (uint64_t)cur.state + 1 && ln.k == 0))
            new_choice = 1;
        else
            goto fail;
        if (new_choice) {
            if (have) {
                /* a choice that began in this chunk (not its first: that may go
                 * on from the previous chunk) and ends in it */
                if (c->choices.len > 0) {
                    double err = fabs(sum - 1.0);
                    if (!(err <= c->tol))
                        goto fail;
                    if (err > c->worst_sum_error)
                        c->worst_sum_error = err;
                }
                if (VEC_PUSH(c->choices, tra_choice, cur))
                    goto fail;
            }
            if (!have)
                c->first_index = ln.k;
            cur.first = at;
            cur.state = (uint32_t)ln.s;
            cur.action = action | (ln.k == 0 ? TRA_FIRST_CHOICE : 0);
            cur_index = ln.k;
            sum = 0.0;
            have = 1;
        } else if (action != (cur.action & ~TRA_FIRST_CHOICE) || ln.t <= c->targets[at - 1]) {
            goto fail; /* another action, or targets not ascending */
        }
        if (at - c->first_trans >= c->lines)
            goto fail; /* cannot happen: pass A counted these lines */
        c->targets[at] = (uint32_t)ln.t;
        c->probs[at] = ln.prob;
        at++;
        sum += ln.prob;
    }
    if (have && VEC_PUSH(c->choices, tra_choice, cur))
        goto fail;
    c->last_index = cur_index;
    return NULL;
fail:
    c->failed = 1;
    return NULL;
}

typedef struct tra_fill {
    tra_chunk *chunk;
    uint64_t *state_first, *choice_first;
    uint32_t *actions;
} tra_fill;

static void *tra_fill_chunk(void *arg)
{
    tra_fill *f = arg;
    tra_chunk *c = f->chunk;
    const tra_choice *ch = c->choices.data;
    uint64_t g = c->first_choice;
    for (uint64_t j = c->continues ? 1 : 0; j < c->choices.len; j++, g++) {
        f->choice_first[g] = ch[j].first;
        f->actions[g] = c->action_map[ch[j].action & ~TRA_FIRST_CHOICE];
        if (ch[j].action & TRA_FIRST_CHOICE)
            f->state_first[ch[j].state] = g;
    }
    return NULL;
}

/* The probabilities of transitions [from, to), added to *sum in order. */
static void add_probs(const double *probs, uint64_t from, uint64_t to, double *sum)
{
    for (uint64_t i = from; i < to; i++)
        *sum += probs[i];
}

/* The parallel reader: CSR_OK with the model read, or -1: read it sequentially. */
static int read_tra_parallel(const char *data, size_t len, unsigned threads, size_t min_chunk, double tol,
                             uint64_t *progress, csr_model *m, prism_tra_report *rep)
{
    const char *end = data + len, *p = data;
    int is_mdp = 0, header_type = 0, ok = 0;
    uint64_t counts[3] = {0};
    char line[4096];
    tra_chunk chunk[PRISM_MAX_THREADS];
    tra_fill fill[PRISM_MAX_THREADS];
    uint32_t *targets = NULL, *actions = NULL;
    double *probs = NULL;
    uint64_t *state_first = NULL, *choice_first = NULL;
    names global = {0};

    memset(chunk, 0, sizeof chunk);
    if (len == 0 || data[len - 1] != '\n')
        return -1;
    /* comment lines and the header, as prism_read_tra reads them */
    for (;;) {
        if (p == end)
            return -1;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)(nl - p);
        if (n >= sizeof line || memchr(p, '\0', n))
            return -1;
        memcpy(line, p, n);
        line[n] = '\0';
        if (line[0] == '#') {
            if (strstr(line, "(MDP)"))
                header_type = 2;
            else if (strstr(line, "(DTMC)"))
                header_type = 1;
            else if (strstr(line, "Transitions ("))
                return -1;
            p = nl + 1;
            continue;
        }
        const char *h = num_skip_spaces(line);
        if (*h == '\r' && h[1] == '\0') {
            p = nl + 1;
            continue;
        }
        if (*h == '\0') {
            p = nl + 1;
            continue;
        }
        if (n > 0 && line[n - 1] == '\r')
            line[n - 1] = '\0';
        if (parse_tra_header(h, &is_mdp, counts, NULL) || (header_type && header_type != (is_mdp ? 2 : 1)))
            return -1;
        p = nl + 1;
        break;
    }
    if (counts[2] == 0 || counts[1] == 0 || counts[1] > counts[2] || counts[1] >= UINT32_MAX)
        return -1;

    /* the chunks, cut after a '\n' */
    unsigned parts = threads;
    size_t body = (size_t)(end - p);
    if (parts > body / min_chunk + 1)
        parts = (unsigned)(body / min_chunk + 1);
    const char *from = p;
    for (unsigned i = 0; i < parts; i++) {
        const char *to = i + 1 == parts ? end : p + body / parts * (i + 1);
        if (to < from)
            to = from;
        if (to < end && to > from)
            to = (const char *)memchr(to - 1, '\n', (size_t)(end - (to - 1))) + 1;
        chunk[i].begin = from;
        chunk[i].end = to;
        chunk[i].is_mdp = is_mdp;
        chunk[i].n = counts[0];
        chunk[i].tol = tol;
        chunk[i].progress = progress;
        from = to;
    }

    /* pass A: where each chunk's transitions go */
    parallel_run(tra_count_chunk, chunk, sizeof chunk[0], parts);
    uint64_t total = 0;
    for (unsigned i = 0; i < parts; i++) {
        if (chunk[i].failed)
            return -1;
        chunk[i].first_trans = total;
        total += chunk[i].lines;
    }
    if (total != counts[2])
        return -1;
    targets = malloc(total * sizeof *targets);
    probs = malloc(total * sizeof *probs);
    if (!targets || !probs)
        goto out;
    advise_huge_pages(targets, total * sizeof *targets);
    advise_huge_pages(probs, total * sizeof *probs);
    for (unsigned i = 0; i < parts; i++) {
        chunk[i].targets = targets;
        chunk[i].probs = probs;
    }

    /* pass B: the transitions */
    parallel_run(tra_parse_chunk, chunk, sizeof chunk[0], parts);

    /* the stitch, in file order */
    int any_action = 0;
    uint64_t num_choices = 0;
    double worst = 0.0;
    const tra_choice *prev = NULL; /* the last choice so far */
    unsigned prev_chunk = 0;
    double open_sum = 0.0; /* the last choice's sum so far, in file order */
    if (names_intern(&global, "", 0) != 0)
        goto out;
    for (unsigned i = 0; i < parts; i++) {
        tra_chunk *c = &chunk[i];
        if (c->failed)
            goto out;
        any_action |= c->any_action;
        c->action_map = malloc(c->actions.count * sizeof *c->action_map);
        if (!c->action_map)
            goto out;
        for (uint64_t a = 0; a < c->actions.count; a++) {
            int64_t g = names_intern(&global, c->actions.list[a], c->actions.lengths[a]);
            if (g < 0)
                goto out;
            c->action_map[a] = (uint32_t)g;
        }
        if (c->worst_sum_error > worst)
            worst = c->worst_sum_error;
        if (c->choices.len == 0)
            continue;
        const tra_choice *ch = c->choices.data;
        const uint64_t k = c->first_index, prev_k = prev ? chunk[prev_chunk].last_index : 0;
        if (!prev) {
            if (ch[0].state != 0 || k != 0)
                goto out;
        } else if (ch[0].state == prev->state && k == prev_k) {
            /* the previous chunk's last choice goes on */
            if (c->action_map[ch[0].action & ~TRA_FIRST_CHOICE] !=
                    chunk[prev_chunk].action_map[prev->action & ~TRA_FIRST_CHOICE] ||
                targets[c->first_trans] <= targets[c->first_trans - 1])
                goto out;
            c->continues = 1;
        } else if (!((ch[0].state == prev->state && k == prev_k + 1) ||
                     (ch[0].state == (uint64_t)prev->state + 1 && k == 0))) {
            goto out;
        }
        /* the sums of the choices at the chunk's edges, in file order */
        uint64_t first_end = c->choices.len > 1 ? ch[1].first : c->first_trans + c->lines;
        if (!c->continues) {
            if (prev) {
                double err = fabs(open_sum - 1.0); /* the previous choice is complete */
                if (!(err <= tol))
                    goto out;
                if (err > worst)
                    worst = err;
            }
            open_sum = 0.0;
        }
        add_probs(probs, ch[0].first, first_end, &open_sum);
        if (c->choices.len > 1) {
            double err = fabs(open_sum - 1.0); /* choices[0] ends in this chunk */
            if (!(err <= tol))
                goto out;
            if (err > worst)
                worst = err;
            open_sum = 0.0;
            const tra_choice *last = &ch[c->choices.len - 1];
            add_probs(probs, last->first, c->first_trans + c->lines, &open_sum);
        }
        c->first_choice = num_choices;
        num_choices += c->choices.len - (uint64_t)c->continues;
        prev = &ch[c->choices.len - 1];
        prev_chunk = i;
    }
    if (!prev)
        goto out;
    {
        double err = fabs(open_sum - 1.0);
        if (!(err <= tol))
            goto out;
        if (err > worst)
            worst = err;
    }
    if (num_choices != counts[1] || (uint64_t)prev->state + 1 != counts[0])
        goto out;

    /* pass C: the choices and states */
    state_first = malloc((counts[0] + 1) * sizeof *state_first);
    choice_first = malloc((num_choices + 1) * sizeof *choice_first);
    actions = malloc(num_choices * sizeof *actions);
    if (!state_first || !choice_first || !actions)
        goto out;
    for (unsigned i = 0; i < parts; i++)
        fill[i] = (tra_fill){&chunk[i], state_first, choice_first, actions};
    parallel_run(tra_fill_chunk, fill, sizeof fill[0], parts);
    state_first[counts[0]] = num_choices;
    choice_first[num_choices] = total;
    if (!any_action) {
        free(actions);
        actions = NULL;
    }
    const char *what;
    int adopted = adopt_tra_arrays(m, is_mdp, counts[0], num_choices, total, state_first, choice_first, targets, probs,
                                   actions, global.list, global.count, &what);
    state_first = choice_first = NULL;
    targets = actions = NULL;
    probs = NULL;
    if (adopted != CSR_OK)
        goto out;
    rep->worst_sum_error = worst;
    rep->bytes = len;
    rep->chunks = parts;
    ok = 1;
out:
    for (unsigned i = 0; i < parts; i++) {
        free(chunk[i].choices.data);
        names_free(&chunk[i].actions);
        free(chunk[i].action_map);
    }
    names_free(&global);
    free(targets);
    free(probs);
    free(state_first);
    free(choice_first);
    free(actions);
    return ok ? CSR_OK : -1;
}

int prism_read_tra(textin *in, const prism_tra_options *opt, csr_model *m, prism_tra_report *rep,
                   csr_status *st)
{
    memset(m, 0, sizeof *m);
    prism_tra_report local_rep;
    if (!rep)
        rep = &local_rep;
    memset(rep, 0, sizeof *rep);
    int warn_sums = opt && opt->sums_are_warnings;
    const double tol = opt && opt->sum_tolerance > 0 ? opt->sum_tolerance : PRISM_SUM_TOLERANCE;

    /* in parallel where the input is a mapped file; sequentially otherwise,
     * and wherever the parallel reader finds a fault (to report it) */
    unsigned threads = opt ? opt->threads : 1;
    if (threads == 0)
        threads = parallel_cpus();
    if (threads > PRISM_MAX_THREADS)
        threads = PRISM_MAX_THREADS;
    const char *mapped;
    size_t mapped_length;
    if (!warn_sums && threads > 1 && textin_map(in, &mapped, &mapped_length) == 0 &&
        read_tra_parallel(mapped, mapped_length, threads, opt->min_chunk_bytes ? opt->min_chunk_bytes : (size_t)1 << 20,
                          tol, in->progress, m, rep) == CSR_OK)
        return CSR_OK;
    if (in->progress) /* read again from the start, sequentially */
        __atomic_store_n(in->progress, 0, __ATOMIC_RELAXED);

    vec state_first = {0}, choice_first = {0}, targets = {0}, probs = {0}, actions = {0};
    names action_names = {0};
    int rc = CSR_OK, is_mdp = 0, have_header = 0, header_type = 0 /* 1 DTMC, 2 MDP from '#' */;
    int any_action = 0;
    uint64_t counts[3] = {0}; /* states, choices, transitions */
    uint64_t cur_state = 0, cur_choice = 0, num_choices = 0, num_trans = 0;
    uint64_t choice_line = 0;
    int64_t choice_action = -1; /* action index of the current choice */
    double sum = 0.0;
    char *block;
    size_t block_len;
    int got;
    uint64_t line_no = 0;
    int64_t last_action = -1;
    size_t last_action_len = 0;

    if (names_intern(&action_names, "", 0) != 0) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "action names");
        goto fail;
    }

/* Close the current choice: its probabilities must sum to 1. */
#define FINISH_CHOICE()                                                                            \
    do {                                                                                           \
        double err_ = fabs(sum - 1.0);                                                             \
        if (!(err_ <= tol)) {                                                                      \
            if (!warn_sums) {                                                                      \
                if (st)                                                                            \
                    st->line = choice_line;                                                        \
                rc = csr_fail(st, CSR_ERR_PROBABILITY_SUM, "state %llu choice %llu sums to %.17g", \
                              (unsigned long long)cur_state, (unsigned long long)cur_choice, sum);  \
                goto fail_no_line;                                                                 \
            }                                                                                      \
            if (!rep->bad_sums++)                                                                  \
                rep->first_bad_sum_line = choice_line;                                             \
        }                                                                                          \
        if (err_ > rep->worst_sum_error)                                                           \
            rep->worst_sum_error = err_;                                                           \
    } while (0)

    while ((got = textin_next_block(in, &block, &block_len, st)) > 0) {
        char *p = block, *block_end = block + block_len;
        while (p < block_end) {
            line_no++;
            if (*p == '#') {
                char *nl = memchr(p, '\n', (size_t)(block_end - p));
                if (!have_header) {
                    *nl = '\0';
                    if (strstr(p, "(MDP)"))
                        header_type = 2;
                    else if (strstr(p, "(DTMC)"))
                        header_type = 1;
                    else if (strstr(p, "Transitions (")) {
                        rc = csr_fail(st, CSR_ERR_UNSUPPORTED, "%s (only DTMCs and MDPs)", p + 1);
                        goto fail;
                    }
                    *nl = '\n';
                }
                p = nl + 1;
                continue;
            }
            p = (char *)num_skip_spaces(p);
            if (*p == '\r')
                p++;
            if (*p == '\n') { /* blank line */
                p++;
                continue;
            }
            if (!have_header) {
                char *nl = memchr(p, '\n', (size_t)(block_end - p));
                *nl = '\0';
                if (nl > p && nl[-1] == '\r')
                    nl[-1] = '\0';
                rc = what_tra_is_not(p, st);
                if (!rc)
                    rc = parse_tra_header(p, &is_mdp, counts, st);
                *nl = '\n';
                if (rc)
                    goto fail;
                if (header_type && header_type != (is_mdp ? 2 : 1)) {
                    rc = csr_fail(st, CSR_ERR_SYNTAX, "header has %d counts but the file says %s", is_mdp ? 3 : 2,
                                  header_type == 2 ? "MDP" : "DTMC");
                    goto fail;
                }
                have_header = 1;
                /* Reserve what the header announces, but never trust it beyond 2^24. */
                uint64_t hint_s = counts[0] < (1u << 24) ? counts[0] + 1 : (1u << 24);
                uint64_t hint_c = counts[1] < (1u << 24) ? counts[1] + 1 : (1u << 24);
                uint64_t hint_t = counts[2] < (1u << 24) ? counts[2] : (1u << 24);
                if (vec_grow(&state_first, 8, hint_s) || vec_grow(&choice_first, 8, hint_c) ||
                    vec_grow(&targets, 4, hint_t) || vec_grow(&probs, 8, hint_t) || vec_grow(&actions, 4, hint_c)) {
                    rc = csr_fail(st, CSR_ERR_NOMEM, "model arrays");
                    goto fail;
                }
                p = nl + 1;
                continue;
            }

            tra_line ln;
            const char *q = parse_tra_line(p, block_end, is_mdp, counts[0], tol, &ln, st, &rc);
            if (!q) {
                /* the last line, without its newline: the file was cut short, whatever its text misses */
                const char *eol = memchr(p, '\n', (size_t)(block_end - p));
                if (in->missing_newline && eol && eol + 1 == block_end)
                    rc = csr_fail(st, CSR_ERR_TRUNCATED, "the file ends mid-line (cut short?)");
                goto fail;
            }
            uint64_t s = ln.s, k = ln.k, t = ln.t;
            double prob = ln.prob;
            int64_t action = 0;
            if (ln.action) {
                const char *a = ln.action;
                size_t alen = ln.action_len;
                if (last_action >= 0 && alen == last_action_len && same_bytes(a, action_names.list[last_action], alen)) {
                    action = last_action;
                } else {
                    action = names_intern(&action_names, a, alen);
                    if (action < 0) {
                        rc = csr_fail(st, CSR_ERR_NOMEM, "action names");
                        goto fail;
                    }
                    last_action = action;
                    last_action_len = alen;
                }
                any_action = 1;
            }
            p = (char *)q;

            int new_choice;
            if (num_trans == 0) {
                if (s != 0) {
                    rc = csr_fail(st, CSR_ERR_ORDER, "first source state is %llu, not 0", (unsigned long long)s);
                    goto fail;
                }
                if (k != 0) {
                    rc = csr_fail(st, CSR_ERR_ORDER, "state 0: first choice is %llu, not 0", (unsigned long long)k);
                    goto fail;
                }
                new_choice = 2;
            } else if (s == cur_state) {
                if (k == cur_choice)
                    new_choice = 0;
                else if (k == cur_choice + 1)
                    new_choice = 1;
                else {
                    rc = csr_fail(st, CSR_ERR_ORDER, "state %llu: choice %llu after choice %llu",
                                  (unsigned long long)s, (unsigned long long)k, (unsigned long long)cur_choice);
                    goto fail;
                }
            } else if (s == cur_state + 1) {
                if (k != 0) {
                    rc = csr_fail(st, CSR_ERR_ORDER, "state %llu: first choice is %llu, not 0", (unsigned long long)s,
                                  (unsigned long long)k);
                    goto fail;
                }
                new_choice = 2;
            } else if (s < cur_state) {
                rc = csr_fail(st, CSR_ERR_ORDER, "source state %llu after state %llu", (unsigned long long)s,
                              (unsigned long long)cur_state);
                goto fail;
            } else {
                rc = csr_fail(st, CSR_ERR_ORDER,
                              "source state %llu after state %llu: state %llu has no transitions",
                              (unsigned long long)s, (unsigned long long)cur_state,
                              (unsigned long long)(cur_state + 1));
                goto fail;
            }

            if (new_choice) {
                if (num_trans > 0)
                    FINISH_CHOICE();
                if (num_choices >= counts[1]) {
                    rc = csr_fail(st, CSR_ERR_COUNTS, "more than the header's %llu %s", (unsigned long long)counts[1],
                                  is_mdp ? "choices" : "states");
                    goto fail;
                }
                if (new_choice == 2 && VEC_PUSH(state_first, uint64_t, num_choices)) {
                    rc = csr_fail(st, CSR_ERR_NOMEM, "state array");
                    goto fail;
                }
                if (VEC_PUSH(choice_first, uint64_t, num_trans) || VEC_PUSH(actions, uint32_t, (uint32_t)action)) {
                    rc = csr_fail(st, CSR_ERR_NOMEM, "choice arrays");
                    goto fail;
                }
                num_choices++;
                cur_state = s;
                cur_choice = k;
                choice_line = line_no;
                choice_action = action;
                sum = 0.0;
            } else if (action != choice_action) {
                rc = csr_fail(st, CSR_ERR_SYNTAX,
                              "state %llu choice %llu: action \"%s\" differs from \"%s\" on line %llu",
                              (unsigned long long)s, (unsigned long long)k, action_names.list[action],
                              action_names.list[choice_action], (unsigned long long)choice_line);
                goto fail;
            } else if (t <= ((const uint32_t *)targets.data)[num_trans - 1]) {
                uint32_t before = ((const uint32_t *)targets.data)[num_trans - 1];
                if (t == before)
                    rc = csr_fail(st, CSR_ERR_TARGET_ORDER, "state %llu choice %llu: a second transition to state %llu",
                                  (unsigned long long)s, (unsigned long long)k, (unsigned long long)t);
                else
                    rc = csr_fail(st, CSR_ERR_TARGET_ORDER, "state %llu choice %llu: target %llu after target %u",
                                  (unsigned long long)s, (unsigned long long)k, (unsigned long long)t, before);
                goto fail;
            }
            if (num_trans >= counts[2]) {
                rc = csr_fail(st, CSR_ERR_COUNTS, "more than the header's %llu transitions",
                              (unsigned long long)counts[2]);
                goto fail;
            }
            if (VEC_PUSH(targets, uint32_t, (uint32_t)t) || VEC_PUSH(probs, double, prob)) {
                rc = csr_fail(st, CSR_ERR_NOMEM, "transition arrays");
                goto fail;
            }
            num_trans++;
            sum += prob;
        }
    }
    if (got < 0) {
        rc = -got;
        line_no += in->fault_lines + 1; /* the line at fault */
        goto fail;
    }
    if (st)
        st->line = line_no;
    if (!have_header) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "no header line \"n [c] t\"");
        goto fail_no_line;
    }
    if (in->missing_newline) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "the last line has no newline");
        goto fail_no_line;
    }
    if (num_trans > 0)
        FINISH_CHOICE();
    if (st)
        st->line = line_no;
    if (num_trans != counts[2] || num_choices != counts[1] || (num_trans ? cur_state + 1 : 0) != counts[0]) {
        rc = csr_fail(st, CSR_ERR_COUNTS,
                      "header says %llu states, %llu choices, %llu transitions; found %llu, %llu, %llu",
                      (unsigned long long)counts[0], (unsigned long long)counts[1], (unsigned long long)counts[2],
                      (unsigned long long)(num_trans ? cur_state + 1 : 0), (unsigned long long)num_choices,
                      (unsigned long long)num_trans);
        goto fail_no_line;
    }
#undef FINISH_CHOICE
    if (VEC_PUSH(state_first, uint64_t, num_choices) || VEC_PUSH(choice_first, uint64_t, num_trans)) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "model arrays");
        goto fail_no_line;
    }
    if (!any_action) {
        free(actions.data);
        actions.data = NULL;
    }
    const char *what;
    rc = adopt_tra_arrays(m, is_mdp, counts[0], num_choices, num_trans, state_first.data, choice_first.data,
                          targets.data, probs.data, actions.data, action_names.list, action_names.count, &what);
    state_first.data = choice_first.data = targets.data = probs.data = actions.data = NULL;
    if (rc) {
        rc = csr_fail(st, rc, "%s", what);
        goto fail_no_line;
    }
    names_free(&action_names);
    rep->bytes = in->bytes;
    return CSR_OK;

fail:
    if (st)
        st->line = line_no;
fail_no_line:
    free(state_first.data);
    free(choice_first.data);
    free(targets.data);
    free(probs.data);
    free(actions.data);
    names_free(&action_names);
    csr_free(m);
    return rc;
}

/* ---- .lab ------------------------------------------------------------ */

/* Parse the declaration line  0="init" 1="deadlock" ...  into names. */
static int parse_lab_names(const char *p, names *decl, csr_status *st)
{
    uint64_t expect = 0;
    p = num_skip_spaces(p);
    while (*p) {
        uint64_t idx;
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q == p || *q != '=')
            return csr_fail(st, CSR_ERR_SYNTAX, "expected i=\"name\" in the label declarations");
        idx = 0;
        for (const char *d = p; d < q; d++) {
            if (idx > (UINT64_MAX - 9) / 10)
                return csr_fail(st, CSR_ERR_NUMBER, "label index");
            idx = idx * 10 + (uint64_t)(*d - '0');
        }
        if (idx != expect)
            return csr_fail(st, CSR_ERR_LABEL, "label index %llu, expected %llu", (unsigned long long)idx,
                            (unsigned long long)expect);
        q++;
        if (*q != '"')
            return csr_fail(st, CSR_ERR_SYNTAX, "label name must be quoted");
        const char *name = ++q;
        while (*q && *q != '"')
            q++;
        if (*q != '"')
            return csr_fail(st, CSR_ERR_SYNTAX, "unterminated label name");
        size_t len = (size_t)(q - name);
        if (len == 0)
            return csr_fail(st, CSR_ERR_LABEL, "empty label name");
        uint64_t before = decl->count;
        int64_t got = names_intern(decl, name, len);
        if (got < 0)
            return csr_fail(st, CSR_ERR_NOMEM, "label names");
        if (decl->count == before)
            return csr_fail(st, CSR_ERR_LABEL, "label \"%.*s\" declared twice", (int)len, name);
        expect++;
        p = q + 1;
        if (*p && !num_is_space(*p))
            return csr_fail(st, CSR_ERR_SYNTAX, "garbage after label \"%.*s\"", (int)len, name);
        p = num_skip_spaces(p);
    }
    if (expect == 0)
        return csr_fail(st, CSR_ERR_SYNTAX, "no label declarations");
    return CSR_OK;
}

int prism_read_lab(textin *in, csr_model *m, csr_status *st)
{
    names decl = {0};
    vec *lists = NULL;
    uint8_t *seen = NULL;
    int rc = CSR_OK, have_decl = 0, got;
    int64_t last_state = -1;
    char *line;
    size_t len;

    while ((got = textin_next(in, &line, &len, st)) > 0) {
        const char *p = line;
        if (*p == '#')
            continue;
        p = num_skip_spaces(p);
        if (*p == '\0')
            continue;
        if (!have_decl) {
            if ((rc = parse_lab_names(p, &decl, st)))
                goto fail;
            lists = calloc(decl.count, sizeof *lists);
            seen = calloc(decl.count, 1);
            if (!lists || !seen) {
                rc = csr_fail(st, CSR_ERR_NOMEM, "label lists");
                goto fail;
            }
            have_decl = 1;
            continue;
        }
        uint64_t s;
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q == p || *q != ':') {
            rc = csr_fail(st, CSR_ERR_SYNTAX, "expected \"state: label ...\"");
            goto fail;
        }
        s = 0;
        for (const char *d = p; d < q; d++) {
            if (s > (UINT64_MAX - 9) / 10) {
                rc = csr_fail(st, CSR_ERR_NUMBER, "state");
                goto fail;
            }
            s = s * 10 + (uint64_t)(*d - '0');
        }
        if (s >= m->num_states) {
            rc = csr_fail(st, CSR_ERR_RANGE, "state %llu >= %llu states", (unsigned long long)s,
                          (unsigned long long)m->num_states);
            goto fail;
        }
        if ((int64_t)s <= last_state) {
            rc = csr_fail(st, CSR_ERR_ORDER, "state %llu after state %lld", (unsigned long long)s, (long long)last_state);
            goto fail;
        }
        last_state = (int64_t)s;
        p = num_skip_spaces(q + 1);
        if (!*p) {
            rc = csr_fail(st, CSR_ERR_SYNTAX, "state %llu has no labels", (unsigned long long)s);
            goto fail;
        }
        memset(seen, 0, decl.count);
        while (*p) {
            uint64_t l;
            if (num_parse_u64(&p, &l)) {
                rc = csr_fail(st, CSR_ERR_NUMBER, "label index");
                goto fail;
            }
            if (l >= decl.count) {
                rc = csr_fail(st, CSR_ERR_RANGE, "label index %llu, only %llu labels declared", (unsigned long long)l,
                              (unsigned long long)decl.count);
                goto fail;
            }
            if (seen[l]++) {
                rc = csr_fail(st, CSR_ERR_LABEL, "label %llu twice for state %llu", (unsigned long long)l,
                              (unsigned long long)s);
                goto fail;
            }
            if (VEC_PUSH(lists[l], uint32_t, (uint32_t)s)) {
                rc = csr_fail(st, CSR_ERR_NOMEM, "label lists");
                goto fail;
            }
            p = num_skip_spaces(p);
        }
    }
    if (got < 0) {
        rc = -got;
        goto fail;
    }
    if (!have_decl) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "no label declaration line");
        goto fail;
    }
    if (in->missing_newline) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "the last line has no newline");
        goto fail;
    }
    int64_t init = -1;
    for (uint64_t l = 0; l < decl.count; l++)
        if (strcmp(decl.list[l], "init") == 0)
            init = (int64_t)l;
    if (init < 0) {
        rc = csr_fail(st, CSR_ERR_LABEL, "no label \"init\" for the initial states");
        goto fail;
    }
    if (lists[init].len == 0) {
        rc = csr_fail(st, CSR_ERR_NO_INITIAL, "no state is labelled \"init\"");
        goto fail;
    }
    uint64_t total = 0;
    for (uint64_t l = 0; l < decl.count; l++)
        total += lists[l].len;
    uint64_t *first = malloc((decl.count + 1) * sizeof *first);
    uint32_t *states = malloc((total ? total : 1) * sizeof *states);
    uint32_t *initial = malloc(lists[init].len * sizeof *initial);
    if (!first || !states || !initial) {
        free(first);
        free(states);
        free(initial);
        rc = csr_fail(st, CSR_ERR_NOMEM, "labels");
        goto fail;
    }
    first[0] = 0;
    for (uint64_t l = 0; l < decl.count; l++) {
        if (lists[l].len)
            memcpy(states + first[l], lists[l].data, lists[l].len * sizeof *states);
        first[l + 1] = first[l] + lists[l].len;
    }
    memcpy(initial, lists[init].data, lists[init].len * sizeof *initial);
    if (csr_adopt(m, first) || csr_adopt(m, states) || csr_adopt(m, initial) ||
        attach_names(m, &m->labels, decl.list, decl.count)) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "labels");
        goto fail;
    }
    m->label_first = first;
    m->label_states = states;
    m->initial_states = initial;
    m->num_initial = lists[init].len;
    for (uint64_t l = 0; l < decl.count; l++)
        free(lists[l].data);
    free(lists);
    free(seen);
    names_free(&decl);
    return CSR_OK;

fail:
    if (st)
        st->line = in->line;
    if (lists)
        for (uint64_t l = 0; l < decl.count; l++)
            free(lists[l].data);
    free(lists);
    free(seen);
    names_free(&decl);
    return rc;
}
