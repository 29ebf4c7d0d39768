/*
 * tool.h - what every tool of the family shares (the netpbm skeleton):
 * its name for messages, error reporting as "tool: file:line: what is wrong",
 * opening a CSR input (a file, or stdin for "-" or none), exit codes.
 */
#ifndef TOOL_H
#define TOOL_H

#include <stdio.h>

#include <jansson.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of all tools (labelcmp: 1 = the files differ). */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2, EXIT_DEVICE = 3 /* the GPU tools: no GPU, a CUDA failure */ };

extern const char *tool_name;

/* A tool's first step: its name for messages (tool_name), and the C
 * library's memory settings for runs of many short-lived blocks. */
void tool_start(const char *name);

/* "tool: message\n" on stderr. */
void tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "tool: file:line: message: detail\n" (line and detail when set; byte
 * offset for binary files).  file NULL or "-" is shown as "(stdin)". */
void tool_report(const char *file, const csr_status *status);

/* Display name of an input path. */
const char *tool_input_name(const char *path);

/* Read a CSR model from path (NULL or "-": stdin); on failure report it and
 * return EXIT_BAD_INPUT. */
int tool_read_csr(const char *path, csr_model *model);

/* The single optional input operand after the options (getopt's optind):
 * *path is it, or NULL for standard input.  More than one: a message, usage
 * on stderr, and EXIT_USAGE. */
int tool_input_operand(int argc, char **argv, int first, void (*usage)(FILE *), const char **path);

/* Report a failure of the work on the model of file (csr_error rc, its text in
 * status): "tool: file: what" for what the input is to blame for, "tool:
 * what" for a GPU failure (CSR_ERR_DEVICE), which the input is not; the
 * tools then exit with EXIT_DEVICE or EXIT_BAD_INPUT. */
void tool_report_failure(const char *file, int rc, const csr_status *status);

/* Refuse to write binary data to a terminal: returns EXIT_USAGE after a
 * message if stdout is one, else 0. */
int tool_refuse_terminal(void);

/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double tool_seconds(void);

/* --version: "tool (mdp-gpu) VERSION" on stdout (VERSION from the Makefile).
 * Every tool takes --version (getopt_long value TOOL_OPT_VERSION). */
#define TOOL_OPT_VERSION 'V'
/* json_dumpf of j with flags (JSON_COMPACT, ...), each real as the shortest
 * decimal that reads back as the same double, and a value of a key ending
 * in "_s" or named "seconds" (seconds measured by a clock) to 6 significant
 * digits: 1e-06, not 9.9999999999999995e-07.  0, or -1 where writing failed. */
int tool_json_print(json_t *j, FILE *f, size_t flags);
/* Close an output file the tool created at path (fopen): 0, or -1 with
 * errno set where a write or the close failed (a full disk), the file then
 * removed, so that no partial output stays behind.  f NULL: -1. */
int tool_close_output(FILE *f, const char *path);
/* Standard output flushed and free of errors (what -h and --version wrote,
 * to a full disk or a closed pipe): 0, or -1 with the error printed. */
int tool_stdout_flushed(void);
void tool_version(void);

#ifdef __cplusplus
}
#endif

#endif
