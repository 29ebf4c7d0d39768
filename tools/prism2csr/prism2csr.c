/*
 * prism2csr - convert PRISM's explicit export (.tra, .lab), Storm's DRN or a UMB archive
 * (PRISM 4.10, Storm 2.0) to binary CSR.
 *
 *   prism2csr [-w] [--no-rewards] [--no-valuations] [-v] [-q] [-j N] [-l file.lab] [-s file.sta]
 *             [-r file.srew,file.trew] [file.tra | file.drn | file.umb | -] > model.csr
 *
 * Input: PRISM -exportmodel .tra (MDP or DTMC) and optionally .lab and .sta, plain or
 * gzip-compressed (format/prism_text.h), or a UMB archive (format/umb.h),
 * told apart by content, not by name, on files and stdin alike.
 * Output: format/CSR.md on stdout,
 * written only once the whole input has been read and checked, so a failed
 * conversion writes nothing.  Exit 0 on success, 1 on bad input, 2 on usage.
 */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drn.h"
#include "prism_text.h"
#include "tool.h"
#include "umb.h"

/* Progress on standard error while the input is read, when standard error is
 * a terminal and -q is not given: bytes read (of the .tra: parsed, by the
 * parallel reader) of the file's size where it is a plain regular file, the
 * rate, and the time left; every half second from the first second on, on
 * one line that is cleared at the end. */
typedef struct progress {
    const char *name;
    uint64_t total;   /* bytes, 0: unknown (a pipe, gzip input) */
    uint64_t done;    /* bytes, stored by textin and the parallel reader (atomic) */
    int stop;         /* set (atomic) to end the thread */
    double start;
    pthread_t thread;
    int running;
} progress;

static void *progress_show(void *arg)
{
    progress *p = arg;
    int shown = 0;
    for (int tick = 0; !__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE); tick++) {
        usleep(50000);
        if (tick < 20 || tick % 10 != 0)
            continue; /* the first line after 1 s, then every 0.5 s */
        double mb = (double)__atomic_load_n(&p->done, __ATOMIC_RELAXED) / 1e6, s = tool_seconds() - p->start;
        double rate = s > 0 ? mb / s : 0.0;
        if (p->total) {
            double total = (double)p->total / 1e6, left = rate > 0 ? (total - mb) / rate : 0.0;
            fprintf(stderr, "\r%s: %s: %.0f of %.0f MB (%.0f%%), %.0f MB/s, %.0f s left\033[K", tool_name, p->name, mb,
                    total, total > 0 ? 100.0 * mb / total : 100.0, rate, left > 0 ? left : 0.0);
        } else {
            fprintf(stderr, "\r%s: %s: %.0f MB read, %.0f MB/s\033[K", tool_name, p->name, mb, rate);
        }
        shown = 1;
    }
    if (shown)
        fputs("\r\033[K", stderr);
    return NULL;
}

