/*
 * csr.h - the binary CSR model format (format/CSR.md, version 1.3):
 * reading, writing and validating MDPs and DTMCs in compressed sparse row form.
 *
 * Shapes (n = states, c = choices, t = transitions; all counts u64):
 *   state_choices       u64[n+1]  choices of state s: [state_choices[s], state_choices[s+1])
 *   choice_transitions  u64[c+1]  transitions of choice k: [choice_transitions[k], ...[k+1])
 *   targets             u32[t]    successor state of each transition
 *   probabilities       f64[t]    probability of each transition (may be NULL: graph only)
 *   initial_states      u32[i]    strictly ascending
 *   labels              L names; label_first u64[L+1]; label_states u32[...] (ascending per label)
 *   actions             A names (name 0 is "", no action); choice_actions u32[c] (may be NULL)
 *   rewards             R reward structures (1.2): names; reward_info u32[R] (CSR_REWARD_STATES,
 *                       CSR_REWARD_CHOICES); state_rewards f64[n * S] and choice_rewards
 *                       f64[c * C] (S, C: the structures with state / choice rewards, in order);
 *                       csr_reward_arrays() finds one structure's arrays
 *   variables           V state variables (1.3): names; variable_info csr_variable[V] (type, width,
 *                       bit offset, range); valuations u64[n * W]: state s's row of W words holds
 *                       variable v's value minus its lower bound in width bits at bit offset
 *                       (little-endian bit order, a field may cross a word); csr_variable_values()
 *                       decodes one variable for a range of states
 *   permutation         u32[n]: original (PRISM) number of each state, or NULL (identity)
 *   segments            the segment-interval layout of restructure: states [0, interleaved_states)
 *                       in segments of 32; segment g's entries [segment_first[g], ..[g+1]) hold
 *                       transition k of lane l at k*32 + l (target and choice index within the
 *                       state), CSR_SEGMENT_EMPTY / CSR_SEGMENT_NO_CHOICE as padding
 * A DTMC has exactly one choice per state (c = n).  States are limited to 2^32
 * because targets are u32.
 *
 * Errors: every function returns a csr_error code (CSR_OK = 0) and, when given
 * a csr_status, fills it with where and what.  Nothing is printed, nothing exits.
 */
#ifndef CSR_H
#define CSR_H

#include <stddef.h>
#include <stdint.h>

#include "csr_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CSR_VERSION_MAJOR 1
#define CSR_VERSION_MINOR 3
#define CSR_MAGIC "\x89" "CSR\r\n\x1a\n"
#define CSR_MAGIC_LENGTH 8
#define CSR_FIXED_HEADER_BYTES 64
#define CSR_SECTION_ENTRY_BYTES 32
#define CSR_MAX_SECTIONS 64
#define CSR_ALIGN 64
#define CSR_MAX_STATES ((uint64_t)1 << 32)

enum csr_model_type { CSR_DTMC = 1, CSR_MDP = 2 };

/* Section types (format/CSR.md, "Sections"). */
enum csr_section_type {
    CSR_SEC_STATE_CHOICES = 1,
    CSR_SEC_CHOICE_TRANSITIONS = 2,
    CSR_SEC_TARGETS = 3,
    CSR_SEC_PROBABILITIES = 4,
    CSR_SEC_INITIAL_STATES = 5,
    CSR_SEC_LABEL_NAMES = 6,
    CSR_SEC_LABEL_FIRST = 7,
    CSR_SEC_LABEL_STATES = 8,
    CSR_SEC_ACTION_NAMES = 9,
    CSR_SEC_CHOICE_ACTIONS = 10,
    /* 1.1: the segment-interval layout of restructure (FMSD section 5.1) */
    CSR_SEC_PERMUTATION = 16,
    CSR_SEC_SEGMENT_INFO = 17,
    CSR_SEC_SEGMENT_FIRST = 18,
    CSR_SEC_SEGMENT_TARGETS = 19,
    CSR_SEC_SEGMENT_CHOICES = 20,
    /* 1.2: reward structures (issue 16) */
    CSR_SEC_REWARD_NAMES = 21,
    CSR_SEC_REWARD_INFO = 22,
    CSR_SEC_STATE_REWARDS = 23,
    CSR_SEC_CHOICE_REWARDS = 24,
    /* 1.3: state valuations (issue 42) */
    CSR_SEC_VARIABLE_NAMES = 25,
    CSR_SEC_VARIABLE_INFO = 26,
    CSR_SEC_VALUATIONS = 27,
};
#define CSR_SEC_LAST CSR_SEC_VALUATIONS
#define CSR_REWARD_STATES 1u  /* REWARD_INFO bit: the structure has state rewards */
#define CSR_REWARD_CHOICES 2u /* REWARD_INFO bit: the structure has choice rewards */
#define CSR_SEGMENT_LANES 32             /* states per segment: one warp */
#define CSR_SEGMENT_EMPTY 0xFFFFFFFFu    /* padding entry of SEGMENT_TARGETS */
#define CSR_SEGMENT_NO_CHOICE 0xFFu      /* padding entry of SEGMENT_CHOICES */
#define CSR_SEGMENT_MAX_BOUND 255        /* choice indices must fit a byte */
#define CSR_SECTION_OPTIONAL 1u /* section flag: readers may skip it if unknown */

