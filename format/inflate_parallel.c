/*
 * inflate_parallel.c - a raw deflate stream inflated by a task per chunk
 * (inflate_parallel.h; RFC 1951 for the format, pugz and rapidgzip for the
 * scheme).
 */
#include "inflate_parallel.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the bit reader loads 64-bit little-endian words"
#endif

/* CPUs below which libdeflate inflates alone (it is 2-3 times as fast on a
 * core, and two passes over most chunks; bench/RESULTS.md) */
#define INFLATE_MIN_CPUS 4
#define WINDOW 32768u           /* deflate's farthest back-reference, bytes */
#define LITLEN_BITS 11          /* the literal/length table's first level */
#define DIST_BITS 8             /* the distance table's first level */
#define PRECODE_BITS 7          /* the code-length code: every code fits */
#define LITLEN_ENTRIES (2048 + 288 * 16) /* the first level + a 16-entry table at most per long code */
#define DIST_ENTRIES (256 + 32 * 128)
/* A table entry: bits 0-4 the code's bits, bits 8-11 the extra bits that
 * follow it (a length's or a distance's) or a second level's index bits,
 * bits 16-31 the value: a literal byte, a length's or distance's base, a
 * code-length symbol, or the second level's offset. */
#define E_SUB 0x20u       /* a second level */
#define E_INVALID 0x40u   /* no symbol (an incomplete code's gap; lengths 286-287, distances 30-31) */
#define E_LITERAL 0x80u
#define E_END 0x1000u     /* end of block */

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t precode_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* ---- bits, least significant first ------------------------------------------------ */

typedef struct bit_reader {
    const uint8_t *in;
    uint64_t length, next; /* bytes; the next byte to load */
    uint64_t buf;          /* bits [0, count) are the stream's next; those above repeat what follows */
    unsigned count;
} bit_reader;

static void bits_at(bit_reader *b, const uint8_t *in, uint64_t length, uint64_t bit)
{
    b->in = in;
    b->length = length;
    b->next = bit >> 3;
    b->buf = 0;
    b->count = 0;
    if (bit & 7) {
        b->buf = b->next < length ? in[b->next] >> (bit & 7) : 0;
        b->count = 8 - (unsigned)(bit & 7);
        b->next++;
    }
}

/* at least 56 bits in buf (zeros past the end: bits_past_end says so) */
static inline void refill(bit_reader *b)
{
    if (b->next + 8 <= b->length) {
        uint64_t w;
        memcpy(&w, b->in + b->next, 8);
        b->buf |= w << b->count;
        b->next += (63 - b->count) >> 3;
        b->count |= 56;
    } else {
        while (b->count <= 56) {
            b->buf |= (uint64_t)(b->next < b->length ? b->in[b->next] : 0) << b->count;
            b->next++;
            b->count += 8;
        }
    }
}

static inline uint64_t bit_position(const bit_reader *b) { return b->next * 8 - b->count; }
static inline int bits_past_end(const bit_reader *b) { return bit_position(b) > b->length * 8; }
static inline unsigned peek(const bit_reader *b, unsigned n) { return (unsigned)(b->buf & (((uint64_t)1 << n) - 1)); }
static inline void consume(bit_reader *b, unsigned n)
{
    b->buf >>= n;
    b->count -= n;
}
static inline unsigned take(bit_reader *b, unsigned n)
{
    unsigned v = peek(b, n);
    consume(b, n);
    return v;
}

/* ---- canonical Huffman codes ------------------------------------------------------ */

enum code_kind { CODE_PRECODE, CODE_LITLEN, CODE_DIST };

/* A symbol's entry less its code's bits. */
static uint32_t symbol_entry(enum code_kind kind, uint32_t sym)
{
    if (kind == CODE_PRECODE)
        return sym << 16;
    if (kind == CODE_DIST)
        return sym < 30 ? (uint32_t)dist_base[sym] << 16 | (uint32_t)dist_extra[sym] << 8 : E_INVALID;
    if (sym < 256)
        return sym << 16 | E_LITERAL;
    if (sym == 256)
        return E_END;
    return sym < 286 ? (uint32_t)length_base[sym - 257] << 16 | (uint32_t)length_extra[sym - 257] << 8 : E_INVALID;
}

