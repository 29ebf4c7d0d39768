/*
 * gpu.cu - what the GPU tools share (gpu.h).
 */
#include <cuda_runtime.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "mec.h"
#include "tool.h"

/* The CUDA driver and contexts, started on a thread while the tool reads
 * its input: the run's device, or with -g/--gpus every device its parts
 * take. */
static struct {
    int device;               /* the device made current (the first of the parts') */
    int asked;                /* its number as the user gave it */
    int alone;                /* only `device` is visible (one device, the user chose none) */
    int started;
    pthread_t thread;
    cudaError_t error;
    int failed;               /* the device of error */
    int count;                /* visible devices, once the driver is up (0: none) */
} context;

/* The devices of a run with -g/--gpus (gpu_tool_parts_finish): their
 * contexts are created while the input is read, and only they, with the
 * devices numbered below them, are visible where the user has not chosen
 * the visible ones. */
static struct {
    int several;              /* -g or --gpus given (gpu_tool_parts_option) */
    uint32_t parts;
    int devices[GPU_PARTS_MAX_DEVICES];
    int num_devices;          /* 0: the first min(parts, present) */
} plan;

/* The context of `device` on the calling thread (cudaFree(0) creates it). */
static cudaError_t create_one_context(int device)
{
    cudaError_t e = cudaSetDevice(device);
    return e == cudaSuccess ? cudaFree(0) : e;
}

/* The driver's start (cudaGetDeviceCount initialises every visible device)
 * and the contexts: the run's device, then the parts' other devices, one
 * after the other (the driver creates them one at a time: on the lent 2x
 * H200, two contexts from two threads took 0.20-0.22 s, from one thread
 * 0.21-0.26 s; bench/cuda_start.cu).  A part's device that is not there is
 * left to gpu_tool_parts_devices to name. */
static void *create_context(void *)
{
    if (cudaGetDeviceCount(&context.count) != cudaSuccess || context.count == 0) { /* no driver, no device */
        (void)cudaGetLastError();
        context.count = 0;
        return NULL;
    }
    if (context.device >= context.count)
        return NULL;
    context.failed = context.device;
    context.error = create_one_context(context.device);
    if (!plan.several)
        return NULL;
    const int n = plan.num_devices ? plan.num_devices
                                   : (int)(plan.parts < (uint32_t)context.count ? plan.parts : (uint32_t)context.count);
    for (int i = 0; i < n && context.error == cudaSuccess; i++) {
        const int d = plan.num_devices ? plan.devices[i] : i;
        if (d != context.device && d < context.count) {
            context.failed = d;
            context.error = create_one_context(d); /* (a context made before is kept) */
        }
    }
    return NULL;
}

/* Waits for the thread of gpu_select_device, if one runs (also before an
 * exit without the device: the process does not end while the thread is in
 * the driver). */
static void join_context(void)
{
    if (context.started) {
        pthread_join(context.thread, NULL);
        context.started = 0;
    }
}

int gpu_device_ready(void)
{
    join_context();
    if (context.error == cudaSuccess && context.count == 0) {
        if (context.alone && context.asked > 0)
            tool_error("no CUDA device %d", context.asked);
        else
            tool_error("no CUDA device; use --cpu for the CPU reference");
        return EXIT_DEVICE;
    }
    if (context.error == cudaSuccess && context.device >= context.count) {
        tool_error("no CUDA device %d (%d present)", context.device, context.count);
        return EXIT_DEVICE;
    }
    if (context.error == cudaSuccess) {
        context.failed = context.device;
        context.error = cudaSetDevice(context.device);
    }
    if (context.error != cudaSuccess) {
        tool_error("CUDA device %d: %s", context.alone ? context.asked : context.failed,
                   cudaGetErrorString(context.error));
        return EXIT_DEVICE;
    }
    return 0;
}

