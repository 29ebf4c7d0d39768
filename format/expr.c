/*
 * expr.c - PRISM's expression language (expr.h): scanner, recursive-descent
 * parser, types, and evaluation of constants and of state formulas over
 * blocks of states.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "lower_bound.h"
#include "parallel.h"

/* ---- positions and errors ---------------------------------------------- */

void expr_position(char *buf, size_t size, uint32_t line, uint32_t column)
{
    if (line)
        snprintf(buf, size, "line %u, column %u", line, column);
    else
        snprintf(buf, size, "column %u", column);
}

/* Fill status with code and "POSITION: message" (line 0: a single-line text). */
static int fail_at(csr_status *st, int code, uint32_t line, uint32_t column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_at(csr_status *st, int code, uint32_t line, uint32_t column, const char *fmt, ...)
{
    char pos[48], msg[200];
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

const char *expr_type_name(int type)
{
    switch (type) {
    case EXPR_BOOL: return "bool";
    case EXPR_INT: return "int";
    case EXPR_DOUBLE: return "double";
    case EXPR_PATH: return "path formula";
    case EXPR_REWARD_PATH: return "reward formula";
    default: return "untyped expression";
    }
}

void expr_free(expr *e)
{
    if (!e)
        return;
    expr_free(e->a);
    expr_free(e->b);
    expr_free(e->c);
    for (uint32_t i = 0; i < e->nargs; i++)
        expr_free(e->args[i]);
    free(e->args);
    for (uint32_t i = 0; i < e->nbounds; i++) {
        expr_free(e->bounds[i].value);
        expr_free(e->bounds[i].upper);
        free(e->bounds[i].reward);
    }
    free(e->bounds);
    free(e->name);
    free(e);
}

/* ---- scanner (PrismParser.jj's TOKEN section) --------------------------- */

static const char *const keywords[] = {
    "A", "bool", "clock", "const", "ctmc", "C", "double", "dtmc", "E", "endinit", "endinvariant", "endmodule",
    "endobservables", "endrewards", "endsystem", "false", "formula", "filter", "func", "F", "global", "G", "init",
    "invariant", "I", "int", "label", "maxmax", "maxmin", "max", "mdp", "minmax", "minmin", "min", "module", "X",
    "nondeterministic", "observable", "observables", "Pmaxmax", "Pmaxmin", "Pmax", "Pminmax", "Pminmin", "Pmin",
    "P", "pomdp", "popta", "probabilistic", "prob", "pta", "rate", "rewards", "Rmaxmax", "Rmaxmin", "Rmax",
    "Rminmax", "Rminmin", "Rmin", "R", "S", "stochastic", "system", "true", "U", "W",
};

int expr_is_keyword(const char *s, size_t length)
{
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (strlen(keywords[k]) == length && memcmp(keywords[k], s, length) == 0)
            return 1;
    return 0;
}

static const char unexpected_character[] = "an unexpected character";

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

/* The token at byte pos (line, column there), after blanks and // comments. */
static void scan(const expr_parser *p, size_t pos, uint32_t line, uint32_t column, expr_token *t)
{
    const char *s = p->text;
    const size_t n = p->length;
    for (;;) {
        if (pos < n && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r')) {
            pos++, column++;
        } else if (pos < n && s[pos] == '\n') {
            pos++, line++, column = 1;
        } else if (pos + 1 < n && s[pos] == '/' && s[pos + 1] == '/') {
            while (pos < n && s[pos] != '\n')
                pos++, column++;
        } else {
            break;
        }
    }
    memset(t, 0, sizeof *t);
    t->offset = pos;
    t->line = line;
    t->column = column;
    size_t len = 0;
    if (pos >= n) {
        t->kind = EXPR_TOK_EOF;
    } else if (is_ident_start(s[pos])) {
        while (pos + len < n && is_ident_char(s[pos + len]))
            len++;
        t->kind = EXPR_TOK_IDENT;
    } else if (is_digit(s[pos]) || (s[pos] == '.' && pos + 1 < n && is_digit(s[pos + 1]))) {
        /* REG_INT: [1-9][0-9]* | 0; REG_DOUBLE: [0-9]* .? [0-9]+ ([eE][+-]?[0-9]+)?;
         * the longer match wins, REG_INT on a tie (JavaCC) */
        size_t i = pos, ilen;
        if (s[pos] == '0')
            ilen = 1;
        else {
            ilen = 0;
            while (pos + ilen < n && is_digit(s[pos + ilen]))
                ilen++;
        }
        while (i < n && is_digit(s[i]))
            i++;
        if (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
            i++;
            while (i < n && is_digit(s[i]))
                i++;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            size_t j = i + 1;
            if (j < n && (s[j] == '+' || s[j] == '-'))
                j++;
            if (j < n && is_digit(s[j])) {
                while (j < n && is_digit(s[j]))
                    j++;
                i = j;
            }
        }
        size_t dlen = i - pos;
        if (ilen >= dlen) {
            len = ilen;
            t->kind = EXPR_TOK_INT;
            int64_t v = 0;
            for (size_t k = 0; k < len && v <= INT32_MAX; k++)
                v = 10 * v + (s[pos + k] - '0');
            if (v > INT32_MAX) {
                t->kind = EXPR_TOK_ERROR;
                t->error = "an integer literal above 2147483647 (PRISM's integers are 32-bit)";
            }
        } else {
            len = dlen;
            t->kind = EXPR_TOK_DOUBLE;
        }
    } else if (s[pos] == '"') {
        size_t j = pos + 1;
        while (j < n && s[j] != '"' && s[j] != '\n' && s[j] != '\0')
            j++;
        if (j >= n || s[j] != '"') {
            t->kind = EXPR_TOK_ERROR;
            t->error = "a name in double quotes without its closing '\"'";
            len = 1;
        } else {
            t->kind = EXPR_TOK_QUOTED;
            t->offset = pos + 1;
            t->length = j - pos - 1;
            t->end = j + 1;
            t->end_line = line;
            t->end_column = column + (uint32_t)(j + 1 - pos);
            return;
        }
    } else {
        static const struct {
            const char *text;
            int kind;
        } punct[] = {
            {"<=>", EXPR_TOK_IFF}, {"<=", EXPR_TOK_LE}, {"<", EXPR_TOK_LT}, {">=", EXPR_TOK_GE}, {">", EXPR_TOK_GT},
            {"=>", EXPR_TOK_IMPLIES}, {"=", EXPR_TOK_EQ}, {"!=", EXPR_TOK_NE}, {"!", EXPR_TOK_NOT},
            {"&", EXPR_TOK_AND}, {"|", EXPR_TOK_OR}, {":", EXPR_TOK_COLON}, {";", EXPR_TOK_SEMICOLON},
            {",", EXPR_TOK_COMMA}, {"(", EXPR_TOK_LPAREN}, {")", EXPR_TOK_RPAREN}, {"[", EXPR_TOK_LBRACKET},
            {"]", EXPR_TOK_RBRACKET}, {"{", EXPR_TOK_LBRACE}, {"}", EXPR_TOK_RBRACE}, {"+", EXPR_TOK_PLUS},
            {"-", EXPR_TOK_MINUS}, {"*", EXPR_TOK_TIMES}, {"/", EXPR_TOK_DIVIDE}, {"^", EXPR_TOK_POWER},
            {"?", EXPR_TOK_QMARK},
        };
        for (size_t k = 0; k < sizeof punct / sizeof *punct; k++) {
            size_t l = strlen(punct[k].text);
            if (pos + l <= n && memcmp(s + pos, punct[k].text, l) == 0) {
                t->kind = punct[k].kind;
                len = l;
                break;
            }
        }
        if (!len) {
            t->kind = EXPR_TOK_ERROR;
            t->error = unexpected_character;
            len = 1;
        }
    }
    t->length = len;
    t->end = pos + len;
    t->end_line = line;
    t->end_column = column + (uint32_t)len;
}

void expr_parser_init(expr_parser *p, const char *text, size_t length, int lines, csr_status *status)
{
    memset(p, 0, sizeof *p);
    p->text = text;
    p->length = length;
    p->lines = lines;
    p->status = status;
    scan(p, 0, 1, 1, &p->tok);
}

void expr_parser_next(expr_parser *p)
{
    p->last_end = p->tok.end;
    scan(p, p->tok.end, p->tok.end_line, p->tok.end_column, &p->tok);
}

void expr_parser_after(const expr_parser *p, const expr_token *t, expr_token *out)
{
    if (t->kind == EXPR_TOK_EOF)
        *out = *t;
    else
        scan(p, t->end, t->end_line, t->end_column, out);
}

int expr_token_is(const expr_parser *p, const expr_token *t, const char *w)
{
    size_t l = strlen(w);
    return t->kind == EXPR_TOK_IDENT && t->length == l && memcmp(p->text + t->offset, w, l) == 0;
}

void *expr_parser_fail(expr_parser *p, const expr_token *t, int code, const char *fmt, ...)
{
    if (p->rc)
        return NULL;
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->rc = code;
    fail_at(p->status, code, p->lines ? t->line : 0, t->column, "%s", msg);
    return NULL;
}

/* ---- parser (PrismParser.jj's expression productions) ------------------- */

#define TOK (p->tok)
#define IS(w) expr_token_is(p, &p->tok, (w))

/* The current token's text for messages (at most 40 characters). */
static void token_text(const expr_parser *p, const expr_token *t, char *buf, size_t size)
{
    if (t->kind == EXPR_TOK_EOF)
        snprintf(buf, size, "the end of the text");
    else if (t->kind == EXPR_TOK_QUOTED)
        snprintf(buf, size, "\"%.*s\"", (int)(t->length > 40 ? 40 : t->length), p->text + t->offset);
    else
        snprintf(buf, size, "'%.*s'", (int)(t->length > 40 ? 40 : t->length), p->text + t->offset);
}

/* Fail at the current token: its lexical error, or "expected WHAT, found X". */
static void *expected(expr_parser *p, const char *what)
{
    if (TOK.kind == EXPR_TOK_ERROR) {
        unsigned char c = (unsigned char)p->text[TOK.offset];
        if (TOK.error == unexpected_character)
            return c > ' ' && c < 127 ? expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "%s '%c'", TOK.error, c)
                                      : expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "%s (byte 0x%02x)", TOK.error, c);
        return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "%s", TOK.error);
    }
    char found[64];
    token_text(p, &TOK, found, sizeof found);
    return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "expected %s, found %s", what, found);
}

static int accept(expr_parser *p, int kind)
{
    if (TOK.kind != kind)
        return 0;
    expr_parser_next(p);
    return 1;
}

static int expect(expr_parser *p, int kind, const char *what)
{
    if (accept(p, kind))
        return 1;
    expected(p, what);
    return 0;
}

/* Before an opening bracket is consumed: the nesting limit. */
static int enter(expr_parser *p)
{
    if (p->depth <= PROP_MAX_DEPTH)
        return 1;
    expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "nested more than %d deep", PROP_MAX_DEPTH);
    return 0;
}