/* A state variable (1.3, VARIABLE_INFO: 32 bytes each).  Bool: lower 0,
 * upper 1.  A value x is stored as x - lower in width bits (1..64, at least
 * enough for upper - lower) at bit offset of the state's row; the offsets are
 * the prefix sums of the widths in variable order. */
enum csr_variable_type { CSR_VAR_BOOL = 1, CSR_VAR_INT = 2 };
typedef struct csr_variable {
    uint32_t type;   /* enum csr_variable_type */
    uint32_t width;  /* bits */
    uint64_t offset; /* bits from the start of the row */
    int64_t lower, upper;
} csr_variable;

/* Where and what went wrong.  line is 1-based for text input, 0 if none;
 * offset is a byte offset in a binary file, UINT64_MAX if none. */
typedef struct csr_status {
    int code;
    int sys_errno;
    uint64_t line;
    uint64_t offset;
    char detail[240];
} csr_status;

/* One entry of the section table, as read from or written to a file. */
typedef struct csr_section {
    uint32_t type;
    uint32_t flags;
    uint64_t offset; /* bytes from the start of the file, multiple of 64 */
    uint64_t length; /* bytes, without padding */
    uint32_t crc32;  /* zlib crc32 of the section's bytes */
} csr_section;

/* A string table: count NUL-terminated strings, names[i] points into it. */
typedef struct csr_strings {
    uint64_t count;
    const char **names;
} csr_strings;

typedef struct csr_model {
    uint32_t model_type; /* CSR_DTMC or CSR_MDP */
    uint32_t version_major, version_minor, flags;
    uint64_t num_states, num_choices, num_transitions;

    const uint64_t *state_choices;
    const uint64_t *choice_transitions;
    const uint32_t *targets;
    const double *probabilities; /* NULL: no probability section */

    uint64_t num_initial;
    const uint32_t *initial_states;

    csr_strings labels; /* labels.count == 0: no labels */
    const uint64_t *label_first;
    const uint32_t *label_states;

    csr_strings actions; /* actions.count == 0: no action section */
    const uint32_t *choice_actions;

    csr_strings rewards;           /* reward structure names; rewards.count == 0: none (1.2) */
    const uint32_t *reward_info;   /* u32[R]: CSR_REWARD_STATES | CSR_REWARD_CHOICES */
    const double *state_rewards;   /* f64[n * S], NULL when S = 0 */
    const double *choice_rewards;  /* f64[c * C], NULL when C = 0 */

    csr_strings variables;              /* state variable names (1.3); variables.count == 0: no valuations */
    const csr_variable *variable_info;  /* [V] */
    uint64_t valuation_words;           /* W: u64 words of a state's row */
    const uint64_t *valuations;         /* u64[n * W] */

    const uint32_t *permutation; /* NULL: the original numbering */

    uint32_t segment_bound;      /* restructure -u N; 0: no segments */
    uint64_t interleaved_states; /* a prefix of the states */
    uint64_t num_segments;       /* ceil(interleaved_states / 32) */
    const uint64_t *segment_first;
    const uint32_t *segment_targets;
    const uint8_t *segment_choices;

    /* As read from a file (for csrinfo); empty for models built in memory. */
    uint64_t header_length, file_length;
    uint32_t num_sections;
    csr_section sections[CSR_MAX_SECTIONS];

    /* Storage owned by the model: freed by csr_free(). */
    void *map_base;
    size_t map_length;
    void *owned[CSR_MAX_SECTIONS + 16]; /* a pipe's read owns a block a section */
    int num_owned;
} csr_model;

