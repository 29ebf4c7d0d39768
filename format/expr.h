/*
 * expr.h - PRISM's expression language, with the property operators that
 * nest in it (P, R, S, filter, temporal operators), as one tree.
 *
 * Sources: the PRISM manual, "The PRISM Language / Expressions" and
 * "Property Specification" (The P Operator, Reward-based Properties,
 * Filters, Properties Files); PRISM's grammar prism/src/parser/PrismParser.jj
 * (tokens, precedence, associativity); its types
 * parser/visitor/TypeCheck.java; its evaluation parser/ast/
 * ExpressionBinaryOp.java, ExpressionUnaryOp.java, ExpressionFunc.java,
 * ExpressionITE.java; Storm's bound forms (F{"r"}<=k, F^{rew{"r"}<=k}, LRA)
 * storm-parsers/parser/FormulaParserGrammar.cpp.
 *
 * Precedence, loosest first (PrismParser.jj; "right": right-associative):
 *   U W R          path: one binary temporal operator, not chained
 *   X F G          path: prefix, with an optional bound
 *   ? :            right (c ? a : b ? x : y is c ? a : (b ? x : y))
 *   =>             right
 *   <=>  |  &      left
 *   !              prefix
 *   = !=           left
 *   < <= > >=      left
 *   + -            left
 *   * /            left
 *   ^              right
 *   -              prefix (so -2^2 is (-2)^2 = 4)
 *   literals, names, ( ), functions, "labels", P[ ], R[ ], S[ ], filter( )
 *
 * Types (TypeCheck.java): bool, int (32-bit: overflow is an error, as Java's
 * addExact), double.  / always gives a double; + - * ^ and pow an int for
 * two ints; floor, ceil, round and mod an int (mod of ints only, divisor >
 * 0, result in [0, divisor)); min and max (1 or more arguments) an int for
 * ints; log a double; = and != compare two bools or two numbers (an int with
 * a double as doubles, by bits as Java's Double.equals: NaN = NaN, 0.0 !=
 * -0.0); relations compare numbers; & | => <=> ! want bools; c ? a : b wants
 * a bool c and a, b of one kind (int with double gives a double).  &, |, =>
 * and ? : evaluate lazily, as PRISM does: an error in a branch not taken is
 * no error.  Integer literals above 2^31 - 1 are refused; a literal such as
 * 012 (no REG_INT match) is a double, as PRISM's lexer makes it.
 *
 * Shapes: the tree is made of expr nodes (below), each owned by its parent;
 * expr_free frees a tree.  A parse of one unit (a property or a definition)
 * has at most PROP_MAX_NODES nodes and PROP_MAX_DEPTH nested brackets, so
 * no input can exhaust the stack.  Positions are 1-based line and column
 * (bytes) of a node's first character.
 */
#ifndef EXPR_H
#define EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROP_MAX_DEPTH 256  /* nested ( ), [ ], function and filter brackets */
#define PROP_MAX_NODES 4096 /* nodes (operators and operands) of one property or definition */
#define EXPR_BLOCK 1024     /* states evaluated at a time */

enum expr_type { EXPR_NONE = 0, EXPR_BOOL, EXPR_INT, EXPR_DOUBLE, EXPR_PATH, EXPR_REWARD_PATH };

typedef struct expr_value {
    int type;  /* EXPR_BOOL (i is 0 or 1), EXPR_INT (i), EXPR_DOUBLE (d) */
    int64_t i;
    double d;
} expr_value;