static expr *new_node(expr_parser *p, int kind, const expr_token *at)
{
    if (++p->nodes > PROP_MAX_NODES)
        return expr_parser_fail(p, at, CSR_ERR_SYNTAX, "more than %d labels and operators", PROP_MAX_NODES);
    expr *e = calloc(1, sizeof *e);
    if (!e)
        return expr_parser_fail(p, at, CSR_ERR_NOMEM, "out of memory");
    e->kind = (uint8_t)kind;
    e->line = p->lines ? at->line : 0;
    e->column = at->column;
    e->index = -1;
    return e;
}

/* A node with operands a, b (freed on failure). */
static expr *new_op(expr_parser *p, int kind, int op, const expr_token *at, expr *a, expr *b)
{
    expr *e = a && (b || kind == EXPR_UNARY) ? new_node(p, kind, at) : NULL;
    if (!e) {
        expr_free(a);
        expr_free(b);
        return NULL;
    }
    e->op = (uint8_t)op;
    e->a = a;
    e->b = b;
    return e;
}

static char *token_strdup(expr_parser *p, const expr_token *t)
{
    char *s = strndup(p->text + t->offset, t->length);
    if (!s)
        expr_parser_fail(p, t, CSR_ERR_NOMEM, "out of memory");
    return s;
}

static expr *parse_expression(expr_parser *p, int fl);
static expr *parse_ite(expr_parser *p, int fl);
static expr *parse_temporal_unary(expr_parser *p, int fl);

static const char *const function_names[] = {NULL, "min", "max", "floor", "ceil", "round", "pow", "mod", "log"};

static int function_code(const expr_parser *p, const expr_token *t)
{
    for (int f = EXPR_FN_MIN; f <= EXPR_FN_LOG; f++)
        if (expr_token_is(p, t, function_names[f]))
            return f;
    return 0;
}

/* A bound's expression: PRISM's TimeBound takes a name followed by '(' as
 * the bound alone ("F<=t (b)"), unless the name is a function's. */
static expr *bound_expression(expr_parser *p)
{
    expr_token next;
    expr_parser_after(p, &TOK, &next);
    if (TOK.kind == EXPR_TOK_IDENT && !expr_is_keyword(p->text + TOK.offset, TOK.length) &&
        next.kind == EXPR_TOK_LPAREN && !function_code(p, &TOK)) {
        expr *e = new_node(p, EXPR_IDENT, &TOK);
        if (e && !(e->name = token_strdup(p, &TOK))) {
            expr_free(e);
            return NULL;
        }
        expr_parser_next(p);
        return e;
    }
    return parse_expression(p, 0);
}

static int add_bound(expr_parser *p, expr *e, expr_bound **out)
{
    if (e->nbounds >= 8) {
        expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "more than 8 bounds on one operator");
        return 0;
    }
    expr_bound *more = realloc(e->bounds, (e->nbounds + 1) * sizeof *more);
    if (!more) {
        expr_parser_fail(p, &TOK, CSR_ERR_NOMEM, "out of memory");
        return 0;
    }
    e->bounds = more;
    *out = &more[e->nbounds++];
    memset(*out, 0, sizeof **out);
    (*out)->line = p->lines ? TOK.line : 0;
    (*out)->column = TOK.column;
    return 1;
}

/* The relation and value of a bound: <=k <k >=k >k =k [a,b]; storm: full
 * expressions (inside braces). */
static int bound_relation(expr_parser *p, expr_bound *b, int storm)
{
    int k = TOK.kind;
    if (k == EXPR_TOK_LBRACKET) {
        if (!enter(p))
            return 0;
        expr_parser_next(p);
        b->relation = EXPR_INTERVAL;
        if (!(b->value = parse_expression(p, 0)) || !expect(p, EXPR_TOK_COMMA, "','") ||
            !(b->upper = parse_expression(p, 0)) || !expect(p, EXPR_TOK_RBRACKET, "']'"))
            return 0;
        return 1;
    }
    static const int rel[][2] = {{EXPR_TOK_LE, EXPR_LE}, {EXPR_TOK_LT, EXPR_LT}, {EXPR_TOK_GE, EXPR_GE},
                                 {EXPR_TOK_GT, EXPR_GT}, {EXPR_TOK_EQ, EXPR_EQ}};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++)
        if (k == rel[i][0]) {
            expr_parser_next(p);
            b->relation = (uint8_t)rel[i][1];
            return (b->value = storm ? parse_expression(p, 0) : bound_expression(p)) != NULL;
        }
    expected(p, "a bound (<=k, <k, >=k, >k, =k or [a,b])");
    return 0;
}

/* A reward reference {"name"} (the current token is '{'). */
static int reward_reference(expr_parser *p, expr_bound *b)
{
    expr_parser_next(p);
    if (TOK.kind != EXPR_TOK_QUOTED || !TOK.length) {
        expected(p, "a reward structure's name in double quotes");
        return 0;
    }
    if (!(b->reward = token_strdup(p, &TOK)))
        return 0;
    expr_parser_next(p);
    return expect(p, EXPR_TOK_RBRACE, "'}'");
}

/* One bound of Storm's forms: [rew{"r"} | rew | {"r"} | steps | time] relation. */
static int storm_bound(expr_parser *p, expr *e)
{
    expr_bound *b;
    if (!add_bound(p, e, &b))
        return 0;
    if (IS("rew")) {
        expr_parser_next(p);
        b->rewarded = 1;
        if (TOK.kind == EXPR_TOK_LBRACE && !reward_reference(p, b))
            return 0;
    } else if (TOK.kind == EXPR_TOK_LBRACE) {
        b->rewarded = 1;
        if (!reward_reference(p, b))
            return 0;
    } else if (IS("steps") || IS("time")) {
        expr_parser_next(p);
    }
    return bound_relation(p, b, 1);
}

/* The optional bounds after X, F, G, U, W, R: PRISM's TimeBound, or
 * Storm's F{"r"}<=k, F^{b, ...}, F{b, ...}. */
static int parse_bounds(expr_parser *p, expr *e)
{
    int k = TOK.kind;
    if (k == EXPR_TOK_LE || k == EXPR_TOK_LT || k == EXPR_TOK_GE || k == EXPR_TOK_GT || k == EXPR_TOK_EQ ||
        k == EXPR_TOK_LBRACKET) {
        expr_bound *b;
        return add_bound(p, e, &b) && bound_relation(p, b, 0);
    }
    if (k != EXPR_TOK_POWER && k != EXPR_TOK_LBRACE)
        return 1;
    expr_token next;
    expr_parser_after(p, &TOK, &next);
    if (k == EXPR_TOK_LBRACE && next.kind == EXPR_TOK_QUOTED) { /* F{"r"}<=k, ... */
        do {
            if (!storm_bound(p, e))
                return 0;
        } while (accept(p, EXPR_TOK_COMMA));
        return 1;
    }
    if (k == EXPR_TOK_POWER)
        expr_parser_next(p);
    if (!enter(p) || !expect(p, EXPR_TOK_LBRACE, "'{'"))
        return 0;
    do {
        if (!storm_bound(p, e))
            return 0;
    } while (accept(p, EXPR_TOK_COMMA));
    return expect(p, EXPR_TOK_RBRACE, "'}' or ','");
}

static expr *parse_temporal_binary(expr_parser *p, int fl)
{
    expr_token start = TOK;
    expr *a = parse_temporal_unary(p, fl);
    if (!a)
        return NULL;
    int op = IS("U") ? EXPR_UNTIL : IS("W") ? EXPR_WEAK_UNTIL : IS("R") ? EXPR_RELEASE : 0;
    if (!op)
        return a;
    if (!(fl & EXPR_PARSE_PATH)) {
        expr_free(a);
        return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "'%.*s' (a path operator) outside P [ ], R [ ], E [ ] or A [ ]",
                                (int)TOK.length, p->text + TOK.offset);
    }
    expr_parser_next(p);
    expr *e = new_node(p, EXPR_TEMPORAL, &start);
    if (!e) {
        expr_free(a);
        return NULL;
    }
    e->op = (uint8_t)op;
    e->a = a;
    if (!parse_bounds(p, e) || !(e->b = parse_temporal_unary(p, fl))) {
        expr_free(e);
        return NULL;
    }
    return e;
}

static expr *parse_temporal_unary(expr_parser *p, int fl)
{
    int op = IS("X") ? EXPR_NEXT : IS("F") ? EXPR_EVENTUALLY : IS("G") ? EXPR_GLOBALLY : 0;
    if (!op)
        return parse_ite(p, fl);
    if (!(fl & EXPR_PARSE_PATH))
        return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "'%.*s' (a path operator) outside P [ ], R [ ], E [ ] or A [ ]",
                                (int)TOK.length, p->text + TOK.offset);
    expr *e = new_node(p, EXPR_TEMPORAL, &TOK);
    if (!e)
        return NULL;
    e->op = (uint8_t)op;
    expr_parser_next(p);
    if (!parse_bounds(p, e) || !(e->b = parse_temporal_unary(p, fl))) {
        expr_free(e);
        return NULL;
    }
    return e;
}

static expr *parse_expression(expr_parser *p, int fl)
{
    p->depth++;
    expr *e = parse_temporal_binary(p, fl);
    p->depth--;
    return e;
}

static expr *parse_implies(expr_parser *p, int fl);

static expr *parse_ite(expr_parser *p, int fl)
{
    expr_token start = TOK;
    expr *c = parse_implies(p, fl);
    if (!c || TOK.kind != EXPR_TOK_QMARK)
        return c;
    expr_parser_next(p);
    expr *a = parse_implies(p, fl);
    if (!a || !expect(p, EXPR_TOK_COLON, "':' of c ? a : b")) {
        expr_free(c);
        expr_free(a);
        return NULL;
    }
    expr *b = parse_ite(p, fl);
    expr *e = new_op(p, EXPR_ITE, 0, &start, c, a);
    if (!e || !b) {
        expr_free(e);
        expr_free(b);
        return NULL;
    }
    e->c = b;
    return e;
}

/* One left-associative level: operand (tok operand)*. */
typedef expr *(*level_fn)(expr_parser *, int);
static expr *left_chain(expr_parser *p, int fl, level_fn operand, const int (*ops)[2], size_t nops)
{
    expr_token start = TOK;
    expr *e = operand(p, fl);
    while (e) {
        int op = 0;
        for (size_t i = 0; i < nops; i++)
            if (TOK.kind == ops[i][0])
                op = ops[i][1];
        if (!op)
            break;
        expr_token at = TOK;
        expr_parser_next(p);
        if ((e = new_op(p, EXPR_BINARY, op, &start, e, operand(p, fl)))) {
            e->op_line = p->lines ? at.line : 0;
            e->op_column = at.column;
        }
    }
    return e;
}

static expr *parse_iff(expr_parser *p, int fl);
static expr *parse_or(expr_parser *p, int fl);
static expr *parse_and(expr_parser *p, int fl);
static expr *parse_not(expr_parser *p, int fl);
static expr *parse_equality(expr_parser *p, int fl);
static expr *parse_relop(expr_parser *p, int fl);
static expr *parse_plus_minus(expr_parser *p, int fl);
static expr *parse_times_divide(expr_parser *p, int fl);
static expr *parse_power(expr_parser *p, int fl);
static expr *parse_unary_minus(expr_parser *p, int fl);
static expr *parse_basic(expr_parser *p, int fl);