void gpu_select_device(int device)
{
    /* Load every kernel when the context is created (on the thread below,
     * while the input is read) instead of at its first launch: lazy loading,
     * CUDA's default, put about 0.5 ms of module loading into each
     * decomposition (leader7: gpu-scc's resident time 6.9 -> 6.1 ms with
     * --no-peel, H200, issue 13).  A value the user set is kept. */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    /* Only the run's devices where the user has not chosen the visible
     * devices, so that the driver initialises no other GPU (on a host of
     * four, about a second a run went to the three the run never used;
     * issue 43): one device alone; the parts' devices and those numbered
     * below them (the list ends at the first number that is not there, so
     * the numbers and the count present stay those of the host). */
    const int user_chose = getenv("CUDA_VISIBLE_DEVICES") != NULL;
    context.alone = !plan.several && !user_chose;
    if (context.alone) {
        char id[16];
        snprintf(id, sizeof id, "%d", device);
        setenv("CUDA_VISIBLE_DEVICES", id, 1);
    } else if (plan.several && !user_chose) {
        int highest = device;
        if (plan.num_devices)
            for (int i = 0; i < plan.num_devices; i++)
                highest = plan.devices[i] > highest ? plan.devices[i] : highest;
        else if (plan.parts) { /* devices 0 .. parts - 1 (gpu_tool_parts_devices), and -d's */
            const int last_part = (int)(plan.parts < GPU_PARTS_MAX_DEVICES ? plan.parts : GPU_PARTS_MAX_DEVICES) - 1;
            highest = last_part > device ? last_part : device;
        }
        char ids[5 * 1024 + 1] = "";
        size_t at = 0;
        for (int d = 0; d <= highest && d < 1024; d++)
            at += snprintf(ids + at, sizeof ids - at, d ? ",%d" : "%d", d);
        setenv("CUDA_VISIBLE_DEVICES", ids, 1);
    }
    context.asked = device;
    context.device = context.alone ? 0 : device;
    context.error = cudaSuccess;
    context.count = 0;
    if (pthread_create(&context.thread, NULL, create_context, NULL) == 0)
        context.started = 1;
    else
        create_context(NULL);
}

int gpu_tool_load(int argc, char **argv, void (*usage)(FILE *), int use_cpu, int device, const char **path,
                  csr_model *model, gpu_tool_times *times)
{
    return gpu_tool_load_auto(argc, argv, usage, &use_cpu, device, 0, NULL, path, model, times);
}

int gpu_tool_load_auto(int argc, char **argv, void (*usage)(FILE *), int *use_cpu, int device,
                       uint64_t cpu_below, int (*cpu_pays)(const csr_model *), const char **path, csr_model *model,
                       gpu_tool_times *times)
{
    if (tool_input_operand(argc, argv, optind, usage, path))
        return EXIT_USAGE;
    /* below cpu_below: a file's transition count from its header, standard input's once read; below
     * GPU_TOOL_JUDGED times that, read first and judged by cpu_pays before any CUDA call */
    uint64_t t = UINT64_MAX;
    const int peeked = !*use_cpu && cpu_below && *path && strcmp(*path, "-") &&
                       csr_peek_transitions(*path, &t) == CSR_OK; /* (standard input: NULL or "-") */
    const int small_file = peeked && t < cpu_below;
    const int judged = peeked && !small_file && cpu_pays && t / GPU_TOOL_JUDGED < cpu_below;
    if (!*use_cpu && !small_file && !judged)
        gpu_select_device(device);
    times->read_start = tool_seconds();
    if (tool_read_csr(*path, model)) {
        join_context();
        return EXIT_BAD_INPUT;
    }
    times->read_end = tool_seconds();
    if (cpu_below && model->num_transitions < cpu_below)
        *use_cpu = 1;
    else if (judged && cpu_pays(model))
        *use_cpu = 1;
    else if (judged)
        gpu_select_device(device);
    if (*use_cpu)
        join_context(); /* (standard input read while the device started: answered on the CPU) */
    else if (gpu_device_ready()) { /* (a small file is never here) */
        csr_free(model);
        return EXIT_DEVICE;
    }
    times->device_ready = tool_seconds();
    return 0;
}

void gpu_tool_defaults(gpu_tool_options *o)
{
    memset(o, 0, sizeof *o);
    gpu_scc_default_options(&o->scc);
}

int gpu_tool_parse_count(const char *arg, long low, long high, const char *what, int *out)
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

