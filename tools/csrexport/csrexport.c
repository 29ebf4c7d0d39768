/*
 * csrexport - write a CSR model back as PRISM's explicit export (.tra, .lab)
 * or as a UMB archive that PRISM 4.10 and Storm 2.0 import: the way back from
 * prism2csr.
 *
 *   csrexport [-f tra|umb] [-o BASE] [file | -]
 *
 * Input: a CSR file (format/CSR.md), plain or restructured; the output is in
 * the original (PRISM) numbering either way.  -f tra writes BASE.tra and
 * BASE.lab (format/prism_text.h: the same bytes as PRISM's files but for the
 * "#" comment lines), the reward structures as BASE.srew and BASE.trew
 * (BASE1.srew, BASE2.trew, ... for several, as PRISM names them) and the
 * state valuations as BASE.sta, -f umb writes BASE.umb (format/umb.h); without -o the
 * .tra or the archive goes to stdout (a .tra without its labels).  Files are
 * written under a temporary name and renamed once complete, so a failure
 * leaves nothing half written.  Exit 0 ok, 1 bad input or write error, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prism_text.h"
#include "tool.h"
#include "umb.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [-f tra|umb] [-o BASE] [-v] [file | -]\n"
            "Write a CSR model (plain or restructured) in its original numbering as PRISM's\n"
            "explicit export or as a UMB archive for PRISM 4.10 and Storm 2.0.\n"
            "  -f tra   BASE.tra and BASE.lab, as prism -exportmodel writes them (default),\n"
            "           BASE.srew and BASE.trew for rewards (BASE1.srew, ... for several),\n"
            "           and BASE.sta for state valuations (as prism -exportstates)\n"
            "  -f umb   BASE.umb, a gzip-compressed UMB archive (valuations included)\n"
            "  -o BASE  output files' name without extension; without it the .tra (no\n"
            "           labels) or the archive goes to stdout\n"
            "  -v       report sizes and times on stderr\n"
            "  -h       this help\n"
            "  --version  the tool's name and version\n"
            "Exit status: 0 ok, 1 bad input or write error, 2 usage.\n",
            tool_name);
}

/* A file written under BASE.ext.tmp and renamed to BASE.ext when complete. */
typedef struct output {
    char *final, *temporary;
    FILE *f;
} output;

static int output_open(output *o, const char *base, const char *ext)
{
    memset(o, 0, sizeof *o);
    if (asprintf(&o->final, "%s.%s", base, ext) < 0 || asprintf(&o->temporary, "%s.%s.tmp", base, ext) < 0) {
        tool_error("out of memory");
        return -1;
    }
    o->f = fopen(o->temporary, "wb");
    if (!o->f) {
        tool_error("%s: %s", o->temporary, strerror(errno));
        return -1;
    }
    setvbuf(o->f, NULL, _IOFBF, 1 << 20);
    return 0;
}

/* Close, and rename on success or remove on failure.  Returns 0 if the file is in place. */
static int output_close(output *o, int ok)
{
    int rc = 0;
    if (o->f && fclose(o->f) != 0 && ok) {
        tool_error("%s: %s", o->temporary, strerror(errno));
        ok = 0;
    }
    if (o->temporary) {
        if (ok && rename(o->temporary, o->final) != 0) {
            tool_error("%s: %s", o->final, strerror(errno));
            ok = 0;
        }
        if (!ok)
            unlink(o->temporary);
    }
    rc = ok ? 0 : -1;
    free(o->final);
    free(o->temporary);
    memset(o, 0, sizeof *o);
    return rc;
}