static expr *parse_implies(expr_parser *p, int fl)
{
    expr_token start = TOK;
    expr *a = parse_iff(p, fl);
    if (!a || TOK.kind != EXPR_TOK_IMPLIES)
        return a;
    expr_token at = TOK;
    expr_parser_next(p);
    expr *e = new_op(p, EXPR_BINARY, EXPR_IMPLIES, &start, a, parse_implies(p, fl));
    if (e) {
        e->op_line = p->lines ? at.line : 0;
        e->op_column = at.column;
    }
    return e;
}

static expr *parse_iff(expr_parser *p, int fl)
{
    static const int ops[][2] = {{EXPR_TOK_IFF, EXPR_IFF}};
    return left_chain(p, fl, parse_or, ops, 1);
}
static expr *parse_or(expr_parser *p, int fl)
{
    static const int ops[][2] = {{EXPR_TOK_OR, EXPR_OR}};
    return left_chain(p, fl, parse_and, ops, 1);
}
static expr *parse_and(expr_parser *p, int fl)
{
    static const int ops[][2] = {{EXPR_TOK_AND, EXPR_AND}};
    return left_chain(p, fl, parse_not, ops, 1);
}

static expr *parse_not(expr_parser *p, int fl)
{
    if (TOK.kind != EXPR_TOK_NOT)
        return parse_equality(p, fl);
    expr_token start = TOK;
    expr_parser_next(p);
    return new_op(p, EXPR_UNARY, EXPR_NOT, &start, parse_not(p, fl), NULL);
}

static expr *parse_equality(expr_parser *p, int fl)
{
    static const int ops[][2] = {{EXPR_TOK_EQ, EXPR_EQ}, {EXPR_TOK_NE, EXPR_NE}};
    return left_chain(p, fl, parse_relop, ops, 2);
}
static expr *parse_relop(expr_parser *p, int fl)
{
    static const int ops[][2] = {
        {EXPR_TOK_GT, EXPR_GT}, {EXPR_TOK_LT, EXPR_LT}, {EXPR_TOK_GE, EXPR_GE}, {EXPR_TOK_LE, EXPR_LE}};
    return left_chain(p, fl, parse_plus_minus, ops, 4);
}
static expr *parse_plus_minus(expr_parser *p, int fl)
{
    static const int ops[][2] = {{EXPR_TOK_PLUS, EXPR_PLUS}, {EXPR_TOK_MINUS, EXPR_MINUS}};
    return left_chain(p, fl, parse_times_divide, ops, 2);
}
static expr *parse_times_divide(expr_parser *p, int fl)
{
    static const int ops[][2] = {{EXPR_TOK_TIMES, EXPR_TIMES}, {EXPR_TOK_DIVIDE, EXPR_DIVIDE}};
    return left_chain(p, fl, parse_power, ops, 2);
}

static expr *parse_power(expr_parser *p, int fl)
{
    expr_token start = TOK;
    expr *a = parse_unary_minus(p, fl);
    if (!a || TOK.kind != EXPR_TOK_POWER)
        return a;
    expr_token at = TOK;
    expr_parser_next(p);
    expr *e = new_op(p, EXPR_BINARY, EXPR_POW, &start, a, parse_power(p, fl));
    if (e) {
        e->op_line = p->lines ? at.line : 0;
        e->op_column = at.column;
    }
    return e;
}

static expr *parse_unary_minus(expr_parser *p, int fl)
{
    if (TOK.kind != EXPR_TOK_MINUS)
        return parse_basic(p, fl);
    expr_token start = TOK;
    expr_parser_next(p);
    return new_op(p, EXPR_UNARY, EXPR_NEG, &start, parse_unary_minus(p, fl), NULL);
}

static expr *literal(expr_parser *p, int type, int64_t i, double d)
{
    expr *e = new_node(p, EXPR_LITERAL, &TOK);
    if (!e)
        return NULL;
    e->type = (uint8_t)type;
    e->folded = 1;
    e->value.type = type;
    e->value.i = i;
    e->value.d = d;
    expr_parser_next(p);
    return e;
}

static expr *number(expr_parser *p)
{
    char buf[64], *text = TOK.length < sizeof buf ? buf : malloc(TOK.length + 1);
    if (!text)
        return expr_parser_fail(p, &TOK, CSR_ERR_NOMEM, "out of memory");
    memcpy(text, p->text + TOK.offset, TOK.length);
    text[TOK.length] = '\0';
    expr *e = TOK.kind == EXPR_TOK_INT ? literal(p, EXPR_INT, strtoll(text, NULL, 10), 0)
                                       : literal(p, EXPR_DOUBLE, 0, strtod(text, NULL));
    if (text != buf)
        free(text);
    return e;
}

/* '(' expression (',' expression)* ')' into e's arguments. */
static int arguments(expr_parser *p, int fl, expr *e)
{
    if (!enter(p) || !expect(p, EXPR_TOK_LPAREN, "'('"))
        return 0;
    do {
        expr *a = parse_expression(p, fl);
        if (!a)
            return 0;
        expr **more = realloc(e->args, (e->nargs + 1) * sizeof *more);
        if (!more) {
            expr_free(a);
            expr_parser_fail(p, &TOK, CSR_ERR_NOMEM, "out of memory");
            return 0;
        }
        e->args = more;
        e->args[e->nargs++] = a;
    } while (accept(p, EXPR_TOK_COMMA));
    return expect(p, EXPR_TOK_RPAREN, "')' or ','");
}

/* A function call at name token t (already consumed, the current token '('). */
static expr *function_call(expr_parser *p, int fl, const expr_token *t, int code)
{
    expr *e = new_node(p, EXPR_FUNC, t);
    if (!e)
        return NULL;
    e->op = (uint8_t)code;
    if (!arguments(p, fl, e)) {
        expr_free(e);
        return NULL;
    }
    /* ExpressionFunc.java's arities: min, max 1 or more; floor, ceil, round 1; pow, mod, log 2 */
    uint32_t want = code == EXPR_FN_MIN || code == EXPR_FN_MAX ? 0 : code <= EXPR_FN_ROUND ? 1 : 2;
    if (want && e->nargs != want) {
        expr_parser_fail(p, t, CSR_ERR_SYNTAX, "%s takes %u argument%s, not %u", function_names[code], want,
                         want == 1 ? "" : "s", e->nargs);
        expr_free(e);
        return NULL;
    }
    return e;
}

/* After P, R or S: min/max (P min=?), then =? or a relation and its bound. */
static int operator_relation(expr_parser *p, expr *e, const char *what)
{
    if (!e->dir && (IS("min") || IS("max"))) {
        e->dir = IS("min") ? EXPR_DIR_MIN : EXPR_DIR_MAX;
        expr_parser_next(p);
    }
    expr_token next;
    expr_parser_after(p, &TOK, &next);
    e->op_line = p->lines ? TOK.line : 0;
    e->op_column = TOK.column;
    if (TOK.kind == EXPR_TOK_EQ && next.kind == EXPR_TOK_QMARK) {
        expr_parser_next(p);
        expr_parser_next(p);
        e->op = EXPR_QUERY;
        return 1;
    }
    static const int rel[][2] = {
        {EXPR_TOK_GT, EXPR_GT}, {EXPR_TOK_LT, EXPR_LT}, {EXPR_TOK_GE, EXPR_GE}, {EXPR_TOK_LE, EXPR_LE}};
    for (size_t i = 0; i < 4; i++)
        if (TOK.kind == rel[i][0]) {
            e->op = (uint8_t)rel[i][1];
            expr_parser_next(p);
            return (e->b = parse_expression(p, 0)) != NULL;
        }
    char want[80];
    snprintf(want, sizeof want, "'=?' or a bound such as >=0.5 after %s", what);
    expected(p, want);
    return 0;
}

/* An old-style filter {states}{min}{max} before the ']' of P, R or S
 * (PRISM's Filter): e wrapped in filter(state|min|max|range, e, states). */
static expr *old_filter(expr_parser *p, int fl, expr *e)
{
    if (TOK.kind != EXPR_TOK_LBRACE)
        return e;
    expr_token at = TOK;
    if (!enter(p)) {
        expr_free(e);
        return NULL;
    }
    expr_parser_next(p);
    expr *states = parse_expression(p, (fl & ~EXPR_PARSE_PATH) | EXPR_PARSE_PROPERTY);
    if (!states || !expect(p, EXPR_TOK_RBRACE, "'}'")) {
        expr_free(states);
        expr_free(e);
        return NULL;
    }
    int min = 0, max = 0;
    while (TOK.kind == EXPR_TOK_LBRACE) {
        expr_parser_next(p);
        if (IS("min"))
            min = 1;
        else if (IS("max"))
            max = 1;
        else {
            expected(p, "min or max");
            expr_free(states);
            expr_free(e);
            return NULL;
        }
        expr_parser_next(p);
        if (!expect(p, EXPR_TOK_RBRACE, "'}'")) {
            expr_free(states);
            expr_free(e);
            return NULL;
        }
    }
    if (e->op != EXPR_QUERY && (min || max)) {
        expr_free(states);
        expr_free(e);
        return expr_parser_fail(p, &at, CSR_ERR_SYNTAX, "a {min} or {max} filter on a bool-valued property");
    }
    expr *f = new_op(p, EXPR_FILTER, 0, &at, e, states);
    if (f) {
        f->op = e->op != EXPR_QUERY ? EXPR_FILTER_FORALL
                : min && max        ? EXPR_FILTER_RANGE
                : min               ? EXPR_FILTER_MIN
                : max               ? EXPR_FILTER_MAX
                                    : EXPR_FILTER_STATE;
        f->flags = 1;
    }
    return f;
}

/* '[' contents (filter) ']' of P, R, S (e->a the contents). */
static expr *operator_brackets(expr_parser *p, int fl, expr *e, expr *(*contents)(expr_parser *, int))
{
    if (!enter(p) || !expect(p, EXPR_TOK_LBRACKET, "'['")) {
        expr_free(e);
        return NULL;
    }
    p->depth++;
    e->a = contents(p, fl);
    p->depth--;
    if (!e->a) {
        expr_free(e);
        return NULL;
    }
    expr *f = old_filter(p, fl, e);
    if (f && !expect(p, EXPR_TOK_RBRACKET, "']'")) {
        expr_free(f);
        return NULL;
    }
    return f;
}

static expr *path_contents(expr_parser *p, int fl)
{
    return parse_temporal_binary(p, fl | EXPR_PARSE_PROPERTY | EXPR_PARSE_PATH);
}
static expr *state_contents(expr_parser *p, int fl)
{
    return parse_temporal_binary(p, (fl & ~EXPR_PARSE_PATH) | EXPR_PARSE_PROPERTY);
}

