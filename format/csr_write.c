/*
 * csr_write.c - writing a CSR file (format/CSR.md, version 1.3) in one pass,
 * in the lowest minor version whose sections the model needs.
 *
 * All section lengths follow from the counts and all checksums are computed
 * before the first byte goes out, so the header comes first and the output
 * can be a pipe.  Sections are written in type order, each at the next
 * multiple of 64 with zero padding: the same model always gives the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc.h"
#include "csr.h"
#include "parallel.h"
#include "pipe.h"

struct out_section {
    uint32_t type;
    const void *data;
    uint64_t length;
};

static uint64_t round_up(uint64_t x) { return (x + CSR_ALIGN - 1) & ~(uint64_t)(CSR_ALIGN - 1); }
static void put_u16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static int write_all(int fd, const void *buf, uint64_t len, csr_status *st)
{
    const uint8_t *p = buf;
    while (len > 0) {
        size_t chunk = len > ((uint64_t)1 << 30) ? ((size_t)1 << 30) : (size_t)len;
        ssize_t put = write(fd, p, chunk);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            if (st)
                st->sys_errno = errno;
            return csr_fail(st, CSR_ERR_IO, "write: %s", strerror(errno));
        }
        p += put;
        len -= (uint64_t)put;
    }
    return CSR_OK;
}

/* ---- a regular file, written by all threads ----------------------------------
 * One thread's write() of a paper-scale model (1.6 GB for leader8) through the
 * page cache took 0.45-0.5 s, a third of prism2csr's time, and a file system
 * serialises buffered writes to one file.  Where the output is a regular file
 * with nothing at or after its offset and not in append mode, its room is
 * allocated first (fallocate: no SIGBUS for want of space later) and a shared
 * mapping of it is filled by one thread per CPU; anything else, and any
 * refusal on the way, is written by write() as before. */

#define MAPPED_MIN_BYTES ((uint64_t)64 << 20) /* smaller files: write() */

struct piece {
    const void *data; /* NULL: zeros */
    uint64_t length;
};

struct fill_task {
    const struct piece *pieces;
    uint32_t count;
    uint8_t *out;          /* the mapping at the first byte of the file's part */
    uint64_t begin, end;   /* bytes [begin, end) of the output */
};

static void *fill_range(void *arg)
{
    struct fill_task *t = arg;
    uint64_t at = 0;
    for (uint32_t i = 0; i < t->count && at < t->end; i++) {
        uint64_t b = at, e = at + t->pieces[i].length;
        at = e;
        if (e <= t->begin)
            continue;
        uint64_t from = b > t->begin ? b : t->begin, to = e < t->end ? e : t->end;
        if (t->pieces[i].data)
            memcpy(t->out + from, (const uint8_t *)t->pieces[i].data + (from - b), (size_t)(to - from));
        else
            memset(t->out + from, 0, (size_t)(to - from));
    }
    return NULL;
}

/* 1 when the pieces went out through a mapping, 0 when write() must do it. */
static int write_mapped(int fd, const struct piece *pieces, uint32_t count, uint64_t total)
{
    struct stat sb;
    off_t base = lseek(fd, 0, SEEK_CUR);
    int flags = fcntl(fd, F_GETFL);
    if (total < parallel_grain(MAPPED_MIN_BYTES) || base < 0 || flags < 0 || (flags & O_APPEND) ||
        fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size != base)
        return 0;
    /* a shared writable mapping needs a descriptor open for reading too: a
     * shell's "> file" opens it write-only, so open the same file again */
    int rw = fd;
    if ((flags & O_ACCMODE) != O_RDWR) {
        char path[64];
        struct stat again;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        rw = open(path, O_RDWR);
        if (rw < 0)
            return 0;
        if (fstat(rw, &again) != 0 || again.st_dev != sb.st_dev || again.st_ino != sb.st_ino) {
            close(rw);
            return 0;
        }
    }
    uint8_t *map = MAP_FAILED;
    long page = sysconf(_SC_PAGESIZE);
    off_t start = base - base % (page > 0 ? page : 4096);
    size_t lead = (size_t)(base - start);
    if (fallocate(rw, 0, base, (off_t)total) == 0)
        map = mmap(NULL, lead + (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, rw, start);
    if (rw != fd)
        close(rw); /* the mapping stays valid */
    if (map == MAP_FAILED)
        return 0; /* any room allocated stays: write() fills it */
    unsigned tasks = parallel_tasks(total, parallel_grain((uint64_t)16 << 20));
    struct fill_task t[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++)
        t[i] = (struct fill_task){pieces, count, map + lead, total * i / tasks, total * (i + 1) / tasks};
    parallel_run(fill_range, t, sizeof t[0], tasks);
    munmap(map, lead + (size_t)total);
    return lseek(fd, base + (off_t)total, SEEK_SET) >= 0;
}

/* Concatenate names into a string table (malloc'd, *length bytes). */
static char *join_strings(const csr_strings *s, uint64_t *length)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < s->count; i++)
        total += strlen(s->names[i]) + 1;
    char *table = malloc(total ? total : 1);
    if (!table)
        return NULL;
    char *p = table;
    for (uint64_t i = 0; i < s->count; i++) {
        size_t len = strlen(s->names[i]) + 1;
        memcpy(p, s->names[i], len);
        p += len;
    }
    *length = total;
    return table;
}

