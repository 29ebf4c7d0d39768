/*
 * props.h - reachability properties in PRISM's syntax, for the fragment the
 * tools solve (issue 16): P=? [ F phi ], Pmin=? / Pmax=? [ F phi ] and
 * [ phi U psi ], their step-bounded forms [ F<=k phi ] and [ phi U<=k psi ]
 * (F<k is F<=k-1), and expected reachability rewards R{"name"}=? [ F phi ]
 * (also Rmin, Rmax, R{k} for the k-th structure from 1, R for the first),
 * with phi and psi boolean combinations of labels:
 *
 *   property := ( 'P' | 'R' reward? ) ( 'min' | 'max' )? '=?' '[' path ']' ';'?
 *   reward   := '{' ( '"' name '"' | number ) '}'
 *   path     := 'F' bound? formula | formula 'U' bound? formula   (R: F only, no bound)
 *   bound    := ( '<=' | '<' ) number
 *   formula  := conj ( '|' conj )*
 *   conj     := unary ( '&' unary )*
 *   unary    := '!' unary | '"' label '"' | 'true' | 'false' | '(' formula ')'
 *
 * (PRISM's precedence: ! binds tighter than &, & tighter than |.)  A hand-
 * written recursive descent: the fragment is a dozen productions, its
 * errors name the column of the first unexpected character, and it needs no
 * generator at build time.  Lower step bounds (F>=k, F[a,b]), cumulative,
 * instantaneous and steady-state rewards (C, I, S) are recognised and
 * refused as not supported yet.
 *
 * A properties file (PRISM's .props) holds one property per line; empty
 * lines and // comments are skipped.
 */
#ifndef PROPS_H
#define PROPS_H

#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

enum prop_formula_op { PROP_TRUE, PROP_FALSE, PROP_LABEL, PROP_NOT, PROP_AND, PROP_OR };

typedef struct prop_formula {
    int op;                     /* enum prop_formula_op */
    char *label;                /* PROP_LABEL: the label's name */
    struct prop_formula *a, *b; /* PROP_NOT: a; PROP_AND, PROP_OR: a and b */
} prop_formula;

enum prop_direction { PROP_ANY = -1, PROP_MIN = 0, PROP_MAX = 1 };

typedef struct prop_property {
    int reward;          /* 0: a probability (P); 1: an expected reward (R) */
    char *reward_name;   /* R{"name"}: the structure's name, else NULL */
    int64_t reward_index; /* R{k}: k - 1; -1 otherwise (R without braces: the first structure) */
    int64_t steps;       /* F<=k, U<=k: k; -1: unbounded */
    int direction;       /* PROP_MIN, PROP_MAX, or PROP_ANY (P=?, R=?: a DTMC's) */
    prop_formula *avoid; /* phi U psi: phi (NULL: F psi, that is true U psi) */
    prop_formula *target;
    char *text;          /* the property as written, without a final ';' and outer blanks */
} prop_property;

/*
 * Parse one property.  Errors: CSR_ERR_SYNTAX with status->offset the
 * 1-based column of the first character that does not fit and the detail
 * saying what was expected; CSR_ERR_UNSUPPORTED for lower step bounds and
 * reward operators other than F; CSR_ERR_NOMEM.  On success free with prop_free.
 */
int prop_parse(const char *text, prop_property *property, csr_status *status);
void prop_free(prop_property *property);

/*
 * The states of the model satisfying formula f: flags u8[num_states], 1 or
 * 0.  Errors: CSR_ERR_LABEL for a label the model lacks (the detail lists
 * those it has), CSR_ERR_NOMEM.
 */
int prop_states(const csr_model *model, const prop_formula *f, uint8_t *flags, csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