/* The decoding table of the code whose lengths are lens[0, n): a first level
 * of 2^first entries indexed by the next bits, second levels for longer
 * codes.  0, or -1 where the code is over-subscribed or incomplete (an
 * incomplete code only as a single code of one bit or none, and not for the
 * precode: zlib's rule). */
static int build_table(uint32_t *table, const uint8_t *lens, unsigned n, unsigned first, enum code_kind kind)
{
    unsigned count[16] = {0}, start[16], longest = 0;
    uint16_t sorted[288];
    for (unsigned i = 0; i < n; i++)
        count[lens[i]]++;
    count[0] = 0;
    int left = 1;
    for (unsigned len = 1; len < 16; len++) {
        left = 2 * left - (int)count[len];
        if (left < 0)
            return -1;
        if (count[len])
            longest = len;
    }
    if (left > 0) {
        if (kind == CODE_PRECODE || longest > 1)
            return -1;
        for (unsigned i = 0; i < (1u << first); i++)
            table[i] = E_INVALID;
    }
    start[1] = 0;
    for (unsigned len = 1; len < 15; len++)
        start[len + 1] = start[len] + count[len];
    for (unsigned i = 0; i < n; i++)
        if (lens[i])
            sorted[start[lens[i]]++] = (uint16_t)i;
    const unsigned used = start[15];
    /* canonical codes in order: (length, symbol) */
    unsigned code = 0, len = 1, seen = 0, next_sub = 1u << first;
    unsigned group = ~0u, sub_bits = 0, sub_offset = 0;
    for (unsigned k = 0; k < used; k++) {
        while (seen == count[len]) {
            code <<= 1;
            len++;
            seen = 0;
        }
        seen++;
        unsigned rev = 0;
        for (unsigned b = 0; b < len; b++)
            rev |= ((code >> b) & 1u) << (len - 1 - b);
        const uint32_t sym = sorted[k], value = symbol_entry(kind, sym);
        if (len <= first) {
            for (unsigned r = rev; r < (1u << first); r += 1u << len)
                table[r] = value | len;
        } else {
            const unsigned prefix = rev & ((1u << first) - 1);
            if (prefix != group) {
                /* a new second level: its codes follow in order and its
                 * longest is its last, at the end of its prefix's codes */
                group = prefix;
                unsigned last_len = len, c = code, l = len, s = seen, kk = k;
                while (kk + 1 < used) {
                    unsigned c2 = c + 1, l2 = l, s2 = s + 1;
                    while (s2 > count[l2]) {
                        c2 <<= 1;
                        l2++;
                        s2 = 1;
                    }
                    if ((c2 >> (l2 - first)) != (code >> (len - first)))
                        break;
                    c = c2, l = l2, s = s2, kk++;
                    last_len = l2;
                }
                sub_bits = last_len - first;
                sub_offset = next_sub;
                next_sub += 1u << sub_bits;
                table[prefix] = (uint32_t)sub_offset << 16 | sub_bits << 8 | E_SUB | first;
            }
            for (unsigned r = rev >> first; r < (1u << sub_bits); r += 1u << (len - first))
                table[sub_offset + r] = value | (len - first);
        }
        code++;
    }
    return 0;
}

/* The next symbol's entry (E_INVALID where no code matches), its code's
 * bits consumed (not its extra bits). */
static inline uint32_t decode_symbol(bit_reader *b, const uint32_t *table, unsigned first)
{
    uint32_t e = table[peek(b, first)];
    if (e & E_SUB) {
        consume(b, first);
        e = table[(e >> 16) + peek(b, (e >> 8) & 15)];
    }
    consume(b, e & 31);
    return e;
}

/* A length's or distance's value: its base plus its extra bits, consumed. */
static inline unsigned entry_value(bit_reader *b, uint32_t e)
{
    return (e >> 16) + take(b, (e >> 8) & 15);
}

typedef struct block_codes {
    uint32_t litlen[LITLEN_ENTRIES];
    uint32_t dist[DIST_ENTRIES];
} block_codes;

