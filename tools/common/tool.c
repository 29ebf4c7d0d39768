/*
 * tool.c - shared tool skeleton (tool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "tool.h"

const char *tool_name = "tool";

void tool_start(const char *name)
{
    tool_name = name;
#ifdef M_MMAP_THRESHOLD
    /* glibc maps each block of 128 KiB or more afresh and faults its pages in one by one: a run on a model of
     * 10^5 states spends a quarter of its time there (gpu-vi --cpu, zeroconf N=20 K=2); blocks below 32 MiB
     * (glibc's most) come from the heap, and up to 64 MiB freed at its top stay there for the next */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

void tool_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", tool_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#ifndef TOOL_VERSION
#define TOOL_VERSION "unknown"
#endif

void tool_version(void)
{
    printf("%s (mdp-gpu) %s\n", tool_name, TOOL_VERSION);
}

int tool_stdout_flushed(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    tool_error("standard output: %s", strerror(errno ? errno : EIO));
    return -1;
}

int tool_close_output(FILE *f, const char *path)
{
    if (!f)
        return -1;
    const int failed = ferror(f) != 0;
    const int saved = errno;
    if (fclose(f) == 0 && !failed)
        return 0;
    const int why = failed ? (saved ? saved : EIO) : errno;
    unlink(path);
    errno = why;
    return -1;
}

/* A real of JSON text as the shortest decimal that reads back as the same
 * double (seconds: 6 significant digits, what a clock difference holds),
 * with a '.' or an exponent so that it stays a real. */
static void put_json_real(FILE *f, const char *tok, size_t len, int seconds)
{
    char in[64], out[48];
    if (len >= sizeof in) {
        fwrite(tok, 1, len, f);
        return;
    }
    memcpy(in, tok, len);
    in[len] = '\0';
    const double x = strtod(in, NULL);
    if (seconds) {
        snprintf(out, sizeof out, "%.6g", x);
    } else {
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(out, sizeof out, "%.*g", digits, x);
            if (strtod(out, NULL) == x)
                break;
        }
    }
    fputs(out, f);
    if (!strpbrk(out, ".eEni")) /* (1 would read back as an integer) */
        fputs(".0", f);
}

int tool_json_print(json_t *j, FILE *f, size_t flags)
{
    char *text = json_dumps(j, flags | JSON_REAL_PRECISION(17));
    if (!text)
        return -1;
    const char *key = NULL, *last_string = NULL;
    size_t key_len = 0, last_len = 0;
    for (const char *p = text; *p;) {
        if (*p == '"') { /* a string, escapes and all */
            const char *q = p + 1;
            while (*q && *q != '"')
                q += *q == '\\' && q[1] ? 2 : 1;
            last_string = p + 1;
            last_len = (size_t)(q - p - 1);
            fwrite(p, 1, (size_t)(q - p) + (*q ? 1 : 0), f);
            p = *q ? q + 1 : q;
            continue;
        }
        if (*p == ':' && last_string) {
            key = last_string;
            key_len = last_len;
        }
        if (*p == '-' || (*p >= '0' && *p <= '9')) {
            const char *q = p;
            int real = 0;
            while (*q && strchr("+-0123456789.eE", *q)) {
                real |= *q == '.' || *q == 'e' || *q == 'E';
                q++;
            }
            const int seconds = key && ((key_len >= 2 && key[key_len - 2] == '_' && key[key_len - 1] == 's') ||
                                        (key_len == 7 && !strncmp(key, "seconds", 7)));
            if (real)
                put_json_real(f, p, (size_t)(q - p), seconds);
            else
                fwrite(p, 1, (size_t)(q - p), f);
            p = q;
            continue;
        }
        fputc(*p++, f);
    }
    free(text);
    return ferror(f) ? -1 : 0;
}

const char *tool_input_name(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "(stdin)" : path;
}

void tool_report(const char *file, const csr_status *st)
{
    fprintf(stderr, "%s: %s", tool_name, tool_input_name(file));
    if (st->line)
        fprintf(stderr, ":%llu", (unsigned long long)st->line);
    else if (st->offset != UINT64_MAX)
        fprintf(stderr, ": byte %llu", (unsigned long long)st->offset);
    fprintf(stderr, ": %s", csr_strerror(st->code));
    if (st->detail[0])
        fprintf(stderr, ": %s", st->detail);
    fputc('\n', stderr);
}

void tool_report_failure(const char *file, int rc, const csr_status *st)
{
    const char *sep = st && st->detail[0] ? ": " : "", *detail = st ? st->detail : "";
    if (rc == CSR_ERR_DEVICE)
        tool_error("%s%s%s", csr_strerror(rc), sep, detail);
    else
        tool_error("%s: %s%s%s", tool_input_name(file), csr_strerror(rc), sep, detail);
}

int tool_read_csr(const char *path, csr_model *model)
{
    csr_status st = {0};
    st.offset = UINT64_MAX;
    int fd = (!path || strcmp(path, "-") == 0) ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        tool_error("%s: %s: %s", path, csr_strerror(CSR_ERR_OPEN), strerror(errno));
        return EXIT_BAD_INPUT;
    }
    int rc = csr_read_fd(fd, model, &st);
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc == CSR_ERR_MAGIC && !st.detail[0]) /* a user's first try: the model as PRISM or Storm wrote it */
        snprintf(st.detail, sizeof st.detail, "prism2csr converts PRISM's and Storm's exports (.tra, DRN, UMB) to CSR");
    if (rc) {
        tool_report(path, &st);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

int tool_input_operand(int argc, char **argv, int first, void (*usage)(FILE *), const char **path)
{
    if (argc - first > 1) {
        tool_error("one input file at most");
        usage(stderr);
        return EXIT_USAGE;
    }
    *path = first < argc ? argv[first] : NULL;
    return EXIT_OK;
}

int tool_refuse_terminal(void)
{
    if (isatty(STDOUT_FILENO)) {
        tool_error("will not write binary data to a terminal; redirect or pipe the output");
        return EXIT_USAGE;
    }
    return 0;
}

double tool_seconds(void)
{
    return monotonic_seconds();
}
