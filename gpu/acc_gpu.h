/*
 * acc_gpu.h - accepting cycles on the GPU (gpu-acc): OWCTY and MAP of the
 * DiVinE-CUDA slides (Barnat, Bauch, Brim & Češka 2011) over a CSR model's
 * graph (an edge for every transition of every choice), the same algorithms
 * and results as ref/acc.h's references.  The graph is uploaded as its
 * state rows (u64 row offsets, u32 targets: 8(n + 1) + 4t bytes) with the
 * per-state arrays of the algorithm (about 14n bytes); every search
 * (reachability, elimination) is an asynchronous drain of one worklist
 * (gpu/common/worklist.h, the sync-free pattern of the SCC engines'
 * peeling): no barrier and no launch per level, so a deep graph costs its
 * work, not its depth.
 */
#ifndef GPU_ACC_GPU_H
#define GPU_ACC_GPU_H

#include <stdint.h>

#include "acc.h"
#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_acc_stats {
    uint64_t reachable, rounds, levels, passes, remaining;
    uint64_t device_bytes;
    double upload_s, search_s; /* seconds */
} gpu_acc_stats;

/*
 * OWCTY (ref_acc_owcty's contract): Reset as a search from the set's
 * accepting states inside the set, Elimination as the removal of states
 * whose count of predecessors in the set fell to zero, rounds to a
 * fixpoint; stats->levels counts the searches.  survivors u8[n] (may be NULL).  Returns 1, 0, or -CSR_ERR_NOMEM
 * / -CSR_ERR_DEVICE (text in status).
 */
int gpu_acc_owcty(const csr_model *model, const uint8_t *accepting, uint8_t *survivors, gpu_acc_stats *stats,
                  csr_status *status);

/*
 * MAP (ref_acc_map's contract): map values (state + 1, 0 for none) raised
 * by atomicMax along the edges of the states whose value rose in the pass
 * before (first the accepting ones), passes until none rose, then the
 * removal of the maximal accepting predecessors, rounds until a state is its own map
 * or nothing is removed.  Returns 1 with *cycle_state, 0, or a negative
 * error.
 */
int gpu_acc_map(const csr_model *model, const uint8_t *accepting, uint64_t *cycle_state, gpu_acc_stats *stats,
                csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
