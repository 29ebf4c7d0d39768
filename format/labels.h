/*
 * labels.h - component label files and value files (man/labelcmp.1).
 *
 * A label file has one line per state, in PRISM's original state order: the
 * state's component id (a decimal u64; the tools use the smallest state of
 * the component) or "-" for a state in no component (no MEC).
 * PRISM's -exportsccs / -exportmecs files are read too: blocks "SCC i/n:" or
 * "MEC i/n:" of "state:(valuation)" lines.  A state they do not list is an SCC
 * of its own (.sccs) or in no MEC (.mecs).
 * A value file has one real number per line and state (PRISM -exportvector).
 * All are read through textin: plain or gzip-compressed.
 */
#ifndef LABELS_H
#define LABELS_H

#include <stdint.h>
#include <stdio.h>

#include "csr.h"
#include "textin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LABEL_NONE UINT64_MAX

enum label_kind { LABELS_PLAIN = 1, LABELS_PRISM_SCCS = 2, LABELS_PRISM_MECS = 3 };

/* A state a PRISM export lists, with its block (SCC or MEC number). */
typedef struct label_listing {
    uint64_t state, block;
} label_listing;

typedef struct label_file {
    int kind;
    uint64_t num_states; /* lines (plain), or 1 + the largest listed state (PRISM) */
    uint64_t *ids;       /* num_states ids; LABEL_NONE for "-" or unlisted (PRISM); for a PRISM
                            export NULL until labels_set_states, so that a large state number
                            in a file costs no memory before the real state count is known */
    label_listing *listed; /* PRISM: the states it lists, ascending (freed by labels_set_states) */
    uint64_t num_listed;
} label_file;

/* Read a label file or a PRISM .sccs/.mecs (detected by content).  Memory:
 * O(lines) for a plain file, O(listed states) for a PRISM export. */
int labels_read(textin *in, label_file *out, csr_status *status);

/*
 * Give a file num_states states.  PRISM files: states they do not list become
 * singletons (.sccs) or LABEL_NONE (.mecs); CSR_ERR_RANGE if a listed state is
 * >= num_states.  Plain files: CSR_ERR_COUNTS unless the count is already right.
 */
int labels_set_states(label_file *lf, uint64_t num_states, csr_status *status);

/* Replace every id by the smallest state with the same id (LABEL_NONE stays):
 * two labelings are the same partition iff their canonical forms are equal.
 * ids and canonical may be the same array. */
int labels_canonicalize(const uint64_t *ids, uint64_t n, uint64_t *canonical);

/* Component ids of a model's states (ids[s] a state of the model, or
 * LABEL_NONE) to the original numbering: out[permutation[s]] names the
 * component by its smallest original state.  Without a permutation this is
 * labels_canonicalize.  ids and out may be the same array.  CSR_ERR_NOMEM on
 * failure. */
int labels_to_original(const csr_model *model, const uint64_t *ids, uint64_t *out);

/* Write ids as a label file ("-" for LABEL_NONE).  Returns 0, or -1 with errno. */
int labels_write(FILE *out, const uint64_t *ids, uint64_t n);

void labels_free(label_file *lf);

/* Read a value file: *values gets n doubles (malloc'd). */
int values_read(textin *in, double **values, uint64_t *n, csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
