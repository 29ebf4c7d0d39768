/*
 * pi.h - certified policy iteration on the GPU (internal to gpu/reach/;
 * pi.cu): the steps and constants of ref/reach_pi.c on the compacted maybe
 * subsystem that iterate.cu has uploaded.
 */
#ifndef GPU_REACH_PI_H
#define GPU_REACH_PI_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "csr.h"
#include "reach.h"
#include "system.cuh"

/*
 * REACH_PI on the uploaded system v (choice words; no MECs; the fixed
 * slots [nm, slots) hold exact values, lower == upper; with rewards the
 * upper bounds INFINITY until certified, an infinite fixed slot entered by
 * a choice no minimiser takes): interval
 * iteration in Jacobi order (two buffers of bounds) for up to
 * reach_pi_jacobi_limit() iterations, then, unless that met eps, policy
 * iteration with IDR(REACH_PI_IDR_S) solves (every scalar of the solver
 * on the device, a CUDA graph a cycle of S + 1 products), the exit time and
 * the certificate, each Bellman sum bounded by reach_pi_round_down/up.  The
 * bounds in v.bounds are replaced by sound, tighter ones either way.
 * *solved: they meet eps (relative or absolute) in every maybe slot;
 * *bounded: every maybe slot has a finite upper bound (rewards: a
 * certificate held; probabilities: always);
 * *jacobi: the Jacobi iterations; *difference: the largest u - l;
 * o->pi_stats (if set) gets what was done.  Device memory: 16 slots + (48 +
 * 16 S) nm bytes and 8 KiB a block of partial sums, freed on return.
 * Stream s.  Errors: CSR_ERR_NOMEM, CSR_ERR_DEVICE.
 */
int gpu_reach_pi(const vi_view &v, uint64_t slots, const reach_options *o, double eps, cudaStream_t s,
                 uint64_t *jacobi, double *difference, bool *solved, bool *bounded, csr_status *status);

#endif
