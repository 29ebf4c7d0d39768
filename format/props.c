/*
 * props.c - PRISM reachability properties: parser and label formulas
 * (props.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "props.h"

/* Nesting of ! and ( ) at most this deep, and at most this many operators
 * and labels in a property: the descent, prop_states and the freeing
 * recurse on each level of the tree. */
#define PROP_MAX_DEPTH 256
#define PROP_MAX_NODES 4096

typedef struct parser {
    const char *text, *at;
    csr_status *status;
    int rc;
    int depth, nodes;
} parser;

static void skip_blanks(parser *p)
{
    while (*p->at == ' ' || *p->at == '\t' || *p->at == '\r' || *p->at == '\n')
        p->at++;
}

/* Record an error at the current column (the first one wins). */
static void *fail_at(parser *p, int code, const char *what)
{
    if (!p->rc) {
        p->rc = code;
        csr_fail(p->status, code, "column %ld: %s", (long)(p->at - p->text) + 1, what);
        if (p->status)
            p->status->offset = (uint64_t)(p->at - p->text) + 1;
    }
    return NULL;
}

/* Whether the next token is the word w (not followed by a letter, digit or _). */
static int word(parser *p, const char *w)
{
    skip_blanks(p);
    size_t n = strlen(w);
    if (strncmp(p->at, w, n) != 0 || isalnum((unsigned char)p->at[n]) || p->at[n] == '_')
        return 0;
    p->at += n;
    return 1;
}

static int symbol(parser *p, const char *s)
{
    skip_blanks(p);
    size_t n = strlen(s);
    if (strncmp(p->at, s, n) != 0)
        return 0;
    p->at += n;
    return 1;
}

static prop_formula *node(parser *p, int op, prop_formula *a, prop_formula *b)
{
    if (++p->nodes > PROP_MAX_NODES)
        return fail_at(p, CSR_ERR_SYNTAX, "more than 4096 labels and operators");
    prop_formula *f = calloc(1, sizeof *f);
    if (!f)
        return fail_at(p, CSR_ERR_NOMEM, "out of memory");
    f->op = op;
    f->a = a;
    f->b = b;
    return f;
}

static void formula_free(prop_formula *f)
{
    if (!f)
        return;
    formula_free(f->a);
    formula_free(f->b);
    free(f->label);
    free(f);
}

static prop_formula *formula(parser *p);

static prop_formula *unary(parser *p)
{
    skip_blanks(p);
    if ((*p->at == '!' || *p->at == '(') && p->depth >= PROP_MAX_DEPTH)
        return fail_at(p, CSR_ERR_SYNTAX, "nested more than 256 deep");
    if (symbol(p, "!")) {
        p->depth++;
        prop_formula *a = unary(p);
        p->depth--;
        prop_formula *f = a ? node(p, PROP_NOT, a, NULL) : NULL;
        if (!f)
            formula_free(a);
        return f;
    }
    if (symbol(p, "(")) {
        p->depth++;
        prop_formula *f = formula(p);
        p->depth--;
        if (f && !symbol(p, ")")) {
            formula_free(f);
            return fail_at(p, CSR_ERR_SYNTAX, "expected ')'");
        }
        return f;
    }
    if (*p->at == '"') {
        const char *start = ++p->at, *end = strchr(start, '"');
        if (!end) {
            p->at--;
            return fail_at(p, CSR_ERR_SYNTAX, "a label's name without its closing '\"'");
        }
        prop_formula *f = node(p, PROP_LABEL, NULL, NULL);
        if (f && !(f->label = strndup(start, (size_t)(end - start)))) {
            free(f);
            return fail_at(p, CSR_ERR_NOMEM, "out of memory");
        }
        p->at = end + 1;
        return f;
    }
    if (word(p, "true"))
        return node(p, PROP_TRUE, NULL, NULL);
    if (word(p, "false"))
        return node(p, PROP_FALSE, NULL, NULL);
    return fail_at(p, CSR_ERR_SYNTAX, "expected a label in double quotes, true, false, '!' or '('");
}

