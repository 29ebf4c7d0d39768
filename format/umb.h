/*
 * umb.h - the Unified Markov Binary format (UMB) of PRISM 4.10 and Storm 2.0:
 * reading it into a csr_model and writing a csr_model as UMB.
 *
 * A UMB file is a tar archive, gzip- or xz-compressed or not, of index.json
 * (counts, types, the list of annotations) and little-endian arrays; the
 * reference is PRISM's reader and writer (prism/src/io/github/pmctools/umbj/,
 * UMBFormat.java names the members).  What this project reads and writes
 * (n states, c choices, b branches = transitions):
 *
 *   state-to-choices.bin          u64[n+1]  CSR offsets; absent: identity (c = n)
 *   choice-to-branches.bin        u64[c+1]  CSR offsets; absent: identity (b = c)
 *   branch-to-target.bin          u64[b]    successor of each branch, < n
 *   branch-to-probability.bin     f64[b]    absent: every branch 1
 *   state-is-initial.bin          bits      one bit per state, LSB first, in u64 words
 *   annotations/aps/ID/states/values.bin    bits, the states of atomic proposition ID
 *   actions/choices/values.bin    u32[c]    index into the action strings, with
 *   actions/choices/string-mapping.bin u64[A+1] and .../strings.bin (A = #choice-actions)
 *   actions/branches/...          the same per branch (PRISM's DTMCs)
 *
 * Mapping to the CSR format (format/CSR.md, "Producing the format from PRISM"):
 * #players 1 is an MDP, 0 a DTMC; the labels are "init" (the initial states),
 * "deadlock" (the AP of that name, or empty) and the other state APs in the
 * order of index.json, named by their alias (else their ID), which is the
 * order and content of PRISM's .lab; action names are renumbered in order of
 * first use with "" first, as prism2csr does for a .tra.  Reward annotations
 * of type double become the CSR's reward structures (1.2), named by alias
 * (else ID): state rewards as they are, choice rewards plus each choice's
 * expected branch reward (sum of probability x reward).  The state
 * valuations (valuations/states/valuations.bin, one class of bool, int and
 * uint variables of up to 64 bits; umb_read.c, parse_valuations, gives the
 * encoding) become the CSR's (1.3), each variable with the least range of
 * its values; other variable types and several classes are refused
 * (CSR_ERR_UNSUPPORTED) unless options->skip_valuations.  Rewards of other
 * types, observations, valuations of other entities and other annotation
 * groups have no place in the CSR format: they are skipped and reported in
 * umb_report.skipped.
 *
 * Errors: csr_error codes with a csr_status (detail names the member), never
 * printed.  Compression other than gzip, xz or none: CSR_ERR_COMPRESSION; a
 * bad tar stream: CSR_ERR_ARCHIVE or CSR_ERR_TRUNCATED; index.json not JSON
 * or a field missing or of the wrong type: CSR_ERR_UMB_INDEX; a newer major
 * version: CSR_ERR_VERSION; continuous time, games, exact (rational) or
 * interval probabilities: CSR_ERR_UNSUPPORTED; a member missing or of the
 * wrong length: CSR_ERR_MEMBER_MISSING / CSR_ERR_MEMBER_LENGTH; offsets,
 * targets, actions, counts: the structural codes of csr_validate.
 */
#ifndef UMB_H
#define UMB_H

#include <stddef.h>
#include <stdint.h>

#include "csr.h"
#include "textin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UMB_FORMAT_VERSION 1  /* the major version this reader knows */
#define UMB_FORMAT_REVISION 0 /* the revision this writer writes */

/* What the first bytes of an input are (umb_sniff). */
enum umb_input_kind {
    UMB_INPUT_TEXT = 0,   /* not a tar archive: PRISM text */
    UMB_INPUT_ARCHIVE = 1 /* a tar archive, plain or xz-compressed (gzip is undone by textin) */
};

/* Things a UMB file held that the CSR format has no place for (umb_report.skipped). */
enum umb_skipped {
    UMB_SKIPPED_VALUATIONS = 1 << 0,     /* state valuations, as asked (skip_valuations) */
    UMB_SKIPPED_REWARDS = 1 << 1,        /* rewards not of type double, or of what is neither states, choices nor branches */
    UMB_SKIPPED_OBSERVATIONS = 1 << 2,
    UMB_SKIPPED_ANNOTATIONS = 1 << 3,   /* other groups, or APs not of states */
    UMB_SKIPPED_BRANCH_ACTIONS = 1 << 4, /* branch actions that differ within a choice */
    UMB_SKIPPED_INIT_AP = 1 << 5,        /* an AP named "init": the label comes from state-is-initial */
    UMB_SKIPPED_MEMBERS = 1 << 6,        /* other archive members */
    UMB_SKIPPED_OTHER_VALUATIONS = 1 << 7, /* valuations of entities other than states (observations) */
};

