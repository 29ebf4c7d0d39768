/*
 * gpu-acc - is there an accepting cycle reachable from an initial state?
 * The emptiness check of automata-based LTL model checking, on the graph of
 * a CSR model (an edge for every transition of every choice).
 *
 *   gpu-acc [-a LABEL] [--algo owcty|map] [--cpu] [--no-witness] [--stats[=json]]
 *           [-d N] [file | -]
 *
 * GPU: OWCTY (default) or MAP of the DiVinE-CUDA slides (gpu/acc_gpu.h);
 * --cpu: nested DFS (ref/acc.h), or the sequential OWCTY / MAP with --algo.
 * Output: "no accepting cycle" (exit 0), or the lasso that witnesses one
 * (exit 3): "accepting cycle through state A", "prefix: ..." from an initial
 * state to A and "cycle: A ..." back to A, states in PRISM's numbering; a
 * GPU answer's lasso is made on the host inside the states the algorithm
 * kept (acc_lasso_build).  Exit 0 none, 1 bad input, 2 usage, 3 an
 * accepting cycle, 4 no GPU or a GPU failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "acc.h"
#include "acc_gpu.h"
#include "gpu.h"
#include "tool.h"

enum { OPT_ALGO = GPU_OPT_TOOL, OPT_NO_WITNESS };
enum { EXIT_CYCLE = 3, EXIT_GPU = 4 };
enum { ALGO_OWCTY, ALGO_MAP, ALGO_NDFS };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [-a LABEL] [--algo owcty|map] [--cpu] [--no-witness] [--stats[=json]] [-d N] [file | -]\n"
            "Is there a cycle through a state labelled LABEL (default \"accepting\"),\n"
            "reachable from an initial state, in the graph of a CSR model (every\n"
            "transition of every choice an edge)?  Standard input if no file.\n"
            "  -a LABEL          the accepting states (default accepting)\n"
            "  --algo owcty|map  OWCTY (default: forward reachability from accepting\n"
            "                    states and elimination of states without predecessors,\n"
            "                    to a fixpoint) or MAP (maximal accepting predecessors)\n"
            "  --cpu             on the CPU: nested depth-first search, or the sequential\n"
            "                    OWCTY / MAP when --algo is given\n"
            "  --no-witness      only the verdict, no lasso\n"
            "  --stats[=json]    what the search took, on standard error\n"
            "  -d, --device N    the CUDA device (default 0)\n"
            "  -h, --help        this help\n"
            "  --version         the tool's name and version\n"
            "Prints \"no accepting cycle\", or a lasso: the accepting state, a path from an\n"
            "initial state to it and a cycle back to it, in PRISM's state numbers.\n"
            "Exit status: 0 no accepting cycle, 1 bad input, 2 usage, 3 an accepting\n"
            "cycle, 4 no GPU or a GPU failure.\n",
            tool_name);
}

/* One line "what: s s s" in PRISM's numbering. */
static void print_states(const char *what, const csr_model *m, const uint32_t *states, uint64_t count)
{
    printf("%s:", what);
    for (uint64_t i = 0; i < count; i++)
        printf(" %u", m->permutation ? m->permutation[states[i]] : states[i]);
    putchar('\n');
}