/* left-associative chains of one operator */
static prop_formula *chain(parser *p, prop_formula *(*operand)(parser *), const char *op, int kind)
{
    prop_formula *f = operand(p);
    while (f && symbol(p, op)) {
        prop_formula *b = operand(p);
        prop_formula *both = b ? node(p, kind, f, b) : NULL;
        if (!both) {
            formula_free(f);
            formula_free(b);
            return NULL;
        }
        f = both;
    }
    return f;
}

static prop_formula *conjunction(parser *p) { return chain(p, unary, "&", PROP_AND); }
static prop_formula *formula(parser *p) { return chain(p, conjunction, "|", PROP_OR); }

/* An optional step bound after F or U: "<=k" or "<k" (k - 1 steps) with k a
 * decimal integer; *steps = -1 when there is none.  Other bounds (>=, [a,b])
 * and bounds of reward properties are refused. */
static int step_bound(parser *p, int allowed, int64_t *steps)
{
    *steps = -1;
    skip_blanks(p);
    if (p->at[0] != '<' && p->at[0] != '>' && p->at[0] != '[')
        return 0;
    if (!allowed) {
        fail_at(p, CSR_ERR_UNSUPPORTED, "a step bound on a reward property (R [ F<=k ], and cumulative rewards C<=k) is not supported yet");
        return 1;
    }
    if (p->at[0] != '<') {
        fail_at(p, CSR_ERR_UNSUPPORTED, "lower step bounds (F>=k, F[a,b]) are not supported yet");
        return 1;
    }
    int strict = !symbol(p, "<=");
    if (strict)
        symbol(p, "<");
    skip_blanks(p);
    if (!isdigit((unsigned char)*p->at)) {
        fail_at(p, CSR_ERR_SYNTAX, "expected a number of steps (a non-negative integer)");
        return 1;
    }
    int64_t k = 0;
    while (isdigit((unsigned char)*p->at)) {
        if (k > (INT64_C(1) << 40)) {
            fail_at(p, CSR_ERR_SYNTAX, "a step bound above 2^40");
            return 1;
        }
        k = 10 * k + (*p->at++ - '0');
    }
    if (strict && k == 0) {
        fail_at(p, CSR_ERR_SYNTAX, "a bound < 0 holds for no path");
        return 1;
    }
    *steps = strict ? k - 1 : k;
    return 0;
}

/* R{"name"}, R{k} (1-based) or R: the reward structure. */
static int reward_structure(parser *p, prop_property *out)
{
    out->reward_index = -1;
    if (!symbol(p, "{"))
        return 0;
    skip_blanks(p);
    if (*p->at == '"') {
        const char *start = ++p->at, *end = strchr(start, '"');
        if (!end) {
            p->at--;
            fail_at(p, CSR_ERR_SYNTAX, "a reward structure's name without its closing '\"'");
            return 1;
        }
        if (!(out->reward_name = strndup(start, (size_t)(end - start)))) {
            fail_at(p, CSR_ERR_NOMEM, "out of memory");
            return 1;
        }
        p->at = end + 1;
    } else if (isdigit((unsigned char)*p->at) && *p->at != '0') {
        int64_t k = 0;
        while (isdigit((unsigned char)*p->at) && k < 1000000)
            k = 10 * k + (*p->at++ - '0');
        out->reward_index = k - 1;
    } else {
        fail_at(p, CSR_ERR_SYNTAX, "expected a reward structure's name in double quotes or its number (from 1)");
        return 1;
    }
    if (!symbol(p, "}")) {
        fail_at(p, CSR_ERR_SYNTAX, "expected '}'");
        return 1;
    }
    return 0;
}