typedef struct umb_read_options {
    int sums_are_warnings; /* a choice not summing to 1 within the tolerance: count, don't fail */
    int skip_valuations;   /* read the model without its state valuations (reported as skipped) */
    double sum_tolerance;  /* how far from 1 a choice may sum; 0: PRISM_SUM_TOLERANCE (prism_text.h) */
} umb_read_options;

typedef struct umb_report {
    uint64_t bytes;          /* bytes of the tar archive read (after gzip) */
    const char *compression; /* "gzip", "xz" or "none" */
    const char *tool;        /* file-data.tool of index.json, or "" (points into a static buffer) */
    unsigned skipped;        /* enum umb_skipped flags */
    uint64_t variables;      /* state variables read (valuations kept) */
    uint64_t bad_sums;       /* choices off by more than the tolerance (when warnings) */
    uint64_t first_bad_sum_choice;
    double worst_sum_error;
    double inflate_s;        /* seconds inflating a whole gzip file (umb_read_gzip_file; 0 when streamed) */
    double valuations_s;     /* seconds decoding the state valuations (0 without) */
} umb_report;

/*
 * Classify an input by its first bytes (as textin_peek gives them, gzip
 * already undone; at least 512 bytes unless the input is shorter).  Returns
 * UMB_INPUT_ARCHIVE for a tar header (ustar magic at byte 257) or an xz
 * stream, UMB_INPUT_TEXT otherwise, and CSR_ERR_COMPRESSION (negated) for
 * bzip2, zstd, lz4, lzip and compress(1) data, naming it in status.
 */
int umb_sniff(const void *head, size_t length, csr_status *status);

/*
 * Read a UMB archive from in (opened with textin_open, positioned at its
 * start; textin_peek may have been called) into model: counts, CSR arrays,
 * initial states, labels, actions.  The model is validated (csr_validate) and
 * its choices' sums checked.  On error the model is freed and status says
 * what and where (the member in detail).
 */
int umb_read(textin *in, const umb_read_options *options, csr_model *model, umb_report *report,
             csr_status *status);

/*
 * umb_read for a gzip-compressed archive in a regular file: the file is read
 * whole and inflated in chunks of at least UMB_INFLATE_CHUNK compressed bytes
 * by all CPUs (inflate_parallel.h), or where that declines (fewer than 4
 * CPUs, one chunk, a damaged stream) by libdeflate on one (3-4x zlib's
 * speed), then read from memory.  Peak memory: the file plus the archive, at
 * most UMB_IN_MEMORY_RATIO times the file or UMB_IN_MEMORY_FLOOR bytes: an
 * archive that inflates to more (a member the reader does not use, zeros
 * compressed a thousandfold) returns UMB_READ_STREAMED, nothing read, for the
 * caller to read it streamed (umb_read), which skips such members without
 * keeping them.  CSR_ERR_TRUNCATED for damaged or cut gzip data, the rest as
 * umb_read.
 */
#define UMB_INFLATE_CHUNK (3ull << 19) /* 1.5 MiB */
#define UMB_IN_MEMORY_RATIO 64
#define UMB_IN_MEMORY_FLOOR (64ull << 20)
#define UMB_READ_STREAMED (-1)
int umb_read_gzip_file(int fd, const umb_read_options *options, csr_model *model, umb_report *report,
                       csr_status *status);

/*
 * Write model as a gzip-compressed UMB archive on fd (a pipe is fine): the
 * members above, an index.json of format version 1.0 naming tool "csrexport".
 * The model must be in its original numbering (no PERMUTATION: see
 * csr_original_numbering) and have probabilities.  Labels but "init" become
 * state APs (ID from the name: lower case, other characters '_', unique),
 * "init" the initial states; actions are choice actions of an MDP and
 * branch actions of a DTMC, as PRISM writes them; state valuations as
 * PRISM's UMBExporter writes its variables (bool of 1 bit, uint when the
 * lower bound is 0 or more, else int in two's complement; umb_write.c,
 * variable_bits), which PRISM's and Storm's readers read.  Reading the
 * archive back gives the same model, labels "init" and "deadlock" first.
 * Errors: CSR_ERR_USAGE (permuted model, no probabilities), CSR_ERR_IO,
 * CSR_ERR_NOMEM.
 */
int umb_write_fd(int fd, const csr_model *model, csr_status *status);

#ifdef __cplusplus
}
#endif

#endif
