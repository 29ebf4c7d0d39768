/*
 * props.h - PRISM properties and properties files over the expression
 * language of expr.h, each property's form resolved into plain fields for
 * a model checker.
 *
 * Sources: the PRISM manual, "Property Specification" (The P Operator,
 * Reward-based Properties, Filters, Properties Files) and "The PRISM
 * Language / Constants, Formulas And Labels"; PrismParser.jj's
 * PropertiesFileSemicolonless, Property, ConstantDef, FormulaDef, LabelDef;
 * Storm's FormulaParserGrammar.cpp for its bound forms and Pmin>=p.
 *
 *   file     := ( constant | formula | label | property ';'* | ';' )*
 *   constant := 'const' ( 'int' | 'double' | 'bool' )? NAME ( '=' expr )? ';'
 *               | ( 'rate' | 'prob' ) NAME ( '=' expr )? ';'          (double)
 *   formula  := 'formula' NAME '=' expr ';'
 *   label    := 'label' '"' NAME '"' '=' expr ';'
 *   property := ( '"' NAME '"' ':' )? expr        (P, R, S, filter, "labels" allowed)
 * with // comments; a property may span lines; the ';' after a property is
 * optional (PRISM's semicolon-less grammar: a property ends where its
 * expression cannot go on).  Definitions use no labels and no operators
 * (as in PRISM; formula definitions, which PRISM's PropertiesFile holds but
 * its grammar of today does not read, are read too).  Errors name line and
 * column (a -p property: its column).  Limits: each property or definition
 * PROP_MAX_NODES nodes and PROP_MAX_DEPTH brackets (expr.h); formulas and
 * constants nested in one another 4096 levels; a property's formulas
 * expanded 65536 nodes and 4096 levels.
 *
 * Names in properties resolve, in this order (PRISM's): the file's
 * formulas (expanded as macros), constants (the file's, given values by
 * --const as PRISM's -const; a name given there that the file does not
 * declare is a model constant, typed by its literal), the model's state
 * variables; "labels": the file's label definitions, the model's labels,
 * and "init" (the model's initial states where it has no such label).
 *
 * Use:
 *   props_file f;  memset(&f, 0, sizeof f);
 *   props_parse_file(text, length, &f, &st);             -P FILE (a syntax error fails the file)
 *   props_parse_property(arg, strlen(arg), &f, &st);     -p PROPERTY, added to the same file
 *   props_define_constants(&f, "K=2,p=0.5", &st);        --const
 *   props_bind(&f, &model, &st);                          resolves every property; errors per property
 *   for (size_t i = 0; i < f.count; i++) {
 *       const props_property *p = &f.properties[i];
 *       if (p->status.code) ...  p->status.detail says why (CSR_ERR_UNSUPPORTED: a form not represented)
 *       else ... p->kind, p->direction, p->path, p->steps, props_states(&model, &f, p->target, flags, &st)
 *   }
 *   props_free(&f);
 */
#ifndef PROPS_H
#define PROPS_H

#include <stddef.h>
#include <stdint.h>

#include "csr.h"
#include "expr.h"