static void progress_start(progress *p, const char *path, textin *in)
{
    struct stat sb;
    memset(p, 0, sizeof *p);
    p->name = tool_input_name(path);
    if (!textin_is_gzip(in) && path && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        p->total = (uint64_t)sb.st_size;
    p->start = tool_seconds();
    in->progress = &p->done;
    p->running = pthread_create(&p->thread, NULL, progress_show, p) == 0;
}

static void progress_end(progress *p, textin *in)
{
    in->progress = NULL;
    if (!p->running)
        return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    pthread_join(p->thread, NULL);
    p->running = 0;
}

/* The warning for choices whose sums are off (-w), at the line of the first. */
static void warn_sums(const char *path, uint64_t line, uint64_t bad, double tol, double worst)
{
    fprintf(stderr, "%s: %s:%llu: warning: %llu choices do not sum to 1 within %g (worst by %.3g)\n", tool_name,
            tool_input_name(path), (unsigned long long)line, (unsigned long long)bad,
            tol > 0 ? tol : PRISM_SUM_TOLERANCE, worst);
}

/* Check the model read from path where its reader does not (validate: the
 * .tra and DRN readers; umb_read checks its model itself), a fault being the
 * input's, and write it on stdout (a fault is stdout's); *write_s the
 * seconds of writing.  Frees the model on failure.  Returns EXIT_OK or
 * EXIT_BAD_INPUT. */
static int write_model(const char *path, csr_model *model, int validate, double *write_s)
{
    csr_status st = {0};
    st.offset = UINT64_MAX;
    int rc = validate ? csr_validate(model, &st) : CSR_OK; /* the readers guarantee it; checked all the same */
    if (rc) {
        tool_report(path, &st);
        csr_free(model);
        return EXIT_BAD_INPUT;
    }
    double t = tool_seconds();
    rc = csr_write_fd(STDOUT_FILENO, model, &st);
    *write_s = tool_seconds() - t;
    if (rc) {
        tool_error("(stdout): %s: %s", csr_strerror(rc), st.detail);
        csr_free(model);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static int keep_valuations = 1; /* --no-valuations clears it */

/* Storm's DRN (told apart by content): read, check, write. */
static int convert_drn(textin *in, const char *path, int sums_are_warnings, double tol, int verbose, int show,
                       double t0)
{
    csr_status st = {0};
    st.offset = UINT64_MAX;
    csr_model model;
    drn_report rep;
    drn_read_options opt = {.sums_are_warnings = sums_are_warnings, .sum_tolerance = tol,
                            .skip_valuations = !keep_valuations};
    progress pr;
    if (show)
        progress_start(&pr, path, in);
    int rc = drn_read(in, &opt, &model, &rep, &st);
    if (show)
        progress_end(&pr, in);
    uint64_t bytes = in->bytes;
    textin_close(in);
    if (rc) {
        tool_report(path, &st);
        return EXIT_BAD_INPUT;
    }
    if (rep.bad_sums)
        warn_sums(path, rep.first_bad_sum_line, rep.bad_sums, tol, rep.worst_sum_error);
    double t1 = tool_seconds(), write_s;
    if ((rc = write_model(path, &model, 1, &write_s)))
        return rc;
    if (verbose) {
        fprintf(stderr,
                "%s: %s: DRN, %s, %llu states, %llu choices, %llu transitions; %.1f MB of text parsed in %.3f s; "
                "written in %.3f s\n",
                tool_name, tool_input_name(path), model.model_type == CSR_MDP ? "MDP" : "DTMC",
                (unsigned long long)model.num_states, (unsigned long long)model.num_choices,
                (unsigned long long)model.num_transitions, (double)bytes / 1e6, t1 - t0, write_s);
        if (rep.reward_models)
            fprintf(stderr, "%s: %s: %llu reward model(s) kept as reward structures\n", tool_name,
                    tool_input_name(path), (unsigned long long)rep.reward_models);
        if (rep.variables)
            fprintf(stderr, "%s: %s: state valuations of %llu variables kept\n", tool_name, tool_input_name(path),
                    (unsigned long long)rep.variables);
        else if (rep.valuations)
            fprintf(stderr, "%s: %s: skipped: %llu state valuations (%s)\n", tool_name, tool_input_name(path),
                    (unsigned long long)rep.valuations, rep.skipped_why);
    }
    csr_free(&model);
    return EXIT_OK;
}

/* The .lab file, read on a thread of its own while the .tra is parsed (a
 * 107 MB .lab took 0.4 s of phil7's conversion after the .tra's 0.65 s on 16
 * cores): into a model of its own, of the largest state count, whose labels
 * are moved into the .tra's model once both are read (lab_adopt). */
typedef struct lab_job {
    const char *path;
    csr_model labels; /* num_states = CSR_MAX_STATES: no range check here */
    csr_status st;
    int rc; /* 0, or the error: the caller then reads the file again */
} lab_job;

static void *lab_read(void *arg)
{
    lab_job *j = arg;
    textin in;
    memset(&j->labels, 0, sizeof j->labels);
    j->labels.num_states = CSR_MAX_STATES;
    j->st.offset = UINT64_MAX;
    if ((j->rc = textin_open(&in, j->path, &j->st)) != 0)
        return NULL;
    j->rc = prism_read_lab(&in, &j->labels, &j->st);
    textin_close(&in);
    return NULL;
}

/* Move the labels of j into m, whose states they must all be (else 1). */
static int lab_adopt(lab_job *j, csr_model *m)
{
    const csr_model *l = &j->labels;
    for (uint64_t k = 0; k < l->labels.count; k++)
        if (l->label_first[k + 1] > l->label_first[k] && l->label_states[l->label_first[k + 1] - 1] >= m->num_states)
            return 1;
    for (int k = 0; k < l->num_owned; k++)
        if (csr_adopt(m, l->owned[k]))
            return 1; /* cannot happen: the .tra reader adopts fewer blocks */
    j->labels.num_owned = 0;
    m->labels = l->labels;
    m->label_first = l->label_first;
    m->label_states = l->label_states;
    m->initial_states = l->initial_states;
    m->num_initial = l->num_initial;
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [-w] [--sum-tolerance EPS] [--no-rewards] [--no-valuations] [-v] [-q] [-j N] [-l file.lab]\n"
            "       [-s file.sta] [-r file.srew,file.trew] [file.tra | file.drn | file.umb | -] > model.csr\n"
            "Convert PRISM's explicit model export (.tra, .lab), Storm's DRN or a UMB\n"
            "archive (PRISM 4.10, Storm 2.0; told apart by content) to the binary CSR\n"
            "format.\n"
            "  -l FILE  labels (.lab) of a .tra: initial states from \"init\", all labels\n"
            "           kept; without it state 0 is the initial state.  DRN and UMB\n"
            "           files carry their own labels and initial states\n"
            "  -s FILE  state valuations (.sta, prism -exportstates) of a .tra: each\n"
            "           state's values of the model's variables (CSR 1.3).  DRN and UMB\n"
            "           files carry their own\n"
            "  -w       a choice whose probabilities do not sum to 1 (within the\n"
            "           tolerance) is a warning, not an error\n"
            "  --sum-tolerance EPS  how far from 1 a choice may sum (default 1e-5, as\n"
            "           PRISM's -sumroundoff); a probability up to 1 + EPS is taken as 1\n"
            "  -j N     parse a .tra with N threads (default: one per CPU it may run\n"
            "           on; 1: one thread).  Only an uncompressed regular file is\n"
            "           parsed in parallel; pipes and gzip input by one thread\n"
            "  -r FILE[,FILE]  one reward structure of a .tra from PRISM's .srew and/or\n"
            "           .trew export (prism -exportmodel m.tra,lab,srew,trew), named by their\n"
            "           header; repeatable, one structure each\n"
            "  --no-rewards  leave a UMB archive's reward structures out (CSR 1.2\n"
            "           keeps them: state rewards, choice rewards, branch rewards as their\n"
            "           choice's expected value)\n"
            "  --no-valuations  leave the state valuations of a UMB archive or DRN file\n"
            "           out (CSR 1.3 keeps bool and integer variables; others are an error\n"
            "           without this option)\n"
            "  -v       report sizes and throughput on stderr, and what of a UMB\n"
            "           archive the CSR format has no place for (skipped)\n"
            "  -q       no progress line (shown on stderr while the input is read\n"
            "           when stderr is a terminal)\n"
            "  -h       this help\n"
            "  --version  the tool's name and version\n"
            "Inputs may be gzip-compressed.  Exit status: 0 ok, 1 bad input, 2 usage.\n",
            tool_name);
}

/* What of a UMB archive had no place in the CSR format (under -v). */
static void report_skipped(const char *path, unsigned skipped)
{
    static const struct {
        unsigned flag;
        const char *what;
    } notes[] = {
        {UMB_SKIPPED_VALUATIONS, "state valuations (--no-valuations)"},
        {UMB_SKIPPED_OTHER_VALUATIONS, "valuations of entities other than states: no place in the CSR format"},
        {UMB_SKIPPED_REWARDS, "rewards not of type double: no place in the CSR format"},
        {UMB_SKIPPED_OBSERVATIONS, "observations: no place in the CSR format"},
        {UMB_SKIPPED_ANNOTATIONS, "annotations other than atomic propositions of states: no place in the CSR format"},
        {UMB_SKIPPED_BRANCH_ACTIONS,
         "branch actions (they differ within a choice, or choice actions are there): no place in the CSR format"},
        {UMB_SKIPPED_INIT_AP,
         "the atomic proposition \"init\" (label init is the initial states): no place in the CSR format"},
        {UMB_SKIPPED_MEMBERS, "archive members this reader does not know: no place in the CSR format"},
    };
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (skipped & notes[i].flag)
            fprintf(stderr, "%s: %s: skipped %s\n", tool_name, tool_input_name(path), notes[i].what);
}

static int keep_rewards = 1; /* --no-rewards clears it */

/* The UMB path: read the archive, write the CSR. */
static int convert_umb(textin *in, const char *path, int sums_are_warnings, double tol, int verbose, int show,
                       double t0)
{
    csr_status st = {0};
    st.offset = UINT64_MAX;
    csr_model model;
    umb_report rep;
    umb_read_options opt = {.sums_are_warnings = sums_are_warnings, .skip_valuations = !keep_valuations,
                            .sum_tolerance = tol};
    int rc, fd = -1;
    struct stat info;
    /* A gzip archive in a named file: read whole, inflated by libdeflate (faster), unless it inflates to
     * far more than the file (UMB_READ_STREAMED: then reopened and streamed); else streamed. */
    rc = UMB_READ_STREAMED;
    if (textin_is_gzip(in) && path && strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY)) >= 0 &&
        fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
        textin_close(in);
        rc = umb_read_gzip_file(fd, &opt, &model, &rep, &st);
        if (rc == UMB_READ_STREAMED && textin_open(in, path, &st)) {
            tool_report(path, &st);
            close(fd);
            return EXIT_BAD_INPUT;
        }
    }
    if (rc == UMB_READ_STREAMED) {
        progress pr;
        if (show)
            progress_start(&pr, path, in);
        rc = umb_read(in, &opt, &model, &rep, &st);
        if (show)
            progress_end(&pr, in);
        textin_close(in);
    }
    if (fd >= 0)
        close(fd);
    if (rc) {
        tool_report(path, &st);
        return EXIT_BAD_INPUT;
    }
    double t1 = tool_seconds();
    if (rep.bad_sums)
        fprintf(stderr, "%s: %s: warning: %llu choices do not sum to 1 within %g (worst by %.3g, first: choice %llu)\n",
                tool_name, tool_input_name(path), (unsigned long long)rep.bad_sums, tol > 0 ? tol : PRISM_SUM_TOLERANCE,
                rep.worst_sum_error, (unsigned long long)rep.first_bad_sum_choice);
    if (!keep_rewards)
        model.rewards.count = 0; /* the names and values stay owned by the model until csr_free */
    double write_s;
    if ((rc = write_model(path, &model, 0 /* umb_read checked it */, &write_s)))
        return rc;
    if (verbose) {
        report_skipped(path, rep.skipped);
        if (rep.variables)
            fprintf(stderr, "%s: %s: state valuations of %llu variables kept\n", tool_name, tool_input_name(path),
                    (unsigned long long)rep.variables);
        fprintf(stderr,
                "%s: %s: UMB (%s%s%s), %s, %llu states, %llu choices, %llu transitions; %.1f MB of archive read "
                "in %.3f s (%.0f MB/s; inflating %.3f s, valuations %.3f s); written in %.3f s\n",
                tool_name, tool_input_name(path), rep.compression, rep.tool[0] ? ", by " : "", rep.tool,
                model.model_type == CSR_MDP ? "MDP" : "DTMC", (unsigned long long)model.num_states,
                (unsigned long long)model.num_choices, (unsigned long long)model.num_transitions,
                (double)rep.bytes / 1e6, t1 - t0, (double)rep.bytes / 1e6 / (t1 - t0 > 0 ? t1 - t0 : 1e-9), rep.inflate_s,
                rep.valuations_s, write_s);
    }
    csr_free(&model);
    return EXIT_OK;
}