static int write_tra(const csr_model *m, const char *base)
{
    csr_status st = {0};
    if (!base) {
        setvbuf(stdout, NULL, _IOFBF, 1 << 20);
        int rc = prism_write_tra(stdout, m, &st);
        if (!rc && fflush(stdout) != 0)
            rc = csr_fail(&st, CSR_ERR_IO, "%s", strerror(errno));
        if (rc)
            tool_error("(stdout): %s: %s", csr_strerror(rc), st.detail);
        return rc ? EXIT_BAD_INPUT : EXIT_OK;
    }
    output tra, lab, sta = {0};
    if (output_open(&tra, base, "tra")) {
        output_close(&tra, 0);
        return EXIT_BAD_INPUT;
    }
    if (output_open(&lab, base, "lab") || (m->variables.count && output_open(&sta, base, "sta"))) {
        output_close(&tra, 0);
        output_close(&lab, 0);
        output_close(&sta, 0);
        return EXIT_BAD_INPUT;
    }
    int rc = prism_write_tra(tra.f, m, &st);
    if (rc)
        tool_error("%s: %s: %s", tra.final, csr_strerror(rc), st.detail);
    if (!rc && (rc = prism_write_lab(lab.f, m, &st)))
        tool_error("%s: %s: %s", lab.final, csr_strerror(rc), st.detail);
    /* the state valuations as prism -exportstates writes them */
    if (!rc && sta.f && (rc = prism_write_sta(sta.f, m, &st)))
        tool_error("%s: %s: %s", sta.final, csr_strerror(rc), st.detail);
    int bad = output_close(&tra, !rc);
    bad |= output_close(&lab, !rc && !bad);
    bad |= output_close(&sta, !rc && !bad);
    /* the reward structures as PRISM exports them: BASE.srew and BASE.trew,
     * or BASE1.srew, BASE2.srew, ... for several */
    for (uint64_t r = 0; !rc && !bad && r < m->rewards.count; r++) {
        const double *sr, *cr;
        csr_reward_arrays(m, r, &sr, &cr);
        char *rbase = NULL;
        if (m->rewards.count > 1 ? asprintf(&rbase, "%s%llu", base, (unsigned long long)r + 1) < 0
                                 : !(rbase = strdup(base))) {
            tool_error("out of memory");
            return EXIT_BAD_INPUT;
        }
        for (int kind = 0; kind < 2 && !rc && !bad; kind++) {
            if (!(kind ? cr : sr))
                continue;
            output o;
            if (output_open(&o, rbase, kind ? "trew" : "srew")) {
                output_close(&o, 0);
                bad = 1;
                break;
            }
            rc = kind ? prism_write_trew(o.f, m, r, &st) : prism_write_srew(o.f, m, r, &st);
            if (rc)
                tool_error("%s: %s: %s", o.final, csr_strerror(rc), st.detail);
            bad |= output_close(&o, !rc);
        }
        free(rbase);
    }
    return rc || bad ? EXIT_BAD_INPUT : EXIT_OK;
}

static int write_umb(const csr_model *m, const char *base)
{
    csr_status st = {0};
    if (!base) {
        int rc = umb_write_fd(STDOUT_FILENO, m, &st);
        if (rc)
            tool_error("(stdout): %s: %s", csr_strerror(rc), st.detail);
        return rc ? EXIT_BAD_INPUT : EXIT_OK;
    }
    output umb;
    if (output_open(&umb, base, "umb")) {
        output_close(&umb, 0);
        return EXIT_BAD_INPUT;
    }
    fflush(umb.f);
    int rc = umb_write_fd(fileno(umb.f), m, &st);
    if (rc)
        tool_error("%s: %s: %s", umb.final, csr_strerror(rc), st.detail);
    return output_close(&umb, !rc) || rc ? EXIT_BAD_INPUT : EXIT_OK;
}

int main(int argc, char **argv)
{
    tool_start("csrexport");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    const char *base = NULL, *format = "tra";
    int verbose = 0, c;
    static const struct option longopts[] = {{"format", required_argument, 0, 'f'},
                                             {"output", required_argument, 0, 'o'},
                                             {"verbose", no_argument, 0, 'v'},
                                             {"help", no_argument, 0, 'h'},
                                             {"version", no_argument, 0, TOOL_OPT_VERSION},
                                             {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "f:o:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'o': base = optarg; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        case TOOL_OPT_VERSION: tool_version(); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    int umb = strcmp(format, "umb") == 0;
    if (!umb && strcmp(format, "tra") != 0) {
        tool_error("unknown format '%s' (tra or umb)", format);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (base && !*base) {
        tool_error("-o needs a non-empty name");
        return EXIT_USAGE;
    }
    const char *path;
    if (tool_input_operand(argc, argv, optind, usage, &path))
        return EXIT_USAGE;
    if (umb && !base && tool_refuse_terminal())
        return EXIT_USAGE;
    double t0 = tool_seconds();
    csr_model in, model;
    if (tool_read_csr(path, &in))
        return EXIT_BAD_INPUT;
    /* A restructured file goes back to the original numbering; a plain one is written as read. */
    const csr_model *m = &in;
    if (in.permutation) {
        int rc = csr_original_numbering(&in, &model);
        if (rc) {
            tool_error("%s: %s", tool_input_name(path), csr_strerror(rc));
            csr_free(&in);
            return EXIT_BAD_INPUT;
        }
        m = &model;
    }
    double t1 = tool_seconds();
    int status = umb ? write_umb(m, base) : write_tra(m, base);
    double t2 = tool_seconds();
    if (verbose && status == EXIT_OK)
        fprintf(stderr, "%s: %s: %llu states, %llu choices, %llu transitions; read in %.3f s, %s written in %.3f s\n",
                tool_name, tool_input_name(path), (unsigned long long)m->num_states,
                (unsigned long long)m->num_choices, (unsigned long long)m->num_transitions, t1 - t0,
                umb ? "UMB" : "PRISM text", t2 - t1);
    if (m == &model)
        csr_free_renumbered(&model);
    csr_free(&in);
    return status;
}
