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

#include "hugepages.h"
#include "numparse.h"
#include "prism_text.h"

/* ---- growable arrays ------------------------------------------------- */

typedef struct vec {
    void *data;
    uint64_t len, cap;
} vec;

static int vec_grow(vec *v, size_t elem, uint64_t need)
{
    if (need <= v->cap)
        return 0;
    uint64_t cap = v->cap ? v->cap : 1024;
    while (cap < need) {
        if (cap > UINT64_MAX / 2)
            return -1;
        cap *= 2;
    }
    uint64_t bytes;
    if (csr_mul_u64(cap, elem, &bytes) || bytes > SIZE_MAX)
        return -1;
    void *p = realloc(v->data, (size_t)bytes);
    if (!p)
        return -1;
    v->data = p;
    v->cap = cap;
    advise_huge_pages(p, (size_t)bytes);
    return 0;
}

#define VEC_PUSH(v, type, value)                                                                   \
    ((v).len < (v).cap || vec_grow(&(v), sizeof(type), (v).len + 1) == 0                           \
         ? (((type *)(v).data)[(v).len++] = (value), 0)                                            \
         : -1)

/* ---- action names: an open-addressing hash table, name 0 = "" ------- */

typedef struct names {
    char **list;
    size_t *lengths;
    uint64_t count, cap;
    uint32_t *slots; /* index + 1, 0 = empty */
    uint64_t num_slots;
} names;

