/*
 * labelcmp - compare two label files as partitions, or two value files.
 *
 *   labelcmp [-q] [-m N] a b
 *   labelcmp -n [-a] [-t TOL] [-q] [-m N] a b
 *
 * Label files (labels.h): one component id or "-" per state; PRISM's
 * -exportsccs / -exportmecs files are read too.  Two labelings are equal when
 * they are the same partition (ids equal up to renaming) with the same
 * "-" states.  -n compares value files, one number per state, within a
 * relative (default) or absolute (-a) tolerance.
 * Exit 0 same, 1 different, 2 trouble (unreadable or malformed input, usage).
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "labels.h"
#include "tool.h"

enum { SAME = 0, DIFFERENT = 1, TROUBLE = 2 };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [-q] [-m N] a b\n"
            "       %s -n [-a] [-t TOL] [-q] [-m N] a b\n"
            "Compare two label files as partitions (PRISM .sccs/.mecs files too),\n"
            "or with -n two value files.  Files may be gzip-compressed; - is stdin.\n"
            "  -q      print nothing; only the exit status\n"
            "  -m N    show at most N differences (default 10)\n"
            "  -n      compare numbers, one per line and state\n"
            "  -t TOL  tolerance for -n (default 1e-6)\n"
            "  -a      absolute tolerance: |a-b| <= TOL (default relative:\n"
            "          |a-b| <= TOL * max(|a|,|b|))\n"
            "  -h      this help\n"
            "  --version  the tool's name and version\n"
            "Exit status: 0 same, 1 different, 2 trouble.\n",
            tool_name, tool_name);
}

static int read_labels(const char *path, label_file *lf)
{
    csr_status st = {0};
    st.offset = UINT64_MAX;
    textin in;
    int rc = textin_open(&in, path, &st);
    if (!rc)
        rc = labels_read(&in, lf, &st);
    textin_close(&in);
    if (rc)
        tool_report(path, &st);
    return rc;
}

static void describe_id(const label_file *lf, uint64_t id, char *buf, size_t len)
{
    if (id == LABEL_NONE)
        snprintf(buf, len, "-");
    else if (lf->kind == LABELS_PLAIN)
        snprintf(buf, len, "%llu", (unsigned long long)id);
    else if (id >> 63)
        snprintf(buf, len, "(an SCC of its own)");
    else
        snprintf(buf, len, "%s %llu", lf->kind == LABELS_PRISM_MECS ? "MEC" : "SCC", (unsigned long long)id);
}

static int compare_labels(const char *pa, const char *pb, int quiet, uint64_t max_shown)
{
    label_file a, b;
    if (read_labels(pa, &a))
        return TROUBLE;
    if (read_labels(pb, &b)) {
        labels_free(&a);
        return TROUBLE;
    }
    int result = SAME;
    uint64_t n = a.kind == LABELS_PLAIN ? a.num_states : b.kind == LABELS_PLAIN ? b.num_states
               : (a.num_states > b.num_states ? a.num_states : b.num_states);
    csr_status st = {0};
    st.offset = UINT64_MAX;
    if (a.kind == LABELS_PLAIN && b.kind == LABELS_PLAIN && a.num_states != b.num_states) {
        if (!quiet) /* (label files have no header: their lines are the states) */
            printf("%s and %s differ: %llu states in a, %llu in b\n", tool_input_name(pa), tool_input_name(pb),
                   (unsigned long long)a.num_states, (unsigned long long)b.num_states);
        result = DIFFERENT;
        goto out;
    }
    if (labels_set_states(&a, n, &st) || labels_set_states(&b, n, &st)) {
        if (!quiet)
            printf("%s and %s differ: %s: %s\n", tool_input_name(pa), tool_input_name(pb),
                   csr_strerror(st.code), st.detail);
        result = DIFFERENT;
        goto out;
    }
    uint64_t *ca = malloc((n ? n : 1) * sizeof *ca), *cb = malloc((n ? n : 1) * sizeof *cb);
    if (!ca || !cb || labels_canonicalize(a.ids, n, ca) || labels_canonicalize(b.ids, n, cb)) {
        tool_error("out of memory for %llu states", (unsigned long long)n);
        free(ca);
        free(cb);
        result = TROUBLE;
        goto out;
    }
    uint64_t differing = 0;
    for (uint64_t s = 0; s < n; s++) {
        if (ca[s] == cb[s])
            continue;
        if (differing++ < max_shown && !quiet) {
            char ia[48], ib[48];
            describe_id(&a, a.ids[s], ia, sizeof ia);
            describe_id(&b, b.ids[s], ib, sizeof ib);
            if (differing == 1)
                printf("%s and %s differ:\n", tool_input_name(pa), tool_input_name(pb));
            printf("state %llu: %s in a, %s in b\n", (unsigned long long)s, ia, ib);
        }
    }
    if (differing) {
        result = DIFFERENT;
        if (!quiet)
            printf("%llu of %llu states differ\n", (unsigned long long)differing, (unsigned long long)n);
    }
    free(ca);
    free(cb);