/* The message for an error code; never NULL. */
const char *csr_strerror(int code);
/* Name of a section type ("TARGETS"), or "UNKNOWN". */
const char *csr_section_name(uint32_t type);
/* Whether this reader knows the section type. */
int csr_section_known(uint32_t type);

/* Fill status (if not NULL) and return code.  detail is printf-formatted. */
int csr_fail(csr_status *status, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Read a CSR file from fd.  A regular file is mmapped (arrays point into the
 * map); anything else (a pipe) is read in one pass, each section into its own
 * buffer.  Every section checksum, every length against the counts, the
 * padding and the end of the stream are checked; the structure is checked by
 * csr_validate(), which this function calls.
 * On error the model is left empty (csr_free() is still safe).
 */
int csr_read_fd(int fd, csr_model *model, csr_status *status);

/*
 * The transition count t of the CSR file at path, from its fixed header
 * (CSR.md: bytes 0-63) without reading further: a hint for choosing where to
 * solve before the read (which checks everything).  0 with *transitions
 * set; CSR_ERR_IO (cannot be opened or read), CSR_ERR_TRUNCATED (shorter
 * than 64 bytes), CSR_ERR_MAGIC or CSR_ERR_VERSION (not CSR 1.x) otherwise.
 */
int csr_peek_transitions(const char *path, uint64_t *transitions);

/*
 * Write model to fd in one pass (pipes are fine).  The output is
 * byte-reproducible: same model, same bytes.  Writes nothing if the model's
 * counts cannot be represented.
 */
int csr_write_fd(int fd, const csr_model *model, csr_status *status);

/*
 * Check every structural invariant of format/CSR.md in O(n + c + t + n W +
 * V log V): offsets ascending from 0 to the counts, no empty choice, targets
 * < n, probabilities finite in (0,1], DTMC rows, initial and label state
 * lists strictly ascending and < n, string tables, action indices, state
 * variables (CSR_ERR_VARIABLE: types, widths, offsets, ranges, W) and every
 * state's valuation (CSR_ERR_VALUATION: each field within its variable's
 * range, a row's unused bits zero).  It does not check that choices sum to
 * 1: see csr_check_sums().
 */
int csr_validate(const csr_model *model, csr_status *status);

/*
 * Largest |sum - 1| over all choices of the probabilities (0 if none),
 * and the first choice where it exceeds tolerance (UINT64_MAX if none).
 */
double csr_max_sum_error(const csr_model *model, double tolerance, uint64_t *first_bad_choice);

/* Index of a label by name, or -1. */
int64_t csr_find_label(const csr_model *model, const char *name);

/* Of the reward structures [0, upto): *with_state those with state rewards,
 * *with_choice those with choice rewards (upto = rewards.count: the S and C
 * of format/CSR.md, the lengths of STATE_REWARDS and CHOICE_REWARDS in
 * units of n and c values). */
void csr_reward_counts(const csr_model *model, uint64_t upto, uint64_t *with_state, uint64_t *with_choice);

/* Index of a reward structure by name, or -1. */
int64_t csr_find_reward(const csr_model *model, const char *name);

/*
 * The arrays of reward structure r (< rewards.count): *state f64[n] (NULL:
 * no state rewards, all 0) and *choice f64[c] (NULL: no choice rewards).
 */
void csr_reward_arrays(const csr_model *model, uint64_t r, const double **state, const double **choice);

/*
 * Add a reward structure to model (one read from a file or built in memory:
 * its reward arrays become the model's own): state f64[n] and choice f64[c]
 * are copied (either may be NULL: none).  A name already there with the same
 * kind of rewards is CSR_ERR_STRING_TABLE; rewards not finite and
 * non-negative CSR_ERR_REWARD; CSR_ERR_NOMEM.
 */
int csr_add_reward(csr_model *model, const char *name, const double *state, const double *choice);

/* Index of a state variable by name, or -1. */
int64_t csr_find_variable(const csr_model *model, const char *name);

/*
 * The values of state variable v (< variables.count) in states [first,
 * first + count) (within n): out i64[count] (bool: 0 or 1).  O(count).
 */
void csr_variable_values(const csr_model *model, uint64_t v, uint64_t first, uint64_t count, int64_t *out);

/* The value of variable v in state s. */
int64_t csr_variable_value(const csr_model *model, uint64_t s, uint64_t v);

/*
 * Give model (one read from a file or built in memory, without valuations)
 * its state valuations: V variables with names (copied), types (enum
 * csr_variable_type) and values i64[n * V] (state s's value of variable v at
 * s * V + v).  Each variable's range is [lower, upper] when given (i64[V]
 * each; every value must lie in it), else the least range of its values
 * (bool: [0, 1]); widths and offsets follow.  Errors: CSR_ERR_STRING_TABLE
 * (an empty or repeated name, no variable, or valuations already there),
 * CSR_ERR_RANGE (a value outside its range, a bool not 0 or 1, lower >
 * upper, an unknown type), CSR_ERR_TOO_LARGE (n W words not addressable),
 * CSR_ERR_NOMEM.
 */
int csr_set_valuations(csr_model *model, uint64_t V, const char *const *names, const uint32_t *types,
                       const int64_t *lower, const int64_t *upper, const int64_t *values);

/*
 * The first half of csr_set_valuations, for readers that decode values one
 * at a time (UMB: no i64[n * V] in between): V variables with names
 * (copied), types and ranges [lower[v], upper[v]] (i64[V] each; bool: [0,
 * 1]), the least widths, offsets the prefix sums, and n zeroed rows (every
 * variable at its lower bound).  csr_put_variable_value() then stores the
 * values.  Errors as csr_set_valuations.
 */
int csr_init_valuations(csr_model *model, uint64_t V, const char *const *names, const uint32_t *types,
                        const int64_t *lower, const int64_t *upper);

/* Store value (within variable v's range; v < V, s < n) as state s's value
 * of variable v in rows made by csr_init_valuations.  O(1). */
void csr_put_variable_value(csr_model *model, uint64_t s, uint64_t v, int64_t value);

/* Bits needed for the values 0 .. span (1 to 64): a variable's least width
 * for span = upper - lower (as u64). */
uint32_t csr_variable_width(uint64_t span);

/* Take ownership of a malloc'd block (freed by csr_free). CSR_ERR_NOMEM if full. */
int csr_adopt(csr_model *model, void *block);

/* Release everything the model owns and zero it. */
void csr_free(csr_model *model);

/*
 * The model with its states in the order old_of_new (state i of out is state
 * old_of_new[i] of in, a bijection on 0..n-1): every choice, transition,
 * probability, action, label, initial state, reward and valuation kept
 * (each state's row moves with it), state lists re-sorted, PERMUTATION
 * composed so that out still maps to the original numbering (NULL when that
 * is the identity); no segments.  out's arrays are its own, but its label,
 * action, reward and variable names and its variable_info are in's: in must
 * outlive out, which is released with csr_free_renumbered().  Returns CSR_OK
 * or CSR_ERR_NOMEM.
 * (Used by restructure, FMSD 2016 section 5.1, and to undo it.)
 */
int csr_renumber(const csr_model *in, const uint32_t *old_of_new, csr_model *out);

/* csr_renumber() into the original numbering (state i of out is original
 * state i; no PERMUTATION, no segments).  CSR_ERR_TOO_LARGE past 2^32 - 1
 * states, CSR_ERR_NOMEM. */
int csr_original_numbering(const csr_model *in, csr_model *out);

/* Release a model made by csr_renumber() without its borrowed names. */
void csr_free_renumbered(csr_model *out);

/* Checked arithmetic: return 0 and store the result, or 1 on overflow. */
static inline int csr_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}
static inline int csr_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

#ifdef __cplusplus
}
#endif

#endif