#ifdef __cplusplus
extern "C" {
#endif

enum prop_direction { PROP_ANY = -1, PROP_MIN = 0, PROP_MAX = 1 };

enum props_kind {
    PROPS_PROB = 1, /* P [ path ] */
    PROPS_REWARD,   /* R{..} [ F phi | C | C<=k | I=k ] */
    PROPS_STEADY,   /* S [ phi ], LRA: parsed, unsupported */
    PROPS_STATE,    /* a bool state formula (target), e.g. filter(count, x=1) */
    PROPS_VALUE,    /* a constant expression (value), e.g. 1+2*3 */
    PROPS_OTHER,    /* anything else (arithmetic of operators, E, A): unsupported */
};

enum props_path {
    PROPS_PATH_NONE = 0,
    PROPS_EVENTUALLY, /* F target */
    PROPS_UNTIL,      /* avoid U target (avoid: the states the path stays in) */
    PROPS_GLOBALLY,   /* G target */
    PROPS_NEXT,       /* X target */
    PROPS_CUMULATIVE, /* R: C<=steps, or C (steps -1: total reward) */
    PROPS_INSTANT,    /* R: I=steps */
};

typedef struct props_property {
    char *name;              /* "name": ...; NULL when unnamed */
    char *text;              /* as written, without the name, outer blanks and a final ';' */
    uint32_t line, column;   /* where text starts (line 0: a -p property of one line) */
    expr *tree;              /* the whole property */
    csr_status status;       /* code 0: usable; else why not: CSR_ERR_SYNTAX (type error),
                                CSR_ERR_USAGE (unknown name, constant without a value),
                                CSR_ERR_LABEL, CSR_ERR_RANGE (evaluation), CSR_ERR_UNSUPPORTED
                                (a form not represented below), with the position */
    /* the form (after parsing; the numbers after props_bind) */
    int kind;                /* enum props_kind */
    int direction;           /* PROP_MIN, PROP_MAX, or PROP_ANY (=? without min/max: a DTMC's); a bound
                                without min/max gets PRISM's: >=, > MIN, <=, < MAX */
    int direction_written;   /* 1: Pmin, Pmax, Rmin, Rmax as written */
    int relation;            /* EXPR_QUERY (=?) or a bound's EXPR_LT, EXPR_LE, EXPR_GT, EXPR_GE */
    double bound;            /* the bound's value (relation != EXPR_QUERY); P's within [0, 1] */
    int path;                /* enum props_path */
    const expr *avoid;       /* PROPS_UNTIL: phi of phi U psi; else NULL */
    const expr *target;      /* F, U, G, X: the state formula; PROPS_STATE: the formula; else NULL */
    int64_t steps;           /* F<=k, U<=k, G<=k, X: k (F<k: k - 1); C<=k, I=k: k; -1: none */
    const char *reward_name; /* R{"name"}; NULL: by index (points into tree) */
    int64_t reward_index;    /* R{k}: k - 1; -1: R{"name"} or R (the first structure) */
    int time;                /* 1: Storm's T (Tmin, Tmax): PROPS_REWARD of a reward 1 per step, no structure */
    int reward_bound_relation; /* F{"r"}<=b, F^{rew{"r"}<=b}: EXPR_LE, LT, GE, GT; 0: none */
    double reward_bound;
    const char *reward_bound_name; /* the bound's structure; NULL: the default (rew without a name) */
    int filter;              /* enum expr_filter; 0: none (PRISM then reports the initial states) */
    const expr *filter_states; /* the filter's states; NULL: all */
    expr_value value;        /* PROPS_VALUE, and a constant PROPS_STATE: the value (type 0: none) */

    /* internal: the expressions of the fields above, and the form's own status */
    const expr *bound_expr, *steps_expr, *index_expr, *reward_bound_expr;
    int steps_strict;
    csr_status form;
} props_property;

/* A constant of the file (or given by --const only: line 0). */
typedef struct props_constant {
    char *name;
    int type;                /* EXPR_INT, EXPR_DOUBLE, EXPR_BOOL */
    expr *definition;        /* NULL: left undefined in the file */
    uint32_t line, column;
    int defined;             /* after props_bind: value holds it (else it has none) */
    expr_value value;
    int state;               /* internal: 0 unevaluated, 1 being evaluated, 2 done */
    csr_status status;       /* internal: why its definition failed */
} props_constant;

/* A formula or label definition of the file. */
typedef struct props_definition {
    char *name;
    expr *definition;
    uint32_t line, column;
    int state;               /* internal, as props_constant's */
    csr_status status;
    uint64_t height, size;   /* internal: of the expanded tree */
} props_definition;

typedef struct props_given {
    char *name;
    expr_value value;
} props_given;

typedef struct props_file {
    props_property *properties;
    size_t count;
    props_constant *constants;
    size_t num_constants;
    props_definition *formulas, *labels;
    size_t num_formulas, num_labels;
    props_given *given; /* props_define_constants */
    size_t num_given;
    const csr_model *model; /* the model of the last props_bind */
    uint64_t *names;        /* internal: a hash index of the names above */
    size_t names_cap, names_count;
} props_file;

/*
 * Parse a properties file text[0, length) and add its constants, formulas,
 * labels and properties to file (zeroed before the first call).  Each
 * property's form is known at once (kind, path, ...; a form not represented
 * has status CSR_ERR_UNSUPPORTED); names and numbers after props_bind.
 * Errors (the file keeps what it had; props_free it in any case): CSR_ERR_SYNTAX with status->line and
 * status->offset (the column) and the detail "line L, column C: what" (a
 * name defined twice too; more than PROP_MAX_NODES nodes or PROP_MAX_DEPTH
 * brackets in one item), CSR_ERR_NOMEM.
 */
int props_parse_file(const char *text, size_t length, props_file *file, csr_status *status);

/*
 * Parse one property (gpu-vi -p): optionally named ("name": ...), optionally
 * ending in ';', nothing else; added to file.  Positions: "column C" for a
 * text of one line.  Errors as props_parse_file's.
 */
int props_parse_property(const char *text, size_t length, props_file *file, csr_status *status);

/*
 * Constants' values as PRISM's -const gives them: "NAME=VALUE,..." with
 * VALUE an int, a double (1e-6, -0.5) or true/false.  Checked against the
 * declarations by props_bind.  Errors: CSR_ERR_USAGE (the syntax, a name
 * given twice, a range such as N=1:5 of PRISM's experiments), CSR_ERR_NOMEM.
 */
int props_define_constants(props_file *file, const char *definitions, csr_status *status);

/*
 * Resolve every property against model (NULL: no model, no variables or
 * labels): names, types (TypeCheck.java's), constants, then the fields of
 * each form (bound, steps, reward structure and bound) evaluated.  Each
 * property's errors are its own (property->status, with the position);
 * constants, formulas and labels no property uses are not checked.
 * Returns CSR_OK, CSR_ERR_USAGE (a --const value that its declaration's
 * type refuses, or one for a constant the file defines), CSR_ERR_NOMEM.
 * May be called again (another model, more properties).
 */
int props_bind(props_file *file, const csr_model *model, csr_status *status);

/*
 * The states of model (the one of the last props_bind) satisfying
 * formula, a bool state formula of one of file's properties (avoid,
 * target, filter_states): flags u8[num_states], 1 or 0, evaluated by blocks
 * of states over the CPUs (expr_eval_states).  Errors: CSR_ERR_USAGE (not
 * bound to this model), CSR_ERR_UNSUPPORTED (nested operators),
 * CSR_ERR_RANGE (an evaluation error, naming its state), CSR_ERR_NOMEM.
 */
int props_states(const csr_model *model, const props_file *file, const expr *formula, uint8_t *flags,
                 csr_status *status);

/* Name of a kind ("P", "R", "S", "state", "value", "other"), path ("F",
 * "U", ...) and filter ("max", ...). */
const char *props_kind_name(int kind);
const char *props_path_name(int path);
const char *props_filter_name(int filter);

/* Free everything file holds and zero it. */
void props_free(props_file *file);

/* ---- props.h 1.0, kept until gpu-vi uses the interface above ----------------
 * One property of the old fragment: P=?, Pmin=?, Pmax=? of F phi or
 * phi U psi, with F<=k, U<=k (F<k is F<=k-1), and R{"name"}, R{k}, R =? of
 * F phi (min, max); phi and psi are state formulas (now the whole
 * expression language: the model's variables too).  Anything else is
 * CSR_ERR_UNSUPPORTED "... not supported yet". */

typedef struct expr prop_formula; /* a state formula (props.h 1.0's prop_formula) */

typedef struct prop_property {
    int reward;           /* 0: a probability (P); 1: an expected reward (R) */
    char *reward_name;    /* R{"name"}: the structure's name, else NULL */
    int64_t reward_index; /* R{k}: k - 1; -1 otherwise (R without braces: the first structure) */
    int64_t steps;        /* F<=k, U<=k: k; -1: unbounded */
    int direction;        /* PROP_MIN, PROP_MAX, or PROP_ANY (P=?, R=?: a DTMC's) */
    prop_formula *avoid;  /* phi U psi: phi (NULL: F psi, that is true U psi) */
    prop_formula *target;
    char *text;           /* the property as written, without a final ';' and outer blanks */
    props_file *file;     /* internal: the property's tree */
} prop_property;

/* Parse one property (props_parse_property, then the fragment's check).
 * Errors: CSR_ERR_SYNTAX ("column C: ..."), CSR_ERR_UNSUPPORTED,
 * CSR_ERR_NOMEM.  On success free with prop_free. */
int prop_parse(const char *text, prop_property *property, csr_status *status);
void prop_free(prop_property *property);

/* The states of the model satisfying f (bound to model here: its variables
 * and labels): flags u8[num_states].  Errors: CSR_ERR_LABEL for a label the
 * model lacks (the detail lists those it has), CSR_ERR_USAGE (an unknown
 * name), CSR_ERR_SYNTAX (a type error), CSR_ERR_RANGE, CSR_ERR_NOMEM. */
int prop_states(const csr_model *model, const prop_formula *f, uint8_t *flags, csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