int gpu_tool_parse_mec_scheme(const char *arg, gpu_mec_scheme *scheme)
{
    const int s = gpu_mec_scheme_by_name(arg);
    if (s < 0) {
        tool_error("unknown scheme '%s' (interleave, rounds or auto)", arg);
        return -1;
    }
    *scheme = (gpu_mec_scheme)s;
    return 1;
}

int gpu_tool_check_mec_scheme(gpu_mec_scheme scheme, const gpu_scc_options *scc)
{
    if (scheme == GPU_MEC_INTERLEAVE && scc->engine == GPU_SCC_FB) {
        tool_error("the interleaved scheme needs the lp engine (the fb engine finds SCCs only: --scheme rounds)");
        return -1;
    }
    return 0;
}

int gpu_tool_option(int c, const char *arg, gpu_tool_options *o)
{
    switch (c) {
    case TOOL_OPT_VERSION: tool_version(); exit(tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK); /* as -h does, at once */
    case GPU_OPT_CPU: o->use_cpu = 1; return 1;
    case GPU_OPT_STATS:
        if (!arg || !strcmp(arg, "text")) {
            o->stats = GPU_STATS_TEXT;
        } else if (!strcmp(arg, "json")) {
            o->stats = GPU_STATS_JSON;
        } else {
            tool_error("bad --stats format '%s' (text or json)", arg);
            return -1;
        }
        return 1;
    case GPU_OPT_ENGINE: {
        int e = gpu_scc_engine_by_name(arg);
        if (e < 0) {
            tool_error("unknown engine '%s' (lp, fb or auto)", arg);
            return -1;
        }
        o->scc.engine = (gpu_scc_engine_id)e;
        o->engine_given = 1;
        return 1;
    }
    case GPU_OPT_PEEL: o->scc.peel = 1; return 1;
    case GPU_OPT_NO_PEEL: o->scc.peel = 0; return 1;
    case GPU_OPT_PEEL_SCHEDULE:
        if (!strcmp(arg, "levels")) {
            o->scc.peel_async = 0;
        } else if (!strcmp(arg, "async")) {
            o->scc.peel_async = 1;
        } else {
            tool_error("bad --peel-schedule '%s' (levels or async)", arg);
            return -1;
        }
        return 1;
    case GPU_OPT_LABEL_ORDER:
        o->lp_option = "--label-order";
        if (!strcmp(arg, "alternate")) {
            o->scc.label_order = GPU_LP_ALTERNATE;
        } else if (!strcmp(arg, "largest")) {
            o->scc.label_order = GPU_LP_LARGEST;
        } else if (!strcmp(arg, "smallest")) {
            o->scc.label_order = GPU_LP_SMALLEST;
        } else {
            tool_error("bad --label-order '%s' (alternate, largest or smallest)", arg);
            return -1;
        }
        return 1;
    case GPU_OPT_SWEEPS:
        o->lp_option = "--sweeps";
        return gpu_tool_parse_count(arg, 1, 1024, "sweep count", &o->scc.sweeps);
    case GPU_OPT_NH: o->scc.hybrid = 0; o->fb_option = "--nh"; return 1;
    case GPU_OPT_BFBT: o->scc.bounding = 1; o->fb_option = "--bfbt"; return 1;
    case GPU_OPT_NO_WARP: o->scc.warp_aggregation = 0; o->fb_option = "--no-warp-aggregation"; return 1;
    case GPU_OPT_NO_TRANSPOSE: o->scc.transpose = 0; o->fb_option = "--no-transpose"; return 1;
    case GPU_OPT_HOST_LOOP: o->scc.persistent = 0; o->fb_option = "--host-loop"; return 1;
    case GPU_OPT_SWEEP_TRIM: o->scc.queue_trimming = 0; o->fb_option = "--sweep-trim"; return 1;
    case GPU_OPT_BLOCKS: return gpu_tool_parse_count(arg, 1, 1 << 20, "block count", &o->scc.blocks);
    case 'c': o->fb_option = "-c"; return gpu_tool_parse_count(arg, 0, 64, "local-cache iteration count", &o->scc.cache_iterations);
    case 'd': return gpu_tool_parse_count(arg, 0, 1 << 16, "device number", &o->device);
    default: return 0;
    }
}