out:
    labels_free(&a);
    labels_free(&b);
    return result;
}

static int read_values(const char *path, double **v, uint64_t *n)
{
    csr_status st = {0};
    st.offset = UINT64_MAX;
    textin in;
    int rc = textin_open(&in, path, &st);
    if (!rc)
        rc = values_read(&in, v, n, &st);
    textin_close(&in);
    if (rc)
        tool_report(path, &st);
    return rc;
}

static int compare_values(const char *pa, const char *pb, int quiet, uint64_t max_shown, double tol, int absolute)
{
    double *a, *b;
    uint64_t na, nb;
    if (read_values(pa, &a, &na))
        return TROUBLE;
    if (read_values(pb, &b, &nb)) {
        free(a);
        return TROUBLE;
    }
    int result = SAME;
    if (na != nb) {
        if (!quiet)
            printf("%s and %s differ: %llu values in a, %llu in b\n", tool_input_name(pa), tool_input_name(pb),
                   (unsigned long long)na, (unsigned long long)nb);
        result = DIFFERENT;
    } else {
        uint64_t differing = 0;
        double worst = 0.0;
        for (uint64_t s = 0; s < na; s++) {
            double d = fabs(a[s] - b[s]);
            double scale = absolute ? 1.0 : fmax(fabs(a[s]), fabs(b[s]));
            /* == also covers equal infinities; nan only equals nan (as PRISM prints an undefined value) */
            int same = a[s] == b[s] || (isfinite(d) && d <= tol * scale) || (isnan(a[s]) && isnan(b[s]));
            if (!(d <= worst) && !isnan(d))
                worst = d;
            if (same)
                continue;
            if (differing++ < max_shown && !quiet) {
                if (differing == 1)
                    printf("%s and %s differ:\n", tool_input_name(pa), tool_input_name(pb));
                printf("state %llu: %.17g in a, %.17g in b (difference %.3g)\n", (unsigned long long)s, a[s], b[s], d);
            }
        }
        if (differing) {
            result = DIFFERENT;
            if (!quiet)
                printf("%llu of %llu values differ by more than %g %s\n", (unsigned long long)differing,
                       (unsigned long long)na, tol, absolute ? "(absolute)" : "(relative)");
        }
    }
    free(a);
    free(b);
    return result;
}

int main(int argc, char **argv)
{
    tool_start("labelcmp");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    int quiet = 0, numeric = 0, absolute = 0, c;
    double tol = 1e-6;
    uint64_t max_shown = 10;
    char *end;
    static const struct option longopts[] = {{"quiet", no_argument, 0, 'q'},   {"numeric", no_argument, 0, 'n'},
                                             {"absolute", no_argument, 0, 'a'}, {"tolerance", required_argument, 0, 't'},
                                             {"max", required_argument, 0, 'm'}, {"help", no_argument, 0, 'h'},
                                             {"version", no_argument, 0, TOOL_OPT_VERSION}, {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "qnat:m:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = 1; break;
        case 'n': numeric = 1; break;
        case 'a': absolute = 1; break;
        case 't':
            tol = strtod(optarg, &end);
            if (*end || end == optarg || !(tol >= 0.0) || isinf(tol)) {
                tool_error("bad tolerance '%s'", optarg);
                return TROUBLE;
            }
            break;
        case 'm':
            max_shown = strtoull(optarg, &end, 10);
            if (*end || end == optarg || optarg[0] == '-') {
                tool_error("bad count '%s'", optarg);
                return TROUBLE;
            }
            break;
        case 'h': usage(stdout); return tool_stdout_flushed() ? TROUBLE : SAME;
        case TOOL_OPT_VERSION: tool_version(); return tool_stdout_flushed() ? TROUBLE : SAME;
        default: usage(stderr); return TROUBLE;
        }
    }
    if (argc - optind != 2) {
        tool_error("two files to compare");
        usage(stderr);
        return TROUBLE;
    }
    if ((absolute || tol != 1e-6) && !numeric) {
        tool_error("-a and -t apply to value files (-n)");
        return TROUBLE;
    }
    const char *pa = argv[optind], *pb = argv[optind + 1];
    if (strcmp(pa, "-") == 0 && strcmp(pb, "-") == 0) {
        tool_error("only one of the files can be standard input");
        return TROUBLE;
    }
    int result = numeric ? compare_values(pa, pb, quiet, max_shown, tol, absolute)
                         : compare_labels(pa, pb, quiet, max_shown);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        tool_error("(stdout): %s: %s", csr_strerror(CSR_ERR_IO), strerror(errno));
        return TROUBLE;
    }
    return result;
}