/* R's contents (ExpressionRewardContents): S, C, C<=k, I=k, or a path;
 * Storm's LRA and MP for S. */
static expr *reward_contents(expr_parser *p, int fl)
{
    expr_token next;
    expr_parser_after(p, &TOK, &next);
    int nk = next.kind;
    if ((IS("S") && nk != EXPR_TOK_EQ && nk != EXPR_TOK_LPAREN && nk != EXPR_TOK_LT && nk != EXPR_TOK_GT &&
         nk != EXPR_TOK_LE && nk != EXPR_TOK_GE && !expr_token_is(p, &next, "min") && !expr_token_is(p, &next, "max")) ||
        ((IS("LRA") || IS("MP")) && (nk == EXPR_TOK_RBRACKET || nk == EXPR_TOK_LBRACE))) {
        expr *e = new_node(p, EXPR_LONGRUN, &TOK);
        if (e)
            expr_parser_next(p);
        return e;
    }
    if (IS("C")) {
        expr *e = new_node(p, EXPR_CUMULATIVE, &TOK);
        if (!e)
            return NULL;
        expr_parser_next(p);
        if (TOK.kind == EXPR_TOK_POWER || TOK.kind == EXPR_TOK_LBRACE) {
            expr_free(e);
            return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "Storm's C^{...} bounds are not supported: write C<=k");
        }
        if (accept(p, EXPR_TOK_LE) && !(e->b = parse_expression(p, 0))) {
            expr_free(e);
            return NULL;
        }
        return e;
    }
    if (IS("I")) {
        expr *e = new_node(p, EXPR_INSTANT, &TOK);
        if (!e)
            return NULL;
        expr_parser_next(p);
        if (!expect(p, EXPR_TOK_EQ, "'=' of I=k") || !(e->b = parse_expression(p, 0))) {
            expr_free(e);
            return NULL;
        }
        return e;
    }
    return path_contents(p, fl);
}

static expr *prob_operator(expr_parser *p, int fl)
{
    expr *e = new_node(p, EXPR_PROB, &TOK);
    if (!e)
        return NULL;
    e->dir = IS("Pmin") ? EXPR_DIR_MIN : IS("Pmax") ? EXPR_DIR_MAX : EXPR_DIR_NONE;
    expr_parser_next(p);
    if (!operator_relation(p, e, "P")) {
        expr_free(e);
        return NULL;
    }
    return operator_brackets(p, fl, e, path_contents);
}

/* R, or with time set Storm's T (T, Tmin, Tmax: the expected time, on a
 * discrete-time model the expected number of steps; no reward structure). */
static expr *reward_operator(expr_parser *p, int fl, int time)
{
    expr *e = new_node(p, EXPR_REWARD, &TOK);
    if (!e)
        return NULL;
    e->flags = (uint8_t)time;
    e->dir = IS("Rmin") || IS("Tmin") ? EXPR_DIR_MIN : IS("Rmax") || IS("Tmax") ? EXPR_DIR_MAX : EXPR_DIR_NONE;
    int plain = IS("R");
    expr_parser_next(p);
    if (plain && TOK.kind == EXPR_TOK_LBRACE) {
        expr_parser_next(p);
        if (TOK.kind == EXPR_TOK_QUOTED) {
            if (!TOK.length) {
                expected(p, "a reward structure's name");
                expr_free(e);
                return NULL;
            }
            if (!(e->name = token_strdup(p, &TOK))) {
                expr_free(e);
                return NULL;
            }
            expr_parser_next(p);
        } else if (!(e->c = parse_expression(p, 0))) {
            expr_free(e);
            return NULL;
        }
        if (!expect(p, EXPR_TOK_RBRACE, "'}'")) {
            expr_free(e);
            return NULL;
        }
        if (TOK.kind == EXPR_TOK_DIVIDE) {
            expr_free(e);
            return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "ratio rewards R{\"a\"}/{\"b\"} are not supported");
        }
    }
    if (!operator_relation(p, e, time ? "T" : "R")) {
        expr_free(e);
        return NULL;
    }
    return operator_brackets(p, fl, e, reward_contents);
}

static expr *steady_operator(expr_parser *p, int fl, int lra)
{
    expr *e = new_node(p, EXPR_STEADY, &TOK);
    if (!e)
        return NULL;
    e->flags = (uint8_t)lra;
    expr_parser_next(p);
    if (!operator_relation(p, e, lra ? "LRA" : "S")) {
        expr_free(e);
        return NULL;
    }
    return operator_brackets(p, fl, e, state_contents);
}

static expr *filter_expression(expr_parser *p, int fl)
{
    static const char *const names[] = {NULL,    "min",   "max",    "argmin", "argmax", "count",    "sum",   "avg",
                                        "first", "range", "forall", "exists", "print",  "printall", "state", "values"};
    expr *e = new_node(p, EXPR_FILTER, &TOK);
    if (!e)
        return NULL;
    expr_parser_next(p);
    if (!enter(p) || !expect(p, EXPR_TOK_LPAREN, "'(' after filter")) {
        expr_free(e);
        return NULL;
    }
    if (TOK.kind == EXPR_TOK_PLUS)
        e->op = EXPR_FILTER_SUM;
    else if (TOK.kind == EXPR_TOK_AND)
        e->op = EXPR_FILTER_FORALL;
    else if (TOK.kind == EXPR_TOK_OR)
        e->op = EXPR_FILTER_EXISTS;
    else
        for (int f = EXPR_FILTER_MIN; f <= EXPR_FILTER_VALUES; f++)
            if (IS(names[f]))
                e->op = (uint8_t)f;
    if (!e->op) {
        expected(p, "a filter operator (min, max, argmin, argmax, count, sum, avg, first, range, forall, exists, "
                    "print, printall, state)");
        expr_free(e);
        return NULL;
    }
    expr_parser_next(p);
    int ok = expect(p, EXPR_TOK_COMMA, "','") && (e->a = parse_expression(p, fl)) &&
             (!accept(p, EXPR_TOK_COMMA) || (e->b = parse_expression(p, fl))) &&
             expect(p, EXPR_TOK_RPAREN, "')' or ','");
    if (!ok) {
        expr_free(e);
        return NULL;
    }
    return e;
}

/* Names and keywords: literals, functions, operators, identifiers. */
static expr *name_or_keyword(expr_parser *p, int fl)
{
    expr_token t = TOK, next;
    expr_parser_after(p, &TOK, &next);
    if (IS("true") || IS("false"))
        return literal(p, EXPR_BOOL, IS("true"), 0);
    if (IS("min") || IS("max")) {
        int code = IS("min") ? EXPR_FN_MIN : EXPR_FN_MAX;
        expr_parser_next(p);
        return function_call(p, fl, &t, code);
    }
    if (IS("func")) { /* func(name, args) */
        expr_parser_next(p);
        if (!enter(p) || !expect(p, EXPR_TOK_LPAREN, "'(' after func"))
            return NULL;
        expr_token name = TOK;
        int code = function_code(p, &TOK);
        if (!code)
            return expected(p, "a function's name (min, max, floor, ceil, round, pow, mod, log)");
        expr_parser_next(p);
        if (!expect(p, EXPR_TOK_COMMA, "','"))
            return NULL;
        /* the arguments without their '(': parse them as a call whose '(' was the func's */
        expr *e = new_node(p, EXPR_FUNC, &name);
        if (!e)
            return NULL;
        e->op = (uint8_t)code;
        do {
            expr *a = parse_expression(p, fl);
            expr **more = a ? realloc(e->args, (e->nargs + 1) * sizeof *more) : NULL;
            if (!more) {
                expr_free(a);
                expr_free(e);
                return a ? expr_parser_fail(p, &TOK, CSR_ERR_NOMEM, "out of memory") : NULL;
            }
            e->args = more;
            e->args[e->nargs++] = a;
        } while (accept(p, EXPR_TOK_COMMA));
        uint32_t want = code == EXPR_FN_MIN || code == EXPR_FN_MAX ? 0 : code <= EXPR_FN_ROUND ? 1 : 2;
        if (!expect(p, EXPR_TOK_RPAREN, "')' or ','") || (want && e->nargs != want)) {
            if (!p->rc)
                expr_parser_fail(p, &name, CSR_ERR_SYNTAX, "%s takes %u argument%s, not %u", function_names[code],
                                 want, want == 1 ? "" : "s", e->nargs);
            expr_free(e);
            return NULL;
        }
        return e;
    }
    int property = 0;
    const char *what = NULL;
    if (IS("P") || IS("Pmin") || IS("Pmax"))
        property = 1, what = "a P operator";
    else if (IS("R") || IS("Rmin") || IS("Rmax"))
        property = 2, what = "an R operator";
    else if (IS("S"))
        property = 3, what = "an S operator";
    else if ((IS("E") || IS("A")) && next.kind == EXPR_TOK_LBRACKET)
        property = 4, what = "an E or A operator";
    else if (IS("filter"))
        property = 5, what = "a filter";
    else if (IS("LRA") && (fl & EXPR_PARSE_PROPERTY)) {
        expr_token after;
        expr_parser_after(p, &next, &after);
        if ((next.kind == EXPR_TOK_EQ && after.kind == EXPR_TOK_QMARK) || expr_token_is(p, &next, "min") ||
            expr_token_is(p, &next, "max"))
            property = 6, what = "an LRA operator";
    } else if ((IS("T") || IS("Tmin") || IS("Tmax")) && (fl & EXPR_PARSE_PROPERTY)) {
        /* Storm's time operator: T=?, T min=?, Tmin=?, Tmin>=b; otherwise
         * (T<5 over a variable T) an identifier */
        expr_token after;
        expr_parser_after(p, &next, &after);
        const int nk = next.kind;
        if ((nk == EXPR_TOK_EQ && after.kind == EXPR_TOK_QMARK) ||
            (IS("T") ? expr_token_is(p, &next, "min") || expr_token_is(p, &next, "max")
                     : nk == EXPR_TOK_LT || nk == EXPR_TOK_LE || nk == EXPR_TOK_GT || nk == EXPR_TOK_GE))
            property = 7, what = "a T operator";
    }
    if (property) {
        if (!(fl & EXPR_PARSE_PROPERTY))
            return expr_parser_fail(p, &t, CSR_ERR_SYNTAX, "%s outside a property's formulas (definitions and bounds take none)",
                                    what);
        switch (property) {
        case 1: return prob_operator(p, fl);
        case 2: return reward_operator(p, fl, 0);
        case 7: return reward_operator(p, fl, 1);
        case 3: return steady_operator(p, fl, 0);
        case 6: return steady_operator(p, fl, 1);
        case 5: return filter_expression(p, fl);
        default: {
            expr *e = new_node(p, IS("E") ? EXPR_EXISTS : EXPR_FORALL, &t);
            if (!e)
                return NULL;
            expr_parser_next(p);
            if (!enter(p) || !expect(p, EXPR_TOK_LBRACKET, "'['")) {
                expr_free(e);
                return NULL;
            }
            p->depth++;
            e->a = path_contents(p, fl);
            p->depth--;
            if (!e->a || !expect(p, EXPR_TOK_RBRACKET, "']'")) {
                expr_free(e);
                return NULL;
            }
            return e;
        }
        }
    }
    if (expr_is_keyword(p->text + t.offset, t.length))
        return expr_parser_fail(p, &t, CSR_ERR_SYNTAX, "'%.*s' is a keyword of PRISM's language, not a name here",
                                (int)t.length, p->text + t.offset);
    if (next.kind == EXPR_TOK_LPAREN) {
        int code = function_code(p, &t);
        if (!code)
            return expr_parser_fail(p, &t, CSR_ERR_SYNTAX,
                                    "unknown function '%.*s' (PRISM's: min, max, floor, ceil, round, pow, mod, log)",
                                    (int)t.length, p->text + t.offset);
        expr_parser_next(p);
        return function_call(p, fl, &t, code);
    }
    expr *e = new_node(p, EXPR_IDENT, &t);
    if (e && !(e->name = token_strdup(p, &t))) {
        expr_free(e);
        return NULL;
    }
    expr_parser_next(p);
    return e;
}