/* A dynamic block's header (after BFINAL and BTYPE) into codes: 0, or -1. */
static int read_dynamic_header(bit_reader *b, block_codes *codes)
{
    refill(b);
    const unsigned hlit = take(b, 5) + 257, hdist = take(b, 5) + 1, hclen = take(b, 4) + 4;
    if (hlit > 286 || hdist > 30)
        return -1;
    uint8_t lens[286 + 30] = {0}, pre[19] = {0};
    for (unsigned i = 0; i < hclen; i++) {
        if (i == 10)
            refill(b);
        pre[precode_order[i]] = (uint8_t)take(b, 3);
    }
    uint32_t precode[1u << PRECODE_BITS];
    if (build_table(precode, pre, 19, PRECODE_BITS, CODE_PRECODE))
        return -1;
    for (unsigned i = 0; i < hlit + hdist;) {
        refill(b);
        const unsigned sym = decode_symbol(b, precode, PRECODE_BITS) >> 16; /* (a complete code: no gaps) */
        unsigned repeat, value = 0;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        } else if (sym == 16) {
            if (!i)
                return -1;
            value = lens[i - 1];
            repeat = 3 + take(b, 2);
        } else if (sym == 17) {
            repeat = 3 + take(b, 3);
        } else {
            repeat = 11 + take(b, 7);
        }
        if (i + repeat > hlit + hdist)
            return -1;
        memset(lens + i, (int)value, repeat);
        i += repeat;
    }
    if (!lens[256] || bits_past_end(b))
        return -1;
    if (build_table(codes->litlen, lens, hlit, LITLEN_BITS, CODE_LITLEN) ||
        build_table(codes->dist, lens + hlit, hdist, DIST_BITS, CODE_DIST))
        return -1;
    return 0;
}

static void fixed_codes(block_codes *codes)
{
    uint8_t lens[288 + 32]; /* (symbols 286, 287, 30 and 31 complete the codes; they are refused when met) */
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    memset(lens + 288, 5, 32);
    build_table(codes->litlen, lens, 288, LITLEN_BITS, CODE_LITLEN);
    build_table(codes->dist, lens + 288, 32, DIST_BITS, CODE_DIST);
}

/* ---- chunks ------------------------------------------------------------------------- */

/* 16-bit symbols of the first pass: a byte (< 256), or MARKER + i for byte i
 * of the WINDOW bytes that precede the chunk's start */
#define MARKER 256u
#define RING (1u << 18) /* the first pass's symbols kept: the last WINDOW at least */

typedef struct chunk {
    uint64_t search_from, search_to; /* bits: where a start is looked for */
    uint64_t start;                  /* bit where its decoding starts (UINT64_MAX: none found) */
    uint64_t end;                    /* bit where it stopped: the next chunk's start, or the final block's end */
    unsigned next;                   /* the chunk that starts at end (0: the stream ended here) */
    int ok;
    uint64_t length;                 /* its output, bytes */
    uint64_t offset;                 /* the output before it, bytes */
    /* the first pass: the last symbols (ring[0, n_ring), the last WINDOW at least where there are as many) */
    uint16_t *ring;
    uint64_t n_ring;
    uint8_t *window_after; /* the WINDOW bytes of output up to its end (chunks after the first) */
} chunk;

typedef struct run {
    const uint8_t *in;
    uint64_t in_length, out_length;
    uint8_t *out;
    chunk *chunks;
    unsigned count;
    const block_codes *fixed;
    _Atomic int stop;
} run;

enum { BLOCK_OK = 0, BLOCK_BAD = -1 };

/* Room a symbol may need: a match of 258 bytes copied 8 at a time */
#define SYMBOL_ROOM (258 + 8)

/* Where a chunk's blocks go: bytes at o[0, cap) (the window's WINDOW bytes
 * before o at `window` where not NULL), or the first pass's symbols. */
typedef struct sink {
    uint8_t *o;
    uint64_t n, cap;
    const uint8_t *window;
    uint64_t before; /* bytes of output before o (a back-reference reaches no further) */
    chunk *wide;     /* the first pass (o unused) */
} sink;

/* After a litlen entry e that is not a literal: 1 with the match's length and
 * distance (their codes and extra bits consumed), 0 at a valid end-of-block,
 * -1 for an invalid code or an end past the input (both block loops). */