int gpu_tool_finish_options(gpu_tool_options *o)
{
    if (o->fb_option && o->lp_option) {
        tool_error("%s is an option of the fb engine and %s one of the lp engine", o->fb_option, o->lp_option);
        return EXIT_USAGE;
    }
    if (o->fb_option) {
        if (o->engine_given && o->scc.engine != GPU_SCC_FB) {
            tool_error("%s is an option of the fb engine, not of --engine %s", o->fb_option,
                       gpu_scc_engine_name(o->scc.engine));
            return EXIT_USAGE;
        }
        o->scc.engine = GPU_SCC_FB;
    }
    if (o->lp_option && o->scc.engine == GPU_SCC_FB) {
        tool_error("%s is an option of the lp engine, not of --engine fb", o->lp_option);
        return EXIT_USAGE;
    }
    return 0;
}

/* "0,1,3" into devices[]; the count, or -1 (message printed). */
static int parse_gpus(const char *arg, int *devices)
{
    int count = 0;
    const char *p = arg;
    for (;;) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 0 || d > 1023 || (*end && *end != ',') || count == GPU_PARTS_MAX_DEVICES) {
            tool_error("bad --gpus '%s' (device numbers, comma-separated, at most %d)", arg,
                       GPU_PARTS_MAX_DEVICES);
            return -1;
        }
        devices[count++] = (int)d;
        if (!*end)
            return count;
        p = end + 1;
    }
}

int gpu_tool_parts_option(int c, const char *arg, gpu_tool_parts *x)
{
    switch (c) {
    case 'g':
        plan.several = 1;
        return gpu_tool_parse_count(arg, 1, 65536, "part count", &x->parts);
    case GPU_OPT_GPUS:
        plan.several = 1;
        if ((x->options.num_devices = parse_gpus(arg, x->options.devices)) < 0)
            return -1;
        return 1;
    case GPU_OPT_EXCHANGE: {
        int e = gpu_exchange_by_name(arg);
        if (e < 0) {
            tool_error("bad --exchange '%s' (auto, peer, copies or nccl)", arg);
            return -1;
        }
        x->options.exchange = (gpu_exchange)e;
        return 1;
    }
    }
    return 0;
}

void gpu_tool_parts_finish(gpu_tool_parts *x, gpu_tool_options *o)
{
    if (x->options.num_devices && !x->parts)
        x->parts = x->options.num_devices; /* --gpus alone: one part a device */
    if (x->options.num_devices)
        o->device = x->options.devices[0]; /* the context made while reading */
    x->options.parts = (uint32_t)x->parts;
    plan.parts = x->options.parts;
    plan.num_devices = x->options.num_devices;
    memcpy(plan.devices, x->options.devices, sizeof plan.devices);
}

void gpu_tool_memory_advice(int rc, const csr_status *st, const char *what, uint64_t planned)
{
    if (rc != CSR_ERR_NOMEM || strncmp(st->detail, "CUDA:", 5)) /* another failure, or the host's memory */
        return;
    size_t free_b = 0, total_b = 0;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        free_b = total_b = 0;
    char plan[64] = " lacks device memory", have[96] = "";
    if (planned)
        snprintf(plan, sizeof plan, " plans %.1f GB of device memory", planned / 1e9);
    if (total_b)
        snprintf(have, sizeof have, "; GPU %d has %.1f GB free of %.1f GB", device, free_b / 1e9, total_b / 1e9);
    tool_error("%s%s%s: -g N spreads the model over N GPUs of this host (--gpus names them), --cpu runs it on the CPU",
               what, plan, have);
}

int gpu_tool_partition(const csr_model *m, uint32_t parts, csr_partition *p, gpu_parts_stats *st, csr_status *status)
{
    const double t = tool_seconds();
    const int rc = csr_partition_build(m, parts, p, status);
    st->partition_s = tool_seconds() - t;
    for (uint32_t i = 0; !rc && i < p->parts; i++)
        st->foreign += p->part[i].num_foreign;
    return rc;
}

