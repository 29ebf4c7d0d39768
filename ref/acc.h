/*
 * acc.h - accepting cycles (the emptiness check of automata-based LTL model
 * checking) on the graph of a CSR model: its states, and an edge s -> t for
 * every transition of every choice of s.  Does a cycle through a state with
 * accepting[s] exist, reachable from an initial state?  The sequential
 * references of gpu-acc (gpu/acc.h has the GPU algorithms):
 *  - nested depth-first search (Courcoubetis, Vardi, Wolper & Yannakakis
 *    1992, with Holzmann, Peled & Yannakakis's stack check): optimal, O(n +
 *    t), a lasso at once, inherently sequential;
 *  - OWCTY, one way catch them young (Černá & Pelánek 2003; Barnat, Brim &
 *    Ročkai; the DiVinE-CUDA slides of Barnat, Bauch, Brim & Češka 2011):
 *    from the reachable states, alternately keep only the states reachable
 *    from accepting ones (Reset) and remove the states without a
 *    predecessor in the set (Elimination), to a fixpoint: a non-empty
 *    fixpoint holds an accepting cycle (every state in it has a predecessor
 *    and is reachable from an accepting state of it, so an infinite backward
 *    chain of accepting states repeats one);
 *  - MAP, maximal accepting predecessors (Brim, Černá, Moravec & Šimša 2004;
 *    the slides): map(v) = the largest accepting state with a path of at
 *    least one edge to v; map(v) = v for an accepting v is a cycle; if none,
 *    the accepting states that are some state's map cannot lie on an
 *    accepting cycle (the cycle's own largest accepting state would be
 *    larger), are made non-accepting, and the search repeats.
 * States are the model's; tools map them through the permutation.
 */
#ifndef ACC_H
#define ACC_H

#include <stdint.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A lasso: prefix[0] is an initial state, prefix[prefix_length - 1] = cycle[0]
 * the accepting state, each consecutive pair an edge; cycle[i] -> cycle[i+1]
 * and cycle[cycle_length - 1] -> cycle[0] are edges (cycle_length >= 1). */
typedef struct acc_lasso {
    uint32_t *prefix, *cycle;
    uint64_t prefix_length, cycle_length;
} acc_lasso;

void acc_lasso_free(acc_lasso *lasso);

typedef struct acc_stats {
    uint64_t reachable;  /* states reachable from the initial ones */
    uint64_t rounds;     /* OWCTY: Reset + Elimination rounds; MAP: rounds of removals */
    uint64_t passes;     /* MAP: propagation passes over the edges, all rounds */
    uint64_t remaining;  /* OWCTY: states of the fixpoint; MAP: 0 or 1 */
} acc_stats;

/*
 * Nested DFS, iterative.  Returns 1 (a cycle; *lasso filled when lasso is
 * not NULL), 0 (none), or a negative error (-CSR_ERR_NOMEM).  8n bytes of
 * marks and stacks of up to n frames.
 */
int ref_acc_nested_dfs(const csr_model *model, const uint8_t *accepting, acc_lasso *lasso, acc_stats *stats);

/*
 * OWCTY, sequential (queues).  survivors u8[n] (may be NULL): the fixpoint's
 * states.  Returns 1 (non-empty fixpoint: a cycle), 0, or -CSR_ERR_NOMEM.
 */
int ref_acc_owcty(const csr_model *model, const uint8_t *accepting, uint8_t *survivors, acc_stats *stats);

/*
 * MAP, sequential (passes in state order to a fixpoint, then removals).
 * *cycle_state: an accepting state on an accepting cycle when one is found.
 * Returns 1, 0, or -CSR_ERR_NOMEM.
 */
int ref_acc_map(const csr_model *model, const uint8_t *accepting, uint64_t *cycle_state, acc_stats *stats);

/*
 * A lasso when an accepting cycle is known to lie within the states with
 * within[s] (NULL: all states): Tarjan's SCCs of that subgraph give an
 * accepting state in a non-trivial SCC (or with a self-loop), a breadth-
 * first search inside its SCC the shortest cycle back to it, and one from
 * the initial states over the whole graph the shortest prefix.  Returns 1
 * (found), 0 (no accepting cycle in within), or -CSR_ERR_NOMEM.
 */
int acc_lasso_build(const csr_model *model, const uint8_t *accepting, const uint8_t *within, acc_lasso *lasso);

/* Whether lasso is one of model's (edges, an initial state first, an
 * accepting state on the cycle): 1 or 0 (for the tests). */
int acc_lasso_valid(const csr_model *model, const uint8_t *accepting, const acc_lasso *lasso);

#ifdef __cplusplus
}
#endif

#endif