static inline int decode_match(bit_reader *b, const block_codes *codes, uint32_t e, unsigned *len, unsigned *dist)
{
    if (e & (E_INVALID | E_END))
        return (e & E_END) && !bits_past_end(b) ? 0 : -1;
    *len = entry_value(b, e);
    e = decode_symbol(b, codes->dist, DIST_BITS);
    if (e & E_INVALID)
        return -1;
    *dist = entry_value(b, e);
    return 1;
}

/* A match of len bytes dist back at o + n, n >= dist (room for 8 bytes more where dist >= 8). */
static inline void copy_match(uint8_t *o, uint64_t n, unsigned len, unsigned dist)
{
    uint8_t *d = o + n;
    const uint8_t *s = d - dist;
    if (dist >= 8) {
        for (unsigned i = 0; i < len; i += 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            memcpy(d + i, &w, 8);
        }
    } else if (dist == 1) {
        memset(d, s[0], len);
    } else {
        for (unsigned i = 0; i < len; i++)
            d[i] = s[i];
    }
}

/* One Huffman block's symbols into bytes: BLOCK_OK at its end-of-block.  Up
 * to three literals a refill while SYMBOL_ROOM is left. */
static int inflate_block_bytes(sink *k, bit_reader *reader, const block_codes *codes)
{
    bit_reader b = *reader;
    uint8_t *o = k->o;
    uint64_t n = k->n;
    const uint64_t cap = k->cap;
    int rc = BLOCK_BAD;
    for (;;) {
        if (b.next > b.length + 8) /* zeros past the input */
            break;
        refill(&b);
        uint32_t e = decode_symbol(&b, codes->litlen, LITLEN_BITS);
        if (e & E_LITERAL) {
            if (n >= cap)
                break;
            o[n++] = (uint8_t)(e >> 16);
            if (cap - n < SYMBOL_ROOM)
                continue;
            /* (41 bits or more left: two more codes of at most 15) */
            for (int more = 0; more < 2; more++) {
                e = codes->litlen[peek(&b, LITLEN_BITS)];
                if (!(e & E_LITERAL))
                    break;
                consume(&b, e & 31);
                o[n++] = (uint8_t)(e >> 16);
            }
            continue;
        }
        unsigned len, dist;
        const int m = decode_match(&b, codes, e, &len, &dist);
        if (m <= 0) {
            rc = m ? BLOCK_BAD : BLOCK_OK;
            break;
        }
        if (len > cap - n)
            break;
        if (dist > n) { /* into the window before the chunk */
            if (!k->window || dist - n > k->before)
                break;
            for (unsigned i = 0; i < len; i++)
                o[n + i] = n + i < dist ? k->window[WINDOW - (dist - n - i)] : o[n + i - dist];
        } else if (cap - n >= len + 8) {
            copy_match(o, n, len, dist);
        } else { /* the last bytes */
            for (unsigned i = 0; i < len; i++)
                o[n + i] = o[n + i - dist];
        }
        n += len;
    }
    k->n = n;
    *reader = b;
    return rc;
}

/* Room for `need` more symbols in a chunk's ring: its last WINDOW moved to the front. */
static inline void ring_room(chunk *c, uint64_t *dropped, unsigned need)
{
    if (RING - c->n_ring >= need)
        return;
    memmove(c->ring, c->ring + c->n_ring - WINDOW, WINDOW * sizeof *c->ring);
    *dropped += c->n_ring - WINDOW;
    c->n_ring = WINDOW;
}

/* The same into the first pass's symbols, a back-reference before the
 * chunk's start a marker; only the last symbols kept. */
