/*
 * reach_gpu.h - the GPU engine of reachability (check/reach.h's
 * reach_engine contract): the model resident on the device for a whole run,
 * Prob0/Prob1 by backward searches on it, the MECs of the maybe states on
 * it, and the maybe system compacted and iterated after Berger 2014
 * (chapter 3) by certified policy iteration, interval, optimistic or plain
 * value iteration, with the systems, bounds and stopping rules of the
 * sequential references (ref/reach_ref.h).  The jobs, a file each, in
 * gpu/reach/: prob01.cu, compact.cu, iterate.cu, sweep.cu, pi.cu,
 * bounded.cu, engine.cu.
 */
#ifndef GPU_REACH_H
#define GPU_REACH_H

#include <stdint.h>

#include "csr.h"
#include "mec.h"
#include "reach.h"
#include "scc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sweep classes of the iteration, where the options leave them to the
 * system: one per GPU_REACH_LEVELS_PER_CLASS levels of its distances to the
 * fixed states (counted 32 at a time: 4, 8, 12 or 16 classes), at least
 * GPU_REACH_SWEEP_CLASSES and at most GPU_REACH_AUTO_SWEEP_CLASSES
 * (sweep.h; measured on wlan, firewire, consensus and csma:
 * bench/RESULTS.md, "Sweep classes by the system's depth"); and the most. */
#define GPU_REACH_SWEEP_CLASSES 3
#define GPU_REACH_AUTO_SWEEP_CLASSES 16
#define GPU_REACH_LEVELS_PER_CLASS 8
#define GPU_REACH_MAX_SWEEP_CLASSES 64

typedef struct gpu_reach_options {
    int threads_per_state;  /* 0: chosen from the system's shape; 1..32, a power of two */
    unsigned sweep_classes; /* 0: by the system's depth; 1: Jacobi; 2..GPU_REACH_MAX_SWEEP_CLASSES */
    uint64_t memory_limit;  /* device bytes a system may take (0: 9/10 of the free memory): else the split */
    gpu_scc_options scc;    /* the SCC and MEC decompositions (scc.persistent == 0: Prob0/Prob1 level by level) */
    gpu_mec_scheme mec_scheme; /* the MEC decompositions' scheme (GPU_MEC_AUTO: by the model's class) */
} gpu_reach_options;

void gpu_reach_default_options(gpu_reach_options *options);

/* What the engine did since the last gpu_reach_reset_stats (one property). */
typedef struct gpu_reach_stats {
    uint64_t resident_bytes;      /* device memory of the resident model (its transpose and Prob0/Prob1 sets) */
    double resident_upload_s;     /* seconds to upload it and build the transpose (once a run) */
    uint64_t prob01_sweeps;       /* Prob0/Prob1's backward searches (their levels with --host-loop) */
    int prob01_on_cpu;            /* Prob0/Prob1 ran on the CPU: the GPU lacked the memory */
    int prob1e_by_mecs;           /* Prob1E came from the MEC quotient (one step with the maybe MECs) */
    const char *mec_scheme_used;  /* the scheme of the last MEC decomposition ("interleave", "rounds"); NULL: none */
    uint64_t device_bytes;        /* device memory of the iteration (its buffers, kept across systems) */
    uint64_t bytes_per_iteration; /* device memory one iteration reads and writes (estimate), last system */
    int used_threads, used_rows;  /* mapping of the last system */
    unsigned used_sweep_classes;  /* last system: sweep classes holding states (launches an iteration) */
    uint64_t sweep_rounds;        /* levels of the sweep classes' searches (launched 32 at a time), summed */
    int used_dictionary;          /* last system: probabilities as u16 indices into a table of distinct values */
    uint64_t ovi_guesses;         /* optimistic value iteration: upper bounds guessed */
    double compact_s, h2d_s, iterate_s, d2h_s; /* seconds: host compaction, upload, iterations, download */
    double sweep_s;               /* seconds of the sweep classes on the device */
    double pi_s;                  /* seconds of certified policy iteration */
    double mec_upload_s, mec_resident_s, mec_download_s; /* seconds of the MEC decompositions (gpu_mec_stats) */
} gpu_reach_stats;

/* The engine's state: options, figures, and the device buffers it keeps. */
typedef struct gpu_reach_context {
    gpu_reach_options options;
    gpu_reach_stats stats;
    const csr_model *model; /* the engine's model */
    csr_status *status;     /* where a CUDA failure is described */
    void *resident;         /* the model on the device (gpu/reach/resident.h); NULL: not (yet, or no room) */
    void *workspace;        /* the iteration's buffers, kept across systems */
} gpu_reach_context;

/*
 * The GPU engine on model m (which must outlive it): cx receives the
 * options, the model is uploaded once with its transpose (CSR_ERR_NOMEM
 * there is no error: Prob0/Prob1 then run on the CPU and the MECs on a
 * graph uploaded per decomposition), e's members point at the GPU steps
 * with ctx = cx, and e->budget is the memory limit or 9/10 of the device
 * memory free with the model resident.  Release with gpu_reach_close.
 * Errors: CSR_ERR_DEVICE (text in status).
 */
int gpu_reach_engine(const csr_model *m, const gpu_reach_options *options, gpu_reach_context *cx, reach_engine *e,
                     csr_status *status);

/* Zero cx->stats but for the resident model's figures (a new property). */
void gpu_reach_reset_stats(gpu_reach_context *cx);

/* Free every device buffer of cx (safe twice, and on a zeroed context). */
void gpu_reach_close(gpu_reach_context *cx);

/*
 * ref_reach_iterate on the GPU (a reach_solver: ctx is a gpu_reach_context):
 * the maybe subsystem compacted on the host (gpu/reach/compact.h), uploaded,
 * and iterated (gpu/reach/iterate.cu has the mapping, the sweep classes and
 * the methods).  Errors: CSR_ERR_NOMEM, CSR_ERR_DEVICE, CSR_ERR_TOO_LARGE
 * (2^32 maybe choices or 2^31 kept branches or more), CSR_ERR_NOT_CONVERGED,
 * CSR_ERR_STALLED.
 */
int gpu_reach_iterate(const reach_system *system, const reach_options *options, double epsilon, double *lower,
                      double *upper, uint64_t *iterations, double *difference, void *ctx);

/*
 * Prob0/Prob1 of one query on the GPU without an engine (gpu-acc): the
 * model uploaded for this call.  cls u8[n] as ref_reach_prob01; *sweeps:
 * the searches; levels != 0: level by level.  Errors: CSR_ERR_NOMEM (device
 * memory), CSR_ERR_DEVICE.
 */
int gpu_reach_prob01(const csr_model *m, const reach_query *q, int levels, uint8_t *cls, uint64_t *sweeps,
                     csr_status *status);

/* Free device memory in bytes (cudaMemGetInfo), 0 on failure. */
uint64_t gpu_free_memory(void);

#ifdef __cplusplus
}
#endif

#endif