static expr *parse_basic(expr_parser *p, int fl)
{
    switch (TOK.kind) {
    case EXPR_TOK_INT:
    case EXPR_TOK_DOUBLE:
        return number(p);
    case EXPR_TOK_IDENT:
        return name_or_keyword(p, fl);
    case EXPR_TOK_QUOTED: {
        if (!(fl & EXPR_PARSE_PROPERTY))
            return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX,
                                    "a label (\"%.*s\") outside a property's formulas (definitions and bounds take none)",
                                    (int)(TOK.length > 40 ? 40 : TOK.length), p->text + TOK.offset);
        if (!TOK.length)
            return expr_parser_fail(p, &TOK, CSR_ERR_SYNTAX, "a label without a name (\"\")");
        expr *e = new_node(p, EXPR_LABEL, &TOK);
        if (e && !(e->name = token_strdup(p, &TOK))) {
            expr_free(e);
            return NULL;
        }
        if (e)
            expr_parser_next(p);
        return e;
    }
    case EXPR_TOK_LPAREN: {
        if (!enter(p))
            return NULL;
        expr_parser_next(p);
        expr *e = parse_expression(p, fl);
        if (e && !expect(p, EXPR_TOK_RPAREN, "')'")) {
            expr_free(e);
            return NULL;
        }
        return e;
    }
    default:
        return expected(p, "an expression");
    }
}

expr *expr_parse(expr_parser *p, int flags, int top)
{
    if (p->rc)
        return NULL;
    return top ? parse_ite(p, flags) : parse_expression(p, flags);
}

/* ---- types (TypeCheck.java) --------------------------------------------- */

static int is_number(int t) { return t == EXPR_INT || t == EXPR_DOUBLE; }
static int is_boolish(int t) { return t == EXPR_BOOL || t == EXPR_PATH; }

static int type_error(const expr *at, csr_status *st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int type_error(const expr *at, csr_status *st, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail_at(st, CSR_ERR_SYNTAX, at->line, at->column, "type error: %s", msg);
}

/* A type error at e's operator token. */
static int type_error_op(const expr *e, csr_status *st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int type_error_op(const expr *e, csr_status *st, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail_at(st, CSR_ERR_SYNTAX, e->op_column ? e->op_line : e->line, e->op_column ? e->op_column : e->column,
                   "type error: %s", msg);
}

static const char *op_symbol(int op)
{
    static const char *const s[] = {"", "=>", "<=>", "|", "&", "=", "!=", ">", ">=", "<", "<=", "+", "-", "*", "/", "^"};
    return op > 0 && op <= EXPR_POW ? s[op] : op == EXPR_NOT ? "!" : op == EXPR_NEG ? "-" : "?";
}

/* An operator's own evaluation may fail (int overflow, mod, floor, ...). */
static int own_failure(const expr *e)
{
    if (e->kind == EXPR_UNARY)
        return e->op == EXPR_NEG && e->type == EXPR_INT;
    if (e->kind == EXPR_BINARY)
        return e->type == EXPR_INT;
    if (e->kind == EXPR_FUNC)
        return e->op == EXPR_FN_FLOOR || e->op == EXPR_FN_CEIL || e->op == EXPR_FN_ROUND || e->op == EXPR_FN_MOD ||
               (e->op == EXPR_FN_POW && e->type == EXPR_INT);
    return 0;
}

static int operand_types(expr *e, csr_status *st)
{
    const expr *a = e->a, *b = e->b;
    switch (e->kind) {
    case EXPR_LITERAL:
    case EXPR_IDENT:
    case EXPR_LABEL:
        if (!e->type)
            return fail_at(st, CSR_ERR_USAGE, e->line, e->column, "'%s' is not bound", e->name ? e->name : "?");
        return 0;
    case EXPR_UNARY:
        if (e->op == EXPR_NOT && !is_boolish(a->type))
            return type_error(a, st, "! applied to %s %s (wants a bool)", a->type == EXPR_INT ? "an" : "a",
                              expr_type_name(a->type));
        if (e->op == EXPR_NEG && !is_number(a->type))
            return type_error(a, st, "- applied to a %s (wants an int or a double)", expr_type_name(a->type));
        e->type = a->type;
        return 0;
    case EXPR_BINARY:
        switch (e->op) {
        case EXPR_IMPLIES:
        case EXPR_IFF:
        case EXPR_OR:
        case EXPR_AND:
            if (!is_boolish(a->type) || !is_boolish(b->type)) {
                const expr *x = !is_boolish(a->type) ? a : b;
                return type_error(x, st, "%s applied to %s %s (wants bools)", op_symbol(e->op),
                                  x->type == EXPR_INT ? "an" : "a", expr_type_name(x->type));
            }
            e->type = a->type == EXPR_PATH || b->type == EXPR_PATH ? EXPR_PATH : EXPR_BOOL;
            return 0;
        case EXPR_EQ:
        case EXPR_NE:
            if (!((a->type == EXPR_BOOL && b->type == EXPR_BOOL) || (is_number(a->type) && is_number(b->type))))
                return type_error_op(e, st, "%s cannot compare %s %s and %s %s", op_symbol(e->op),
                                  a->type == EXPR_INT ? "an" : "a", expr_type_name(a->type),
                                  b->type == EXPR_INT ? "an" : "a", expr_type_name(b->type));
            e->type = EXPR_BOOL;
            return 0;
        case EXPR_GT:
        case EXPR_GE:
        case EXPR_LT:
        case EXPR_LE:
            if (!is_number(a->type) || !is_number(b->type))
                return type_error_op(e, st, "%s cannot compare %s %s and %s %s", op_symbol(e->op),
                                  a->type == EXPR_INT ? "an" : "a", expr_type_name(a->type),
                                  b->type == EXPR_INT ? "an" : "a", expr_type_name(b->type));
            e->type = EXPR_BOOL;
            return 0;
        default: /* + - * / ^ */
            if (!is_number(a->type) || !is_number(b->type)) {
                const expr *x = !is_number(a->type) ? a : b;
                return type_error(x, st, "%s applied to a %s (wants ints or doubles)", op_symbol(e->op),
                                  expr_type_name(x->type));
            }
            e->type = e->op == EXPR_DIVIDE || a->type == EXPR_DOUBLE || b->type == EXPR_DOUBLE ? EXPR_DOUBLE : EXPR_INT;
            return 0;
        }
    case EXPR_ITE: {
        const expr *c = e->c;
        if (a->type != EXPR_BOOL)
            return type_error(a, st, "the condition of ? : is %s %s, not a bool", a->type == EXPR_INT ? "an" : "a",
                              expr_type_name(a->type));
        if (!((b->type == EXPR_BOOL && c->type == EXPR_BOOL) || (is_number(b->type) && is_number(c->type))))
            return type_error(e, st, "the branches of ? : are %s %s and %s %s", b->type == EXPR_INT ? "an" : "a",
                              expr_type_name(b->type), c->type == EXPR_INT ? "an" : "a", expr_type_name(c->type));
        e->type = b->type == EXPR_BOOL ? EXPR_BOOL : b->type == EXPR_INT && c->type == EXPR_INT ? EXPR_INT : EXPR_DOUBLE;
        return 0;
    }
    case EXPR_FUNC: {
        int any_double = 0;
        for (uint32_t i = 0; i < e->nargs; i++) {
            const expr *x = e->args[i];
            if (e->op == EXPR_FN_MOD && x->type != EXPR_INT)
                return type_error(x, st, "mod takes ints, not a %s", expr_type_name(x->type));
            if (!is_number(x->type))
                return type_error(x, st, "%s takes ints or doubles, not a %s", function_names[e->op],
                                  expr_type_name(x->type));
            any_double |= x->type == EXPR_DOUBLE;
        }
        switch (e->op) {
        case EXPR_FN_MIN:
        case EXPR_FN_MAX:
        case EXPR_FN_POW:
            e->type = any_double ? EXPR_DOUBLE : EXPR_INT;
            break;
        case EXPR_FN_LOG:
            e->type = EXPR_DOUBLE;
            break;
        default: /* floor ceil round mod */
            e->type = EXPR_INT;
        }
        return 0;
    }
    case EXPR_PROB:
    case EXPR_REWARD:
    case EXPR_STEADY: {
        const char *name = e->kind == EXPR_PROB ? "P" : e->kind == EXPR_REWARD ? (e->flags ? "T" : "R") : e->flags ? "LRA" : "S";
        if (b && !is_number(b->type))
            return type_error(b, st, "the bound of %s is a %s, not a number", name, expr_type_name(b->type));
        if (e->c && e->c->type != EXPR_INT)
            return type_error(e->c, st, "a reward structure's index is a %s, not an int", expr_type_name(e->c->type));
        int ok = e->kind == EXPR_STEADY ? a->type == EXPR_BOOL
                 : e->kind == EXPR_PROB ? is_boolish(a->type)
                                        : is_boolish(a->type) || a->type == EXPR_REWARD_PATH;
        if (!ok)
            return type_error(a, st, "the contents of %s is a %s, not a %s", name, expr_type_name(a->type),
                              e->kind == EXPR_STEADY ? "bool" : "path formula");
        e->type = e->op == EXPR_QUERY ? EXPR_DOUBLE : EXPR_BOOL;
        return 0;
    }
    case EXPR_TEMPORAL:
        for (uint32_t i = 0; i < e->nbounds; i++) {
            const expr *v[2] = {e->bounds[i].value, e->bounds[i].upper};
            for (int k = 0; k < 2; k++)
                if (v[k] && !is_number(v[k]->type))
                    return type_error(v[k], st, "a bound is a %s, not a number", expr_type_name(v[k]->type));
        }
        if ((a && !is_boolish(a->type)) || !is_boolish(b->type)) {
            const expr *x = a && !is_boolish(a->type) ? a : b;
            return type_error(x, st, "the operand of a path operator is a %s, not a bool", expr_type_name(x->type));
        }
        e->type = EXPR_PATH;
        return 0;
    case EXPR_CUMULATIVE:
    case EXPR_INSTANT:
    case EXPR_LONGRUN:
        if (b && !is_number(b->type))
            return type_error(b, st, "a bound is a %s, not a number", expr_type_name(b->type));
        e->type = EXPR_REWARD_PATH;
        return 0;
    case EXPR_FILTER: {
        if (b && b->type != EXPR_BOOL)
            return type_error(b, st, "the states of a filter are a %s, not a bool", expr_type_name(b->type));
        int t = a->type, op = e->op;
        if (!(t == EXPR_BOOL || is_number(t)))
            return type_error(a, st, "a filter of a %s", expr_type_name(t));
        if ((op == EXPR_FILTER_MIN || op == EXPR_FILTER_MAX || op == EXPR_FILTER_ARGMIN || op == EXPR_FILTER_ARGMAX ||
             op == EXPR_FILTER_SUM || op == EXPR_FILTER_AVG || op == EXPR_FILTER_RANGE) &&
            t == EXPR_BOOL)
            return type_error(a, st, "a bool operand for a filter of numbers");
        if ((op == EXPR_FILTER_COUNT || op == EXPR_FILTER_FORALL || op == EXPR_FILTER_EXISTS) && t != EXPR_BOOL)
            return type_error(a, st, "the operand of this filter is a %s, not a bool", expr_type_name(t));
        e->type = op == EXPR_FILTER_COUNT                                   ? EXPR_INT
                  : op == EXPR_FILTER_AVG                                   ? EXPR_DOUBLE
                  : op == EXPR_FILTER_ARGMIN || op == EXPR_FILTER_ARGMAX ||
                            op == EXPR_FILTER_FORALL || op == EXPR_FILTER_EXISTS ? EXPR_BOOL
                                                                            : (uint8_t)t;
        return 0;
    }
    case EXPR_EXISTS:
    case EXPR_FORALL:
        if (!is_boolish(a->type))
            return type_error(a, st, "the contents of %s is a %s, not a path formula",
                              e->kind == EXPR_EXISTS ? "E" : "A", expr_type_name(a->type));
        e->type = EXPR_BOOL;
        return 0;
    }
    return fail_at(st, CSR_ERR_USAGE, e->line, e->column, "an unknown node");
}

int expr_type_node(expr *e, csr_status *st)
{
    int rc = operand_types(e, st);
    if (rc)
        return rc;
    int fail = own_failure(e), constant = e->kind != EXPR_LITERAL && e->kind != EXPR_IDENT && e->kind != EXPR_LABEL;
    const expr *ops[3] = {e->a, e->b, e->c};
    for (int k = 0; k < 3; k++)
        if (ops[k]) {
            fail |= ops[k]->may_fail;
            constant &= ops[k]->folded;
        }
    for (uint32_t i = 0; i < e->nargs; i++) {
        fail |= e->args[i]->may_fail;
        constant &= e->args[i]->folded;
    }
    if (e->kind == EXPR_IDENT && e->ref == EXPR_REF_FORMULA && e->def)
        fail |= e->def->may_fail;
    e->may_fail = (uint8_t)fail;
    if (constant && (e->kind == EXPR_UNARY || e->kind == EXPR_BINARY || e->kind == EXPR_ITE || e->kind == EXPR_FUNC)) {
        expr_value v;
        csr_status ignored;
        if (expr_eval_constant(e, &v, &ignored) == CSR_OK) { /* else the error comes where it is evaluated */
            e->value = v;
            e->folded = 1;
        }
    }
    return CSR_OK;
}

/* ---- scalar operations (ExpressionBinaryOp, ExpressionUnaryOp, ExpressionFunc) ---- */

enum { OK = 0, E_OVERFLOW, E_MOD, E_NEGEXP, E_POWOVER, E_TOINT };
static const char *const failure_text[] = {
    "", "integer overflow (PRISM's integers are 32-bit)", "mod with a non-positive divisor",
    "a negative exponent in an integer power", "integer overflow in a power", "a value outside the int range"};

static inline int fits32(int64_t r) { return r >= INT32_MIN && r <= INT32_MAX; }
static inline int i_add(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r) || !fits32(*r); }
static inline int i_sub(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r) || !fits32(*r); }
static inline int i_mul(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r) || !fits32(*r); }
static inline int i_neg(int64_t a, int64_t *r) { return __builtin_sub_overflow((int64_t)0, a, r) || !fits32(*r); }