static int inflate_block_wide(chunk *c, bit_reader *reader, const block_codes *codes)
{
    bit_reader b = *reader;
    uint64_t dropped = 0; /* symbols moved out of the ring (c->length counts them) */
    int rc = BLOCK_BAD;
    for (;;) {
        if (b.next > b.length + 8) /* zeros past the input decode forever */
            break;
        ring_room(c, &dropped, SYMBOL_ROOM);
        refill(&b);
        uint32_t e = decode_symbol(&b, codes->litlen, LITLEN_BITS);
        if (e & E_LITERAL) {
            c->ring[c->n_ring++] = (uint16_t)(e >> 16);
            continue;
        }
        unsigned len, dist;
        const int m = decode_match(&b, codes, e, &len, &dist);
        if (m <= 0) {
            rc = m ? BLOCK_BAD : BLOCK_OK;
            break;
        }
        uint16_t *d = c->ring + c->n_ring;
        if (dist <= c->n_ring) {
            const uint16_t *from = d - dist;
            if (dist >= 4) { /* four symbols a word (SYMBOL_ROOM leaves room for the last word's excess) */
                for (unsigned i = 0; i < len; i += 4) {
                    uint64_t w;
                    memcpy(&w, from + i, 8);
                    memcpy(d + i, &w, 8);
                }
            } else if (dist == 1) { /* a run (zeros compressed 1000:1 go by here) */
                const uint16_t v = from[0];
                for (unsigned i = 0; i < len; i++)
                    d[i] = v;
            } else {
                for (unsigned i = 0; i < len; i++)
                    d[i] = from[i];
            }
        } else { /* (only before anything was dropped: the ring keeps WINDOW) */
            for (unsigned i = 0; i < len; i++) {
                const int64_t from = (int64_t)c->n_ring + i - dist;
                d[i] = from >= 0 ? c->ring[from] : (uint16_t)(MARKER + WINDOW + from);
            }
        }
        c->n_ring += len;
    }
    c->length += dropped;
    *reader = b;
    return rc;
}

/* A stored block (after BFINAL and BTYPE): its bytes copied. */
static int inflate_stored(sink *k, bit_reader *b)
{
    consume(b, b->count & 7);
    refill(b);
    const unsigned len = take(b, 16), nlen = take(b, 16);
    if ((len ^ 0xffffu) != nlen)
        return BLOCK_BAD;
    chunk *c = k->wide;
    uint64_t dropped = 0;
    if (c)
        ring_room(c, &dropped, len);
    else if (len > k->cap - k->n)
        return BLOCK_BAD;
    for (unsigned i = 0; i < len; i++) {
        if (b->count < 8)
            refill(b);
        const unsigned v = take(b, 8);
        if (c)
            c->ring[c->n_ring++] = (uint16_t)v;
        else
            k->o[k->n++] = (uint8_t)v;
    }
    if (c)
        c->length += dropped;
    return bits_past_end(b) ? BLOCK_BAD : BLOCK_OK;
}

/* Blocks from bit `from` (a block's start) into k until the bit `until`
 * (the second pass), or the block that starts at a later chunk's start
 * (c->end, c->next), or the final block's end (c->next 0): 1, or 0 where
 * the stream is bad from there.  A trial (a start's search) stops after the
 * first block and reads no other chunk's start. */
static int inflate_blocks(run *r, chunk *c, sink *k, uint64_t from, uint64_t until, block_codes *codes, int trial)
{
    bit_reader b;
    bits_at(&b, r->in, r->in_length, from);
    unsigned j = (unsigned)(c - r->chunks) + 1; /* the next chunk whose start may be met */
    for (int blocks = 0;; blocks++) {
        const uint64_t at = bit_position(&b);
        if (trial && blocks == 1)
            return 1;
        if (until != UINT64_MAX) {
            if (at >= until)
                return at == until;
        } else if (!trial) {
            while (j < r->count && (r->chunks[j].start < at || r->chunks[j].start == UINT64_MAX))
                j++;
            if (j < r->count && r->chunks[j].start == at) {
                c->end = at;
                c->next = j;
                return 1;
            }
        }
        if (bits_past_end(&b) || atomic_load_explicit(&r->stop, memory_order_relaxed))
            return 0;
        refill(&b);
        const unsigned final = take(&b, 1), type = take(&b, 2);
        int rc = BLOCK_BAD;
        const block_codes *use = type == 1 ? r->fixed : codes;
        if (type == 0)
            rc = inflate_stored(k, &b);
        else if (type == 1 || (type == 2 && !read_dynamic_header(&b, codes)))
            rc = k->wide ? inflate_block_wide(c, &b, use) : inflate_block_bytes(k, &b, use);
        if (rc)
            return 0;
        if (final) {
            if (until != UINT64_MAX)
                return bit_position(&b) == until;
            c->end = bit_position(&b);
            c->next = 0;
            return 1;
        }
    }
}

/* Chunk c's start: the first bit in [search_from, search_to) where a
 * dynamic block, not final, begins whose header and first block decode. */