/* -r FILE[,FILE]: one reward structure from PRISM's .srew and/or .trew
 * (prism_read_rewards); 0, or 1 with the message printed. */
static int read_reward_files(const char *arg, csr_model *model)
{
    char *copy = strdup(arg), *save = NULL;
    const char *paths[2];
    int count = 0;
    for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p; p = strtok_r(NULL, ",", &save)) {
        if (count == 2) {
            tool_error("-r %s: at most two files (a .srew and a .trew) per reward structure", arg);
            free(copy);
            return 1;
        }
        paths[count++] = p;
    }
    if (!count) {
        tool_error("-r '%s': no file", arg);
        free(copy);
        return 1;
    }
    textin ins[2], *files[2] = {&ins[0], &ins[1]};
    csr_status st = {0};
    st.offset = UINT64_MAX;
    int opened = 0, bad = -1, rc = CSR_OK;
    for (; opened < count; opened++)
        if ((rc = textin_open(&ins[opened], paths[opened], &st))) {
            bad = opened;
            break;
        }
    if (!rc)
        rc = prism_read_rewards(files, count, model, &bad, &st);
    for (int i = 0; i < opened; i++)
        textin_close(&ins[i]);
    if (rc) {
        if (bad >= 0)
            tool_report(paths[bad], &st);
        else
            tool_error("-r %s: %s: %s", arg, csr_strerror(rc), st.detail);
    }
    free(copy);
    return rc != CSR_OK;
}

