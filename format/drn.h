/*
 * drn.h - reader for Storm's explicit DRN format ("direct encoding", written
 * by Storm's exporter, e.g. stormpy.io.export_to_drn), producing
 * a csr_model.  The grammar, as Storm 2.0 writes it and its
 * DirectEncodingParser reads it:
 *
 *   // comment lines (anywhere)
 *   @type: DTMC | MDP              (CTMC, MA, POMDP, SMG: refused)
 *   @value_type: double            (optional; exact, parametric, interval: refused)
 *   @parameters                    the next line: parameter names (must be empty)
 *   @reward_models                 the next line: reward model names, space-separated
 *   @nr_states                     the next line: n
 *   @nr_choices                    the next line: c
 *   @model
 *   state S [r1, ...] label ...    S = 0, 1, ..., n-1 in order; rewards in brackets
 *                                  (one per reward model: state rewards); labels are
 *                                  words or "quoted"
 *   //[x=1 & !b & c]               the state's valuation (x = 1, b false, c true;
 *                                  Storm 2.0 writes a true bool as an empty item):
 *                                  kept when every state has one of bool and
 *                                  integer variables, else skipped (reported)
 *           action NAME [r1, ...]  a choice of S: NAME is __NOLABEL__ for none, and
 *                                  Storm writes the choice's index within S where
 *                                  the model has no choice labels (both: no action)
 *                   T : P          a transition of that choice: target, probability
 *
 * Every state has at least one choice (a DTMC exactly one), every choice at
 * least one transition; targets strictly ascending within a choice, in
 * [0, n); probabilities in (0, 1] (up to 1 + the tolerance, stored as 1),
 * each choice summing to 1 within the tolerance.  n and c must match what
 * follows.  Labels of the model: "init" (the initial states; required),
 * "deadlock" where present, then the others in byte order.  Every error
 * names its line; no count is trusted for an allocation.
 */
#ifndef DRN_H
#define DRN_H

#include "csr.h"
#include "textin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drn_read_options {
    int sums_are_warnings; /* choice sums off by more than the tolerance: count, don't fail */
    double sum_tolerance;  /* how far from 1 a choice may sum; 0: PRISM_SUM_TOLERANCE */
    int skip_valuations;   /* read the model without its state valuations */
} drn_read_options;

typedef struct drn_report {
    uint64_t bad_sums;           /* choices whose sum is off (when warnings) */
    uint64_t first_bad_sum_line; /* line of the first such choice's last transition */
    double worst_sum_error;
    uint64_t reward_models;      /* reward models declared: kept as the model's reward structures
                                    (state rewards from the state lines, choice rewards from the
                                    action lines; a part zero everywhere left out) */
    uint64_t valuations;         /* state valuation lines read */
    uint64_t variables;          /* their variables, when kept as the model's valuations (CSR 1.3); 0:
                                    none, or skipped (why: skipped_why) */
    char skipped_why[128];
} drn_report;

/* Whether the start of an input (head, length bytes) is DRN: after blank
 * lines and "//" comment lines, a line that starts with '@'. */
int drn_sniff(const char *head, size_t length);

/* Read a DRN model from in into model (arrays owned by model, labels and
 * initial states included).  On error status->line is the line at fault and
 * the model is freed. */
int drn_read(textin *in, const drn_read_options *options, csr_model *model, drn_report *report,
             csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
