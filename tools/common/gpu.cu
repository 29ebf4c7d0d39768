/*
 * gpu.cu - what the GPU tools share (gpu.h).
 */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "gpu.h"
#include "tool.h"

int gpu_select_device(int device)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        tool_error("no CUDA device; use --cpu for the CPU reference");
        return EXIT_USAGE;
    }
    if (device >= count) {
        tool_error("no CUDA device %d (%d present)", device, count);
        return EXIT_USAGE;
    }
    cudaError_t err = cudaSetDevice(device);
    if (err != cudaSuccess) {
        tool_error("CUDA device %d: %s", device, cudaGetErrorString(err));
        return EXIT_USAGE;
    }
    return 0;
}

void gpu_tool_defaults(gpu_tool_options *o)
{
    gpu_scc_default_options(&o->scc);
    o->use_cpu = 0;
    o->stats = 0;
    o->device = 0;
}

/* A whole decimal number in [low, high], else a message naming what. */
static int parse_count(const char *arg, long low, long high, const char *what, int *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (*end || end == arg || v < low || v > high) {
        tool_error("bad %s '%s' (%ld to %ld)", what, arg, low, high);
        return -1;
    }
    *out = (int)v;
    return 1;
}

int gpu_tool_option(int c, const char *arg, gpu_tool_options *o)
{
    switch (c) {
    case GPU_OPT_CPU: o->use_cpu = 1; return 1;
    case GPU_OPT_STATS: o->stats = 1; return 1;
    case GPU_OPT_NH: o->scc.hybrid = 0; return 1;
    case GPU_OPT_BFBT: o->scc.bounding = 1; return 1;
    case GPU_OPT_NO_WARP: o->scc.warp_aggregation = 0; return 1;
    case GPU_OPT_NO_TRANSPOSE: o->scc.transpose = 0; return 1;
    case GPU_OPT_HOST_LOOP: o->scc.persistent = 0; return 1;
    case GPU_OPT_SWEEP_TRIM: o->scc.queue_trimming = 0; return 1;
    case GPU_OPT_BLOCKS: return parse_count(arg, 1, 1 << 20, "block count", &o->scc.persistent_blocks);
    case 'c': return parse_count(arg, 0, 64, "local-cache iteration count", &o->scc.cache_iterations);
    case 'd': return parse_count(arg, 0, 1 << 16, "device number", &o->device);
    default: return 0;
    }
}

void gpu_tool_usage(FILE *out)
{
    fputs("  --cpu                  the sequential reference on the CPU\n"
          "  -c N                   local-cache iterations per search sweep (FMSD Alg. 4;\n"
          "                         default 0)\n"
          "  --nh                   no hybrid kernel: forward and backward sweeps apart\n"
          "  --bfbt                 bounding FB (FMSD Alg. 2): once one search ends,\n"
          "                         the other stays inside what it reached\n"
          "  --no-warp-aggregation  every state races for its region's pivot slot\n"
          "  --no-transpose         backward search scans the forward CSR\n"
          "  --sweep-trim           trimming by sweeps over all states (the article's)\n"
          "                         instead of over queues of the states just trimmed\n"
          "  --blocks N             blocks of the persistent kernel (default: as many as\n"
          "                         fit on the GPU at once)\n"
          "  --host-loop            one kernel launch per sweep, the host reading a flag\n"
          "                         after each (the article's way) instead of one\n"
          "                         persistent kernel with grid barriers\n"
          "  --stats                counts and times per phase on stderr\n"
          "  -d N                   CUDA device N (default 0)\n"
          "  -h                     this help\n",
          out);
}

void gpu_print_scc_stats(const gpu_scc_stats *s)
{
    fprintf(stderr,
            "%s: SCC search: %llu rounds, %llu trimmed, %llu trim sweeps, %llu search sweeps; transpose %s; "
            "device memory %.1f MB; trimming %.4f s, pivots %.4f s, searches %.4f s\n",
            tool_name, (unsigned long long)s->rounds, (unsigned long long)s->trimmed,
            (unsigned long long)s->trim_sweeps, (unsigned long long)s->search_sweeps,
            s->used_transpose ? "yes" : "no", (double)s->device_bytes / 1e6, s->trim_s, s->pivot_s, s->search_s);
}