int prop_parse(const char *text, prop_property *out, csr_status *status)
{
    memset(out, 0, sizeof *out);
    out->steps = -1;
    out->reward_index = -1;
    parser p = {text, text, status, 0, 0, 0};
    skip_blanks(&p);
    const char *begin = p.at;
    if (symbol(&p, "R")) {
        out->reward = 1;
        if (reward_structure(&p, out)) {
            prop_free(out);
            return p.rc;
        }
    } else if (!symbol(&p, "P")) {
        fail_at(&p, CSR_ERR_SYNTAX, "expected a property P=?, Pmin=?, Pmax=?, R=?, Rmin=? or Rmax=?");
        return p.rc;
    }
    out->direction = symbol(&p, "min") ? PROP_MIN : symbol(&p, "max") ? PROP_MAX : PROP_ANY;
    if (!symbol(&p, "=?")) {
        fail_at(&p, CSR_ERR_SYNTAX, "expected '=?' (a query: bounds such as P>=0.5 are not supported)");
        prop_free(out);
        return p.rc;
    }
    if (!symbol(&p, "[")) {
        fail_at(&p, CSR_ERR_SYNTAX, "expected '['");
        prop_free(out);
        return p.rc;
    }
    if (out->reward) {
        skip_blanks(&p);
        if ((p.at[0] == 'C' || p.at[0] == 'I' || p.at[0] == 'S') && !isalnum((unsigned char)p.at[1]) &&
            p.at[1] != '_' && p.at[1] != '"')
            fail_at(&p, CSR_ERR_UNSUPPORTED,
                    "cumulative, instantaneous and steady-state rewards (C, I, S) are not supported yet");
        else if (!word(&p, "F"))
            fail_at(&p, CSR_ERR_SYNTAX, "expected 'F' (a reward property R=? [ F phi ])");
        else if (!step_bound(&p, 0, &out->steps))
            out->target = formula(&p);
    } else if (word(&p, "F")) {
        if (!step_bound(&p, 1, &out->steps))
            out->target = formula(&p);
    } else {
        out->avoid = formula(&p);
        if (out->avoid && !word(&p, "U"))
            fail_at(&p, CSR_ERR_SYNTAX, "expected 'U' (or a path F phi)");
        else if (out->avoid && !step_bound(&p, 1, &out->steps))
            out->target = formula(&p);
    }
    if (!p.rc && !symbol(&p, "]"))
        fail_at(&p, CSR_ERR_SYNTAX, "expected ']'");
    if (!p.rc) {
        const char *end = p.at;
        symbol(&p, ";");
        skip_blanks(&p);
        if (*p.at)
            fail_at(&p, CSR_ERR_SYNTAX, "expected the end of the property");
        else if (!(out->text = strndup(begin, (size_t)(end - begin))))
            fail_at(&p, CSR_ERR_NOMEM, "out of memory");
    }
    if (p.rc)
        prop_free(out);
    return p.rc;
}

void prop_free(prop_property *p)
{
    formula_free(p->avoid);
    formula_free(p->target);
    free(p->text);
    free(p->reward_name);
    memset(p, 0, sizeof *p);
}

int prop_states(const csr_model *m, const prop_formula *f, uint8_t *flags, csr_status *st)
{
    const uint64_t n = m->num_states;
    int rc = CSR_OK;
    switch (f->op) {
    case PROP_TRUE:
    case PROP_FALSE:
        memset(flags, f->op == PROP_TRUE, n);
        return CSR_OK;
    case PROP_LABEL: {
        int64_t l = csr_find_label(m, f->label);
        if (l < 0) {
            char have[160] = "";
            for (uint64_t i = 0; i < m->labels.count && strlen(have) < sizeof have - 40; i++) {
                strcat(have, i ? ", " : "");
                strncat(have, m->labels.names[i], 32);
            }
            return csr_fail(st, CSR_ERR_LABEL, "no label \"%s\" in the model (it has: %s)", f->label,
                            m->labels.count ? have : "none");
        }
        memset(flags, 0, n);
        for (uint64_t j = m->label_first[l]; j < m->label_first[l + 1]; j++)
            flags[m->label_states[j]] = 1;
        return CSR_OK;
    }
    case PROP_NOT:
        if ((rc = prop_states(m, f->a, flags, st)))
            return rc;
        for (uint64_t s = 0; s < n; s++)
            flags[s] = !flags[s];
        return CSR_OK;
    default: { /* PROP_AND, PROP_OR */
        uint8_t *other = malloc(n ? n : 1);
        if (!other)
            return CSR_ERR_NOMEM;
        if (!(rc = prop_states(m, f->a, flags, st)) && !(rc = prop_states(m, f->b, other, st)))
            for (uint64_t s = 0; s < n; s++)
                flags[s] = f->op == PROP_AND ? flags[s] && other[s] : flags[s] || other[s];
        free(other);
        return rc;
    }
    }
}
