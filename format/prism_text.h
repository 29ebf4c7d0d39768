/*
 * prism_text.h - readers for PRISM's explicit model export (prism -exportmodel
 * m.tra,lab; PRISM manual, "Explicit model files"), producing a csr_model.
 *
 * .tra, MDP:  [# comment lines]  "n c t"  then t lines "s k t p [action]"
 * .tra, DTMC: [# comment lines]  "n t"    then t lines "s t p [action]"
 * (n states, c choices, t transitions; s source state, k choice index within
 * s, t target, p probability).  Sources must run 0..n-1 in order, every state
 * having at least one choice; choice indices 0,1,2,... within each state;
 * probabilities finite in (0,1] (up to 1 + the tolerance, stored as 1); each
 * choice summing to 1 within the tolerance (PRISM_SUM_TOLERANCE, as PRISM's
 * -sumroundoff, unless the options say otherwise).  A choice's lines carry one action name or none.
 * .lab: [# comment]  "0=\"init\" 1=\"deadlock\" ..."  then "s: i j ..." lines,
 * states strictly ascending.
 */
#ifndef PRISM_TEXT_H
#define PRISM_TEXT_H

#include <stdio.h>

#include "csr.h"
#include "textin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRISM_SUM_TOLERANCE 1e-5 /* PRISM's default -sumroundoff */

#define PRISM_MAX_THREADS 256

typedef struct prism_tra_options {
    int sums_are_warnings; /* choice sums off by more than the tolerance: count, don't fail */
    double sum_tolerance;  /* how far from 1 a choice may sum; 0: PRISM_SUM_TOLERANCE */
    unsigned threads;      /* threads of the parallel reader: 0, one per CPU it may run on; 1, read sequentially */
    size_t min_chunk_bytes; /* the parallel reader's smallest chunk of text a thread (0: 1 MiB; tests set less) */
} prism_tra_options;

typedef struct prism_tra_report {
    uint64_t bad_sums;           /* choices whose sum is off (when warnings) */
    uint64_t first_bad_sum_line; /* line of the first such choice's last transition */
    double worst_sum_error;
    uint64_t bytes;              /* uncompressed bytes of text read */
    unsigned chunks;             /* chunks read in parallel; 0: read sequentially */
} prism_tra_report;

/*
 * Read a .tra from in into model (arrays owned by model; no labels; state 0
 * initial until prism_read_lab replaces it).  On error status->line is the
 * line at fault and the model is freed.  A regular file that is not
 * compressed is read in parallel (options->threads, at most
 * PRISM_MAX_THREADS; textin_map), anything else, and any input in which the
 * parallel reader finds a fault, sequentially: the model and every message
 * are the same either way.
 */
int prism_read_tra(textin *in, const prism_tra_options *options, csr_model *model,
                   prism_tra_report *report, csr_status *status);

/*
 * Read a .lab for a model of model->num_states states: fills the labels and
 * sets the initial states to those labelled "init" (CSR_ERR_LABEL if there is
 * no such label, CSR_ERR_NO_INITIAL if it is empty).
 */
int prism_read_lab(textin *in, csr_model *model, csr_status *status);

/*
 * Write model as PRISM writes a .tra (prism_write_tra) and a .lab
 * (prism_write_lab), "#" comment line first, so that prism_read_tra and
 * prism_read_lab give the same model back.  Probabilities are printed as the
 * shortest decimal ("%.Ng", N = 1 to 17) that reads back as the same double;
 * PRISM's own files are byte for byte the same apart from the comment lines.
 * A model without labels gets PRISM's two, "init" (its initial states) and
 * an empty "deadlock".  The model must be in its original numbering (no
 * PERMUTATION: csr_original_numbering) and have probabilities (else
 * CSR_ERR_USAGE); CSR_ERR_IO when f reports a write error.
 */
int prism_write_tra(FILE *f, const csr_model *model, csr_status *status);
/*
 * One reward structure from PRISM's explicit reward exports (format/
 * prism_rewards.c): files[0..count) are its .srew and/or .trew (at most one
 * of each), read against model (the .tra's: counts, choices, targets and,
 * for a DTMC's transition rewards, probabilities) and added to its reward
 * structures (csr_add_reward), named by the files' header ("# Reward
 * structure \"name\"") or by its 1-based position.  Errors, with
 * status->line the line and *bad_file the index of the file (-1: none, the
 * structure as a whole):
 * CSR_ERR_SYNTAX, CSR_ERR_NUMBER, CSR_ERR_COUNTS (counts that do not fit the
 * model or the lines), CSR_ERR_RANGE (a state, choice or transition the
 * model lacks), CSR_ERR_ORDER, CSR_ERR_STRING_TABLE (a name used twice),
 * CSR_ERR_IO, CSR_ERR_NOMEM.
 */
int prism_read_rewards(textin *const *files, int count, csr_model *model, int *bad_file, csr_status *status);

/* Structure r of model (original numbering) as PRISM's .srew / .trew (a
 * choice's reward on each of its transitions; a DTMC's expected choice
 * reward on each transition, the same expected value). */
int prism_write_srew(FILE *f, const csr_model *model, uint64_t r, csr_status *status);
int prism_write_trew(FILE *f, const csr_model *model, uint64_t r, csr_status *status);


int prism_write_lab(FILE *f, const csr_model *model, csr_status *status);

/*
 * PRISM's state file (prism -exportstates m.sta; format/prism_states.c):
 * "# States" (optional: '#' lines and blank lines are skipped), the
 * variable names "(x,y,z)", then "s:(v1,v2,v3)" for each state s = 0, 1, ...
 * in order, values integers (64 bits) or true/false.  prism_read_sta gives
 * model (its states read already, no valuations yet) its valuations: a
 * variable is bool when its values are true/false, int when integers, each
 * with the least range of its values (csr_set_valuations).  Errors, with
 * status->line: CSR_ERR_SYNTAX (no header, a malformed line, a variable
 * both bool and int), CSR_ERR_NUMBER (a value neither an integer nor
 * true/false), CSR_ERR_COUNTS (a line with too few or too many values, more
 * or fewer states than the model), CSR_ERR_ORDER (a state out of order or
 * twice), CSR_ERR_STRING_TABLE (a name twice), CSR_ERR_TRUNCATED (no header,
 * no newline at the end), CSR_ERR_IO, CSR_ERR_NOMEM.
 */
int prism_read_sta(textin *in, csr_model *model, csr_status *status);

/* model's valuations (original numbering: no PERMUTATION, else
 * CSR_ERR_USAGE; none: CSR_ERR_USAGE) as PRISM writes a .sta, "# States"
 * first.  CSR_ERR_IO when f reports a write error. */
int prism_write_sta(FILE *f, const csr_model *model, csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
