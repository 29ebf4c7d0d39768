/*
 * csr_errors.h - the one list of error codes of the format library.
 *
 * Every function of the library that can fail returns one of these codes
 * (CSR_OK is 0) and fills a csr_status with the details (line, section,
 * entry, a short explanation).  The list below generates both the enum and
 * the message strings returned by csr_strerror(), as in LZ4's lz4frame.c.
 * The library never prints and never exits; the tools print
 * "tool: file:line: message: detail".
 */
#ifndef CSR_ERRORS_H
#define CSR_ERRORS_H

#define CSR_ERROR_LIST(X)                                                          \
    X(CSR_OK, "success")                                                           \
    X(CSR_ERR_IO, "input/output error")                                            \
    X(CSR_ERR_NOMEM, "out of memory")                                              \
    X(CSR_ERR_USAGE, "invalid argument")                                           \
    X(CSR_ERR_OPEN, "cannot open")                                                 \
    /* binary CSR container */                                                     \
    X(CSR_ERR_TRUNCATED, "file is truncated")                                      \
    X(CSR_ERR_TRAILING, "trailing data after the end of the file")                 \
    X(CSR_ERR_MAGIC, "not a CSR file (bad magic number)")                          \
    X(CSR_ERR_VERSION, "unsupported format version")                               \
    X(CSR_ERR_HEADER_LENGTH, "bad header length")                                  \
    X(CSR_ERR_RESERVED, "reserved field or flag is not zero")                      \
    X(CSR_ERR_HEADER_CRC, "header checksum mismatch")                              \
    X(CSR_ERR_MODEL_TYPE, "unknown model type")                                    \
    X(CSR_ERR_TOO_LARGE, "count too large for the format or this machine")         \
    X(CSR_ERR_SECTION_TABLE, "bad section table")                                  \
    X(CSR_ERR_SECTION_MISSING, "required section missing")                         \
    X(CSR_ERR_SECTION_UNKNOWN, "unknown section not marked optional")              \
    X(CSR_ERR_SECTION_LENGTH, "section length does not match the counts")          \
    X(CSR_ERR_SECTION_CRC, "section checksum mismatch")                            \
    X(CSR_ERR_PADDING, "padding bytes are not zero")                               \
    /* structural invariants (csr_validate) */                                    \
    X(CSR_ERR_OFFSETS, "offsets not ascending from 0 to the count")                \
    X(CSR_ERR_EMPTY_CHOICE, "choice without transitions")                          \
    X(CSR_ERR_TARGET_RANGE, "target state out of range")                           \
    X(CSR_ERR_PROBABILITY, "probability not finite or outside (0,1]")              \
    X(CSR_ERR_PROBABILITY_SUM, "probabilities of a choice do not sum to 1")        \
    X(CSR_ERR_DTMC_CHOICES, "DTMC state without exactly one choice")               \
    X(CSR_ERR_STATE_LIST, "state list not strictly ascending or out of range")     \
    X(CSR_ERR_NO_INITIAL, "no initial state")                                      \
    X(CSR_ERR_STRING_TABLE, "bad string table")                                    \
    X(CSR_ERR_ACTION_RANGE, "action index out of range")                           \
    X(CSR_ERR_PERMUTATION, "state permutation is not a bijection")                 \
    X(CSR_ERR_SEGMENTS, "segment layout does not match the transitions")           \
    X(CSR_ERR_TARGET_ORDER, "targets of a choice not strictly ascending")          \
    X(CSR_ERR_REWARD, "reward not finite or negative")                             \
    X(CSR_ERR_VARIABLE, "bad state variable")                                      \
    X(CSR_ERR_VALUATION, "state valuation outside its variable's range")           \
    /* text readers (PRISM .tra/.lab, label and value files) */                    \
    X(CSR_ERR_SYNTAX, "syntax error")                                              \
    X(CSR_ERR_NUMBER, "malformed number")                                          \
    X(CSR_ERR_COUNTS, "counts do not match the header")                            \
    X(CSR_ERR_RANGE, "index out of range")                                         \
    X(CSR_ERR_ORDER, "not ascending and contiguous")                               \
    X(CSR_ERR_UNSUPPORTED, "unsupported model")                                    \
    X(CSR_ERR_LABEL, "bad label")                                                  \
    /* UMB archives (format/umb.h) */                                              \
    X(CSR_ERR_COMPRESSION, "unsupported compression")                              \
    X(CSR_ERR_ARCHIVE, "bad tar archive")                                          \
    X(CSR_ERR_UMB_INDEX, "bad UMB index (index.json)")                             \
    X(CSR_ERR_MEMBER_MISSING, "required archive member missing")                   \
    X(CSR_ERR_MEMBER_LENGTH, "archive member length does not match the counts")    \
    /* solvers */                                                                  \
    X(CSR_ERR_NOT_CONVERGED, "iteration limit reached before convergence")          \
    X(CSR_ERR_STALLED, "values stopped changing before the precision was reached")          \
    X(CSR_ERR_DEVICE, "GPU failure")

#define CSR_ERROR_ENUM_ITEM(name, text) name,
typedef enum { CSR_ERROR_LIST(CSR_ERROR_ENUM_ITEM) CSR_ERROR_COUNT } csr_error;
#undef CSR_ERROR_ENUM_ITEM

#endif