/* Java's Math.pow: NaN for a NaN exponent, and for |x| = 1 with an infinite one */
static inline double j_pow(double x, double y)
{
    if (y != y || (isinf(y) && fabs(x) == 1))
        return y == 0 ? 1 : NAN;
    return pow(x, y);
}
/* SafeCast.toIntExact(double): finite, integral, within int */
static inline int to_int(double d, int64_t *r)
{
    if (!(d >= INT32_MIN && d <= INT32_MAX) || d != floor(d))
        return E_TOINT;
    *r = (int64_t)d;
    return OK;
}
static inline int i_pow(int64_t a, int64_t b, int64_t *r)
{
    if (b < 0)
        return E_NEGEXP;
    return to_int(j_pow((double)a, (double)b), r) ? E_POWOVER : OK;
}
static inline int i_mod(int64_t a, int64_t b, int64_t *r)
{
    if (b <= 0)
        return E_MOD;
    int64_t m = a % b;
    *r = m < 0 ? m + b : m;
    return OK;
}
/* Math.round (half up, NaN 0) then toIntExact */
static inline int d_round(double x, int64_t *r)
{
    if (x != x) {
        *r = 0;
        return OK;
    }
    double f = floor(x);
    if (x - f >= 0.5)
        f += 1;
    return to_int(f, r);
}
static inline double j_min(double a, double b)
{
    if (a != a || b != b)
        return NAN;
    if (a == 0 && b == 0)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline double j_max(double a, double b)
{
    if (a != a || b != b)
        return NAN;
    if (a == 0 && b == 0)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}
/* PrismUtils.log */
static inline double j_log(double x, double b)
{
    if (b <= 0 || b == 1 || isinf(b) || b != b)
        return NAN;
    return log(x) / log(b);
}
/* Double.equals: by bits (NaN = NaN, 0.0 != -0.0) */
static inline int d_equals(double a, double b) { return (a != a && b != b) || (a == b && signbit(a) == signbit(b)); }

static double as_double(const expr_value *v) { return v->type == EXPR_DOUBLE ? v->d : (double)v->i; }

/* ---- constant evaluation ------------------------------------------------- */

typedef struct eval_failure {
    const expr *at;
    int what;
} eval_failure;

static int eval(const expr *e, expr_value *v, eval_failure *f);

static int eval_binary(const expr *e, expr_value *v, eval_failure *f)
{
    expr_value x, y;
    int rc = eval(e->a, &x, f);
    if (rc)
        return rc;
    switch (e->op) { /* lazy ones */
    case EXPR_AND:
    case EXPR_OR:
    case EXPR_IMPLIES:
        v->type = EXPR_BOOL;
        if ((e->op == EXPR_AND && !x.i) || (e->op == EXPR_OR && x.i) || (e->op == EXPR_IMPLIES && !x.i)) {
            v->i = e->op != EXPR_AND;
            return 0;
        }
        if ((rc = eval(e->b, &y, f)))
            return rc;
        v->i = y.i != 0;
        return 0;
    }
    if ((rc = eval(e->b, &y, f)))
        return rc;
    v->type = e->type;
    v->i = 0;
    v->d = 0;
    const int ints = x.type == EXPR_INT && y.type == EXPR_INT;
    int bad = OK;
    switch (e->op) {
    case EXPR_IFF:
        v->i = (x.i != 0) == (y.i != 0);
        break;
    case EXPR_EQ:
    case EXPR_NE: {
        int eq = x.type == EXPR_BOOL ? (x.i != 0) == (y.i != 0) : ints ? x.i == y.i : d_equals(as_double(&x), as_double(&y));
        v->i = e->op == EXPR_EQ ? eq : !eq;
        break;
    }
    case EXPR_GT: v->i = ints ? x.i > y.i : as_double(&x) > as_double(&y); break;
    case EXPR_GE: v->i = ints ? x.i >= y.i : as_double(&x) >= as_double(&y); break;
    case EXPR_LT: v->i = ints ? x.i < y.i : as_double(&x) < as_double(&y); break;
    case EXPR_LE: v->i = ints ? x.i <= y.i : as_double(&x) <= as_double(&y); break;
    case EXPR_PLUS:
        if (ints)
            bad = i_add(x.i, y.i, &v->i) ? E_OVERFLOW : OK;
        else
            v->d = as_double(&x) + as_double(&y);
        break;
    case EXPR_MINUS:
        if (ints)
            bad = i_sub(x.i, y.i, &v->i) ? E_OVERFLOW : OK;
        else
            v->d = as_double(&x) - as_double(&y);
        break;
    case EXPR_TIMES:
        if (ints)
            bad = i_mul(x.i, y.i, &v->i) ? E_OVERFLOW : OK;
        else
            v->d = as_double(&x) * as_double(&y);
        break;
    case EXPR_DIVIDE:
        v->d = as_double(&x) / as_double(&y);
        break;
    case EXPR_POW:
        if (ints)
            bad = i_pow(x.i, y.i, &v->i);
        else
            v->d = j_pow(as_double(&x), as_double(&y));
        break;
    }
    if (bad) {
        f->at = e;
        f->what = bad;
        return CSR_ERR_RANGE;
    }
    return 0;
}

static int eval_func(const expr *e, expr_value *v, eval_failure *f)
{
    expr_value x, y;
    int rc = eval(e->args[0], &x, f);
    if (rc)
        return rc;
    v->type = e->type;
    v->i = 0;
    v->d = 0;
    int bad = OK;
    switch (e->op) {
    case EXPR_FN_MIN:
    case EXPR_FN_MAX:
        *v = x;
        if (e->type == EXPR_DOUBLE)
            v->d = as_double(&x), v->type = EXPR_DOUBLE;
        for (uint32_t k = 1; k < e->nargs; k++) {
            if ((rc = eval(e->args[k], &y, f)))
                return rc;
            if (e->type == EXPR_INT)
                v->i = e->op == EXPR_FN_MIN ? (y.i < v->i ? y.i : v->i) : (y.i > v->i ? y.i : v->i);
            else
                v->d = e->op == EXPR_FN_MIN ? j_min(v->d, as_double(&y)) : j_max(v->d, as_double(&y));
        }
        return 0;
    case EXPR_FN_FLOOR:
        bad = to_int(floor(as_double(&x)), &v->i);
        break;
    case EXPR_FN_CEIL:
        bad = to_int(ceil(as_double(&x)), &v->i);
        break;
    case EXPR_FN_ROUND:
        bad = d_round(as_double(&x), &v->i);
        break;
    default:
        if ((rc = eval(e->args[1], &y, f)))
            return rc;
        if (e->op == EXPR_FN_MOD)
            bad = i_mod(x.i, y.i, &v->i);
        else if (e->op == EXPR_FN_LOG)
            v->d = j_log(as_double(&x), as_double(&y));
        else if (e->type == EXPR_INT)
            bad = i_pow(x.i, y.i, &v->i);
        else
            v->d = j_pow(as_double(&x), as_double(&y));
    }
    if (bad) {
        f->at = e;
        f->what = bad;
        return CSR_ERR_RANGE;
    }
    return 0;
}

static int eval(const expr *e, expr_value *v, eval_failure *f)
{
    if (e->folded) {
        *v = e->value;
        return 0;
    }
    int rc;
    switch (e->kind) {
    case EXPR_IDENT:
        if (e->ref == EXPR_REF_FORMULA && e->def)
            return eval(e->def, v, f);
        break;
    case EXPR_UNARY:
        if ((rc = eval(e->a, v, f)))
            return rc;
        if (e->op == EXPR_NOT)
            v->i = !v->i;
        else if (v->type == EXPR_DOUBLE)
            v->d = -v->d;
        else if (i_neg(v->i, &v->i)) {
            f->at = e;
            f->what = E_OVERFLOW;
            return CSR_ERR_RANGE;
        }
        return 0;
    case EXPR_BINARY:
        return eval_binary(e, v, f);
    case EXPR_ITE: {
        expr_value c;
        if ((rc = eval(e->a, &c, f)) || (rc = eval(c.i ? e->b : e->c, v, f)))
            return rc;
        if (e->type == EXPR_DOUBLE && v->type == EXPR_INT)
            v->d = (double)v->i, v->type = EXPR_DOUBLE;
        return 0;
    }
    case EXPR_FUNC:
        return eval_func(e, v, f);
    }
    f->at = e;
    f->what = -1;
    return CSR_ERR_USAGE;
}

int expr_eval_constant(const expr *e, expr_value *out, csr_status *st)
{
    eval_failure f = {NULL, 0};
    int rc = eval(e, out, &f);
    if (!rc)
        return CSR_OK;
    if (f.what < 0)
        return fail_at(st, rc, f.at->line, f.at->column, "not a constant (%s)",
                       f.at->kind == EXPR_IDENT ? "a state variable" : f.at->kind == EXPR_LABEL ? "a label" : "an operator");
    return fail_at(st, rc, f.at->op_column ? f.at->op_line : f.at->line, f.at->op_column ? f.at->op_column : f.at->column,
                   "%s", failure_text[f.what]);
}

/* ---- evaluation over blocks of states ------------------------------------ */

typedef union slot {
    uint8_t b[EXPR_BLOCK];
    int64_t i[EXPR_BLOCK];
    double d[EXPR_BLOCK];
} slot;

typedef struct block_ctx {
    const csr_model *m;
    uint64_t first, count; /* the block */
    slot **slots;
    int nslots, used, cap;
    uint8_t bad[EXPR_BLOCK]; /* lanes whose operation failed */
    /* the first failure */
    int rc, what;
    const expr *at;
    uint64_t state;
} block_ctx;

static slot *take(block_ctx *c)
{
    if (c->used == c->nslots) {
        if (c->nslots == c->cap) {
            int cap = c->cap ? 2 * c->cap : 8;
            slot **more = realloc(c->slots, (size_t)cap * sizeof *more);
            if (!more)
                return NULL;
            c->slots = more;
            c->cap = cap;
        }
        slot *s = aligned_alloc(64, sizeof(slot));
        if (!s)
            return NULL;
        memset(s, 0, sizeof *s);
        c->slots[c->nslots++] = s;
    }
    return c->slots[c->used++];
}

/* Lanes where bad[] is set: the first one active under mask fails the block. */
static int lanes_failed(block_ctx *c, const expr *e, const uint8_t *mask, int what)
{
    for (uint64_t i = 0; i < c->count; i++)
        if (c->bad[i] && (!mask || mask[i])) {
            c->rc = CSR_ERR_RANGE;
            c->what = what;
            c->at = e;
            c->state = c->first + i;
            return CSR_ERR_RANGE;
        }
    return 0;
}

/* The kernels run over whole blocks (a fixed trip count the compiler may
 * unroll and vectorize); lanes past a last, short block hold leftovers
 * nobody reads (lanes_failed looks at count lanes only). */
#define LANES for (uint64_t i = 0; i < EXPR_BLOCK; i++)

static void to_doubles(slot *s, int type)
{
    if (type == EXPR_INT) {
        const int64_t *restrict from = s->i;
        double tmp[64];
        for (uint64_t k = 0; k < EXPR_BLOCK; k += 64) { /* through a buffer: no aliasing of the union's members */
            for (uint64_t i = 0; i < 64; i++)
                tmp[i] = (double)from[k + i];
            memcpy(s->d + k, tmp, sizeof tmp);
        }
    }
}

static int veval(block_ctx *c, const expr *e, slot *out, const uint8_t *mask);

/* A value broadcast over the block. */
static void broadcast(const expr_value *v, int type, slot *out)
{
    if (type == EXPR_BOOL)
        memset(out->b, v->i != 0, EXPR_BLOCK);
    else if (type == EXPR_INT) {
        int64_t *restrict o = out->i;
        const int64_t x = v->i;
        LANES o[i] = x;
    } else {
        double *restrict o = out->d;
        const double d = as_double(v);
        LANES o[i] = d;
    }
}

/* The states of a sorted list within the block. */
static void mark_states(block_ctx *c, const uint32_t *list, uint64_t lo, uint64_t hi, slot *out)
{
    memset(out->b, 0, EXPR_BLOCK);
    uint64_t from = lower_bound_u32(list, lo, hi, c->first), to = lower_bound_u32(list, from, hi, c->first + c->count);
    for (uint64_t j = from; j < to; j++)
        out->b[list[j] - c->first] = 1;
}

static int veval_logical(block_ctx *c, const expr *e, slot *out, const uint8_t *mask)
{
    int rc = veval(c, e->a, out, mask);
    if (rc)
        return rc;
    const uint8_t *bmask = mask;
    slot *m = NULL;
    if (e->b->may_fail && e->op != EXPR_IFF) { /* the lanes where b is evaluated */
        if (!(m = take(c)))
            return CSR_ERR_NOMEM;
        const uint8_t *restrict a = out->b;
        uint8_t *restrict mb = m->b;
        if (e->op == EXPR_OR)
            LANES mb[i] = (uint8_t)!a[i];
        else
            memcpy(mb, a, EXPR_BLOCK);
        if (mask)
            LANES mb[i] &= mask[i];
        bmask = mb;
    }
    slot *t = take(c);
    if (!t)
        return CSR_ERR_NOMEM;
    if ((rc = veval(c, e->b, t, bmask)))
        return rc;
    uint8_t *restrict o = out->b;
    const uint8_t *restrict y = t->b;
    switch (e->op) {
    case EXPR_AND: LANES o[i] &= y[i]; break;
    case EXPR_OR: LANES o[i] |= y[i]; break;
    case EXPR_IMPLIES: LANES o[i] = (uint8_t)((!o[i]) | y[i]); break;
    default: LANES o[i] = (uint8_t)(o[i] == y[i]); break;
    }
    c->used -= m ? 2 : 1;
    return 0;
}

static int veval_compare(block_ctx *c, const expr *e, slot *out, const uint8_t *mask)
{
    slot *x = take(c), *y = x ? take(c) : NULL;
    if (!y)
        return CSR_ERR_NOMEM;
    int rc = veval(c, e->a, x, mask);
    if (rc || (rc = veval(c, e->b, y, mask)))
        return rc;
    uint8_t *restrict o = out->b;
    const int ta = e->a->type, tb = e->b->type, op = e->op;
    if (ta == EXPR_BOOL) {
        const uint8_t *restrict p = x->b, *restrict q = y->b;
        if (op == EXPR_EQ)
            LANES o[i] = p[i] == q[i];
        else
            LANES o[i] = p[i] != q[i];
    } else if (ta == EXPR_INT && tb == EXPR_INT) {
        const int64_t *restrict p = x->i, *restrict q = y->i;
        switch (op) {
        case EXPR_EQ: LANES o[i] = p[i] == q[i]; break;
        case EXPR_NE: LANES o[i] = p[i] != q[i]; break;
        case EXPR_GT: LANES o[i] = p[i] > q[i]; break;
        case EXPR_GE: LANES o[i] = p[i] >= q[i]; break;
        case EXPR_LT: LANES o[i] = p[i] < q[i]; break;
        default: LANES o[i] = p[i] <= q[i]; break;
        }
    } else {
        to_doubles(x, ta);
        to_doubles(y, tb);
        const double *restrict p = x->d, *restrict q = y->d;
        switch (op) {
        case EXPR_EQ: LANES o[i] = (uint8_t)d_equals(p[i], q[i]); break;
        case EXPR_NE: LANES o[i] = (uint8_t)!d_equals(p[i], q[i]); break;
        case EXPR_GT: LANES o[i] = p[i] > q[i]; break;
        case EXPR_GE: LANES o[i] = p[i] >= q[i]; break;
        case EXPR_LT: LANES o[i] = p[i] < q[i]; break;
        default: LANES o[i] = p[i] <= q[i]; break;
        }
    }
    c->used -= 2;
    return 0;
}

static int veval_arith(block_ctx *c, const expr *e, slot *out, const uint8_t *mask)
{
    int rc = veval(c, e->a, out, mask);
    if (rc)
        return rc;
    slot *t = take(c);
    if (!t)
        return CSR_ERR_NOMEM;
    if ((rc = veval(c, e->b, t, mask)))
        return rc;
    c->used--;
    if (e->type == EXPR_INT) {
        int64_t *restrict o = out->i;
        const int64_t *restrict y = t->i;
        uint8_t *restrict bad = c->bad;
        int any = 0, what = E_OVERFLOW;
        switch (e->op) {
        case EXPR_PLUS: LANES any |= bad[i] = (uint8_t)i_add(o[i], y[i], &o[i]); break;
        case EXPR_MINUS: LANES any |= bad[i] = (uint8_t)i_sub(o[i], y[i], &o[i]); break;
        case EXPR_TIMES: LANES any |= bad[i] = (uint8_t)i_mul(o[i], y[i], &o[i]); break;
        default: /* ^ */
            LANES {
                int k = i_pow(o[i], y[i], &o[i]);
                bad[i] = k != OK;
                if (k)
                    what = k, any = 1;
            }
        }
        return any ? lanes_failed(c, e, mask, what) : 0;
    }
    to_doubles(out, e->a->type);
    to_doubles(t, e->b->type);
    double *restrict o = out->d;
    const double *restrict y = t->d;
    switch (e->op) {
    case EXPR_PLUS: LANES o[i] += y[i]; break;
    case EXPR_MINUS: LANES o[i] -= y[i]; break;
    case EXPR_TIMES: LANES o[i] *= y[i]; break;
    case EXPR_DIVIDE: LANES o[i] /= y[i]; break;
    default: LANES o[i] = j_pow(o[i], y[i]); break;
    }
    return 0;
}

static int veval_ite(block_ctx *c, const expr *e, slot *out, const uint8_t *mask)
{
    slot *cond = take(c), *other = cond ? take(c) : NULL, *m = NULL;
    if (!other)
        return CSR_ERR_NOMEM;
    int rc = veval(c, e->a, cond, mask);
    if (rc)
        return rc;
    const uint8_t *cb = cond->b, *tmask = mask, *emask = mask;
    if (e->b->may_fail || e->c->may_fail) {
        if (!(m = take(c)))
            return CSR_ERR_NOMEM;
        memcpy(m->b, cb, EXPR_BLOCK);
        if (mask)
            LANES m->b[i] &= mask[i];
        tmask = m->b;
    }
    if ((rc = veval(c, e->b, out, tmask)))
        return rc;
    if (m) {
        LANES m->b[i] = (uint8_t)((!cb[i]) & (mask ? mask[i] : 1));
        emask = m->b;
    }
    if ((rc = veval(c, e->c, other, emask)))
        return rc;
    if (e->type == EXPR_BOOL)
        LANES out->b[i] = cb[i] ? out->b[i] : other->b[i];
    else if (e->type == EXPR_INT)
        LANES out->i[i] = cb[i] ? out->i[i] : other->i[i];
    else {
        to_doubles(out, e->b->type);
        to_doubles(other, e->c->type);
        LANES out->d[i] = cb[i] ? out->d[i] : other->d[i];
    }
    c->used -= m ? 3 : 2;
    return 0;
}

static int veval_func(block_ctx *c, const expr *e, slot *out, const uint8_t *mask)
{
    int rc = veval(c, e->args[0], out, mask);
    if (rc)
        return rc;
    const int t0 = e->args[0]->type;
    uint8_t *bad = c->bad;
    int any = 0, what = E_TOINT;
    switch (e->op) {
    case EXPR_FN_FLOOR:
    case EXPR_FN_CEIL:
    case EXPR_FN_ROUND:
        if (t0 == EXPR_INT) /* an int is its own floor */
            return 0;
        if (e->op == EXPR_FN_FLOOR)
            LANES any |= bad[i] = (uint8_t)(to_int(floor(out->d[i]), &out->i[i]) != OK);
        else if (e->op == EXPR_FN_CEIL)
            LANES any |= bad[i] = (uint8_t)(to_int(ceil(out->d[i]), &out->i[i]) != OK);
        else
            LANES any |= bad[i] = (uint8_t)(d_round(out->d[i], &out->i[i]) != OK);
        return any ? lanes_failed(c, e, mask, what) : 0;
    default:
        break;
    }
    if (e->type == EXPR_DOUBLE)
        to_doubles(out, t0);
    slot *t = take(c);
    if (!t)
        return CSR_ERR_NOMEM;
    for (uint32_t k = 1; k < e->nargs; k++) {
        if ((rc = veval(c, e->args[k], t, mask)))
            return rc;
        if (e->type == EXPR_DOUBLE)
            to_doubles(t, e->args[k]->type);
        switch (e->op) {
        case EXPR_FN_MIN:
            if (e->type == EXPR_INT)
                LANES out->i[i] = t->i[i] < out->i[i] ? t->i[i] : out->i[i];
            else
                LANES out->d[i] = j_min(out->d[i], t->d[i]);
            break;
        case EXPR_FN_MAX:
            if (e->type == EXPR_INT)
                LANES out->i[i] = t->i[i] > out->i[i] ? t->i[i] : out->i[i];
            else
                LANES out->d[i] = j_max(out->d[i], t->d[i]);
            break;
        case EXPR_FN_MOD:
            LANES any |= bad[i] = (uint8_t)(i_mod(out->i[i], t->i[i], &out->i[i]) != OK);
            what = E_MOD;
            break;
        case EXPR_FN_LOG:
            LANES out->d[i] = j_log(out->d[i], t->d[i]);
            break;
        default: /* pow */
            if (e->type == EXPR_INT) {
                LANES {
                    int k2 = i_pow(out->i[i], t->i[i], &out->i[i]);
                    bad[i] = k2 != OK;
                    if (k2)
                        what = k2, any = 1;
                }
            } else {
                LANES out->d[i] = j_pow(out->d[i], t->d[i]);
            }
        }
    }
    c->used--;
    return any ? lanes_failed(c, e, mask, what) : 0;
}

static int veval(block_ctx *c, const expr *e, slot *out, const uint8_t *mask)
{
    const uint64_t n = c->count;
    if (e->folded) {
        broadcast(&e->value, e->type, out);
        return 0;
    }
    switch (e->kind) {
    case EXPR_IDENT:
        if (e->ref == EXPR_REF_FORMULA)
            return veval(c, e->def, out, mask);
        if (e->ref == EXPR_REF_VARIABLE) {
            if (e->type != EXPR_BOOL) {
                csr_variable_values(c->m, (uint64_t)e->index, c->first, n, out->i);
                return 0;
            }
            slot *t = take(c);
            if (!t)
                return CSR_ERR_NOMEM;
            csr_variable_values(c->m, (uint64_t)e->index, c->first, n, t->i);
            uint8_t *restrict o = out->b;
            const int64_t *restrict v = t->i;
            LANES o[i] = (uint8_t)(v[i] != 0);
            c->used--;
            return 0;
        }
        break;
    case EXPR_LABEL:
        if (e->ref == EXPR_REF_MODEL_LABEL) {
            const uint64_t l = (uint64_t)e->index;
            mark_states(c, c->m->label_states, c->m->label_first[l], c->m->label_first[l + 1], out);
            return 0;
        }
        if (e->ref == EXPR_REF_INITIAL) {
            mark_states(c, c->m->initial_states, 0, c->m->num_initial, out);
            return 0;
        }
        if (e->ref == EXPR_REF_FILE_LABEL)
            return veval(c, e->def, out, mask);
        break;
    case EXPR_UNARY: {
        int rc = veval(c, e->a, out, mask);
        if (rc)
            return rc;
        if (e->op == EXPR_NOT) {
            uint8_t *restrict o = out->b;
            LANES o[i] = !o[i];
        } else if (e->type == EXPR_DOUBLE) {
            double *restrict o = out->d;
            LANES o[i] = -o[i];
        }
        else {
            int any = 0;
            LANES any |= c->bad[i] = (uint8_t)i_neg(out->i[i], &out->i[i]);
            if (any)
                return lanes_failed(c, e, mask, E_OVERFLOW);
        }
        return 0;
    }
    case EXPR_BINARY:
        switch (e->op) {
        case EXPR_AND:
        case EXPR_OR:
        case EXPR_IMPLIES:
        case EXPR_IFF:
            return veval_logical(c, e, out, mask);
        case EXPR_EQ:
        case EXPR_NE:
        case EXPR_GT:
        case EXPR_GE:
        case EXPR_LT:
        case EXPR_LE:
            return veval_compare(c, e, out, mask);
        default:
            return veval_arith(c, e, out, mask);
        }
    case EXPR_ITE:
        return veval_ite(c, e, out, mask);
    case EXPR_FUNC:
        return veval_func(c, e, out, mask);
    }
    c->rc = CSR_ERR_USAGE;
    c->at = e;
    c->what = -1;
    c->state = c->first;
    return CSR_ERR_USAGE;
}

int expr_has_operators(const expr *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case EXPR_PROB:
    case EXPR_REWARD:
    case EXPR_STEADY:
    case EXPR_TEMPORAL:
    case EXPR_CUMULATIVE:
    case EXPR_INSTANT:
    case EXPR_LONGRUN:
    case EXPR_FILTER:
    case EXPR_EXISTS:
    case EXPR_FORALL:
        return 1;
    case EXPR_IDENT:
    case EXPR_LABEL:
        return (e->ref == EXPR_REF_FORMULA || e->ref == EXPR_REF_FILE_LABEL) && e->def ? expr_has_operators(e->def)
               : e->ref == EXPR_REF_PROPERTY;
    }
    if (expr_has_operators(e->a) || expr_has_operators(e->b) || expr_has_operators(e->c))
        return 1;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (expr_has_operators(e->args[i]))
            return 1;
    return 0;
}