int main(int argc, char **argv)
{
    tool_name = "gpu-acc";
    argv[0] = (char *)tool_name;
    const char *label = "accepting";
    int algo = -1, use_cpu = 0, witness = 1, stats = GPU_STATS_NONE, device = 0, c;
    static const struct option longopts[] = {{"cpu", no_argument, 0, GPU_OPT_CPU},
                                              {"stats", optional_argument, 0, GPU_OPT_STATS},
                                              {"algo", required_argument, 0, OPT_ALGO},
                                              {"no-witness", no_argument, 0, OPT_NO_WITNESS},
                                              {"device", required_argument, 0, 'd'},
                                              {"help", no_argument, 0, 'h'},
                                              {"version", no_argument, 0, TOOL_OPT_VERSION},
                                              {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "a:d:h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'a': label = optarg; break;
        case GPU_OPT_CPU: use_cpu = 1; break;
        case OPT_NO_WITNESS: witness = 0; break;
        case GPU_OPT_STATS:
            if (!optarg)
                stats = GPU_STATS_TEXT;
            else if (!strcmp(optarg, "json"))
                stats = GPU_STATS_JSON;
            else {
                tool_error("--stats takes no value or =json, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_ALGO:
            if (!strcmp(optarg, "owcty"))
                algo = ALGO_OWCTY;
            else if (!strcmp(optarg, "map"))
                algo = ALGO_MAP;
            else {
                tool_error("--algo takes owcty or map, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'd': {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 0 || v > 1024) {
                tool_error("-d takes a device number, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            device = (int)v;
            break;
        }
        case 'h': usage(stdout); return EXIT_OK;
        case TOOL_OPT_VERSION: tool_version(); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (algo < 0)
        algo = use_cpu ? ALGO_NDFS : ALGO_OWCTY;
    const char *path;
    csr_model m;
    gpu_tool_times times;
    int ex = gpu_tool_load(argc, argv, usage, use_cpu, device, &path, &m, &times);
    if (ex)
        return ex == EXIT_DEVICE ? EXIT_GPU : ex;
    const char *name = tool_input_name(path);
    const uint64_t n = m.num_states;
    int64_t l = csr_find_label(&m, label);
    if (l < 0) {
        fprintf(stderr, "%s: %s: no label \"%s\"; the model's labels:", tool_name, name, label);
        for (uint64_t i = 0; i < m.labels.count; i++)
            fprintf(stderr, " %s", m.labels.names[i]);
        fputc('\n', stderr);
        csr_free(&m);
        return EXIT_USAGE;
    }
    uint8_t *accepting = (uint8_t *)calloc(n ? n : 1, 1), *survivors = (uint8_t *)malloc(n ? n : 1);
    if (!accepting || !survivors) {
        tool_error("out of memory");
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    for (uint64_t j = m.label_first[l]; j < m.label_first[l + 1]; j++)
        accepting[m.label_states[j]] = 1;
    csr_status st;
    memset(&st, 0, sizeof st);
    acc_stats cs;
    gpu_acc_stats gs;
    memset(&cs, 0, sizeof cs);
    memset(&gs, 0, sizeof gs);
    acc_lasso lasso;
    memset(&lasso, 0, sizeof lasso);
    uint64_t cycle_state = UINT64_MAX;
    int found, have_lasso = 0;
    const uint8_t *within = NULL;
    double t0 = tool_seconds();
    if (use_cpu && algo == ALGO_NDFS) {
        found = ref_acc_nested_dfs(&m, accepting, &lasso, &cs); /* its lasso comes free: the stacks */
        have_lasso = found == 1;
    } else if (use_cpu) {
        found = algo == ALGO_OWCTY ? ref_acc_owcty(&m, accepting, survivors, &cs)
                                   : ref_acc_map(&m, accepting, &cycle_state, &cs);
        within = algo == ALGO_OWCTY ? survivors : NULL;
    } else {
        found = algo == ALGO_OWCTY ? gpu_acc_owcty(&m, accepting, survivors, &gs, &st)
                                   : gpu_acc_map(&m, accepting, &cycle_state, &gs, &st);
        within = algo == ALGO_OWCTY ? survivors : NULL;
    }
    double t1 = tool_seconds();
    int status = EXIT_OK;
    if (found < 0) {
        tool_report_failure(path, -found, &st);
        status = -found == CSR_ERR_DEVICE ? (int)EXIT_GPU : (int)EXIT_BAD_INPUT;
        goto done;
    }
    if (found && witness && !have_lasso) {
        /* the lasso on the host, inside what the search kept (OWCTY's
         * fixpoint), else over all states (MAP: its state lies on a cycle) */
        int built = acc_lasso_build(&m, accepting, within, &lasso);
        if (built < 0) {
            tool_error("out of memory for the lasso");
            status = EXIT_BAD_INPUT;
            goto done;
        }
        have_lasso = built == 1;
    }
    if (!found) {
        printf("no accepting cycle\n");
    } else {
        uint64_t a = have_lasso ? lasso.cycle[0] : cycle_state;
        if (a != UINT64_MAX)
            printf("accepting cycle through state %llu\n",
                   (unsigned long long)(m.permutation ? m.permutation[a] : a));
        else
            printf("accepting cycle\n");
        if (have_lasso && witness) {
            print_states("prefix", &m, lasso.prefix, lasso.prefix_length);
            print_states("cycle", &m, lasso.cycle, lasso.cycle_length);
        }
        status = EXIT_CYCLE;
    }
    if (fflush(stdout) || ferror(stdout)) {
        tool_error("(stdout): write error");
        status = EXIT_BAD_INPUT;
        goto done;
    }
    if (stats == GPU_STATS_JSON) {
        json_t *j = gpu_stats_json_begin(&m, &times);
        static const char *const names[] = {"owcty", "map", "nested-dfs"};
        json_object_set_new(j, "algorithm", json_string(names[algo]));
        json_object_set_new(j, "cpu", json_boolean(use_cpu));
        json_object_set_new(j, "accepting_cycle", json_boolean(found));
        json_object_set_new(j, "reachable", json_integer((json_int_t)(use_cpu ? cs.reachable : gs.reachable)));
        json_object_set_new(j, "rounds", json_integer((json_int_t)(use_cpu ? cs.rounds : gs.rounds)));
        json_object_set_new(j, "passes", json_integer((json_int_t)(use_cpu ? cs.passes : gs.passes)));
        json_object_set_new(j, "levels", json_integer((json_int_t)gs.levels));
        json_object_set_new(j, "remaining", json_integer((json_int_t)(use_cpu ? cs.remaining : gs.remaining)));
        json_object_set_new(j, "search_s", json_real(use_cpu ? t1 - t0 : gs.search_s));
        json_object_set_new(j, "upload_s", json_real(gs.upload_s));
        json_object_set_new(j, "device_bytes", json_integer((json_int_t)gs.device_bytes));
        json_object_set_new(j, "lasso_s", json_real(tool_seconds() - t1));
        gpu_stats_json_print(j);
    } else if (stats) {
        fprintf(stderr, "%s: %llu states, %llu transitions, %llu accepting; %llu reachable; %s: %llu rounds, %llu "
                        "passes, %llu levels, %llu states left; search %.4f s (upload %.4f s), lasso %.4f s\n",
                tool_name, (unsigned long long)n, (unsigned long long)m.num_transitions,
                (unsigned long long)(m.label_first[l + 1] - m.label_first[l]),
                (unsigned long long)(use_cpu ? cs.reachable : gs.reachable),
                algo == ALGO_NDFS ? "nested DFS" : algo == ALGO_OWCTY ? "OWCTY" : "MAP",
                (unsigned long long)(use_cpu ? cs.rounds : gs.rounds), (unsigned long long)(use_cpu ? cs.passes : gs.passes),
                (unsigned long long)gs.levels, (unsigned long long)(use_cpu ? cs.remaining : gs.remaining),
                use_cpu ? t1 - t0 : gs.search_s, gs.upload_s, tool_seconds() - t1);
    }
done:
    acc_lasso_free(&lasso);
    free(accepting);
    free(survivors);
    csr_free(&m);
    return status;
}
