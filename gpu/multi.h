/*
 * multi.h - a model split into parts over several GPUs (issue 18; the public
 * C interface of gpu/multi/): the partition of ref/partition.h (contiguous
 * state ranges, each part's reduced vector of own and foreign states, the
 * exchange lists) put on the devices, and the SCC decomposition by label
 * propagation over the parts (ref_scc_partitioned's rounds on the GPUs).
 *
 * After the second partitioning of the DiVinE-CUDA slides (Barnat, Bauch,
 * Brim and Ceska, ICPADS'10): each part holds its slice of the model, its
 * transitions' targets rewritten once as indices into its own + foreign
 * vector, and between rounds only the foreign states' labels move: per
 * ordered pair of parts a gather on the owner and one transfer into the
 * reader's contiguous slice (pull), or the reverse and a max-scatter on the
 * owner (push).  The transfer is NCCL's ncclSend/ncclRecv in a group where
 * every part has a GPU of its own, else a device copy
 * (cudaMemcpyPeerAsync): the simulated mode, several parts on one GPU, that
 * runs the same partition, kernels and exchange lists where fewer GPUs are
 * lent.  Where the devices map each other's memory with native atomics
 * (peer access: NVLink, or one device) the label propagation instead
 * relaxes each part's edge list against copies of the foreign labels
 * refreshed each pass, raising the owners' in place, every part's pass at
 * once, without rounds; the trimming decrements and reads the owners'
 * counts and flags in place; and the pulls are gathers on the reader from
 * the owner's arrays (GPU_EXCHANGE_PEER, auto's choice there).  format/MULTI-GPU.md is the design note.
 */
#ifndef GPU_MULTI_H
#define GPU_MULTI_H

#include <stdint.h>

#include "csr.h"
#include "reach_parts.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_PARTS_MAX_DEVICES 64

typedef enum gpu_exchange {
    GPU_EXCHANGE_AUTO = 0,   /* peer where every pair of the devices maps the other's memory (one device:
                                always), else NCCL where every part has a device of its own and NCCL
                                loads, else copies */
    GPU_EXCHANGE_COPIES = 1, /* cudaMemcpyPeerAsync (any placement; the simulated mode) */
    GPU_EXCHANGE_NCCL = 2,   /* ncclSend/ncclRecv (one part a device, devices distinct) */
    GPU_EXCHANGE_PEER = 3    /* peer access (NVLink, or one device): kernels read and raise the owners'
                                labels in place, no rounds (any placement where the devices map each other) */
} gpu_exchange;

typedef struct gpu_parts_options {
    uint32_t parts;       /* P, 1 .. 65,536 (csr_partition_build) */
    int devices[GPU_PARTS_MAX_DEVICES]; /* the CUDA devices; part i runs on devices[i % num_devices] */
    int num_devices;      /* 1 .. GPU_PARTS_MAX_DEVICES */
    gpu_exchange exchange;
} gpu_parts_options;

typedef struct gpu_parts_stats {
    const char *exchange;      /* "peer", "nccl" or "copies" */
    uint64_t foreign;          /* foreign states over all parts (each part's copies of others' states) */
    uint64_t trimmed, trim_rounds; /* trimming first and between phases: states removed, rounds (summed) */
    uint64_t phases, rounds;   /* as ref_scc_partitioned counts them with that trimming (equal to its counts;
                                  peer: rounds are the passes over all parts at once);
                                  MECs: label propagation's, summed over the MEC rounds */
    uint64_t mec_rounds, attractor_rounds; /* MECs: SCC decompositions, attractor exchange rounds */
    uint64_t mecs, states_in_mecs, removed_states, removed_choices; /* MECs, as ref_mec_parts_stats */
    uint64_t passes;           /* relaxation launches, summed over the parts */
    uint64_t exchanged_bytes;  /* bytes moved between parts (peer: the label propagation's refreshes of
                                  the foreign copies counted whole, dead copies included) */
    double partition_s;        /* the partition on the host (csr_partition_build) */
    double upload_s, resident_s, download_s; /* seconds */
    double trim_s, propagate_s; /* of resident_s: the trimming, the label propagation (GPUs; 0 on the CPU) */
} gpu_parts_stats;

/* "auto", "copies", "nccl" or "peer"; gpu_exchange_by_name: -1 for an unknown name. */
const char *gpu_exchange_name(gpu_exchange exchange);
int gpu_exchange_by_name(const char *name);

