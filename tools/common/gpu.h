/*
 * gpu.h - what the GPU tools (gpu-scc, gpu-mec, gpu-vi) share: the CUDA
 * device, the options of the SCC engines (gpu/scc.h) including the FMSD
 * article's configurations of the fb engine, and the --stats output (text,
 * or one JSON object on stderr with --stats=json, made with jansson).
 */
#ifndef GPU_H
#define GPU_H

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

#include "mec.h"
#include "multi.h"
#include "reach.h"
#include "reach_parts.h"
#include "ref.h"
#include "scc.h"
#include "tool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Choose CUDA device `device` and start the driver and its context on a
 * thread of its own (gpu_device_ready waits for them).  Where the user has
 * not set CUDA_VISIBLE_DEVICES, only the run's devices are made visible, so
 * that the driver initialises no other GPU: `device` alone (it is then
 * CUDA's device 0), or with -g/--gpus (gpu_tool_parts_finish) the parts'
 * devices and those numbered below them; with -g/--gpus the context of every
 * device the parts take is created on that thread too (0.1-0.3 s each on the
 * lent H100/H200), while the tool reads its input. */
void gpu_select_device(int device);

/* Waits for gpu_select_device's thread and makes the device current on the
 * calling thread, before the first other CUDA call.  Returns 0, or prints why
 * it cannot ("no CUDA device; use --cpu for the CPU reference", "no CUDA
 * device N", "no CUDA device N (M present)", "CUDA device N: what") and
 * returns EXIT_DEVICE (3). */
int gpu_device_ready(void);

/* When gpu_tool_load read and waited (tool_seconds): reading began, ended,
 * and the CUDA context was ready (= read_end with --cpu). */
typedef struct gpu_tool_times {
    double read_start, read_end, device_ready;
} gpu_tool_times;

/*
 * The GPU tools' "open input" step, after their options (netpbm's skeleton:
 * parse options, open input, work, write): the input operand (standard input
 * when none, a usage error when more than one), the CUDA device chosen and
 * its context started on a thread (not with --cpu), the model read while it
 * starts, then the context waited for.  Returns 0 with *path and *model set
 * (csr_free it), or the exit status with the message printed: EXIT_USAGE,
 * EXIT_BAD_INPUT (unreadable or invalid model), EXIT_DEVICE.
 */
int gpu_tool_load(int argc, char **argv, void (*usage)(FILE *), int use_cpu, int device, const char **path,
                  csr_model *model, gpu_tool_times *times);

/*
 * gpu_tool_load for a tool that answers small models on the CPU: where
 * *use_cpu is 0 and cpu_below is not, a model of fewer than cpu_below
 * transitions sets *use_cpu and is answered without CUDA.  A file whose
 * header (csr_peek_transitions) says so is read before any CUDA call, so
 * that such a run never starts the driver; any other input is read while
 * the context starts, as gpu_tool_load does (standard input: a small model
 * read from it is answered on the CPU too, whether a device is there or not).  With
 * cpu_pays, a file of fewer than GPU_TOOL_JUDGED x cpu_below transitions is
 * read first too, and answered on the CPU where cpu_pays(model) says so (the
 * context then starts after the read, not during it).
 * Returns as gpu_tool_load.
 */
#define GPU_TOOL_JUDGED 16
int gpu_tool_load_auto(int argc, char **argv, void (*usage)(FILE *), int *use_cpu, int device,
                       uint64_t cpu_below, int (*cpu_pays)(const csr_model *), const char **path, csr_model *model,
                       gpu_tool_times *times);

/* Option codes of the shared options (getopt_long's val). */
enum {
    GPU_OPT_CPU = 256, GPU_OPT_STATS, GPU_OPT_ENGINE, GPU_OPT_PEEL, GPU_OPT_NO_PEEL, GPU_OPT_SWEEPS, GPU_OPT_NH,
    GPU_OPT_BFBT, GPU_OPT_NO_WARP, GPU_OPT_NO_TRANSPOSE, GPU_OPT_HOST_LOOP, GPU_OPT_SWEEP_TRIM, GPU_OPT_BLOCKS,
    GPU_OPT_PEEL_SCHEDULE, GPU_OPT_GPUS, GPU_OPT_EXCHANGE, GPU_OPT_LABEL_ORDER,
    GPU_OPT_TOOL /* first code free for a tool */
};

/* getopt_long's short options and the long-option entries, for a tool's own table. */
#define GPU_SHORT_OPTIONS "c:d:h"
#define GPU_LONG_OPTIONS                                                                                     \
    {"cpu", no_argument, 0, GPU_OPT_CPU}, {"stats", optional_argument, 0, GPU_OPT_STATS},                    \
        {"engine", required_argument, 0, GPU_OPT_ENGINE}, {"peel", no_argument, 0, GPU_OPT_PEEL},            \
        {"no-peel", no_argument, 0, GPU_OPT_NO_PEEL}, {"sweeps", required_argument, 0, GPU_OPT_SWEEPS}, \
        {"nh", no_argument, 0, GPU_OPT_NH}, {"bfbt", no_argument, 0, GPU_OPT_BFBT},                          \
        {"no-warp-aggregation", no_argument, 0, GPU_OPT_NO_WARP},                                            \
        {"no-transpose", no_argument, 0, GPU_OPT_NO_TRANSPOSE}, {"host-loop", no_argument, 0, GPU_OPT_HOST_LOOP}, \
        {"sweep-trim", no_argument, 0, GPU_OPT_SWEEP_TRIM}, {"blocks", required_argument, 0, GPU_OPT_BLOCKS}, \
        {"peel-schedule", required_argument, 0, GPU_OPT_PEEL_SCHEDULE},                                      \
        {"label-order", required_argument, 0, GPU_OPT_LABEL_ORDER},                                          \
        {"cache", required_argument, 0, 'c'}, {"device", required_argument, 0, 'd'},                         \
        {"help", no_argument, 0, 'h'}, {"version", no_argument, 0, TOOL_OPT_VERSION}

enum { GPU_STATS_NONE = 0, GPU_STATS_TEXT = 1, GPU_STATS_JSON = 2 };

typedef struct gpu_tool_options {
    gpu_scc_options scc;
    int use_cpu, stats, device;
    int engine_given;       /* --engine was given */
    const char *fb_option;  /* the last option of the fb engine given (implies --engine fb), or NULL */
    const char *lp_option;  /* the last option of the lp engine given, or NULL */
} gpu_tool_options;

/* Defaults: the GPU, device 0, gpu_scc_default_options, no statistics. */
void gpu_tool_defaults(gpu_tool_options *options);

/* Apply option c (with argument arg) when it is one of the shared ones:
 * returns 1 done, 0 not a shared option, -1 bad argument (message printed). */
int gpu_tool_option(int c, const char *arg, gpu_tool_options *options); /* --version: prints it and exits 0 */

/* A whole decimal number in [low, high] into *out: returns 1, or prints "bad
 * WHAT 'ARG' (LOW to HIGH)" and returns -1 (as gpu_tool_option). */
int gpu_tool_parse_count(const char *arg, long low, long high, const char *what, int *out);

/* --scheme S of the MEC tools (gpu-mec, gpu-vi): *scheme by its name;
 * returns 1, or prints "unknown scheme 'S' (...)" and returns -1. */
int gpu_tool_parse_mec_scheme(const char *arg, gpu_mec_scheme *scheme);

/* After the options: 0, or prints why and returns -1 where the scheme cannot
 * run on the engine the options chose (interleave needs lp). */
int gpu_tool_check_mec_scheme(gpu_mec_scheme scheme, const gpu_scc_options *scc);

/* After the options: an option of the fb engine (-c, --nh, --bfbt, ...)
 * chooses that engine unless --engine named another, which is a usage error
 * (message printed, returns EXIT_USAGE); 0 otherwise. */
int gpu_tool_finish_options(gpu_tool_options *options);

/* The usage lines of the shared options. */
void gpu_tool_usage(FILE *out);

/* The options of a model split into parts over several GPUs (issue 18,
 * gpu/multi.h), for the tools that take them: -g N, --gpus LIST, --exchange
 * auto|peer|copies|nccl.  Append GPU_PARTS_SHORT_OPTIONS to the short options and
 * GPU_PARTS_LONG_OPTIONS to the long ones. */
#define GPU_PARTS_SHORT_OPTIONS "g:"
#define GPU_PARTS_LONG_OPTIONS                                                                               \
    {"gpus", required_argument, 0, GPU_OPT_GPUS}, { "exchange", required_argument, 0, GPU_OPT_EXCHANGE }

typedef struct gpu_tool_parts {
    int parts;               /* 0: one GPU, no parts; else 1 .. 65,536 */
    gpu_parts_options options;
} gpu_tool_parts;

/* Apply option c when it is one of the parts' (as gpu_tool_option): returns
 * 1 done, 0 not one of them, -1 bad argument ("bad part count 'X' (1 to
 * 65536)", "bad --gpus 'X' (device numbers, comma-separated, at most 64)",
 * "bad --exchange 'X' (auto, peer, copies or nccl)" printed). */
int gpu_tool_parts_option(int c, const char *arg, gpu_tool_parts *parts);

/* After the options: --gpus alone means one part a device, and the first of
 * them is the device whose context the tool starts while reading
 * (options->device). */
void gpu_tool_parts_finish(gpu_tool_parts *parts, gpu_tool_options *options);

/* The partition of the CPU's rounds over parts (csr_partition_build, as
 * the GPUs' run_partitioned builds it), its seconds into st->partition_s
 * and its foreign states into st->foreign.  Returns as csr_partition_build. */
int gpu_tool_partition(const csr_model *model, uint32_t parts, csr_partition *partition, gpu_parts_stats *st,
                       csr_status *status);

/* Before the GPUs run the parts: without --gpus, the first min(parts,
 * present) devices; every device named must be there.  Returns 0, or prints
 * "no CUDA device N (M present)" and returns EXIT_DEVICE. */
int gpu_tool_parts_devices(gpu_tool_parts *parts);

/* After a decomposition on one GPU failed with rc and st (reported): where
 * that is CUDA's out-of-memory (CSR_ERR_NOMEM, st's text from CUDA, not
 * the host's), "WHAT plans P GB of device memory; GPU d has F GB free of T
 * GB: -g N spreads the model over N GPUs ..., --cpu ..." on stderr; else
 * nothing.  planned: the bytes the decomposition planned
 * (gpu_scc_bytes_needed, gpu_mec_bytes_needed); 0: not known ("WHAT lacks
 * device memory"). */
void gpu_tool_memory_advice(int rc, const csr_status *st, const char *what, uint64_t planned);

/* The MECs of model over the parts of po (gpu-mec -g, gpu-vi -g): the MEC
 * rounds on the GPUs (gpu_mec_partitioned), or with use_cpu on the CPU
 * (csr_partition_build, ref_mec_partitioned).  mec (u64[n]): the smallest
 * state of each state's MEC or REF_NONE, as ref_mec_basic gives it; *rst
 * the counts; *pst the parts' (on the CPU only phases, rounds and attractor
 * rounds).  Errors: those of the functions named. */
int gpu_tool_mec_parts(const csr_model *model, const gpu_parts_options *po, int use_cpu, uint64_t *mec,
                       ref_mec_stats *rst, gpu_parts_stats *pst, csr_status *status);

/* The engine of gpu-vi -g (check/reach.h's contract): Prob0/Prob1 by the
 * references, the maybe states' MECs over the parts (gpu_tool_mec_parts on
 * reach_maybe_graph), systems by the iteration over the parts (the GPUs'
 * gpu_reach_iterate_partitioned, or with use_cpu ref/reach_parts.h's); no
 * split, no step bounds (the query layer takes the references').  pe holds
 * the engine's state and figures (mec_rounds, pcx.stats); it and model must
 * outlive e. */
typedef struct gpu_tool_parts_engine {
    const csr_model *model;
    reach_parts_context pcx; /* parts, gpus (the gpu_parts_options), status */
    int use_cpu;
    uint64_t mec_rounds;     /* of the MEC decompositions, summed */
} gpu_tool_parts_engine;
void gpu_tool_parts_reach_engine(gpu_tool_parts_engine *pe, reach_engine *e);

/* The usage lines of the parts' options. */
void gpu_tool_parts_usage(FILE *out);

/* The parts' statistics into a --stats=json object: "parts", "foreign"
 * (foreign states over all parts) and "partition_s" (seconds on the host),
 * and for the GPUs (not use_cpu) "devices", "exchange", "passes",
 * "exchanged_bytes", "upload_s", "download_s", "trim_s", "propagate_s". */
void gpu_stats_json_parts(json_t *object, const gpu_tool_parts *parts, const gpu_parts_stats *stats, int use_cpu);

/* The engine-neutral statistics of gpu/scc.h into a JSON object (keys as the
 * struct's fields). */
void gpu_stats_json_scc(json_t *object, const gpu_scc_stats *stats);

/* One JSON object on stderr, compact, with a newline; consumes object. */
/* A --stats=json object begun with what every GPU tool reports: "tool",
 * the model's "states", "choices" and "transitions", "read_s" and
 * "device_wait_s" from gpu_tool_load's times (seconds). */
json_t *gpu_stats_json_begin(const csr_model *model, const gpu_tool_times *times);
void gpu_stats_json_print(json_t *object);

/* "tool: engine E: P peeled, F phases, Q passes[, C choices removed]; device
 * memory planned A MB, allocated B MB" and "tool: GPU: upload U s, resident R
 * s (prepare, peel, search, finish), download D s" on stderr. */
void gpu_stats_text_scc(const gpu_scc_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
