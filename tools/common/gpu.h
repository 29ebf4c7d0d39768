/*
 * gpu.h - what the GPU tools (gpu-scc, gpu-mec) share: the CUDA device, and
 * the options of the forward-backward SCC decomposition (gpu/scc_fb.h) that
 * reproduce the FMSD article's configurations.
 */
#ifndef GPU_H
#define GPU_H

#include <getopt.h>
#include <stdio.h>

#include "scc_fb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Make CUDA device `device` current.  Returns 0, or prints why it cannot
 * ("no CUDA device; use --cpu for the CPU reference", "no CUDA device N") and
 * returns EXIT_USAGE (2). */
int gpu_select_device(int device);

/* Option codes of the shared options (getopt_long's val). */
enum {
    GPU_OPT_CPU = 256, GPU_OPT_STATS, GPU_OPT_NH, GPU_OPT_BFBT, GPU_OPT_NO_WARP, GPU_OPT_NO_TRANSPOSE,
    GPU_OPT_HOST_LOOP, GPU_OPT_SWEEP_TRIM, GPU_OPT_BLOCKS, GPU_OPT_TOOL /* first code free for a tool */
};

/* getopt_long's short options and the long-option entries, for a tool's own table. */
#define GPU_SHORT_OPTIONS "c:d:h"
#define GPU_LONG_OPTIONS                                                                                     \
    {"cpu", no_argument, 0, GPU_OPT_CPU}, {"stats", no_argument, 0, GPU_OPT_STATS},                          \
        {"nh", no_argument, 0, GPU_OPT_NH}, {"bfbt", no_argument, 0, GPU_OPT_BFBT},                          \
        {"no-warp-aggregation", no_argument, 0, GPU_OPT_NO_WARP},                                            \
        {"no-transpose", no_argument, 0, GPU_OPT_NO_TRANSPOSE}, {"host-loop", no_argument, 0, GPU_OPT_HOST_LOOP}, \
        {"sweep-trim", no_argument, 0, GPU_OPT_SWEEP_TRIM}, {"blocks", required_argument, 0, GPU_OPT_BLOCKS}, \
        {"cache", required_argument, 0, 'c'}, {"device", required_argument, 0, 'd'},                         \
        {"help", no_argument, 0, 'h'}

typedef struct gpu_tool_options {
    gpu_scc_options scc;
    int use_cpu, stats, device;
} gpu_tool_options;

/* Defaults: the GPU, device 0, gpu_scc_default_options. */
void gpu_tool_defaults(gpu_tool_options *options);

/* Apply option c (with argument arg) when it is one of the shared ones:
 * returns 1 done, 0 not a shared option, -1 bad argument (message printed). */
int gpu_tool_option(int c, const char *arg, gpu_tool_options *options);

/* The usage lines of the shared options. */
void gpu_tool_usage(FILE *out);

/* "tool: N states, ... SCCs ..., rounds, sweeps; transpose; device memory" and
 * the phase times of one or more SCC decompositions, on stderr. */
void gpu_print_scc_stats(const gpu_scc_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