int gpu_tool_parts_devices(gpu_tool_parts *x)
{
    gpu_parts_options *po = &x->options;
    int present = 0;
    if (cudaGetDeviceCount(&present) != cudaSuccess)
        present = 0;
    if (!po->num_devices)
        for (int d = 0; d < present && d < GPU_PARTS_MAX_DEVICES && (uint32_t)d < po->parts; d++)
            po->devices[po->num_devices++] = d;
    for (int i = 0; i < po->num_devices; i++)
        if (po->devices[i] >= present) {
            tool_error("no CUDA device %d (%d present)", po->devices[i], present);
            return EXIT_DEVICE;
        }
    return 0;
}

int gpu_tool_mec_parts(const csr_model *m, const gpu_parts_options *po, int use_cpu, uint64_t *mec,
                       ref_mec_stats *rst, gpu_parts_stats *pst, csr_status *st)
{
    const uint64_t n = m->num_states;
    int rc;
    if (use_cpu) { /* the MEC rounds over the parts, as the GPUs run them */
        csr_partition p;
        ref_mec_parts_stats ps;
        memset(&ps, 0, sizeof ps);
        rc = gpu_tool_partition(m, po->parts, &p, pst, st);
        if (!rc) {
            rc = ref_mec_partitioned(m, &p, mec, &ps);
            csr_partition_free(&p);
        }
        rst->mecs = ps.mecs;
        rst->states_in_mecs = ps.states_in_mecs;
        rst->rounds = ps.rounds;
        rst->removed_states = ps.removed_states;
        rst->removed_choices = ps.removed_choices;
        pst->phases = ps.phases;
        pst->rounds = ps.lp_rounds;
        pst->attractor_rounds = ps.attractor_rounds;
        return rc;
    }
    uint32_t *ids = (uint32_t *)malloc((n ? n : 1) * sizeof *ids);
    rc = ids ? gpu_mec_partitioned(m, po, ids, pst, st) : CSR_ERR_NOMEM;
    for (uint64_t s = 0; !rc && s < n; s++)
        mec[s] = ids[s] == GPU_MEC_NONE ? REF_NONE : ids[s];
    free(ids);
    rst->mecs = pst->mecs;
    rst->states_in_mecs = pst->states_in_mecs;
    rst->rounds = pst->mec_rounds;
    rst->removed_states = pst->removed_states;
    rst->removed_choices = pst->removed_choices;
    return rc;
}

static int parts_maybe_mecs(void *ctx, const uint8_t *cls, const double *choice_reward, uint32_t *mec)
{
    gpu_tool_parts_engine *pe = (gpu_tool_parts_engine *)ctx;
    const uint64_t n = pe->model->num_states;
    uint64_t *wide = (uint64_t *)malloc((n ? n : 1) * sizeof *wide);
    csr_model sub;
    int rc = wide ? reach_maybe_graph(pe->model, cls, choice_reward, &sub) : CSR_ERR_NOMEM;
    if (!rc) {
        ref_mec_stats rst;
        gpu_parts_stats pst;
        memset(&rst, 0, sizeof rst);
        memset(&pst, 0, sizeof pst);
        rc = gpu_tool_mec_parts(&sub, (const gpu_parts_options *)pe->pcx.gpus, pe->use_cpu, wide, &rst, &pst,
                                pe->pcx.status);
        csr_free(&sub);
        if (!rc)
            pe->mec_rounds += rst.rounds;
    }
    for (uint64_t s = 0; !rc && s < n; s++)
        mec[s] = wide[s] == REF_NONE ? REACH_NO_MEC : (uint32_t)wide[s];
    free(wide);
    return rc;
}

static int parts_solve(const reach_system *y, const reach_options *ro, double eps, double *lower, double *upper,
                       uint64_t *iterations, double *difference, void *ctx)
{
    gpu_tool_parts_engine *pe = (gpu_tool_parts_engine *)ctx;
    return pe->use_cpu ? reach_solve_partitioned(y, ro, eps, lower, upper, iterations, difference, &pe->pcx)
                       : gpu_reach_iterate_partitioned(y, ro, eps, lower, upper, iterations, difference, &pe->pcx);
}