int main(int argc, char **argv)
{
    tool_start("prism2csr");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    const char *lab_path = NULL, *sta_path = NULL;
    const char *reward_args[16];
    int num_reward_args = 0;
    prism_tra_options opt = {0};
    int verbose = 0, quiet = 0, c;
    static const struct option longopts[] = {{"labels", required_argument, 0, 'l'},
                                             {"warn-sums", no_argument, 0, 'w'},
                                             {"verbose", no_argument, 0, 'v'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"threads", required_argument, 0, 'j'},
                                             {"sum-tolerance", required_argument, 0, 'S'},
                                             {"no-rewards", no_argument, 0, 'R'},
                                             {"no-valuations", no_argument, 0, 'N'},
                                             {"states", required_argument, 0, 's'},
                                             {"rewards", required_argument, 0, 'r'},
                                             {"help", no_argument, 0, 'h'},
                                             {"version", no_argument, 0, TOOL_OPT_VERSION},
                                             {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "l:s:r:wj:vqh", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': lab_path = optarg; break;
        case 's': sta_path = optarg; break;
        case 'r':
            if (num_reward_args == 16) {
                tool_error("at most 16 reward structures (-r)");
                return EXIT_USAGE;
            }
            reward_args[num_reward_args++] = optarg;
            break;
        case 'w': opt.sums_are_warnings = 1; break;
        case 'S': {
            char *end;
            double eps = strtod(optarg, &end);
            if (*end || end == optarg || !(eps > 0.0 && eps < 1.0)) {
                tool_error("bad sum tolerance '%s' (above 0, below 1)", optarg);
                return EXIT_USAGE;
            }
            opt.sum_tolerance = eps;
            break;
        }
        case 'j': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > PRISM_MAX_THREADS) {
                tool_error("bad thread count '%s' (1 to %d)", optarg, PRISM_MAX_THREADS);
                return EXIT_USAGE;
            }
            opt.threads = (unsigned)n;
            break;
        }
        case 'v': verbose = 1; break;
        case 'q': quiet = 1; break;
        case 'R': keep_rewards = 0; break;
        case 'N': keep_valuations = 0; break;
        case 'h': usage(stdout); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        case TOOL_OPT_VERSION: tool_version(); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    const char *tra_path;
    if (tool_input_operand(argc, argv, optind, usage, &tra_path))
        return EXIT_USAGE;
    if (tool_refuse_terminal())
        return EXIT_USAGE;
    if (lab_path && strcmp(lab_path, "-") == 0 && (!tra_path || strcmp(tra_path, "-") == 0)) {
        tool_error("the .tra and the .lab cannot both come from standard input");
        return EXIT_USAGE;
    }
    if (sta_path && strcmp(sta_path, "-") == 0 &&
        (!tra_path || strcmp(tra_path, "-") == 0 || (lab_path && strcmp(lab_path, "-") == 0))) {
        tool_error("the .sta cannot come from standard input with the .tra or the .lab");
        return EXIT_USAGE;
    }

    const int show = !quiet && isatty(STDERR_FILENO); /* progress on stderr */
    double t0 = tool_seconds();
    csr_status st = {0};
    st.offset = UINT64_MAX;
    textin in;
    csr_model model;
    prism_tra_report rep;
    if (textin_open(&in, tra_path, &st)) {
        tool_report(tra_path, &st);
        return EXIT_BAD_INPUT;
    }
    const char *head;
    size_t head_length;
    int rc = textin_peek(&in, 512, &head, &head_length, &st);
    if (rc == 0)
        rc = umb_sniff(head, head_length, &st);
    if (rc < 0) {
        textin_close(&in);
        tool_report(tra_path, &st);
        return EXIT_BAD_INPUT;
    }
    if (head_length >= CSR_MAGIC_LENGTH && memcmp(head, CSR_MAGIC, CSR_MAGIC_LENGTH) == 0) {
        textin_close(&in);
        tool_error("%s is a CSR file already (csrinfo describes it; csrexport writes PRISM's files from it)",
                   tool_input_name(tra_path));
        return EXIT_BAD_INPUT;
    }
    if (rc == UMB_INPUT_ARCHIVE) {
        if (lab_path || sta_path || num_reward_args) {
            textin_close(&in);
            tool_error("%s: a UMB archive carries its own labels, rewards and valuations: -l, -s and -r are for a .tra",
                       tool_input_name(tra_path));
            return EXIT_USAGE;
        }
        return convert_umb(&in, tra_path, opt.sums_are_warnings, opt.sum_tolerance, verbose, show, t0);
    }
    if (drn_sniff(head, head_length)) {
        if (lab_path || sta_path || num_reward_args) {
            textin_close(&in);
            tool_error("%s: a DRN file carries its own labels, rewards and valuations: -l, -s and -r are for a .tra",
                       tool_input_name(tra_path));
            return EXIT_USAGE;
        }
        return convert_drn(&in, tra_path, opt.sums_are_warnings, opt.sum_tolerance, verbose, show, t0);
    }
    lab_job lab = {.path = lab_path};
    pthread_t lab_thread;
    int lab_started = lab_path && pthread_create(&lab_thread, NULL, lab_read, &lab) == 0;
    progress pr;
    if (show)
        progress_start(&pr, tra_path, &in);
    rc = prism_read_tra(&in, &opt, &model, &rep, &st);
    if (show)
        progress_end(&pr, &in);
    textin_close(&in);
    if (lab_started)
        pthread_join(lab_thread, NULL);
    if (rc) {
        tool_report(tra_path, &st);
        csr_free(&lab.labels);
        return EXIT_BAD_INPUT;
    }
    double t1 = tool_seconds();
    if (rep.bad_sums)
        warn_sums(tra_path, rep.first_bad_sum_line, rep.bad_sums, opt.sum_tolerance, rep.worst_sum_error);
    if (lab_started && lab.rc == 0 && lab_adopt(&lab, &model) == 0) {
        lab_path = NULL; /* read */
    } else if (lab_started) {
        /* a fault, or a state out of range (which, against the real state
         * count, may come before the fault found): read it again as always,
         * for the first fault and its line */
        csr_free(&lab.labels);
    }
    if (lab_path) {
        memset(&st, 0, sizeof st);
        st.offset = UINT64_MAX;
        if (textin_open(&in, lab_path, &st)) {
            tool_report(lab_path, &st);
            csr_free(&model);
            return EXIT_BAD_INPUT;
        }
        rc = prism_read_lab(&in, &model, &st);
        textin_close(&in);
        if (rc) {
            tool_report(lab_path, &st);
            csr_free(&model);
            return EXIT_BAD_INPUT;
        }
    }
    for (int i = 0; i < num_reward_args; i++)
        if (read_reward_files(reward_args[i], &model)) {
            csr_free(&model);
            return EXIT_BAD_INPUT;
        }
    if (sta_path) {
        memset(&st, 0, sizeof st);
        st.offset = UINT64_MAX;
        if (textin_open(&in, sta_path, &st) == CSR_OK) {
            rc = prism_read_sta(&in, &model, &st);
            textin_close(&in);
        } else {
            rc = st.code ? st.code : CSR_ERR_IO;
        }
        if (rc) {
            tool_report(sta_path, &st);
            csr_free(&model);
            return EXIT_BAD_INPUT;
        }
    }
    double t2 = tool_seconds(), write_s;
    if ((rc = write_model(tra_path, &model, 1, &write_s)))
        return rc;
    if (verbose)
        fprintf(stderr,
                "%s: %s: %s, %llu states, %llu choices, %llu transitions; %.1f MB of text parsed in %.3f s "
                "(%.0f MB/s, %u thread%s); labels %.3f s; written in %.3f s\n",
                tool_name, tool_input_name(tra_path), model.model_type == CSR_MDP ? "MDP" : "DTMC",
                (unsigned long long)model.num_states, (unsigned long long)model.num_choices,
                (unsigned long long)model.num_transitions, (double)rep.bytes / 1e6, t1 - t0,
                (double)rep.bytes / 1e6 / (t1 - t0 > 0 ? t1 - t0 : 1e-9), rep.chunks ? rep.chunks : 1,
                rep.chunks > 1 ? "s" : "", t2 - t1, write_s);
    csr_free(&model);
    return EXIT_OK;
}
