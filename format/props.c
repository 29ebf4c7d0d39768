/*
 * props.c - PRISM properties files (props.h): the file grammar, each
 * property's form, binding of names to the model and the file, and the
 * props.h 1.0 interface on top.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "props.h"

/* Expanded trees (formulas inside formulas) at most this high and large:
 * evaluation recurses on their height and costs their size per block. */
#define PROPS_MAX_HEIGHT PROP_MAX_NODES
#define PROPS_MAX_SIZE (16 * (uint64_t)PROP_MAX_NODES)

static int failp(csr_status *st, int code, uint32_t line, uint32_t column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int failp(csr_status *st, int code, uint32_t line, uint32_t column, const char *fmt, ...)
{
    char pos[48], msg[232];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    expr_position(pos, sizeof pos, line, column);
    csr_fail(st, code, "%s: %s", pos, msg);
    if (st) {
        st->line = line ? line : 1;
        st->offset = column;
    }
    return code;
}

const char *props_kind_name(int kind)
{
    static const char *const n[] = {"?", "P", "R", "S", "state", "value", "other"};
    return kind >= PROPS_PROB && kind <= PROPS_OTHER ? n[kind] : n[0];
}

const char *props_path_name(int path)
{
    static const char *const n[] = {"none", "F", "U", "G", "X", "C", "I"};
    return path >= 0 && path <= PROPS_INSTANT ? n[path] : "?";
}

const char *props_filter_name(int filter)
{
    static const char *const n[] = {"none",   "min",    "max",   "argmin",   "argmax", "count", "sum",   "avg",
                                    "first",  "range",  "forall", "exists", "print",  "printall", "state", "values"};
    return filter >= 0 && filter <= EXPR_FILTER_VALUES ? n[filter] : "?";
}

/* Room for one more item: capacities are the powers of two. */
static int grow(void *items, size_t count, size_t size)
{
    void **p = items;
    if (count && (count & (count - 1)))
        return 0;
    void *more = realloc(*p, (count ? 2 * count : 1) * size);
    if (!more)
        return -1;
    *p = more;
    return 0;
}

/* ---- the names of a file: open addressing, a slot (kind << 56) | (i + 1) ---- */

enum { NAME_CONSTANT = 1, NAME_FORMULA, NAME_LABEL, NAME_PROPERTY };

static const char *name_at(const props_file *f, int kind, size_t i)
{
    switch (kind) {
    case NAME_CONSTANT: return f->constants[i].name;
    case NAME_FORMULA: return f->formulas[i].name;
    case NAME_LABEL: return f->labels[i].name;
    default: return f->properties[i].name;
    }
}

static uint64_t name_hash(int kind, const char *name, size_t length)
{
    uint64_t h = 1469598103934665603u ^ (uint64_t)kind;
    for (size_t i = 0; i < length; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211u;
    return h;
}

/* Index of the kind's name[0, length) in f, or -1. */
static int64_t name_find(const props_file *f, int kind, const char *name, size_t length)
{
    if (!f || !f->names_cap)
        return -1;
    for (size_t j = name_hash(kind, name, length) & (f->names_cap - 1);; j = (j + 1) & (f->names_cap - 1)) {
        uint64_t v = f->names[j];
        if (!v)
            return -1;
        size_t i = (size_t)(v & ((UINT64_C(1) << 56) - 1)) - 1;
        const char *other = (int)(v >> 56) == kind ? name_at(f, kind, i) : NULL;
        if (other && strlen(other) == length && !memcmp(other, name, length))
            return (int64_t)i;
    }
}

static void name_put(props_file *f, int kind, size_t i)
{
    const char *name = name_at(f, kind, i);
    size_t j = name_hash(kind, name, strlen(name)) & (f->names_cap - 1);
    while (f->names[j])
        j = (j + 1) & (f->names_cap - 1);
    f->names[j] = ((uint64_t)kind << 56) | (i + 1);
    f->names_count++;
}

/* Every name of f indexed again, in its table or a larger one of at least
 * cap slots: 0 or -1 (then the index is as it was). */
static int names_rebuild(props_file *f, size_t cap)
{
    size_t want = 16;
    while (want < cap || want < 4 * (f->num_constants + f->num_formulas + f->num_labels + f->count))
        want *= 2;
    if (want > f->names_cap) {
        uint64_t *slots = calloc(want, sizeof *slots);
        if (!slots)
            return -1;
        free(f->names);
        f->names = slots;
        f->names_cap = want;
    } else {
        memset(f->names, 0, f->names_cap * sizeof *f->names);
    }
    f->names_count = 0;
    for (size_t i = 0; i < f->num_constants; i++)
        name_put(f, NAME_CONSTANT, i);
    for (size_t i = 0; i < f->num_formulas; i++)
        name_put(f, NAME_FORMULA, i);
    for (size_t i = 0; i < f->num_labels; i++)
        name_put(f, NAME_LABEL, i);
    for (size_t i = 0; i < f->count; i++)
        if (f->properties[i].name)
            name_put(f, NAME_PROPERTY, i);
    return 0;
}

/* Index item i of the kind (just added): 0 or -1. */
static int name_add(props_file *f, int kind, size_t i)
{
    if (2 * (f->names_count + 1) > f->names_cap)
        return names_rebuild(f, 2 * f->names_cap); /* indexes i too */
    name_put(f, kind, i);
    return 0;
}

/* ---- the form of a property (after parsing) ------------------------------ */

static void unsupported(props_property *p, const expr *at, const char *what)
{
    if (!p->form.code)
        failp(&p->form, CSR_ERR_UNSUPPORTED, at->line, at->column, "%s are not supported", what);
}

/* Whether e holds a temporal operator (a path inside a path: LTL). */
static int has_temporal(const expr *e)
{
    if (!e)
        return 0;
    if (e->kind == EXPR_TEMPORAL)
        return 1;
    if (e->kind == EXPR_PROB || e->kind == EXPR_REWARD || e->kind == EXPR_EXISTS || e->kind == EXPR_FORALL)
        return 0; /* their paths are their own */
    if (has_temporal(e->a) || has_temporal(e->b) || has_temporal(e->c))
        return 1;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (has_temporal(e->args[i]))
            return 1;
    return 0;
}

/* A state formula of a path: no paths, no nested operators. */
static void state_operand(props_property *p, const expr *e)
{
    if (has_temporal(e))
        unsupported(p, e, "LTL formulas (a path operator inside a path)");
    else if (expr_has_operators(e))
        unsupported(p, e, "nested P/R operators (P, R, S or filter inside a state formula)");
}

static void path_bounds(props_property *p, const expr *t)
{
    if (!t->nbounds)
        return;
    if (t->nbounds > 1) {
        unsupported(p, t, "several bounds on one operator (Storm's multi-dimensional bounds)");
        return;
    }
    const expr_bound *b = &t->bounds[0];
    expr at = {0};
    at.line = b->line;
    at.column = b->column;
    if (b->rewarded) {
        if (b->relation == EXPR_EQ || b->relation == EXPR_INTERVAL) {
            unsupported(p, &at, "reward bounds =r and [a,b]");
            return;
        }
        p->reward_bound_relation = b->relation;
        p->reward_bound_expr = b->value;
        p->reward_bound_name = b->reward;
        return;
    }
    if (p->path == PROPS_NEXT)
        unsupported(p, &at, "bounds on X");
    else if (b->relation == EXPR_LE || b->relation == EXPR_LT) {
        p->steps_expr = b->value;
        p->steps_strict = b->relation == EXPR_LT;
    } else
        unsupported(p, &at, "lower step bounds (F>=k, F>k, F=k, F[a,b])");
}

static void prob_path(props_property *p, const expr *e)
{
    if (e->kind != EXPR_TEMPORAL) {
        unsupported(p, e, "P [ phi ] of a state formula phi (write F, U, G or X) and LTL formulas");
        return;
    }
    switch (e->op) {
    case EXPR_EVENTUALLY: p->path = PROPS_EVENTUALLY; break;
    case EXPR_UNTIL: p->path = PROPS_UNTIL; break;
    case EXPR_GLOBALLY: p->path = PROPS_GLOBALLY; break;
    case EXPR_NEXT: p->path = PROPS_NEXT; break;
    default:
        unsupported(p, e, "weak until (W) and release (R)");
        return;
    }
    if (e->a) {
        p->avoid = e->a;
        state_operand(p, e->a);
    }
    p->target = e->b;
    state_operand(p, e->b);
    path_bounds(p, e);
}

static void reward_path(props_property *p, const expr *e)
{
    switch (e->kind) {
    case EXPR_TEMPORAL:
        if (e->op != EXPR_EVENTUALLY) {
            unsupported(p, e, "R [ ] of X, G, U, W or R paths (R takes F, C, I and S)");
            return;
        }
        p->path = PROPS_EVENTUALLY;
        p->target = e->b;
        state_operand(p, e->b);
        path_bounds(p, e);
        return;
    case EXPR_CUMULATIVE:
        p->path = PROPS_CUMULATIVE;
        p->steps_expr = e->b;
        return;
    case EXPR_INSTANT:
        p->path = PROPS_INSTANT;
        p->steps_expr = e->b;
        return;
    case EXPR_LONGRUN:
        unsupported(p, e, "long-run average rewards (R [ S ], LRA)");
        return;
    default:
        unsupported(p, e, "R [ phi ] of a state formula phi (write F phi) and LTL formulas");
    }
}

/* The form of p from its tree alone. */
static void classify(props_property *p)
{
    const expr *e = p->tree;
    p->kind = PROPS_OTHER;
    p->direction = PROP_ANY;
    p->direction_written = 0;
    p->relation = EXPR_QUERY;
    p->path = PROPS_PATH_NONE;
    p->avoid = p->target = p->filter_states = NULL;
    p->steps = -1;
    p->reward_name = NULL;
    p->reward_index = -1;
    p->reward_bound_relation = 0;
    p->reward_bound_name = NULL;
    p->filter = 0;
    p->bound_expr = p->steps_expr = p->index_expr = p->reward_bound_expr = NULL;
    p->steps_strict = 0;
    memset(&p->form, 0, sizeof p->form);
    if (e->kind == EXPR_FILTER) {
        p->filter = e->op;
        p->filter_states = e->b;
        e = e->a;
        if (p->filter_states)
            state_operand(p, p->filter_states);
        if (e->kind == EXPR_FILTER) {
            unsupported(p, e, "nested filters");
            return;
        }
    }
    switch (e->kind) {
    case EXPR_PROB:
    case EXPR_REWARD:
        p->kind = e->kind == EXPR_PROB ? PROPS_PROB : PROPS_REWARD;
        p->relation = e->op;
        p->bound_expr = e->b;
        if (e->dir) {
            p->direction = e->dir == EXPR_DIR_MIN ? PROP_MIN : PROP_MAX;
            p->direction_written = 1;
        } else if (e->op != EXPR_QUERY) {
            p->direction = e->op == EXPR_GT || e->op == EXPR_GE ? PROP_MIN : PROP_MAX;
        }
        if (e->kind == EXPR_PROB) {
            prob_path(p, e->a);
        } else {
            p->reward_name = e->name;
            p->index_expr = e->c;
            p->time = e->flags;
            reward_path(p, e->a);
        }
        return;
    case EXPR_STEADY:
        p->kind = PROPS_STEADY;
        unsupported(p, e, "steady-state and long-run average operators (S, LRA)");
        return;
    case EXPR_EXISTS:
    case EXPR_FORALL:
        unsupported(p, e, "E [ ] and A [ ] (CTL's path quantifiers)");
        return;
    default:
        if (expr_has_operators(e))
            unsupported(p, e, "expressions of P, R or S operators (combined, or nested in a state formula)");
        else
            p->kind = PROPS_STATE; /* or PROPS_VALUE: its type says, once bound */
    }
}

/* ---- parsing ------------------------------------------------------------- */

static size_t token_start(const expr_token *t) { return t->kind == EXPR_TOK_QUOTED ? t->offset - 1 : t->offset; }

static uint32_t pos_line(const expr_parser *p, const expr_token *t) { return p->lines ? t->line : 0; }

/* A constant's or formula's name at the current token; NULL on error. */
static char *new_name(expr_parser *p, props_file *f, const char *what)
{
    const expr_token *t = &p->tok;
    if (t->kind != EXPR_TOK_IDENT || expr_is_keyword(p->text + t->offset, t->length)) {
        if (t->kind == EXPR_TOK_IDENT)
            return expr_parser_fail(p, t, CSR_ERR_SYNTAX, "'%.*s' is a keyword of PRISM's language, not a name",
                                    (int)t->length, p->text + t->offset);
        return expr_parser_fail(p, t, CSR_ERR_SYNTAX, "expected %s's name", what);
    }
    char *name = strndup(p->text + t->offset, t->length);
    if (!name)
        return expr_parser_fail(p, t, CSR_ERR_NOMEM, "out of memory");
    int64_t c = name_find(f, NAME_CONSTANT, name, t->length), d = name_find(f, NAME_FORMULA, name, t->length);
    if (c >= 0 || d >= 0) {
        free(name);
        return expr_parser_fail(p, t, CSR_ERR_SYNTAX, "'%.*s' is already defined (a %s, line %u)",
                                (int)(t->length > 40 ? 40 : t->length), p->text + t->offset,
                                c >= 0 ? "constant" : "formula",
                                c >= 0 ? f->constants[c].line : f->formulas[d].line);
    }
    return name;
}

static int definition_end(expr_parser *p, const char *what)
{
    if (p->tok.kind == EXPR_TOK_SEMICOLON) {
        expr_parser_next(p);
        return 1;
    }
    char want[64];
    snprintf(want, sizeof want, "';' after the %s's definition", what);
    if (p->tok.kind == EXPR_TOK_ERROR)
        expr_parse(p, 0, 0); /* its lexical error */
    else
        expr_parser_fail(p, &p->tok, CSR_ERR_SYNTAX, "expected %s", want);
    return 0;
}

static void parse_constant(expr_parser *p, props_file *f)
{
    int type = EXPR_INT;
    if (expr_token_is(p, &p->tok, "const")) {
        expr_parser_next(p);
        if (expr_token_is(p, &p->tok, "int"))
            expr_parser_next(p);
        else if (expr_token_is(p, &p->tok, "double"))
            type = EXPR_DOUBLE, expr_parser_next(p);
        else if (expr_token_is(p, &p->tok, "bool"))
            type = EXPR_BOOL, expr_parser_next(p);
    } else { /* rate, prob */
        type = EXPR_DOUBLE;
        expr_parser_next(p);
    }
    expr_token at = p->tok;
    char *name = new_name(p, f, "a constant");
    if (!name)
        return;
    expr_parser_next(p);
    expr *def = NULL;
    if (p->tok.kind == EXPR_TOK_EQ) {
        expr_parser_next(p);
        if (!(def = expr_parse(p, 0, 0))) {
            free(name);
            return;
        }
    }
    if (!definition_end(p, "constant") || grow(&f->constants, f->num_constants, sizeof *f->constants)) {
        if (!p->rc)
            expr_parser_fail(p, &at, CSR_ERR_NOMEM, "out of memory");
        free(name);
        expr_free(def);
        return;
    }
    props_constant *c = &f->constants[f->num_constants++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->type = type;
    c->definition = def;
    c->line = pos_line(p, &at);
    c->column = at.column;
    if (name_add(f, NAME_CONSTANT, f->num_constants - 1))
        expr_parser_fail(p, &at, CSR_ERR_NOMEM, "out of memory");
}

/* formula NAME = expr ;  or  label "NAME" = expr ; */
static void parse_definition(expr_parser *p, props_file *f, int label)
{
    expr_parser_next(p);
    expr_token at = p->tok;
    char *name;
    if (label) {
        if (at.kind != EXPR_TOK_QUOTED || !at.length) {
            if (at.kind == EXPR_TOK_IDENT)
                expr_parser_fail(p, &at, CSR_ERR_SYNTAX, "a label's name is written in double quotes: label \"%.*s\" = ...",
                                 (int)(at.length > 40 ? 40 : at.length), p->text + at.offset);
            else
                expr_parser_fail(p, &at, CSR_ERR_SYNTAX, "expected a label's name in double quotes");
            return;
        }
        int64_t i = name_find(f, NAME_LABEL, p->text + at.offset, at.length);
        if (i >= 0) {
            expr_parser_fail(p, &at, CSR_ERR_SYNTAX, "label \"%s\" is already defined (line %u)", f->labels[i].name,
                             f->labels[i].line);
            return;
        }
        if (!(name = strndup(p->text + at.offset, at.length))) {
            expr_parser_fail(p, &at, CSR_ERR_NOMEM, "out of memory");
            return;
        }
    } else if (!(name = new_name(p, f, "a formula"))) {
        return;
    }
    expr_parser_next(p);
    expr *def = NULL;
    if (p->tok.kind != EXPR_TOK_EQ) {
        expr_parser_fail(p, &p->tok, CSR_ERR_SYNTAX, "expected '=' after the %s's name", label ? "label" : "formula");
    } else {
        expr_parser_next(p);
        def = expr_parse(p, 0, 0);
    }
    props_definition **items = label ? &f->labels : &f->formulas;
    size_t *count = label ? &f->num_labels : &f->num_formulas;
    if (!def || !definition_end(p, label ? "label" : "formula") || grow(items, *count, sizeof **items)) {
        if (!p->rc)
            expr_parser_fail(p, &at, CSR_ERR_NOMEM, "out of memory");
        free(name);
        expr_free(def);
        return;
    }
    props_definition *d = &(*items)[(*count)++];
    memset(d, 0, sizeof *d);
    d->name = name;
    d->definition = def;
    d->line = pos_line(p, &at);
    d->column = at.column;
    if (name_add(f, label ? NAME_LABEL : NAME_FORMULA, *count - 1))
        expr_parser_fail(p, &at, CSR_ERR_NOMEM, "out of memory");
}

static void parse_property(expr_parser *p, props_file *f)
{
    expr_token first = p->tok, next;
    expr_parser_after(p, &first, &next);
    char *name = NULL;
    if (first.kind == EXPR_TOK_QUOTED && next.kind == EXPR_TOK_COLON) {
        int64_t i = name_find(f, NAME_PROPERTY, p->text + first.offset, first.length);
        if (i >= 0) {
            expr_parser_fail(p, &first, CSR_ERR_SYNTAX, "a second property named \"%s\"", f->properties[i].name);
            return;
        }
        if (!first.length || !(name = strndup(p->text + first.offset, first.length))) {
            expr_parser_fail(p, &first, first.length ? CSR_ERR_NOMEM : CSR_ERR_SYNTAX,
                             first.length ? "out of memory" : "a property named \"\"");
            return;
        }
        expr_parser_next(p);
        expr_parser_next(p);
    }
    expr_token start = p->tok;
    expr *tree = expr_parse(p, EXPR_PARSE_PROPERTY, 1);
    char *text = tree ? strndup(p->text + token_start(&start), p->last_end - token_start(&start)) : NULL;
    if (!text || grow(&f->properties, f->count, sizeof *f->properties)) {
        if (!p->rc)
            expr_parser_fail(p, &start, CSR_ERR_NOMEM, "out of memory");
        free(name);
        free(text);
        expr_free(tree);
        return;
    }
    props_property *q = &f->properties[f->count++];
    memset(q, 0, sizeof *q);
    q->name = name;
    q->text = text;
    q->tree = tree;
    q->line = pos_line(p, &start);
    q->column = start.column;
    classify(q);
    if (name && name_add(f, NAME_PROPERTY, f->count - 1))
        expr_parser_fail(p, &start, CSR_ERR_NOMEM, "out of memory");
}

static void free_property(props_property *p)
{
    free(p->name);
    free(p->text);
    expr_free(p->tree);
}

/* Free what a failed parse added. */
static void roll_back(props_file *f, size_t np, size_t nc, size_t nf, size_t nl)
{
    while (f->count > np)
        free_property(&f->properties[--f->count]);
    while (f->num_constants > nc) {
        props_constant *c = &f->constants[--f->num_constants];
        free(c->name);
        expr_free(c->definition);
    }
    while (f->num_formulas > nf) {
        props_definition *d = &f->formulas[--f->num_formulas];
        free(d->name);
        expr_free(d->definition);
    }
    while (f->num_labels > nl) {
        props_definition *d = &f->labels[--f->num_labels];
        free(d->name);
        expr_free(d->definition);
    }
    if (f->names_cap)
        names_rebuild(f, 0); /* fewer names: in the table it has */
}

static int parse_text(const char *text, size_t length, props_file *f, csr_status *st, int file)
{
    const size_t np = f->count, nc = f->num_constants, nf = f->num_formulas, nl = f->num_labels;
    expr_parser p;
    expr_parser_init(&p, text, length, file || memchr(text, '\n', length) != NULL, st);
    if (file) {
        while (!p.rc && p.tok.kind != EXPR_TOK_EOF) {
            p.nodes = p.depth = 0;
            if (p.tok.kind == EXPR_TOK_SEMICOLON)
                expr_parser_next(&p);
            else if (expr_token_is(&p, &p.tok, "const") || expr_token_is(&p, &p.tok, "rate") ||
                     expr_token_is(&p, &p.tok, "prob"))
                parse_constant(&p, f);
            else if (expr_token_is(&p, &p.tok, "formula"))
                parse_definition(&p, f, 0);
            else if (expr_token_is(&p, &p.tok, "label"))
                parse_definition(&p, f, 1);
            else
                parse_property(&p, f);
        }
    } else {
        parse_property(&p, f);
        while (!p.rc && p.tok.kind == EXPR_TOK_SEMICOLON)
            expr_parser_next(&p);
        if (!p.rc && p.tok.kind != EXPR_TOK_EOF) {
            if (p.tok.kind == EXPR_TOK_ERROR)
                expr_parser_fail(&p, &p.tok, CSR_ERR_SYNTAX, "%s", p.tok.error);
            else
                expr_parser_fail(&p, &p.tok, CSR_ERR_SYNTAX, "expected the end of the property, found '%.*s'",
                                 (int)(p.tok.length > 40 ? 40 : p.tok.length), p.text + p.tok.offset);
        }
    }
    if (p.rc)
        roll_back(f, np, nc, nf, nl);
    return p.rc;
}

int props_parse_file(const char *text, size_t length, props_file *file, csr_status *status)
{
    return parse_text(text, length, file, status, 1);
}

int props_parse_property(const char *text, size_t length, props_file *file, csr_status *status)
{
    return parse_text(text, length, file, status, 0);
}

/* ---- --const ------------------------------------------------------------- */

int props_define_constants(props_file *f, const char *defs, csr_status *st)
{
    expr_parser p;
    expr_parser_init(&p, defs, strlen(defs), 0, st);
    while (p.tok.kind != EXPR_TOK_EOF) {
        expr_token at = p.tok;
        if (at.kind != EXPR_TOK_IDENT)
            return csr_fail(st, CSR_ERR_USAGE, "--const %s: expected NAME=VALUE", defs);
        char *name = strndup(defs + at.offset, at.length);
        if (!name)
            return csr_fail(st, CSR_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < f->num_given; i++)
            if (strcmp(f->given[i].name, name) == 0) {
                free(name);
                return csr_fail(st, CSR_ERR_USAGE, "--const: %.*s is given twice", (int)at.length, defs + at.offset);
            }
        expr_parser_next(&p);
        int neg = 0;
        expr_value v = {0, 0, 0};
        if (p.tok.kind == EXPR_TOK_EQ) {
            expr_parser_next(&p);
            if (p.tok.kind == EXPR_TOK_MINUS)
                neg = 1, expr_parser_next(&p);
            char buf[64];
            if (p.tok.kind == EXPR_TOK_INT || p.tok.kind == EXPR_TOK_DOUBLE) {
                snprintf(buf, sizeof buf, "%.*s", (int)(p.tok.length < 63 ? p.tok.length : 63), defs + p.tok.offset);
                if (p.tok.kind == EXPR_TOK_INT)
                    v.type = EXPR_INT, v.i = neg ? -strtoll(buf, NULL, 10) : strtoll(buf, NULL, 10);
                else
                    v.type = EXPR_DOUBLE, v.d = neg ? -strtod(buf, NULL) : strtod(buf, NULL);
            } else if (!neg && (expr_token_is(&p, &p.tok, "true") || expr_token_is(&p, &p.tok, "false"))) {
                v.type = EXPR_BOOL;
                v.i = expr_token_is(&p, &p.tok, "true");
            }
        }
        if (!v.type) {
            free(name);
            return csr_fail(st, CSR_ERR_USAGE, "--const %.*s: expected =VALUE (an int, a double, true or false)",
                            (int)at.length, defs + at.offset);
        }
        expr_parser_next(&p);
        if (p.tok.kind == EXPR_TOK_COLON) {
            free(name);
            return csr_fail(st, CSR_ERR_USAGE, "--const %.*s: ranges (PRISM's experiments, N=1:5) are not supported",
                            (int)at.length, defs + at.offset);
        }
        if (p.tok.kind != EXPR_TOK_EOF && p.tok.kind != EXPR_TOK_COMMA) {
            free(name);
            return csr_fail(st, CSR_ERR_USAGE, "--const %s: expected ',' between NAME=VALUE items", defs);
        }
        if (grow(&f->given, f->num_given, sizeof *f->given)) {
            free(name);
            return csr_fail(st, CSR_ERR_NOMEM, "out of memory");
        }
        f->given[f->num_given].name = name;
        f->given[f->num_given++].value = v;
        if (p.tok.kind == EXPR_TOK_COMMA)
            expr_parser_next(&p);
    }
    return CSR_OK;
}

/* ---- binding ------------------------------------------------------------- */

typedef struct binder {
    props_file *f;        /* NULL: no file (props.h 1.0's prop_states) */
    const csr_model *m;   /* NULL: no model */
    csr_status *st;       /* the errors of what is being bound */
    struct bind_depth {
        int level;        /* bind_tree's recursion, through formulas and constants: at most PROPS_MAX_HEIGHT */
        int exceeded;     /* it went deeper: what was being bound is not cached (from elsewhere it may be fine) */
    } *depth;
} binder;

static int bind_tree(binder *b, expr *e);

/* Copy a definition's error to the status of what uses it. */
static int inherit(binder *b, const csr_status *from)
{
    if (b->st != from)
        *b->st = *from;
    return from->code;
}

/* The definition a formula or file label reference is bound to (its index). */
static props_definition *definition_of(const props_file *f, const expr *e)
{
    if (!f || e->index < 0)
        return NULL;
    if (e->ref == EXPR_REF_FORMULA && (size_t)e->index < f->num_formulas)
        return &f->formulas[e->index];
    if (e->ref == EXPR_REF_FILE_LABEL && (size_t)e->index < f->num_labels)
        return &f->labels[e->index];
    return NULL;
}

/* Height and size of e with formulas and file labels expanded (saturating). */
static void measure(const props_file *f, const expr *e, uint64_t *height, uint64_t *size)
{
    *height = *size = 0;
    if (!e)
        return;
    if ((e->kind == EXPR_IDENT || e->kind == EXPR_LABEL) && e->def) {
        const props_definition *d = definition_of(f, e);
        *height = (d ? d->height : 0) + 1;
        *size = (d ? d->size : 0) + 1;
        return;
    }
    const expr *ops[3] = {e->a, e->b, e->c};
    uint64_t h, s, mh = 0, ms = 1;
    for (uint32_t i = 0; i < 3 + e->nargs + 2 * e->nbounds; i++) {
        const expr *x;
        if (i < 3)
            x = ops[i];
        else if (i < 3 + e->nargs)
            x = e->args[i - 3];
        else {
            const expr_bound *bd = &e->bounds[(i - 3 - e->nargs) / 2];
            x = (i - 3 - e->nargs) % 2 ? bd->upper : bd->value;
        }
        measure(f, x, &h, &s);
        mh = h > mh ? h : mh;
        ms = ms + s < ms ? UINT64_MAX : ms + s;
    }
    *height = mh + 1;
    *size = ms;
}

static int check_size(binder *b, const expr *e, uint64_t *height, uint64_t *size)
{
    measure(b->f, e, height, size);
    if (*height > PROPS_MAX_HEIGHT || *size > PROPS_MAX_SIZE)
        return failp(b->st, CSR_ERR_SYNTAX, e->line, e->column,
                     "formulas expand to more than %llu nodes or %llu levels", (unsigned long long)PROPS_MAX_SIZE,
                     (unsigned long long)PROPS_MAX_HEIGHT);
    return 0;
}

static int bind_definition(binder *b, props_definition *d, const expr *at, int label)
{
    if (d->state == 2)
        return inherit(b, &d->status);
    if (d->state == 1)
        return failp(b->st, CSR_ERR_USAGE, at->line, at->column, "%s %s%s%s is defined through itself",
                     label ? "label" : "formula", label ? "\"" : "'", d->name, label ? "\"" : "'");
    d->state = 1;
    memset(&d->status, 0, sizeof d->status);
    binder sub = {b->f, b->m, &d->status, b->depth};
    int rc = bind_tree(&sub, d->definition);
    if (!rc && label && d->definition->type != EXPR_BOOL)
        rc = failp(&d->status, CSR_ERR_SYNTAX, d->definition->line, d->definition->column,
                   "type error: label \"%s\" is a %s, not a bool", d->name, expr_type_name(d->definition->type));
    if (!rc)
        rc = check_size(&sub, d->definition, &d->height, &d->size);
    d->state = b->depth->exceeded ? 0 : 2;
    return rc ? inherit(b, &d->status) : 0;
}

static int bind_constant(binder *b, props_constant *c, const expr *at)
{
    if (c->state == 2)
        return c->status.code ? inherit(b, &c->status) : 0;
    if (c->state == 1)
        return failp(b->st, CSR_ERR_USAGE, at->line, at->column, "constant '%s' is defined through itself", c->name);
    c->state = 1;
    memset(&c->status, 0, sizeof c->status);
    binder sub = {b->f, b->m, &c->status, b->depth};
    int rc = 0;
    if (!c->defined && c->definition) {
        const expr *d = c->definition;
        rc = bind_tree(&sub, c->definition);
        if (!rc && !(c->type == d->type || (c->type == EXPR_DOUBLE && d->type == EXPR_INT)))
            rc = failp(&c->status, CSR_ERR_SYNTAX, d->line, d->column,
                       "type error: constant '%s' is declared %s, its definition is a %s", c->name,
                       expr_type_name(c->type), expr_type_name(d->type));
        if (!rc)
            rc = expr_eval_constant(d, &c->value, &c->status);
        if (!rc) {
            if (c->type == EXPR_DOUBLE && c->value.type == EXPR_INT)
                c->value.d = (double)c->value.i;
            c->value.type = c->type;
            c->defined = 1;
        }
    }
    c->state = b->depth->exceeded ? 0 : 2;
    return rc ? inherit(b, &c->status) : 0;
}

static void set_constant(expr *e, const expr_value *v)
{
    e->ref = EXPR_REF_CONSTANT;
    e->type = (uint8_t)v->type;
    e->value = *v;
    e->folded = 1;
}

static int resolve_name(binder *b, expr *e)
{
    props_file *f = b->f;
    const char *name = e->name;
    const size_t length = strlen(name);
    int64_t i;
    if ((i = name_find(f, NAME_FORMULA, name, length)) >= 0) {
        props_definition *d = &f->formulas[i];
        int rc = bind_definition(b, d, e, 0);
        if (rc)
            return rc;
        e->ref = EXPR_REF_FORMULA;
        e->index = i;
        e->def = d->definition;
        e->type = d->definition->type;
        e->may_fail = d->definition->may_fail;
        if (d->definition->folded) {
            e->folded = 1;
            e->value = d->definition->value;
        }
        return 0;
    }
    if ((i = name_find(f, NAME_CONSTANT, name, length)) >= 0) {
        props_constant *c = &f->constants[i];
        int rc = bind_constant(b, c, e);
        if (rc)
            return rc;
        if (!c->defined)
            return failp(b->st, CSR_ERR_USAGE, e->line, e->column,
                         "constant '%s' has no value: give it with --const %s=VALUE", name, name);
        set_constant(e, &c->value);
        return 0;
    }
    for (size_t g = 0; f && g < f->num_given; g++)
        if (strcmp(f->given[g].name, name) == 0) {
            set_constant(e, &f->given[g].value);
            return 0;
        }
    int64_t v = b->m ? csr_find_variable(b->m, name) : -1;
    if (v >= 0) {
        e->ref = EXPR_REF_VARIABLE;
        e->index = v;
        e->type = b->m->variable_info[v].type == CSR_VAR_BOOL ? EXPR_BOOL : EXPR_INT;
        return 0;
    }
    return failp(b->st, CSR_ERR_USAGE, e->line, e->column,
                 "unknown name '%.40s': not a state variable of the model%s, nor a constant or formula of the "
                 "properties file (the model file's formulas are not exported: define them in the properties file)",
                 name, !b->m ? " (none given)" : !b->m->variables.count ? " (it has no valuations)" : "");
}

static int resolve_label(binder *b, expr *e)
{
    props_file *f = b->f;
    const char *name = e->name;
    const int64_t l = b->m ? csr_find_label(b->m, name) : -1;
    int64_t i = name_find(f, NAME_LABEL, name, strlen(name));
    if (i >= 0) {
        props_definition *d = &f->labels[i];
        if (l >= 0)
            return failp(b->st, CSR_ERR_LABEL, e->line, e->column,
                         "label \"%.40s\" is defined both by the model and by the properties file (line %u)", name,
                         d->line);
        int rc = bind_definition(b, d, e, 1);
        if (rc)
            return rc;
        e->ref = EXPR_REF_FILE_LABEL;
        e->index = i;
        e->def = d->definition;
        e->type = EXPR_BOOL;
        e->may_fail = d->definition->may_fail;
        if (d->definition->folded) {
            e->folded = 1;
            e->value = d->definition->value;
        }
        return 0;
    }
    e->type = EXPR_BOOL;
    if (l >= 0) {
        e->ref = EXPR_REF_MODEL_LABEL;
        e->index = l;
        return 0;
    }
    if (b->m && strcmp(name, "init") == 0) {
        e->ref = EXPR_REF_INITIAL;
        return 0;
    }
    if (name_find(f, NAME_PROPERTY, name, strlen(name)) >= 0) {
        e->ref = EXPR_REF_PROPERTY;
        return failp(b->st, CSR_ERR_UNSUPPORTED, e->line, e->column,
                     "\"%.40s\" names a property: references to properties are not supported", name);
    }
    e->type = EXPR_NONE;
    if (!b->m)
        return failp(b->st, CSR_ERR_LABEL, e->line, e->column, "no label \"%.40s\" in the properties file (no model given)",
                     name);
    char have[128] = "";
    size_t used = 0;
    for (uint64_t k = 0; k < b->m->labels.count; k++) {
        const char *n = b->m->labels.names[k];
        size_t len = strlen(n);
        if (used + len + 8 >= sizeof have) {
            strcpy(have + used, ", ...");
            break;
        }
        used += (size_t)sprintf(have + used, "%s%s", k ? ", " : "", n);
    }
    return failp(b->st, CSR_ERR_LABEL, e->line, e->column, "no label \"%.40s\" in the model (it has: %s)%s", name,
                 b->m->labels.count ? have : "none", f ? " or the properties file" : "");
}

static int bind_node(binder *b, expr *e);

/* Bind e and what it refers to; the recursion, formulas and constants
 * inside formulas and constants included, at most PROPS_MAX_HEIGHT deep. */
static int bind_tree(binder *b, expr *e)
{
    if (!e)
        return 0;
    if (b->depth->level >= (int)PROPS_MAX_HEIGHT) {
        b->depth->exceeded = 1;
        return failp(b->st, CSR_ERR_SYNTAX, e->line, e->column,
                     "formulas and constants nested in one another more than %d levels deep", (int)PROPS_MAX_HEIGHT);
    }
    b->depth->level++;
    int rc = bind_node(b, e);
    b->depth->level--;
    return rc;
}

static int bind_node(binder *b, expr *e)
{
    if (e->kind != EXPR_LITERAL) {
        e->folded = 0;
        e->may_fail = 0;
        if (e->kind == EXPR_IDENT || e->kind == EXPR_LABEL) {
            e->ref = EXPR_REF_NONE;
            e->def = NULL;
            e->index = -1;
            e->type = EXPR_NONE;
            return e->kind == EXPR_IDENT ? resolve_name(b, e) : resolve_label(b, e);
        }
        e->type = EXPR_NONE;
    }
    int rc;
    if ((rc = bind_tree(b, e->a)) || (rc = bind_tree(b, e->b)) || (rc = bind_tree(b, e->c)))
        return rc;
    for (uint32_t i = 0; i < e->nargs; i++)
        if ((rc = bind_tree(b, e->args[i])))
            return rc;
    for (uint32_t i = 0; i < e->nbounds; i++)
        if ((rc = bind_tree(b, e->bounds[i].value)) || (rc = bind_tree(b, e->bounds[i].upper)))
            return rc;
    return e->kind == EXPR_LITERAL ? 0 : expr_type_node(e, b->st);
}

/* The value of a bound constant expression of a property's form. */
static int form_value(binder *b, const expr *e, int want_int, const char *what, expr_value *v)
{
    if (want_int && e->type != EXPR_INT)
        return failp(b->st, CSR_ERR_SYNTAX, e->line, e->column, "type error: %s is a %s, not an int", what,
                     expr_type_name(e->type));
    int rc = expr_eval_constant(e, v, b->st);
    if (rc == CSR_ERR_USAGE)
        return failp(b->st, rc, e->line, e->column, "%s is not constant (it uses a state variable or label)", what);
    if (!rc && v->type == EXPR_INT)
        v->d = (double)v->i;
    return rc;
}

/* A property's fields from its bound tree. */
static int property_fields(binder *b, props_property *p)
{
    expr_value v;
    int rc;
    p->steps = -1;
    p->reward_index = -1;
    p->bound = p->reward_bound = 0;
    memset(&p->value, 0, sizeof p->value);
    if (p->kind == PROPS_STATE || p->kind == PROPS_VALUE) {
        const expr *e = p->tree->kind == EXPR_FILTER ? p->tree->a : p->tree;
        p->kind = e->type == EXPR_BOOL ? PROPS_STATE : PROPS_VALUE;
        p->target = p->kind == PROPS_STATE ? e : NULL;
        csr_status vs;
        memset(&vs, 0, sizeof vs);
        rc = expr_eval_constant(e, &p->value, &vs); /* a constant: its value, or why it has none */
        if (rc == CSR_ERR_USAGE) {
            memset(&p->value, 0, sizeof p->value);
            if (p->kind == PROPS_VALUE)
                return failp(b->st, CSR_ERR_UNSUPPORTED, e->line, e->column,
                             "numerical expressions over the states (not constant) are not supported");
        } else if (rc) {
            *b->st = vs;
            return rc;
        }
    }
    if (p->bound_expr) {
        if ((rc = form_value(b, p->bound_expr, 0, "the bound", &v)))
            return rc;
        p->bound = v.d;
        if (p->kind == PROPS_PROB && !(v.d >= 0 && v.d <= 1))
            return failp(b->st, CSR_ERR_RANGE, p->bound_expr->line, p->bound_expr->column,
                         "a probability bound %g outside [0, 1]", v.d);
    }
    if (p->steps_expr) {
        if ((rc = form_value(b, p->steps_expr, 1, "a step bound", &v)))
            return rc;
        if (v.i < 0 || (p->steps_strict && v.i == 0))
            return failp(b->st, CSR_ERR_RANGE, p->steps_expr->line, p->steps_expr->column,
                         v.i < 0 ? "a negative step bound" : "a bound < 0 holds for no path");
        p->steps = p->steps_strict ? v.i - 1 : v.i;
    }
    if (p->index_expr) {
        if ((rc = form_value(b, p->index_expr, 1, "a reward structure's index", &v)))
            return rc;
        if (v.i < 1)
            return failp(b->st, CSR_ERR_RANGE, p->index_expr->line, p->index_expr->column,
                         "reward structures are numbered from 1, not %lld", (long long)v.i);
        p->reward_index = v.i - 1;
    }
    if (p->reward_bound_expr) {
        if ((rc = form_value(b, p->reward_bound_expr, 0, "a reward bound", &v)))
            return rc;
        p->reward_bound = v.d;
    }
    return 0;
}

static void bind_property(props_file *f, const csr_model *m, props_property *p)
{
    memset(&p->status, 0, sizeof p->status);
    struct bind_depth depth = {0, 0};
    binder b = {f, m, &p->status, &depth};
    uint64_t height, size;
    if (bind_tree(&b, p->tree) || check_size(&b, p->tree, &height, &size))
        return;
    if (p->form.code) {
        p->status = p->form;
        return;
    }
    property_fields(&b, p);
}

int props_bind(props_file *f, const csr_model *m, csr_status *st)
{
    f->model = m;
    for (size_t i = 0; i < f->num_constants; i++) {
        props_constant *c = &f->constants[i];
        c->state = 0;
        c->defined = 0;
        memset(&c->status, 0, sizeof c->status);
    }
    for (size_t i = 0; i < f->num_formulas + f->num_labels; i++)
        (i < f->num_formulas ? &f->formulas[i] : &f->labels[i - f->num_formulas])->state = 0;
    for (size_t g = 0; g < f->num_given; g++) {
        const props_given *x = &f->given[g];
        int64_t i = name_find(f, NAME_CONSTANT, x->name, strlen(x->name));
        if (i >= 0) {
            props_constant *c = &f->constants[i];
            if (c->definition)
                return csr_fail(st, CSR_ERR_USAGE, "--const %s: the properties file defines it (line %u)", c->name,
                                c->line);
            if (!(c->type == x->value.type || (c->type == EXPR_DOUBLE && x->value.type == EXPR_INT)))
                return csr_fail(st, CSR_ERR_USAGE, "--const %s: a %s for a constant declared %s (line %u)", c->name,
                                expr_type_name(x->value.type), expr_type_name(c->type), c->line);
            c->value = x->value;
            if (c->type == EXPR_DOUBLE && x->value.type == EXPR_INT)
                c->value.d = (double)x->value.i;
            c->value.type = c->type;
            c->defined = 1;
        }
    }
    for (size_t i = 0; i < f->count; i++)
        bind_property(f, m, &f->properties[i]);
    return CSR_OK;
}

int props_states(const csr_model *m, const props_file *f, const expr *formula, uint8_t *flags, csr_status *st)
{
    if (!f || f->model != m || !formula->type)
        return csr_fail(st, CSR_ERR_USAGE, "the properties are not bound to this model (props_bind)");
    return expr_eval_states(m, formula, flags, st);
}

void props_free(props_file *f)
{
    roll_back(f, 0, 0, 0, 0);
    for (size_t i = 0; i < f->num_given; i++)
        free(f->given[i].name);
    free(f->properties);
    free(f->constants);
    free(f->formulas);
    free(f->labels);
    free(f->given);
    free(f->names);
    memset(f, 0, sizeof *f);
}

/* ---- props.h 1.0 --------------------------------------------------------- */

/* status = the form's unsupported message with " yet" (the old wording) */
static int not_yet(csr_status *st, const csr_status *form)
{
    if (st) {
        *st = *form;
        size_t n = strlen(st->detail);
        if (n + 5 < sizeof st->detail)
            strcpy(st->detail + n, " yet");
    }
    return form->code;
}

/* props.h 1.0's fragment: P or R =? of F or U (R: F), no filter, no reward bound. */
static int old_fragment(props_file *f, props_property *p, csr_status *st)
{
    const expr *e = p->tree;
    if (p->form.code)
        return not_yet(st, &p->form);
    if (p->filter)
        return failp(st, CSR_ERR_UNSUPPORTED, e->line, e->column, "filters are not supported yet");
    if (p->kind != PROPS_PROB && p->kind != PROPS_REWARD)
        return failp(st, CSR_ERR_UNSUPPORTED, e->line, e->column,
                     "only P and R operators are supported as properties yet");
    if (p->relation != EXPR_QUERY)
        return failp(st, CSR_ERR_UNSUPPORTED, e->op_line, e->op_column,
                     "expected '=?' (bound queries such as P>=0.5 are not supported yet)");
    if (p->path == PROPS_CUMULATIVE || p->path == PROPS_INSTANT)
        return failp(st, CSR_ERR_UNSUPPORTED, e->a->line, e->a->column,
                     "cumulative, instantaneous and steady-state rewards (C, I, S) are not supported yet");
    if (p->path != PROPS_EVENTUALLY && p->path != PROPS_UNTIL)
        return failp(st, CSR_ERR_UNSUPPORTED, e->a->line, e->a->column, "G and X paths are not supported yet");
    if (p->reward_bound_expr)
        return failp(st, CSR_ERR_UNSUPPORTED, p->reward_bound_expr->line, p->reward_bound_expr->column,
                     "reward bounds are not supported yet");
    if (p->kind == PROPS_REWARD && p->steps_expr)
        return failp(st, CSR_ERR_UNSUPPORTED, p->steps_expr->line, p->steps_expr->column,
                     "a step bound on a reward property (R [ F<=k ], and cumulative rewards C<=k) is not supported yet");
    /* the step bound and reward index: constants of no file */
    struct bind_depth depth = {0, 0};
    binder b = {f, NULL, st, &depth};
    const expr *parts[2] = {p->steps_expr, p->index_expr};
    for (int k = 0; k < 2; k++) {
        int rc = parts[k] ? bind_tree(&b, (expr *)parts[k]) : 0;
        if (rc)
            return rc;
    }
    return property_fields(&b, p);
}

int prop_parse(const char *text, prop_property *out, csr_status *st)
{
    memset(out, 0, sizeof *out);
    out->steps = -1;
    out->reward_index = -1;
    out->direction = PROP_ANY;
    size_t skip = strspn(text, " \t\r\n");
    static const char *const definitions[] = {"const", "formula", "label", "rate", "prob"};
    for (size_t k = 0; k < 5; k++) {
        size_t l = strlen(definitions[k]);
        if (!strncmp(text + skip, definitions[k], l) && strchr(" \t\"", text[skip + l]))
            return csr_fail(st, CSR_ERR_UNSUPPORTED,
                            "column %zu: constant, formula and label definitions are not supported yet here", skip + 1);
    }
    props_file *f = calloc(1, sizeof *f);
    if (!f)
        return csr_fail(st, CSR_ERR_NOMEM, "out of memory");
    int rc = props_parse_property(text, strlen(text), f, st);
    if (!rc) {
        props_property *p = &f->properties[0];
        if (!(rc = old_fragment(f, p, st))) {
            out->reward = p->kind == PROPS_REWARD;
            out->reward_index = p->reward_index;
            out->steps = p->steps;
            out->direction = p->direction;
            out->avoid = (expr *)p->avoid;
            out->target = (expr *)p->target;
            out->file = f;
            out->text = strdup(p->text);
            out->reward_name = p->reward_name ? strdup(p->reward_name) : NULL;
            if (!out->text || (p->reward_name && !out->reward_name))
                rc = csr_fail(st, CSR_ERR_NOMEM, "out of memory");
        }
    }
    if (rc) {
        free(out->text);
        free(out->reward_name);
        props_free(f);
        free(f);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

void prop_free(prop_property *p)
{
    if (p->file) {
        props_free(p->file);
        free(p->file);
    }
    free(p->text);
    free(p->reward_name);
    memset(p, 0, sizeof *p);
}

int prop_states(const csr_model *m, const prop_formula *f, uint8_t *flags, csr_status *st)
{
    struct bind_depth depth = {0, 0};
    binder b = {NULL, m, st, &depth};
    int rc = bind_tree(&b, (expr *)f); /* props.h 1.0 binds here: its formulas are its own */
    return rc ? rc : expr_eval_states(m, f, flags, st);
}