enum expr_kind {
    EXPR_LITERAL = 1, /* value */
    EXPR_IDENT,       /* name; once bound: ref (a constant: folded, value; a variable: index; a formula: def) */
    EXPR_LABEL,       /* "name"; once bound: ref (a model label: index; a file label: def) */
    EXPR_UNARY,       /* op EXPR_NOT or EXPR_NEG of a */
    EXPR_BINARY,      /* a op b */
    EXPR_ITE,         /* a ? b : c */
    EXPR_FUNC,        /* op (enum expr_func) of args[nargs] */
    EXPR_PROB,        /* P: a the path; op EXPR_QUERY (=?) or a relation, b the bound; dir */
    EXPR_REWARD,      /* R: as P; the structure: name (R{"name"}), c (R{k}: k from 1), or neither (the first) */
    EXPR_STEADY,      /* S (steady state; Storm's LRA=? when lra): as P, a a state formula */
    EXPR_TEMPORAL,    /* op (enum expr_temporal): a U b, a W b, a R b, or X b, F b, G b; bounds[nbounds] */
    EXPR_CUMULATIVE,  /* R's C (total reward; b NULL) or C<=b */
    EXPR_INSTANT,     /* R's I=b */
    EXPR_LONGRUN,     /* R's S (Storm: LRA, MP) */
    EXPR_FILTER,      /* filter(op, a, b): op enum expr_filter; b the states (NULL: all) */
    EXPR_EXISTS,      /* E [ a ] */
    EXPR_FORALL,      /* A [ a ] */
};

enum expr_op {
    EXPR_IMPLIES = 1, EXPR_IFF, EXPR_OR, EXPR_AND, EXPR_EQ, EXPR_NE, EXPR_GT, EXPR_GE, EXPR_LT, EXPR_LE,
    EXPR_PLUS, EXPR_MINUS, EXPR_TIMES, EXPR_DIVIDE, EXPR_POW,
    EXPR_NOT, EXPR_NEG,
    EXPR_QUERY,    /* P=?, R=?, S=? */
    EXPR_INTERVAL, /* a bound [a,b] */
};
enum expr_func { EXPR_FN_MIN = 1, EXPR_FN_MAX, EXPR_FN_FLOOR, EXPR_FN_CEIL, EXPR_FN_ROUND, EXPR_FN_POW, EXPR_FN_MOD, EXPR_FN_LOG };
enum expr_temporal { EXPR_NEXT = 1, EXPR_EVENTUALLY, EXPR_GLOBALLY, EXPR_UNTIL, EXPR_WEAK_UNTIL, EXPR_RELEASE };
/* PRISM's filter operators (ExpressionFilter.java; + & | are sum, forall, exists) and Storm's values */
enum expr_filter {
    EXPR_FILTER_MIN = 1, EXPR_FILTER_MAX, EXPR_FILTER_ARGMIN, EXPR_FILTER_ARGMAX, EXPR_FILTER_COUNT, EXPR_FILTER_SUM,
    EXPR_FILTER_AVG, EXPR_FILTER_FIRST, EXPR_FILTER_RANGE, EXPR_FILTER_FORALL, EXPR_FILTER_EXISTS, EXPR_FILTER_PRINT,
    EXPR_FILTER_PRINTALL, EXPR_FILTER_STATE, EXPR_FILTER_VALUES,
};
enum expr_dir { EXPR_DIR_NONE = 0, EXPR_DIR_MIN, EXPR_DIR_MAX };
/* What a name or label is, once bound (props_bind). */
enum expr_ref {
    EXPR_REF_NONE = 0,
    EXPR_REF_CONSTANT,    /* its value in value (folded) */
    EXPR_REF_VARIABLE,    /* state variable index */
    EXPR_REF_FORMULA,     /* def: the formula's definition */
    EXPR_REF_MODEL_LABEL, /* index: the model's label */
    EXPR_REF_FILE_LABEL,  /* def: the properties file's label definition */
    EXPR_REF_INITIAL,     /* "init" of a model without such a label: its initial states */
    EXPR_REF_PROPERTY,    /* "name" of a named property (a nested property: not evaluated) */
};

/* A bound of a temporal operator: F<=k (relation EXPR_LE, value k), F<k,
 * F>=k, F>k, F=k (EXPR_EQ), F[a,b] (EXPR_INTERVAL, value a, upper b); with
 * rewarded set a reward bound (Storm's F{"r"}<=k, F^{rew{"r"}<=k}; reward
 * the structure's name, NULL: the default one). */