void gpu_tool_parts_reach_engine(gpu_tool_parts_engine *pe, reach_engine *e)
{
    memset(e, 0, sizeof *e);
    e->model = pe->model;
    e->ctx = pe;
    e->maybe_mecs = parts_maybe_mecs;
    e->solve = parts_solve;
    e->budget = UINT64_MAX;
    e->status = pe->pcx.status;
}

void gpu_tool_parts_usage(FILE *out)
{
    fputs("Several GPUs (the model split into parts of contiguous states, label\n"
          "propagation over them, foreign states' data read in place or exchanged):\n"
          "  -g N                   N parts (1 to 65536), over every GPU or the --gpus;\n"
          "                         more parts than GPUs share them (simulated mode)\n"
          "  --gpus LIST            the CUDA devices, comma-separated (default: all);\n"
          "                         without -g, one part a device\n"
          "  --exchange auto|peer|copies|nccl  how data move between parts: peer\n"
          "                         access (the GPUs map each other's memory, as over\n"
          "                         NVLink: labels read and raised in place), NCCL\n"
          "                         (one part a device), device copies, or auto\n"
          "                         (peer, else NCCL where it can run, else copies)\n"
          "  with --cpu: the same parts and rounds on the CPU\n",
          out);
}

void gpu_stats_json_parts(json_t *j, const gpu_tool_parts *x, const gpu_parts_stats *s, int use_cpu)
{
    json_object_set_new(j, "parts", json_integer((json_int_t)x->parts));
    if (use_cpu) { /* the partition on the host, as for the GPUs */
        json_object_set_new(j, "foreign", json_integer((json_int_t)s->foreign));
        json_object_set_new(j, "partition_s", json_real(s->partition_s));
        return;
    }
    json_t *devs = json_array();
    for (int i = 0; i < x->options.num_devices; i++)
        json_array_append_new(devs, json_integer(x->options.devices[i]));
    json_object_set_new(j, "devices", devs);
    json_object_set_new(j, "exchange", json_string(s->exchange));
    json_object_set_new(j, "foreign", json_integer((json_int_t)s->foreign));
    json_object_set_new(j, "passes", json_integer((json_int_t)s->passes));
    json_object_set_new(j, "exchanged_bytes", json_integer((json_int_t)s->exchanged_bytes));
    json_object_set_new(j, "partition_s", json_real(s->partition_s));
    json_object_set_new(j, "upload_s", json_real(s->upload_s));
    json_object_set_new(j, "download_s", json_real(s->download_s));
    json_object_set_new(j, "trim_s", json_real(s->trim_s));
    json_object_set_new(j, "propagate_s", json_real(s->propagate_s));
}

void gpu_tool_usage(FILE *out)
{
    fputs("  --cpu                  the sequential reference on the CPU\n"
          "  --engine lp|fb|auto    SCC engine: lp, label propagation after ECL-SCC with\n"
          "                         peeling of trivial SCCs (auto, the default); fb,\n"
          "                         the article's forward-backward search\n"
          "  --peel, --no-peel      peeling of trivial SCCs first (default: lp yes, fb\n"
          "                         no; the MECs always peel)\n"
          "  --peel-schedule levels|async\n"
          "                         drain the peeling by levels (a grid barrier a level)\n"
          "                         until 32 levels in a row are narrow, then\n"
          "                         asynchronously (the default), or asynchronously\n"
          "                         throughout\n"
          "  --sweeps N             lp: sweeps of a block over its share of the edges\n"
          "                         in a propagation pass (default 2)\n"
          "  --label-order alternate|largest|smallest\n"
          "                         lp: which state names a label: the smallest in\n"
          "                         odd phases and the largest in even ones (the\n"
          "                         default), or the same in every phase\n"
          "  --blocks N             blocks of the persistent kernels (default: as many as\n"
          "                         are resident on the GPU at once)\n"
          "Options of the fb engine (each selects it):\n"
          "  -c N                   local-cache iterations per search sweep (FMSD Alg. 4;\n"
          "                         default 0)\n"
          "  --nh                   no hybrid kernel: forward and backward sweeps apart\n"
          "  --bfbt                 bounding FB (FMSD Alg. 2): once one search ends,\n"
          "                         the other stays inside what it reached\n"
          "  --no-warp-aggregation  every state races for its region's pivot slot\n"
          "  --no-transpose         backward search scans the forward CSR\n"
          "  --sweep-trim           trimming by sweeps over all states (the article's)\n"
          "                         instead of over queues of the states just trimmed\n"
          "  --host-loop            one kernel launch per sweep, the host reading the\n"
          "                         counters after each (the article's way) instead of\n"
          "                         one persistent kernel with grid barriers\n"
          "General options:\n"
          "  --stats[=json]         counts and times per phase on stderr (json: one object)\n"
          "  -d N                   CUDA device N (default 0)\n"
          "  -h                     this help\n"
          "  --version              the tool's name and version\n",
          out);
}

