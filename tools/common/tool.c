/*
 * tool.c - shared tool skeleton (tool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "tool.h"

const char *tool_name = "tool";

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