typedef struct states_task {
    const csr_model *m;
    const expr *e;
    uint8_t *flags;
    uint64_t first_block, end_block;
    block_ctx c;
} states_task;

static void *states_run(void *arg)
{
    states_task *t = arg;
    block_ctx *c = &t->c;
    const uint64_t n = t->m->num_states;
    for (uint64_t b = t->first_block; b < t->end_block && !c->rc; b++) {
        c->first = b * EXPR_BLOCK;
        c->count = n - c->first < EXPR_BLOCK ? n - c->first : EXPR_BLOCK;
        c->used = 0;
        slot *out = take(c);
        if (!out) {
            c->rc = CSR_ERR_NOMEM;
            break;
        }
        int rc = veval(c, t->e, out, NULL);
        if (rc) {
            c->rc = rc;
            break;
        }
        memcpy(t->flags + c->first, out->b, c->count);
    }
    return NULL;
}

int expr_eval_states(const csr_model *m, const expr *e, uint8_t *flags, csr_status *st)
{
    if (e->type != EXPR_BOOL)
        return fail_at(st, CSR_ERR_USAGE, e->line, e->column, "a state formula is a bool, not a %s",
                       expr_type_name(e->type));
    if (expr_has_operators(e))
        return fail_at(st, CSR_ERR_UNSUPPORTED, e->line, e->column,
                       "nested P, R, S, filter or path operators in a state formula are not supported");
    const uint64_t n = m->num_states, blocks = (n + EXPR_BLOCK - 1) / EXPR_BLOCK;
    if (!blocks)
        return CSR_OK;
    unsigned tasks = parallel_tasks(blocks, parallel_grain(16));
    states_task *t = calloc(tasks, sizeof *t);
    if (!t)
        return csr_fail(st, CSR_ERR_NOMEM, "out of memory");
    for (unsigned k = 0; k < tasks; k++) {
        t[k].m = m;
        t[k].e = e;
        t[k].flags = flags;
        t[k].first_block = blocks * k / tasks;
        t[k].end_block = blocks * (k + 1) / tasks;
        t[k].c.m = m;
    }
    parallel_run(states_run, t, sizeof *t, tasks);
    int rc = CSR_OK;
    for (unsigned k = 0; k < tasks; k++) {
        block_ctx *c = &t[k].c;
        if (!rc && c->rc) { /* the lowest block's failure */
            rc = c->rc;
            if (rc == CSR_ERR_NOMEM)
                csr_fail(st, rc, "out of memory");
            else {
                uint64_t s = m->permutation ? m->permutation[c->state] : c->state;
                if (c->what < 0)
                    fail_at(st, rc, c->at->line, c->at->column, "cannot evaluate this (not bound to the model)");
                else
                    fail_at(st, rc, c->at->op_column ? c->at->op_line : c->at->line,
                            c->at->op_column ? c->at->op_column : c->at->column, "%s in state %llu",
                            failure_text[c->what], (unsigned long long)s);
            }
        }
        for (int i = 0; i < c->nslots; i++)
            free(c->slots[i]);
        free(c->slots);
    }
    free(t);
    return rc;
}