void gpu_stats_json_scc(json_t *o, const gpu_scc_stats *s)
{
    json_object_set_new(o, "engine", json_string(s->engine ? s->engine : "none"));
    json_object_set_new(o, "components", json_integer((json_int_t)s->components));
    json_object_set_new(o, "peeled", json_integer((json_int_t)s->peeled));
    json_object_set_new(o, "peel_levels", json_integer((json_int_t)s->peel_levels));
    json_object_set_new(o, "phases", json_integer((json_int_t)s->phases));
    json_object_set_new(o, "passes", json_integer((json_int_t)s->passes));
    json_object_set_new(o, "removed_choices", json_integer((json_int_t)s->removed_choices));
    json_object_set_new(o, "device_bytes_planned", json_integer((json_int_t)s->device_bytes_planned));
    json_object_set_new(o, "device_bytes_allocated", json_integer((json_int_t)s->device_bytes_allocated));
    json_object_set_new(o, "prepare_s", json_real(s->prepare_s));
    json_object_set_new(o, "peel_s", json_real(s->peel_s));
    json_object_set_new(o, "search_s", json_real(s->search_s));
    json_object_set_new(o, "finish_s", json_real(s->finish_s));
    json_object_set_new(o, "upload_s", json_real(s->upload_s));
    json_object_set_new(o, "resident_s", json_real(s->resident_s));
    json_object_set_new(o, "download_s", json_real(s->download_s));
}

json_t *gpu_stats_json_begin(const csr_model *m, const gpu_tool_times *t)
{
    json_t *j = json_object();
    json_object_set_new(j, "tool", json_string(tool_name));
    json_object_set_new(j, "states", json_integer((json_int_t)m->num_states));
    json_object_set_new(j, "choices", json_integer((json_int_t)m->num_choices));
    json_object_set_new(j, "transitions", json_integer((json_int_t)m->num_transitions));
    json_object_set_new(j, "read_s", json_real(t->read_end - t->read_start));
    json_object_set_new(j, "device_wait_s", json_real(t->device_ready - t->read_end));
    return j;
}

void gpu_stats_json_print(json_t *o)
{
    tool_json_print(o, stderr, JSON_COMPACT);
    fputc('\n', stderr);
    json_decref(o);
}

void gpu_stats_text_scc(const gpu_scc_stats *s)
{
    fprintf(stderr,
            "%s: engine %s: %llu peeled, %llu phases, %llu passes, %llu choices removed; device memory planned "
            "%.1f MB, allocated %.1f MB\n"
            "%s: GPU: upload %.4f s, resident %.4f s (prepare %.4f, peel %.4f, search %.4f, finish %.4f), "
            "download %.4f s\n",
            tool_name, s->engine ? s->engine : "none", (unsigned long long)s->peeled, (unsigned long long)s->phases,
            (unsigned long long)s->passes, (unsigned long long)s->removed_choices,
            (double)s->device_bytes_planned / 1e6, (double)s->device_bytes_allocated / 1e6, tool_name, s->upload_s,
            s->resident_s, s->prepare_s, s->peel_s, s->search_s, s->finish_s, s->download_s);
}
