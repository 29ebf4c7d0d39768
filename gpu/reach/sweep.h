/*
 * sweep.h - the sweep classes of the iteration (internal to gpu/reach/;
 * sweep.cu): a Gauss-Seidel order for the parallel iteration, the maybe
 * slots renumbered by their distance to the fixed states modulo K.
 */
#ifndef GPU_REACH_SWEEP_H
#define GPU_REACH_SWEEP_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "compact.h"
#include "workspace.h"

/*
 * The number of sweep classes for a system of `levels` levels (as counted,
 * a multiple of 32): one per GPU_REACH_LEVELS_PER_CLASS, at least
 * GPU_REACH_SWEEP_CLASSES and at most GPU_REACH_AUTO_SWEEP_CLASSES (so 4,
 * 8, 12 or 16 from the counts).  More classes
 * carry values further an iteration (wlan.6, 3,104 levels: 3,520 iterations
 * with 3 classes, 704 with 16) but each is a launch of its own (there 0.29
 * ms an iteration with 3, 0.68 with 16); a shallow system gains nothing
 * past a few (consensus.6, 64 levels: the same 1,776 iterations with 8 as
 * with 16).
 */
unsigned sweep_classes_for(uint64_t levels);

/*
 * The sweep classes of the uploaded system v (choice words; classes > 1,
 * or 0: sweep_classes_for the levels found) on the device: each maybe
 * slot's level (1 + its distance to a fixed
 * state, near_fixed (host, u8[nm]) counting as one) by a breadth-first
 * search backwards over the predecessors' lists, sweep_keys, a stable radix
 * sort of the maybe slots by key (CUB, the two-call pattern) into w.order
 * (position p: the slot that becomes p), and where each class begins into
 * sw.  The order is a heuristic: any order is sound.  edges: the system's
 * mc + mb, below 2^32.  Device memory 18 nm + 4 (GPU_REACH_MAX_SWEEP_CLASSES
 * + 2) bytes and CUB's space kept in w, and 4 nm + 4 edges while the levels are searched.
 * *rounds: the levels searched, added (launched 32 at a time between reads
 * of the frontier's size, so rounded up to a multiple of 32).
 */
int sweep_order(const vi_view &v, const uint8_t *near_fixed, uint64_t edges, unsigned classes, vi_workspace &w,
                cudaStream_t s, vi_sweep *sw, uint64_t *rounds, csr_status *status);

/* Device bytes sweep_order and sweep_renumber take beyond the system's. */
uint64_t sweep_bytes(const compact_system &cs, bool mecs);

/*
 * The uploaded system (choice words) renumbered by w.order (new slot p is
 * old slot order[p]), so that each sweep class is a range of slots read as
 * the iteration reads the slots, in order (the order through an index
 * instead cost coin6_4 13 us an iteration of 43): new choice and branch
 * offsets by two exclusive scans (CUB), then renumber_fill; the new arrays
 * are swapped in and v points at them.  The fixed slots keep their numbers.
 */
int sweep_renumber(vi_view &v, const compact_system &cs, vi_workspace &w, cudaStream_t s, csr_status *status);

#endif