static void *find_start(void *arg)
{
    chunk *c = (chunk *)((void **)arg)[0];
    run *r = (run *)((void **)arg)[1];
    block_codes *codes = malloc(sizeof *codes);
    c->start = UINT64_MAX;
    if (!codes || !c->ring) {
        free(codes);
        return NULL;
    }
    for (uint64_t bit = c->search_from; bit < c->search_to; bit++) {
        if (atomic_load_explicit(&r->stop, memory_order_relaxed))
            break;
        const uint64_t byte = bit >> 3;
        const uint32_t bytes = r->in[byte] | (uint32_t)(byte + 1 < r->in_length ? r->in[byte + 1] : 0) << 8 |
                               (uint32_t)(byte + 2 < r->in_length ? r->in[byte + 2] : 0) << 16;
        const unsigned head = (bytes >> (bit & 7)) & 0x3fffu;
        /* BFINAL 0, BTYPE 2, HLIT <= 29, HDIST <= 29; then the trial reads the header */
        if ((head & 7) != 4 || ((head >> 3) & 31) > 29 || ((head >> 8) & 31) > 29)
            continue;
        c->n_ring = c->length = 0;
        sink k = {.wide = c};
        if (inflate_blocks(r, c, &k, bit, UINT64_MAX, codes, 1)) {
            c->start = bit;
            break;
        }
    }
    free(codes);
    return NULL;
}

/* The first pass: chunk 0 into the output, the others into their rings
 * (where they end, their length, their last symbols). */
static void *first_pass(void *arg)
{
    chunk *c = (chunk *)((void **)arg)[0];
    run *r = (run *)((void **)arg)[1];
    c->ok = 0;
    if (c->start == UINT64_MAX)
        return NULL;
    block_codes *codes = malloc(sizeof *codes);
    if (!codes) {
        atomic_store(&r->stop, 1);
        return NULL;
    }
    if (c == r->chunks) {
        sink k = {.o = r->out, .cap = r->out_length};
        c->ok = inflate_blocks(r, c, &k, 0, UINT64_MAX, codes, 0);
        c->length = k.n;
    } else {
        c->n_ring = c->length = 0;
        sink k = {.wide = c};
        c->ok = inflate_blocks(r, c, &k, c->start, UINT64_MAX, codes, 0);
        c->length += c->n_ring;
    }
    free(codes);
    return NULL;
}

/* The second pass of a chunk after the first: its blocks again, into its
 * place in the output, the window before it known (the previous chunk's
 * window_after). */
static void *second_pass(void *arg)
{
    chunk *c = (chunk *)((void **)arg)[0];
    run *r = (run *)((void **)arg)[1];
    const uint8_t *window = (const uint8_t *)((void **)arg)[2];
    block_codes *codes = malloc(sizeof *codes);
    sink k = {.o = r->out + c->offset, .cap = c->length, .window = window,
              .before = c->offset < WINDOW ? c->offset : WINDOW};
    c->ok = codes && inflate_blocks(r, c, &k, c->start, c->end, codes, 0) && k.n == c->length;
    free(codes);
    return NULL;
}

static unsigned chunk_count(uint64_t in_length, uint64_t chunk_bytes)
{
    const char *test = getenv("CSR_TEST_INFLATE_CHUNK");
    if (test && *test) {
        char *end;
        unsigned long long v = strtoull(test, &end, 10);
        if (*end == '\0' && v > 0) {
            uint64_t n = (in_length + v - 1) / v;
            return n > PARALLEL_MAX_TASKS ? PARALLEL_MAX_TASKS : (unsigned)n;
        }
    }
    const unsigned cpus = parallel_cpus();
    if (cpus < INFLATE_MIN_CPUS)
        return 1;
    /* up to four chunks a CPU: an archive's runs of zeros inflate 1000:1,
     * so that chunks of equal input are not of equal work */
    uint64_t n = in_length / (chunk_bytes ? chunk_bytes : 1);
    n = n < 4ull * cpus ? n : 4ull * cpus;
    return n < PARALLEL_MAX_TASKS ? (unsigned)n : PARALLEL_MAX_TASKS;
}