int csr_write_fd(int fd, const csr_model *m, csr_status *st)
{
    pipe_grow(fd);
    if (m->num_states > CSR_MAX_STATES)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "%llu states", (unsigned long long)m->num_states);
    uint64_t sc_len, ct_len, tg_len, pr_len, in_len, ca_len = 0, lf_len = 0, ls_len = 0;
    if (csr_mul_u64(m->num_states + 1, 8, &sc_len) || m->num_choices == UINT64_MAX ||
        csr_mul_u64(m->num_choices + 1, 8, &ct_len) || csr_mul_u64(m->num_transitions, 4, &tg_len) ||
        csr_mul_u64(m->num_transitions, 8, &pr_len) || csr_mul_u64(m->num_initial, 4, &in_len) ||
        (m->choice_actions && csr_mul_u64(m->num_choices, 4, &ca_len)))
        return csr_fail(st, CSR_ERR_TOO_LARGE, "section lengths overflow 64 bits");
    char *label_table = NULL, *action_table = NULL, *variable_table = NULL;
    uint64_t label_table_len = 0, action_table_len = 0, variable_table_len = 0, valuations_len = 0;
    struct out_section sec[CSR_MAX_SECTIONS];
    uint32_t n = 0;
    sec[n++] = (struct out_section){CSR_SEC_STATE_CHOICES, m->state_choices, sc_len};
    sec[n++] = (struct out_section){CSR_SEC_CHOICE_TRANSITIONS, m->choice_transitions, ct_len};
    sec[n++] = (struct out_section){CSR_SEC_TARGETS, m->targets, tg_len};
    if (m->probabilities)
        sec[n++] = (struct out_section){CSR_SEC_PROBABILITIES, m->probabilities, pr_len};
    sec[n++] = (struct out_section){CSR_SEC_INITIAL_STATES, m->initial_states, in_len};
    int rc = CSR_OK;
    if (m->labels.count) {
        label_table = join_strings(&m->labels, &label_table_len);
        lf_len = (m->labels.count + 1) * 8;
        ls_len = m->label_first[m->labels.count] * 4;
        sec[n++] = (struct out_section){CSR_SEC_LABEL_NAMES, label_table, label_table_len};
        sec[n++] = (struct out_section){CSR_SEC_LABEL_FIRST, m->label_first, lf_len};
        sec[n++] = (struct out_section){CSR_SEC_LABEL_STATES, m->label_states, ls_len};
    }
    if (m->choice_actions) {
        action_table = join_strings(&m->actions, &action_table_len);
        sec[n++] = (struct out_section){CSR_SEC_ACTION_NAMES, action_table, action_table_len};
        sec[n++] = (struct out_section){CSR_SEC_CHOICE_ACTIONS, m->choice_actions, ca_len};
    }
    uint8_t segment_info[16];
    uint64_t perm_len = 0, sf_len = 0, entries = 0;
    if (m->permutation) {
        perm_len = m->num_states * 4;
        sec[n++] = (struct out_section){CSR_SEC_PERMUTATION, m->permutation, perm_len};
    }
    if (m->segment_bound) {
        uint32_t lanes = CSR_SEGMENT_LANES;
        memcpy(segment_info, &m->segment_bound, 4);
        memcpy(segment_info + 4, &lanes, 4);
        memcpy(segment_info + 8, &m->interleaved_states, 8);
        sf_len = (m->num_segments + 1) * 8;
        entries = m->segment_first[m->num_segments];
        sec[n++] = (struct out_section){CSR_SEC_SEGMENT_INFO, segment_info, sizeof segment_info};
        sec[n++] = (struct out_section){CSR_SEC_SEGMENT_FIRST, m->segment_first, sf_len};
        sec[n++] = (struct out_section){CSR_SEC_SEGMENT_TARGETS, m->segment_targets, entries * 4};
        sec[n++] = (struct out_section){CSR_SEC_SEGMENT_CHOICES, m->segment_choices, entries};
    }
    char *reward_table = NULL;
    uint64_t reward_table_len = 0;
    if (m->rewards.count) {
        uint64_t with_state, with_choice, sr_len, cr_len;
        csr_reward_counts(m, m->rewards.count, &with_state, &with_choice);
        if (csr_mul_u64(with_state * 8, m->num_states, &sr_len) || csr_mul_u64(with_choice * 8, m->num_choices, &cr_len)) {
            rc = csr_fail(st, CSR_ERR_TOO_LARGE, "reward sections overflow 64 bits");
            goto out;
        }
        reward_table = join_strings(&m->rewards, &reward_table_len);
        if (!reward_table) {
            rc = csr_fail(st, CSR_ERR_NOMEM, "string tables");
            goto out;
        }
        sec[n++] = (struct out_section){CSR_SEC_REWARD_NAMES, reward_table, reward_table_len};
        sec[n++] = (struct out_section){CSR_SEC_REWARD_INFO, m->reward_info, m->rewards.count * 4};
        if (with_state)
            sec[n++] = (struct out_section){CSR_SEC_STATE_REWARDS, m->state_rewards, sr_len};
        if (with_choice)
            sec[n++] = (struct out_section){CSR_SEC_CHOICE_REWARDS, m->choice_rewards, cr_len};
    }
    if (m->variables.count) {
        if (csr_mul_u64(m->valuation_words * 8, m->num_states, &valuations_len) ||
            m->variables.count > UINT64_MAX / sizeof(csr_variable)) {
            rc = csr_fail(st, CSR_ERR_TOO_LARGE, "valuation sections overflow 64 bits");
            goto out;
        }
        variable_table = join_strings(&m->variables, &variable_table_len);
        if (!variable_table) {
            rc = csr_fail(st, CSR_ERR_NOMEM, "string tables");
            goto out;
        }
        sec[n++] = (struct out_section){CSR_SEC_VARIABLE_NAMES, variable_table, variable_table_len};
        sec[n++] = (struct out_section){CSR_SEC_VARIABLE_INFO, m->variable_info, m->variables.count * sizeof(csr_variable)};
        sec[n++] = (struct out_section){CSR_SEC_VALUATIONS, m->valuations, valuations_len};
    }
    if ((m->labels.count && !label_table) || (m->choice_actions && !action_table)) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "string tables");
        goto out;
    }

    uint64_t table_end = CSR_FIXED_HEADER_BYTES + (uint64_t)n * CSR_SECTION_ENTRY_BYTES;
    uint64_t header_length = round_up(table_end + 4);
    uint8_t *hdr = calloc(1, header_length);
    if (!hdr) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "header");
        goto out;
    }
    uint64_t offset = header_length;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = hdr + CSR_FIXED_HEADER_BYTES + (uint64_t)i * CSR_SECTION_ENTRY_BYTES;
        uint32_t crc = csr_crc32(sec[i].data, sec[i].length);
        put_u32(e, sec[i].type);
        put_u32(e + 4, 0);
        put_u64(e + 8, offset);
        put_u64(e + 16, sec[i].length);
        put_u32(e + 24, crc);
        offset = round_up(offset + sec[i].length);
    }
    memcpy(hdr, CSR_MAGIC, CSR_MAGIC_LENGTH);
    put_u16(hdr + 8, CSR_VERSION_MAJOR);
    /* the lowest minor version whose sections the file uses (1.0 readers read plain files) */
    put_u16(hdr + 10, m->variables.count ? 3 : m->rewards.count ? 2 : m->permutation || m->segment_bound ? 1 : 0);
    put_u32(hdr + 12, (uint32_t)header_length);
    put_u32(hdr + 16, 0);
    put_u32(hdr + 20, m->model_type);
    put_u64(hdr + 24, m->num_states);
    put_u64(hdr + 32, m->num_choices);
    put_u64(hdr + 40, m->num_transitions);
    put_u64(hdr + 48, offset);
    put_u32(hdr + 56, n);
    put_u32(hdr + 60, 0);
    put_u32(hdr + table_end, csr_crc32(hdr, table_end));
    struct piece pieces[1 + 2 * CSR_MAX_SECTIONS];
    uint32_t np = 0;
    pieces[np++] = (struct piece){hdr, header_length};
    for (uint32_t i = 0; i < n; i++) {
        pieces[np++] = (struct piece){sec[i].data, sec[i].length};
        pieces[np++] = (struct piece){NULL, round_up(sec[i].length) - sec[i].length};
    }
    if (write_mapped(fd, pieces, np, offset)) {
        free(hdr);
        goto out;
    }
    rc = write_all(fd, hdr, header_length, st);
    free(hdr);
    static const uint8_t zeros[CSR_ALIGN];
    for (uint32_t i = 0; i < n && !rc; i++) {
        rc = write_all(fd, sec[i].data, sec[i].length, st);
        if (!rc)
            rc = write_all(fd, zeros, round_up(sec[i].length) - sec[i].length, st);
    }
out:
    free(label_table);
    free(action_table);
    free(reward_table);
    free(variable_table);
    return rc;
}