/*
 * The SCCs of model over options->parts parts, ref_scc_partitioned's with
 * peeling (the lp engine's order): trimming over the parts first and
 * between phases, within the classes of the live states (ref_trim_partitioned's
 * rounds: each part drains its own queue level by level, eight levels a
 * launch batch, then the outboxes of decrements are pushed to the owners
 * and the flags pulled; no round where the counts queue nothing), the trimmed
 * states each an SCC of its own; the phases and rounds of label
 * propagation, each part's label relaxation to its local fixpoint on
 * its device (one launch a pass over its own edges, atomicMax on the
 * labels), then the push of the foreign copies' in-labels to their owners
 * (max) and the pull of labels, liveness and class, until a round raises
 * nothing; the states with in == out are done.  scc (u32[n]): the smallest
 * state of each state's SCC, so it equals ref_scc_tarjan's and
 * gpu_scc_decompose's byte for byte.  Device memory per part: 8 (own + 1) +
 * 8 t_part (its rows, local targets and their transpose, built on the
 * device) + 46 (own + foreign) (labels, liveness, class, trimming counts,
 * flags, the trimming's worklist, the transpose's offsets and its fill counters) + 12 (sends
 * + receives) bytes, and CUB's scan storage; while it is uploaded, 8 c_part
 * more; peer: 8 t_part (a phase's edge list) + 16 (own + 1) (its counts
 * and their scan) + 8 foreign (each foreign state's owner and index there)
 * + 8 (own + foreign) (the phase's labels, packed) + 24 P (every part's
 * label and trimming arrays, one table a device) bytes, and CUB's scan
 * storage, more.  Peer: each phase's label
 * propagation is passes over every part at once over packed label pairs
 * (a part's foreign copies refreshed from their owners, then its edge list
 * relaxed as the lp engine relaxes, the representatives' labels raised
 * too where they are own states, each block
 * sweeping its share twice while it raises a label, a foreign in-label
 * raised at its owner by an atomic of system scope where the copy rose),
 * until a pass raises nothing on any part; the trimming's decrements and
 * flags are the owners' in place (the owners queue what reached 0); the
 * labels equal the rounds' (the same fixpoint).  Errors: CSR_ERR_USAGE
 * (a part count or device list out of range, NCCL asked where it cannot
 * run, peer asked where the devices do not map each other's memory),
 * CSR_ERR_TOO_LARGE (2^32 - 1 states or more), CSR_ERR_NOMEM (host or
 * device memory), CSR_ERR_DEVICE (CUDA or NCCL, text in status).
 */
int gpu_scc_partitioned(const csr_model *model, const gpu_parts_options *options, uint32_t *scc,
                        gpu_parts_stats *stats, csr_status *status);

/*
 * The MECs of model over options->parts parts: ref_mec_partitioned's rounds
 * (ref/partition.h) on the devices.  Each round: label propagation over the
 * parts restricted to the states in play and their enabled choices, inside
 * the SCCs of the round before (the phases of gpu_scc_partitioned, without
 * trimming); each part removes its choices that leave their state's SCC (the
 * foreign states' SCCs pulled); the attractor of the states left without
 * choices, each part draining its own queue level by level, then the
 * foreign states' flags pulled and the choices into those removed since
 * taken; the rounds end with one that removes nothing.  mec (u32[n]): the
 * smallest state of each state's MEC or GPU_MEC_NONE (gpu/mec.h), equal to
 * gpu_mec_decompose's and ref_mec_basic's; rounds, phases, label rounds,
 * attractor rounds, removed states and choices equal ref_mec_partitioned's.
 * Device memory per part: that of gpu_scc_partitioned's, plus 8 (own + 1) +
 * 12 c_part (its choices' offsets and enabled flags) + 4 t_part (the choice
 * of each transposed transition) + 8 own (choices left, the attractor's two
 * level lists, less the trimming's worklist it does not use) bytes.  Errors as
 * gpu_scc_partitioned's.
 */
int gpu_mec_partitioned(const csr_model *model, const gpu_parts_options *options, uint32_t *mec,
                        gpu_parts_stats *stats, csr_status *status);

/*
 * Interval or value iteration of a reach_system over parts on the GPUs, a
 * reach_solver whose ctx is a reach_parts_context with gpus pointing to the
 * gpu_parts_options and parts its part count (reach_parts_open, then its
 * iteration on the devices, part i on devices[i % num_devices]).  The
 * bounds after each iteration, and so the answer, are those of
 * ref_reach_iterate_partitioned bit for bit, for every part count.  Every
 * part's step is one launch (a thread per own state), the spanning MECs'
 * maxima are reduced on part 0, then the foreign states' bounds are pulled
 * (16 bytes a state); the stopping rule is read back every
 * REACH_PARTS_CHECK_EVERY iterations.  Device memory per part: 8 (own + 1)
 * + 8 (c_part + 1) + 12 t_part + own + 32 (own + foreign) + 16 max(sends,
 * foreign) + 4 sends bytes, with MECs c_part + 4 own + 16 local MECs + 8
 * spanning MECs (part 0: P times that) more.  ctx->stats: partition, foreign
 * states, spanning MECs, launches, bytes exchanged, seconds.  Errors:
 * CSR_ERR_USAGE (optimistic value iteration, expected rewards, a device
 * list out of range, NCCL where it cannot run), CSR_ERR_TOO_LARGE,
 * CSR_ERR_NOMEM, CSR_ERR_DEVICE, CSR_ERR_NOT_CONVERGED, CSR_ERR_STALLED.
 */
int gpu_reach_iterate_partitioned(const reach_system *system, const reach_options *options, double epsilon,
                                  double *lower, double *upper, uint64_t *iterations, double *difference, void *ctx);

/*
 * Whether options' exchange can run for its parts before any work: NCCL
 * asked for (GPU_EXCHANGE_NCCL) takes one part a device, each device once,
 * and libnccl.so.2 loaded; peer (GPU_EXCHANGE_PEER) devices that map each
 * other's memory (cudaDeviceCanAccessPeer); auto and copies always run.  0, or
 * CSR_ERR_USAGE with the reason in *status (what the partitioned entries
 * above would return once the model is partitioned; a tool that asks
 * several queries checks it first, so that the refusal is the run's).
 */
int gpu_parts_check_exchange(const gpu_parts_options *options, csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