int inflate_parallel(const uint8_t *in, uint64_t in_length, uint8_t *out, uint64_t out_length, uint64_t chunk_bytes,
                     uint64_t *in_used, unsigned *joined)
{
    const unsigned count = chunk_count(in_length, chunk_bytes);
    if (count < 2)
        return 0;
    block_codes *fixed = malloc(sizeof *fixed);
    chunk *chunks = calloc(count, sizeof *chunks);
    void *args[PARALLEL_MAX_TASKS][3];
    unsigned chain[PARALLEL_MAX_TASKS], n = 0;
    int done = 0;
    if (!fixed || !chunks)
        goto out;
    fixed_codes(fixed);
    run r = {.in = in, .in_length = in_length, .out_length = out_length, .out = out, .chunks = chunks,
             .count = count, .fixed = fixed};
    atomic_init(&r.stop, 0);
    for (unsigned k = 0; k < count; k++) {
        chunks[k].search_from = in_length * 8 * k / count;
        chunks[k].search_to = in_length * 8 * (k + 1) / count;
        if (k && !(chunks[k].ring = malloc((RING + SYMBOL_ROOM) * sizeof *chunks[k].ring)))
            goto out;
        args[k][0] = &chunks[k];
        args[k][1] = &r;
    }
    /* the starts (chunk 0's is the stream's), then the first pass */
    parallel_run(find_start, args[1], sizeof args[0], count - 1);
    chunks[0].start = 0;
    parallel_run(first_pass, args[0], sizeof args[0], count);
    if (atomic_load(&r.stop))
        goto out;
    /* the chain from chunk 0: where each chunk's output goes, and the WINDOW
     * bytes up to its end, its markers resolved from the previous one's */
    uint64_t offset = 0;
    const uint8_t *window = NULL; /* the WINDOW bytes before the chunk (NULL: fewer than WINDOW) */
    for (unsigned k = 0;; k = chunks[k].next) {
        chunk *c = &chunks[k];
        if (!c->ok || c->length > out_length - offset || n == PARALLEL_MAX_TASKS)
            goto out;
        chain[n++] = k;
        c->offset = offset;
        if (k) {
            args[k][2] = (void *)window;
            if (!(c->window_after = calloc(WINDOW, 1)))
                goto out;
            for (uint64_t i = 0; i < WINDOW; i++) { /* output byte offset + length - WINDOW + i */
                const int64_t back = (int64_t)WINDOW - (int64_t)i; /* bytes before the chunk's end */
                uint8_t v = 0;
                if ((uint64_t)back > c->length) { /* before the chunk: the window before it */
                    const uint64_t before = back - c->length;
                    if (before > offset)
                        continue; /* before the stream (never read: a marker there is refused) */
                    v = window[WINDOW - before];
                } else {
                    const unsigned s = c->ring[c->n_ring - back];
                    if (s >= MARKER) {
                        const uint64_t m = WINDOW - (s - MARKER); /* bytes before the chunk's start */
                        if (m > offset)
                            goto out;
                        v = window[WINDOW - m];
                    } else {
                        v = (uint8_t)s;
                    }
                }
                c->window_after[i] = v;
            }
            window = c->window_after;
        } else {
            window = c->length >= WINDOW ? out + c->length - WINDOW : NULL;
            if (!window && c->next) { /* a short first chunk: its bytes, zeros before */
                if (!(c->window_after = calloc(WINDOW, 1)))
                    goto out;
                memcpy(c->window_after + WINDOW - c->length, out, c->length);
                window = c->window_after;
            }
        }
        offset += c->length;
        if (!c->next)
            break;
    }
    if (offset != out_length)
        goto out;
    /* the second pass, a task per chunk after the first */
    void *second[PARALLEL_MAX_TASKS][3];
    for (unsigned i = 1; i < n; i++)
        memcpy(second[i - 1], args[chain[i]], sizeof second[0]);
    parallel_run(second_pass, second[0], sizeof second[0], n - 1);
    for (unsigned i = 1; i < n; i++)
        if (!chunks[chain[i]].ok)
            goto out;
    *in_used = (chunks[chain[n - 1]].end + 7) / 8;
    if (joined)
        *joined = n;
    done = 1;
out:
    if (chunks)
        for (unsigned i = 0; i < count; i++) {
            free(chunks[i].ring);
            free(chunks[i].window_after);
        }
    free(chunks);
    free(fixed);
    return done;
}