/* Byte comparison inlined for the short names of actions. */
static inline int same_bytes(const char *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static uint64_t hash_name(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int names_rehash(names *n)
{
    uint64_t num = n->num_slots ? n->num_slots * 2 : 64;
    uint32_t *slots = calloc(num, sizeof *slots);
    if (!slots)
        return -1;
    for (uint64_t i = 0; i < n->count; i++) {
        uint64_t h = hash_name(n->list[i], strlen(n->list[i])) & (num - 1);
        while (slots[h])
            h = (h + 1) & (num - 1);
        slots[h] = (uint32_t)(i + 1);
    }
    free(n->slots);
    n->slots = slots;
    n->num_slots = num;
    return 0;
}

/* Index of name (len bytes), added if new; -1 out of memory or too many. */
static int64_t names_intern(names *n, const char *s, size_t len)
{
    if (n->count * 2 >= n->num_slots && names_rehash(n))
        return -1;
    uint64_t h = hash_name(s, len) & (n->num_slots - 1);
    while (n->slots[h]) {
        uint32_t i = n->slots[h] - 1;
        if (n->lengths[i] == len && same_bytes(n->list[i], s, len))
            return i;
        h = (h + 1) & (n->num_slots - 1);
    }
    if (n->count >= UINT32_MAX - 1)
        return -1;
    if (n->count == n->cap) {
        uint64_t cap = n->cap ? n->cap * 2 : 16;
        char **list = realloc(n->list, cap * sizeof *list);
        if (!list)
            return -1;
        n->list = list;
        size_t *lengths = realloc(n->lengths, cap * sizeof *lengths);
        if (!lengths)
            return -1;
        n->lengths = lengths;
        n->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    n->list[n->count] = copy;
    n->lengths[n->count] = len;
    n->slots[h] = (uint32_t)(n->count + 1);
    return (int64_t)n->count++;
}

static void names_free(names *n)
{
    for (uint64_t i = 0; i < n->count; i++)
        free(n->list[i]);
    free(n->list);
    free(n->lengths);
    free(n->slots);
    memset(n, 0, sizeof *n);
}

/* Pack names into one string table owned by the model and point
 * strings->names into it. */
static int attach_names(csr_model *m, csr_strings *strings, char **list, uint64_t count)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < count; i++)
        total += strlen(list[i]) + 1;
    char *table = malloc(total ? total : 1);
    if (!table || csr_adopt(m, table)) /* csr_adopt frees what it cannot keep */
        return CSR_ERR_NOMEM;
    const char **ptrs = malloc((count ? count : 1) * sizeof *ptrs);
    if (!ptrs)
        return CSR_ERR_NOMEM;
    char *p = table;
    for (uint64_t i = 0; i < count; i++) {
        size_t len = strlen(list[i]) + 1;
        memcpy(p, list[i], len);
        ptrs[i] = p;
        p += len;
    }
    strings->names = ptrs;
    strings->count = count;
    return CSR_OK;
}

/* ---- .tra ------------------------------------------------------------ */

static int is_action_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
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

int prism_read_tra(textin *in, const prism_tra_options *opt, csr_model *m, prism_tra_report *rep,
                   csr_status *st)
{
    memset(m, 0, sizeof *m);
    prism_tra_report local_rep;
    if (!rep)
        rep = &local_rep;
    memset(rep, 0, sizeof *rep);
    int warn_sums = opt && opt->sums_are_warnings;

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
        if (!(err_ <= PRISM_SUM_TOLERANCE)) {                                                      \
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

            uint64_t s, k, t;
            double prob;
            const char *q = p;
            if (num_parse_u64(&q, &s)) {
                rc = csr_fail(st, CSR_ERR_NUMBER, "source state");
                goto fail;
            }
            q = num_skip_spaces(q);
            if (is_mdp) {
                if (num_parse_u64(&q, &k)) {
                    rc = csr_fail(st, *q != '\n' && *q != '\r' ? CSR_ERR_NUMBER : CSR_ERR_SYNTAX, "choice index%s",
                                  *q != '\n' && *q != '\r' ? "" : " missing");
                    goto fail;
                }
                q = num_skip_spaces(q);
            } else {
                k = 0;
            }
            if (num_parse_u64(&q, &t)) {
                rc = csr_fail(st, *q != '\n' && *q != '\r' ? CSR_ERR_NUMBER : CSR_ERR_SYNTAX, "target state%s",
                              *q != '\n' && *q != '\r' ? "" : " missing");
                goto fail;
            }
            q = num_skip_spaces(q);
            if (num_parse_double(&q, &prob)) {
                rc = csr_fail(st, *q != '\n' && *q != '\r' ? CSR_ERR_NUMBER : CSR_ERR_SYNTAX, "probability%s",
                              *q != '\n' && *q != '\r' ? "" : " missing");
                goto fail;
            }
            q = num_skip_spaces(q);
            int64_t action = 0;
            if (*q != '\n' && *q != '\r') {
                const char *a = q;
                while (is_action_char(*q))
                    q++;
                if (q == a || !num_token_end(*q)) {
                    rc = csr_fail(st, CSR_ERR_SYNTAX, "bad action name");
                    goto fail;
                }
                size_t alen = (size_t)(q - a);
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
                q = num_skip_spaces(q);
            }
            if (*q == '\r')
                q++;
            if (*q != '\n') {
                const char *nl = memchr(q, '\n', (size_t)(block_end - q));
                rc = csr_fail(st, CSR_ERR_SYNTAX, "trailing garbage \"%.*s\"", (int)(nl - q < 40 ? nl - q : 40), q);
                goto fail;
            }
            p = (char *)q + 1;

            if (s >= counts[0]) {
                rc = csr_fail(st, CSR_ERR_RANGE, "source state %llu >= %llu states", (unsigned long long)s,
                              (unsigned long long)counts[0]);
                goto fail;
            }
            if (t >= counts[0]) {
                rc = csr_fail(st, CSR_ERR_RANGE, "target state %llu >= %llu states", (unsigned long long)t,
                              (unsigned long long)counts[0]);
                goto fail;
            }
            if (!(prob > 0.0 && prob <= 1.0)) {
                rc = csr_fail(st, CSR_ERR_PROBABILITY, "%.17g", prob);
                goto fail;
            }

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
        line_no++; /* the line being read */
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
    uint32_t *initial = malloc(sizeof *initial);
    if (!initial) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "initial states");
        goto fail_no_line;
    }
    initial[0] = 0;
    m->model_type = is_mdp ? CSR_MDP : CSR_DTMC;
    m->version_major = CSR_VERSION_MAJOR;
    m->version_minor = CSR_VERSION_MINOR;
    m->num_states = counts[0];
    m->num_choices = num_choices;
    m->num_transitions = num_trans;
    m->state_choices = state_first.data;
    m->choice_transitions = choice_first.data;
    m->targets = targets.data;
    m->probabilities = probs.data;
    m->initial_states = initial;
    m->num_initial = 1;
    csr_adopt(m, state_first.data);
    csr_adopt(m, choice_first.data);
    csr_adopt(m, targets.data);
    csr_adopt(m, probs.data);
    csr_adopt(m, initial);
    state_first.data = choice_first.data = targets.data = probs.data = NULL;
    if (any_action) {
        m->choice_actions = actions.data;
        csr_adopt(m, actions.data);
        actions.data = NULL;
        if (attach_names(m, &m->actions, action_names.list, action_names.count)) {
            rc = csr_fail(st, CSR_ERR_NOMEM, "action names");
            goto fail_no_line;
        }
    }
    free(actions.data);
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