typedef struct expr_bound {
    uint8_t relation, rewarded;
    uint32_t line, column;
    struct expr *value, *upper;
    char *reward;
} expr_bound;

typedef struct expr {
    uint8_t kind;     /* enum expr_kind */
    uint8_t op;       /* enum expr_op, expr_func, expr_temporal or expr_filter (see kind) */
    uint8_t type;     /* enum expr_type; set by binding (EXPR_NONE before) */
    uint8_t dir;      /* P, R, S: enum expr_dir (Pmin, Pmax) */
    uint8_t ref;      /* EXPR_IDENT, EXPR_LABEL: enum expr_ref once bound */
    uint8_t folded;   /* 1: a constant; value holds it (literals; constant subtrees once bound) */
    uint8_t may_fail; /* its evaluation may fail (integer overflow, mod by 0, ...) */
    uint8_t flags;    /* EXPR_STEADY: 1 for Storm's LRA; EXPR_REWARD: 1 for Storm's T (time: a reward of 1 per
                         step); EXPR_FILTER: 1 for an old-style {states} filter */
    uint32_t line, column;
    uint32_t op_line, op_column; /* the operator's token: a binary operator's, P's, R's, S's relation */
    struct expr *a, *b, *c;
    struct expr **args; /* EXPR_FUNC: args[nargs] */
    uint32_t nargs;
    uint32_t nbounds;
    expr_bound *bounds; /* EXPR_TEMPORAL: bounds[nbounds] */
    union {
        char *name;  /* identifier, label, or R{"name"} */
        char *label; /* the same, under props.h 1.0's name (gpu-vi: p->target->label) */
    };
    expr_value value;
    int64_t index;          /* once bound: the variable, the model's label, or the file's formula or label */
    const struct expr *def; /* bound formula or file label definition */
} expr;

/* Free a tree (NULL is fine). */
void expr_free(expr *e);

/* ---- the scanner and parser (props.c's file grammar reads through them) ---- */

enum expr_token_kind {
    EXPR_TOK_EOF = 0, EXPR_TOK_ERROR, EXPR_TOK_INT, EXPR_TOK_DOUBLE, EXPR_TOK_IDENT, EXPR_TOK_QUOTED,
    EXPR_TOK_NOT, EXPR_TOK_AND, EXPR_TOK_OR, EXPR_TOK_IMPLIES, EXPR_TOK_IFF, EXPR_TOK_COLON, EXPR_TOK_SEMICOLON,
    EXPR_TOK_COMMA, EXPR_TOK_LPAREN, EXPR_TOK_RPAREN, EXPR_TOK_LBRACKET, EXPR_TOK_RBRACKET, EXPR_TOK_LBRACE,
    EXPR_TOK_RBRACE, EXPR_TOK_EQ, EXPR_TOK_NE, EXPR_TOK_LT, EXPR_TOK_GT, EXPR_TOK_LE, EXPR_TOK_GE, EXPR_TOK_PLUS,
    EXPR_TOK_MINUS, EXPR_TOK_TIMES, EXPR_TOK_DIVIDE, EXPR_TOK_POWER, EXPR_TOK_QMARK,
};

/* A token: text[offset, offset + length) (a quoted name: without its quotes),
 * at line and column; end, end_line, end_column: just past it. */
typedef struct expr_token {
    int kind;
    uint32_t line, column, end_line, end_column;
    size_t offset, length, end;
    const char *error; /* EXPR_TOK_ERROR: what is wrong */
} expr_token;

/* flags of expr_parse (PrismParser.jj's prop and pathprop) */
enum { EXPR_PARSE_PROPERTY = 1, EXPR_PARSE_PATH = 2 };

