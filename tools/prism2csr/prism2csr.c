/*
 * prism2csr - convert PRISM's explicit export (.tra, .lab) to binary CSR.
 *
 *   prism2csr [-w] [-l file.lab] [file.tra | -] > model.csr
 *
 * Input: PRISM -exportmodel .tra (MDP or DTMC) and optionally .lab, plain or
 * gzip-compressed (format/prism_text.h).  Output: format/CSR.md on stdout,
 * written only once the whole input has been read and checked, so a failed
 * conversion writes nothing.  Exit 0 on success, 1 on bad input, 2 on usage.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prism_text.h"
#include "tool.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [-w] [-v] [-l file.lab] [file.tra | -] > model.csr\n"
            "Convert PRISM's explicit model export to the binary CSR format.\n"
            "  -l FILE  labels (.lab): initial states from \"init\", all labels kept;\n"
            "           without it state 0 is the initial state\n"
            "  -w       a choice whose probabilities do not sum to 1 (within 1e-6)\n"
            "           is a warning, not an error\n"
            "  -v       report sizes and throughput on stderr\n"
            "  -h       this help\n"
            "Inputs may be gzip-compressed.  Exit status: 0 ok, 1 bad input, 2 usage.\n",
            tool_name);
}

int main(int argc, char **argv)
{
    tool_name = "prism2csr";
    const char *lab_path = NULL;
    prism_tra_options opt = {0};
    int verbose = 0, c;
    static const struct option longopts[] = {{"labels", required_argument, 0, 'l'},
                                             {"warn-sums", no_argument, 0, 'w'},
                                             {"verbose", no_argument, 0, 'v'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "l:wvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': lab_path = optarg; break;
        case 'w': opt.sums_are_warnings = 1; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    const char *tra_path;
    if (tool_input_operand(argc, argv, optind, usage, &tra_path))
        return EXIT_USAGE;
    if (tool_refuse_terminal())
        return EXIT_USAGE;

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
    int rc = prism_read_tra(&in, &opt, &model, &rep, &st);
    textin_close(&in);
    if (rc) {
        tool_report(tra_path, &st);
        return EXIT_BAD_INPUT;
    }
    double t1 = tool_seconds();
    if (rep.bad_sums) {
        fprintf(stderr, "%s: %s:%llu: warning: %llu choices do not sum to 1 within %g (worst by %.3g)\n", tool_name,
                tool_input_name(tra_path), (unsigned long long)rep.first_bad_sum_line,
                (unsigned long long)rep.bad_sums, PRISM_SUM_TOLERANCE, rep.worst_sum_error);
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
    memset(&st, 0, sizeof st);
    st.offset = UINT64_MAX;
    if ((rc = csr_validate(&model, &st))) { /* the readers guarantee this; checked all the same */
        tool_report(tra_path, &st);
        csr_free(&model);
        return EXIT_BAD_INPUT;
    }
    double t2 = tool_seconds();
    rc = csr_write_fd(STDOUT_FILENO, &model, &st);
    double t3 = tool_seconds();
    if (rc) {
        tool_error("(stdout): %s: %s", csr_strerror(rc), st.detail);
        csr_free(&model);
        return EXIT_BAD_INPUT;
    }
    if (verbose)
        fprintf(stderr,
                "%s: %s: %s, %llu states, %llu choices, %llu transitions; %.1f MB of text parsed in %.3f s "
                "(%.0f MB/s); labels %.3f s; written in %.3f s\n",
                tool_name, tool_input_name(tra_path), model.model_type == CSR_MDP ? "MDP" : "DTMC",
                (unsigned long long)model.num_states, (unsigned long long)model.num_choices,
                (unsigned long long)model.num_transitions, (double)rep.bytes / 1e6, t1 - t0,
                (double)rep.bytes / 1e6 / (t1 - t0 > 0 ? t1 - t0 : 1e-9), t2 - t1, t3 - t2);
    csr_free(&model);
    return EXIT_OK;
}