typedef struct expr_parser {
    const char *text;
    size_t length;
    int lines;       /* 1: positions keep their line ("line L, column C"); 0: line 0 ("column C") */
    csr_status *status;
    int rc;          /* the first error (0: none) */
    int depth, nodes;
    size_t last_end; /* just past the last token consumed */
    expr_token tok;  /* the current token */
} expr_parser;

/* Start reading text[0, length) (NUL bytes inside are an error); lines: see
 * expr_parser.  The current token is the first one. */
void expr_parser_init(expr_parser *p, const char *text, size_t length, int lines, csr_status *status);
/* Consume the current token. */
void expr_parser_next(expr_parser *p);
/* The token after t (lookahead), in out. */
void expr_parser_after(const expr_parser *p, const expr_token *t, expr_token *out);
/* Whether t is the identifier or keyword w. */
int expr_token_is(const expr_parser *p, const expr_token *t, const char *w);
/* Whether s is one of PRISM's keywords (PrismParser.jj's TOKEN list), which are no names. */
int expr_is_keyword(const char *s, size_t length);
/* Record an error at t (the first one of a parse wins; the detail starts
 * with its position); returns NULL.  code: CSR_ERR_SYNTAX, CSR_ERR_NOMEM, ... */
void *expr_parser_fail(expr_parser *p, const expr_token *t, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "line L, column C", or "column C" where line is 0 (a single-line text), into buf. */
void expr_position(char *buf, size_t size, uint32_t line, uint32_t column);

/*
 * Parse an expression at the current token (PrismParser.jj's Expression,
 * or with top set its ExpressionITE, which a property starts with): flags
 * EXPR_PARSE_PROPERTY allows "labels", P, R, S, E, A and filter, and
 * EXPR_PARSE_PATH temporal operators.  NULL on error (p->rc, p->status:
 * CSR_ERR_SYNTAX with the position, CSR_ERR_NOMEM).  Resets nothing: the
 * caller sets p->nodes = p->depth = 0 at the start of each unit.
 */
expr *expr_parse(expr_parser *p, int flags, int top);

/* ---- types and evaluation (of bound trees) ---- */

/* Name of a type ("bool", "int", "double", "path formula"). */
const char *expr_type_name(int type);

/*
 * Type node e, whose operands are typed (leaves bound), by TypeCheck.java's
 * rules; sets e->type and e->may_fail, and folds a constant node (all
 * operands folded) whose evaluation succeeds.  Errors: CSR_ERR_SYNTAX "type
 * error" with the position.
 */
int expr_type_node(expr *e, csr_status *status);

/*
 * The value of a constant expression (typed; leaves literals, bound
 * constants and formulas), lazily as PRISM evaluates.  Errors: CSR_ERR_RANGE
 * (integer overflow, mod by a non-positive divisor, a negative integer
 * exponent, floor/ceil/round out of range), CSR_ERR_USAGE (not constant).
 */
int expr_eval_constant(const expr *e, expr_value *out, csr_status *status);

/*
 * The states of model satisfying the bool expression e (bound to this model:
 * variables, labels, constants, formulas): flags u8[num_states], 1 or 0.
 * Evaluated EXPR_BLOCK states at a time, each node a vector of the block,
 * variables decoded by csr_variable_values; blocks spread over the CPUs
 * (format/parallel.h); memory O(CPUs x EXPR_BLOCK x tree height).
 * Errors: CSR_ERR_RANGE (an evaluation error, as expr_eval_constant's, in
 * the lowest state where it happens: the detail names it),
 * CSR_ERR_UNSUPPORTED (P, R, S, filters or paths inside), CSR_ERR_USAGE
 * (not bool, or not bound), CSR_ERR_NOMEM.
 */
int expr_eval_states(const csr_model *model, const expr *e, uint8_t *flags, csr_status *status);

/* Whether e contains P, R, S, E, A, filter or temporal operators (through
 * formulas too). */
int expr_has_operators(const expr *e);

#ifdef __cplusplus
}
#endif

#endif
