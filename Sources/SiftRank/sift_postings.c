/* Sift's postings evaluator: the top k of a query of listed terms from the impacts' postings (see sift_topk.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../CSQLite/shim.h"

#include "sift_bound.h"
#include "sift_score.h"
#include "sift_facet.h"
#include "sift_topk.h"
#include "sift_varint.h"

#define MAX_COLUMNS 64

/* One term's rows in the chunk, decoded before the rows are merged: the postings' rows but the changed ones
   (left out), with the changed rows holding the term now in their place, in rowid order and then INT64_MAX; `columns` counts a
   row in `counts`; `at`, the row the merge is at. Decoding first keeps the merge a walk over arrays, and the LEB128
   numbers are read in one tight loop per term rather than row by row between the other terms'. */
typedef struct {
    int64_t *rowids;
    int32_t *counts;
    int at;
    int count; /* rows before the INT64_MAX */
} term_rows;

/* An unsigned LEB128 number (what TopKImpacts writes); 0 and the end on a truncated one. */
static inline uint64_t leb128(const unsigned char **at, const unsigned char *end) {
    if (*at < end && !(**at & 0x80)) return *(*at)++;
    uint64_t value = 0;
    for (int shift = 0; *at < end && shift < 64; shift += 7) {
        unsigned char byte = *(*at)++;
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) return value;
    }
    *at = end;
    return 0;
}

/* Bytes of a row's counts when each is at most 14: two a byte. */
static inline int packed_bytes(int columns) { return (columns + 1) / 2; }

/* Reads the postings' next row: moves `rowid` to it and puts its count in each column in `counts` (NULL: skips
   them); 0 at their end. A distance of 0 and a distance that would reach INT64_MAX (damaged postings) end them; a
   count above INT32_MAX reads as INT32_MAX. */
static inline int next_row(const unsigned char **at, const unsigned char *end, int columns, int64_t *rowid,
                           int32_t *counts) {
    if (*at >= end) return 0;
    uint64_t delta = leb128(at, end);
    /* INT64_MAX - rowid, computed without overflow: any rowid, negative ones included, fits in 64 unsigned bits. */
    uint64_t room = (uint64_t)INT64_MAX - (uint64_t)*rowid;
    if (delta == 0 || delta >= room) return 0;
    *rowid = (int64_t)((uint64_t)*rowid + delta);
    int packed = packed_bytes(columns);
    if (packed > 0 && *at < end && **at == 0xFF) {
        (*at)++;
        for (int i = 0; i < columns; i++) {
            uint64_t count = leb128(at, end);
            if (counts) counts[i] = count > INT32_MAX ? INT32_MAX : (int32_t)count;
        }
    } else {
        for (int i = 0; i < packed; i++) {
            unsigned byte = *at < end ? *(*at)++ : 0;
            if (!counts) continue;
            counts[2 * i] = (int32_t)(byte & 0xF);
            if (2 * i + 1 < columns) counts[2 * i + 1] = (int32_t)(byte >> 4);
        }
    }
    return 1;
}

static void read_short_rows(const unsigned char **at, const unsigned char *end, int columns, int64_t *rowid,
                            term_rows *rows, int *n, int room, int64_t stop);

int sift_postings_decode(const unsigned char *postings, int bytes, int columns, int64_t base, int64_t *rowids,
                         int32_t *counts, int *whole) {
    *whole = columns >= 0;
    if (!postings || bytes <= 0 || columns < 0) return 0;
    const unsigned char *at = postings, *end = postings + bytes;
    term_rows rows = {rowids, counts, 0, 0};
    int n = 0;
    int64_t rowid = base;
    /* As the evaluator reads them (decode_term): short rows a word at a time, the others number by number. */
    for (;;) {
        read_short_rows(&at, end, columns, &rowid, &rows, &n, bytes, INT64_MAX);
        const unsigned char *row = at;
        if (n >= bytes || !next_row(&at, end, columns, &rowid, counts + (size_t)n * (size_t)columns)) {
            *whole = row == end;
            return n;
        }
        rowids[n++] = rowid;
    }
}

int64_t sift_postings_last_rowid(const unsigned char *postings, int bytes, int columns, int64_t base) {
    if (!postings || bytes <= 0) return base;
    const unsigned char *at = postings, *end = postings + bytes;
    int64_t rowid = base;
    while (next_row(&at, end, columns, &rowid, NULL)) {}
    return rowid;
}

/* Writes `value` as unsigned LEB128 at `at` (room permitting); the bytes it takes. */
static int put_leb128(unsigned char *at, const unsigned char *end, uint64_t value) {
    int n = 0;
    do {
        if (at + n >= end) return -1;
        unsigned char byte = value & 0x7F;
        value >>= 7;
        at[n++] = byte | (value ? 0x80 : 0);
    } while (value);
    return n;
}

/* Writes a row (its distance from the previous one and its counts) as TopKImpacts writes it; the bytes it takes,
   -1 when `end` comes first. */
static int put_row(unsigned char *at, const unsigned char *end, uint64_t distance, const int32_t *counts, int columns) {
    int n = put_leb128(at, end, distance);
    if (n < 0) return -1;
    int packed = 1;
    for (int c = 0; c < columns; c++)
        if (counts[c] < 0 || counts[c] > SIFT_POSTINGS_PACKED_MAX) packed = 0;
    if (packed) {
        for (int c = 0; c < columns; c += 2) {
            if (at + n >= end) return -1;
            at[n++] = (unsigned char)(counts[c] | (c + 1 < columns ? counts[c + 1] << 4 : 0));
        }
        return n;
    }
    if (at + n >= end) return -1;
    at[n++] = 0xFF;
    for (int c = 0; c < columns; c++) {
        int k = put_leb128(at + n, end, (uint64_t)(counts[c] < 0 ? 0 : counts[c]));
        if (k < 0) return -1;
        n += k;
    }
    return n;
}

int sift_postings_merge(const unsigned char *older, int bytes, const unsigned char *newer, int newer_bytes, int columns,
                        int64_t base, int keep_empty, unsigned char *out, int room, int *rows) {
    *rows = 0;
    if (columns < 1 || columns > MAX_COLUMNS || bytes < 0 || newer_bytes < 0 || room < 0) return -1;
    const unsigned char *a = older, *a_end = older ? older + bytes : older, *b = newer, *b_end = newer ? newer + newer_bytes : newer;
    unsigned char *at = out, *end = out + room;
    int32_t a_counts[MAX_COLUMNS], b_counts[MAX_COLUMNS];
    int64_t a_rowid = base, b_rowid = base, previous = base;
    const unsigned char *a_row = a, *b_row = b;
    int has_a = a && next_row(&a, a_end, columns, &a_rowid, a_counts);
    int has_b = b && next_row(&b, b_end, columns, &b_rowid, b_counts);
    while (has_a || has_b) {
        const int32_t *counts;
        int64_t rowid;
        if (has_b && (!has_a || b_rowid <= a_rowid)) {
            rowid = b_rowid, counts = b_counts;
            if (has_a && a_rowid == b_rowid) {
                a_row = a;
                has_a = next_row(&a, a_end, columns, &a_rowid, a_counts);
            }
        } else {
            rowid = a_rowid, counts = a_counts;
        }
        int holds = 0;
        for (int c = 0; c < columns; c++) holds |= counts[c] > 0;
        if (holds || keep_empty) {
            int n = put_row(at, end, (uint64_t)rowid - (uint64_t)previous, counts, columns);
            if (n < 0) return -1;
            at += n;
            previous = rowid;
            (*rows)++;
        }
        /* The row written was the newer list's when it had the lower rowid (or both had it); else the older's. */
        if (counts == b_counts) {
            b_row = b;
            has_b = next_row(&b, b_end, columns, &b_rowid, b_counts);
        } else {
            a_row = a;
            has_a = next_row(&a, a_end, columns, &a_rowid, a_counts);
        }
    }
    /* Both lists read to their last byte: else a row stopped them (damage). */
    if ((a && a_row != a_end) || (b && b_row != b_end)) return -1;
    return (int)(at - out);
}

/* The blob and size of a function's argument (NULL and 0 for an empty blob or a NULL). */
static const unsigned char *blob_argument(sqlite3_value *value, int *bytes) {
    *bytes = sqlite3_value_bytes(value);
    const unsigned char *blob = sqlite3_value_blob(value);
    if (!blob) *bytes = 0;
    return blob;
}

/* The rows of the last blob sift_postings_put made on this thread (-1: it failed). */
static _Thread_local int64_t last_put_rows = -1;

int64_t sift_postings_put_rows(void) { return last_put_rows; }

static void postings_put(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    last_put_rows = -1;
    int older_bytes = 0, newer_bytes = 0, rows = 0;
    const unsigned char *older = blob_argument(argv[0], &older_bytes), *newer = blob_argument(argv[1], &newer_bytes);
    sqlite3_int64 columns = sqlite3_value_int64(argv[2]), base = sqlite3_value_int64(argv[3]);
    if (columns < 1 || columns > MAX_COLUMNS || older_bytes > INT32_MAX - newer_bytes - 1) {
        sqlite3_result_null(context);
        return;
    }
    unsigned char *out = sqlite3_malloc(older_bytes + newer_bytes + 1);
    if (!out) {
        sqlite3_result_error_nomem(context);
        return;
    }
    int written = sift_postings_merge(older, older_bytes, newer, newer_bytes, (int)columns, base, 1, out,
                                      older_bytes + newer_bytes + 1, &rows);
    if (written < 0) {
        sqlite3_free(out);
        sqlite3_result_null(context);
        return;
    }
    last_put_rows = rows;
    sqlite3_result_blob(context, out, written, sqlite3_free);
}

static void postings_rows(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    int bytes = 0;
    const unsigned char *blob = blob_argument(argv[0], &bytes);
    sqlite3_int64 columns = sqlite3_value_int64(argv[1]), base = sqlite3_value_int64(argv[2]), last = sqlite3_value_int64(argv[3]);
    if (columns < 1 || columns > MAX_COLUMNS || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_int64(context, -1);
        return;
    }
    const unsigned char *at = blob, *end = blob ? blob + bytes : blob;
    int32_t counts[MAX_COLUMNS];
    int64_t rowid = base, rows = 0;
    for (;;) {
        const unsigned char *row = at;
        if (!at || !next_row(&at, end, (int)columns, &rowid, counts)) {
            sqlite3_result_int64(context, row == end && rowid <= last ? rows : -1);
            return;
        }
        rows++;
    }
}

int sift_postings_register(sqlite3 *db) {
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function_v2(db, "sift_postings_put", 4, flags, NULL, postings_put, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_create_function_v2(db, "sift_postings_rows", 4, flags, NULL, postings_rows, NULL, NULL, NULL);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SWAP_TO_LITTLE_ENDIAN(word) ((word) = __builtin_bswap64(word))
#else
#define SWAP_TO_LITTLE_ENDIAN(word) ((void)0)
#endif

/* Reads the rows at `at` of a one-byte distance and packed counts (nearly every row of a frequent term) into
   `rows` from row *n on, a row's bytes read as one 8-byte word, without a branch or a call per count; stops at the
   first row that is not, at the first at or past rowid `stop`, 8 bytes before `end`, or when `room` rows are read.
   Rows are a fixed number of bytes here, so that reading one does not wait for the one before it. */
#define READ_SHORT_ROWS(COLUMNS)                                                                     \
    while (k < room && end - p >= 8 && r < INT64_MAX - 256) {                                       \
        uint64_t word;                                                                              \
        memcpy(&word, p, 8);                                                                        \
        SWAP_TO_LITTLE_ENDIAN(word);                                                                \
        unsigned distance = (unsigned)(word & 0xFF), first = (unsigned)(word >> 8 & 0xFF);           \
        /* A longer distance, a distance of 0 (damage), or counts written in full. */               \
        if ((distance & 0x80) | (distance == 0) | (first == 0xFF) | (r + distance >= stop)) break;  \
        r += distance;                                                                              \
        int32_t *row = counts + (size_t)k * (size_t)(COLUMNS);                                      \
        for (int c = 0; c < (COLUMNS); c++) row[c] = (int32_t)(word >> (8 + 4 * c) & 0xF);           \
        rowids[k++] = r;                                                                            \
        p += 1 + packed_bytes(COLUMNS);                                                             \
    }

static void read_short_rows(const unsigned char **at, const unsigned char *end, int columns, int64_t *rowid,
                            term_rows *rows, int *n, int room, int64_t stop) {
    if (columns < 1 || columns > 14) return; /* a row of more than 8 bytes */
    const unsigned char *p = *at;
    int64_t r = *rowid, *rowids = rows->rowids;
    int32_t *counts = rows->counts;
    int k = *n;
    if (columns == 2) {
        READ_SHORT_ROWS(2)
    } else if (columns == 1) {
        READ_SHORT_ROWS(1)
    } else {
        READ_SHORT_ROWS(columns)
    }
    *at = p, *rowid = r, *n = k;
}

/* The first of rows `from` up to `to` (ascending rowids) whose rowid is at least `rowid`: `to` when none. */
static inline int first_at_least(const int64_t *rowids, int from, int to, int64_t rowid) {
    while (from < to) {
        int middle = from + (to - from) / 2;
        if (rowids[middle] < rowid) from = middle + 1; else to = middle;
    }
    return from;
}

/* Puts `read` decoded rows (`from`, which sits `added` rows into `rows`, `added` being the extra rows) into `rows`
   from its first entry on, leaving out the rows listed in `changed` and putting the extra rows (`x` up to `x_end`,
   their counts at `x_counts`) in their place; returns the rows written. A chunk holds a few changed rows among
   thousands, so the rows between two of them move as one run (memmove: a row written never passes the next row to
   read, since the extra rows not written yet still have their room before it), and a run that is already in place
   (no row added or left out before it) is not moved. */
static int merge_changes(const term_rows *from, int read, int columns, const int64_t *changed,
                         const int64_t *changed_end, const int64_t *x, const int64_t *x_end, const int32_t *x_counts,
                         term_rows *rows) {
    const size_t row_counts = (size_t)columns;
    int written = 0, i = 0;
    for (;;) {
        /* The next rowid where something changes: an extra row or a changed one. */
        int64_t event = INT64_MAX;
        if (x < x_end) event = *x;
        if (changed < changed_end && *changed < event) event = *changed;
        int j = event == INT64_MAX ? read : first_at_least(from->rowids, i, read, event);
        if (j > i && rows->rowids + written != from->rowids + i) {
            memmove(rows->rowids + written, from->rowids + i, (size_t)(j - i) * sizeof *rows->rowids);
            memmove(rows->counts + (size_t)written * row_counts, from->counts + (size_t)i * row_counts,
                    (size_t)(j - i) * row_counts * sizeof *rows->counts);
        }
        written += j - i;
        i = j;
        if (event == INT64_MAX) return written;
        if (x < x_end && *x == event) {
            rows->rowids[written] = event;
            memcpy(rows->counts + (size_t)written * row_counts, x_counts, row_counts * sizeof *x_counts);
            written++;
            x++;
            x_counts += columns;
        }
        /* The postings' row at the event is the row as it was: left out (an extra row took its place, or the row
           no longer holds the term). */
        if (i < read && from->rowids[i] == event) i++;
        while (changed < changed_end && *changed <= event) changed++;
    }
}

/* Term t's group (each term its own when the query has none). */
static inline int group_of_term(const sift_postings_query *q, int t) { return q->group ? q->group[t] : t; }

static int compare_rowids(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distances' sum of the four rows of two bytes (a one-byte distance, one byte of packed counts: one or two
   columns) that the 8 bytes at `p` hold; -1 when one of them is not such a row. */
static inline int64_t four_short_rows(const unsigned char *p) {
    uint64_t word;
    memcpy(&word, p, 8);
    SWAP_TO_LITTLE_ENDIAN(word);
    const uint64_t lanes = UINT64_C(0x00FF00FF00FF00FF), ones = UINT64_C(0x0001000100010001);
    uint64_t distances = word & lanes, packs = word >> 8 & lanes;
    /* A distance of 0x80 or more (longer), of 0 (damage), or counts written in full (0xFF). */
    if ((distances & UINT64_C(0x0080008000800080)) | ((distances - ones) & ~distances & UINT64_C(0x8000800080008000)) |
        ((packs + ones) & UINT64_C(0x0100010001000100)))
        return -1;
    return (int64_t)((distances * ones) >> 48);
}

/* The blocks of a chunk no row of which can beat the k-th score as the chunk's merge starts (it only rises from
   there): their rows are passed over as the postings are decoded, not written. */
#define RULED_WORDS 64
typedef struct {
    int64_t block; /* rows a block */
    int64_t first; /* the first block's number */
    int count;     /* blocks, at most 64 * RULED_WORDS */
    uint64_t bits[RULED_WORDS];
} ruled_blocks;

static inline int is_ruled(const ruled_blocks *ruled, int64_t block) {
    block -= ruled->first;
    return block >= 0 && block < ruled->count && (ruled->bits[block >> 6] >> (block & 63) & 1);
}

/* Passes over the rows at `at` before rowid `stop` without writing them, adding them to *read (four rows of two
   bytes a word, as filter_rows); 1 at a row at or past `stop` (not read), 0 when a row could not be read (the end of
   the postings, or damage). */
static int pass_rows(const unsigned char **at, const unsigned char *end, int columns, int64_t *rowid, int64_t stop,
                     int *read) {
    const unsigned char *p = *at;
    int64_t r = *rowid;
    int k = *read, found;
    for (;;) {
        int64_t sum;
        while (packed_bytes(columns) == 1 && end - p >= 8 && r < INT64_MAX - 1024 && (sum = four_short_rows(p)) >= 0 &&
               r + sum < stop) {
            r += sum;
            p += 8;
            k += 4;
        }
        const unsigned char *next = p;
        int64_t s = r;
        if (!next_row(&next, end, columns, &s, NULL)) {
            found = 0;
            break;
        }
        if (s >= stop) {
            found = 1;
            break;
        }
        p = next, r = s, k++;
    }
    *at = p, *rowid = r, *read = k;
    return found;
}

/* Reads every row of the postings at `at` (as decode_term does) but keeps in `rows`, from row *n on, only those
   whose rowid is in `only` up to `only_end` (ascending): in an all-terms query whose rare group's rows are all
   known (`sift_topk_postings`), a frequent term's other rows cannot match, and passing over them costs a byte
   compare rather than a row written and walked again. Returns the rows read; stops at the end of the postings, at
   a damaged row, or when `room` rows are kept. */
static int filter_rows(const unsigned char **at, const unsigned char *end, int columns, int64_t *rowid,
                       const int64_t *only, const int64_t *only_end, term_rows *rows, int *n, int room) {
    const unsigned char *p = *at;
    const int packed = packed_bytes(columns);
    int64_t r = *rowid;
    int k = *n, read = 0;
    int32_t counts[MAX_COLUMNS];
    while (k < room) {
        /* Rows of two bytes (one or two columns): four of them a word, passed over together while none of them
           can be a row kept (their distances' sum stays short of the next rowid kept) and each is a one-byte
           distance with packed counts. */
        while (packed == 1 && end - p >= 8 && r < INT64_MAX - 1024) {
            int64_t sum = four_short_rows(p);
            if (sum < 0 || (only < only_end && *only <= r + sum)) break;
            r += sum;
            p += 8;
            read += 4;
        }
        /* A row of a one-byte distance and packed counts (nearly every row of a frequent term): its counts are
           unpacked only if it is kept. */
        const unsigned char *packed_row = NULL;
        if (end - p > packed && p[0] != 0 && !(p[0] & 0x80) && p[1] != 0xFF && r < INT64_MAX - 128) {
            r += p[0];
            packed_row = p + 1;
            p += 1 + packed;
        } else if (!next_row(&p, end, columns, &r, counts)) {
            break;
        }
        read++;
        while (only < only_end && *only < r) only++;
        if (only == only_end || *only != r) continue;
        int32_t *out = rows->counts + (size_t)k * (size_t)columns;
        if (packed_row)
            for (int c = 0; c < columns; c++) out[c] = (int32_t)(packed_row[c / 2] >> (4 * (c & 1)) & 0xF);
        else
            memcpy(out, counts, sizeof *counts * (size_t)columns);
        rows->rowids[k++] = r;
    }
    *at = p, *rowid = r, *n = k;
    return read;
}

/* Decodes a chunk's postings of a term (`bytes` of them at `at`, the rows after `base`) into `rows`, which has room
   for `room` rows and the INT64_MAX after them: rows listed in `changed` are left out, and `extra`'s rows (changed
   rows holding the term now) are put in their place with their counts. Returns the rows written, or -1 when the
   postings are damaged: they stop before their last byte, hold another number of rows than `expected` (-1: not
   checked), reach past `last`, or hold more rows than `room` allows. The postings are read the same way with rows
   changed or not (short rows a word at a time), after room for the extra rows; `merge_changes` then puts them in
   place. */
static int decode_term(const unsigned char *at, int bytes, int columns, int64_t base, int64_t last, int64_t expected,
                       const int64_t *changed, const int64_t *changed_end, const sift_postings_extra *extra,
                       const int64_t *only, const int64_t *only_end, const ruled_blocks *ruled, term_rows *rows,
                       int room) {
    const unsigned char *end = at + bytes;
    const int64_t *x = extra && extra->count > 0 ? extra->rowids : NULL, *x_end = x ? x + extra->count : NULL;
    const int32_t *x_counts = x ? extra->counts : NULL;
    const int added = x ? extra->count : 0, space = room - added;
    if (space < 1) return -1;
    term_rows read_rows = {rows->rowids + added, rows->counts + (size_t)added * (size_t)columns, 0, 0};
    int64_t rowid = base;
    int n = 0, read;
    if (only) {
        read = filter_rows(&at, end, columns, &rowid, only, only_end, &read_rows, &n, space);
    } else if (ruled) {
        /* By runs of blocks from the chunk's first rowid: the rows of a run ruled out passed over, the others read
           up to the next run ruled out. */
        int passed = 0, more = 1;
        const int64_t after = ruled->first + ruled->count;
        for (int64_t from = base + 1; more && at < end;) {
            int64_t block = from / ruled->block, next = block + 1;
            if (is_ruled(ruled, block)) {
                while (is_ruled(ruled, next)) next++;
                more = pass_rows(&at, end, columns, &rowid, next * ruled->block, &passed);
            } else {
                while (next < after && !is_ruled(ruled, next)) next++;
                const int64_t stop = next < after ? next * ruled->block : INT64_MAX;
                for (;;) {
                    read_short_rows(&at, end, columns, &rowid, &read_rows, &n, space, stop);
                    const unsigned char *p = at;
                    int64_t r = rowid;
                    if (n >= space || !next_row(&p, end, columns, &r, read_rows.counts + (size_t)n * (size_t)columns)) {
                        more = 0;
                        break;
                    }
                    if (r >= stop) break; /* the next run's: read there */
                    at = p, rowid = r;
                    read_rows.rowids[n++] = rowid;
                }
            }
            from = next * ruled->block;
        }
        read = n + passed;
    } else {
        for (;;) {
            read_short_rows(&at, end, columns, &rowid, &read_rows, &n, space, INT64_MAX);
            if (n >= space || !next_row(&at, end, columns, &rowid, read_rows.counts + (size_t)n * (size_t)columns)) break;
            read_rows.rowids[n++] = rowid;
        }
        read = n;
    }
    const int kept = n;
    if (changed || x) n = merge_changes(&read_rows, kept, columns, changed, changed_end, x, x_end, x_counts, rows);
    rows->rowids[n] = INT64_MAX;
    rows->at = 0;
    rows->count = n;
    if (at != end || (expected >= 0 && read != expected) || (read > 0 && rowid > last)) return -1;
    return n;
}


/* The row's score: the counts of the terms at it (the bits of `present`, term t's at counts[t]) and column sizes
   `lengths`. */
static double score_row(const sift_postings_query *q, const int32_t *const *counts, unsigned present,
                        const int *lengths) {
    double score = 0;
    for (; present; present &= present - 1) {
        int t = __builtin_ctz(present);
        if (q->qtf[t] <= 0) continue;
        double pseudo = 0;
        for (int c = 0; c < q->columns; c++) {
            double tf = counts[t][c];
            if (tf <= 0 || q->weights[c] <= 0 || q->avglen[c] <= 0) continue;
            pseudo += sift_score_column(q->inb2, q->c, q->b, q->weights[c], tf, q->avglen[c], lengths[c]);
        }
        if (pseudo > 0) score += sift_score_saturate(q->qtf[t], q->idf[t], pseudo, q->k1);
    }
    return score;
}

/* Rows are merged a window at a time: at most WINDOW_WORDS * 64 consecutive rowids within one block, one bit a
   rowid per term. A window's matches are the AND (all terms) or OR (any term) of its groups' bits, its count a
   population count, and only the rows of a window its block's bound does not rule out are looked at one by one:
   counting every match of two frequent terms then costs a bit set per row, not a merge step. */
#define WINDOW_WORDS 16
#define WINDOW_ROWS (64 * WINDOW_WORDS)

/* Moves each term's rows (`rows`, each ending with INT64_MAX) to its first row at or after `rowid`: a search that
   doubles its step, then halves it, so that passing over a block of a frequent term costs a few reads, not one a
   row. */
static void skip_to(term_rows *rows, int terms, int64_t rowid) {
    for (int t = 0; t < terms; t++) {
        const int64_t *r = rows[t].rowids;
        int64_t low = rows[t].at, high = low + 1, step = 1, n = rows[t].count;
        if (r[low] >= rowid) continue;
        /* r[low] < rowid; r[n] is INT64_MAX, past any rowid a block starts at. */
        while (high < n && r[high] < rowid) {
            low = high;
            step *= 2;
            high = low + step < n ? low + step : n;
        }
        rows[t].at = first_at_least(r, (int)low + 1, (int)high + 1, rowid);
    }
}

/* Term t's bytes of block `block` in the impacts; NULL when its blocks do not reach it (the block's index is
   compared with their number before it is multiplied, so that a large rowid cannot wrap the offset around). */
static inline const unsigned char *term_block(const sift_topk_collector *top, int t, int64_t block) {
    if (block < 0 || t >= top->terms || !top->blocks[t] || (uint64_t)block >= top->bytes[t] / (size_t)top->stride) return NULL;
    return top->blocks[t] + (size_t)block * (size_t)top->stride;
}

/* The terms' bounds in one block, read once for the block's checks (read_block_bounds reads them when `block` is
   another block; INT64_MIN, which no block has, before the first): `known`, the terms whose blocks reach it (none
   when the impacts' stride is too short for the query's columns); `holds`, those some row of it holds; `bound[t]`,
   term t's bound there (0 when no row holds it or its qtf is not positive). */
typedef struct {
    int64_t block;
    unsigned known, holds;
    double bound[SIFT_POSTINGS_MAX_TERMS];
} block_bounds;

static void read_block_bounds(const sift_postings_query *q, const sift_topk_collector *top, int64_t block,
                              int blocks_fit, block_bounds *out) {
    if (out->block == block) return; /* read already */
    sift_bound_ranking ranking = {q->inb2, q->k1, q->b, q->c, q->columns, q->weights, q->avglen};
    out->block = block;
    out->known = out->holds = 0;
    for (int t = 0; t < q->terms; t++) {
        const unsigned char *at = blocks_fit ? term_block(top, t, block) : NULL;
        out->bound[t] = 0;
        if (!at) continue;
        out->known |= 1u << t;
        if (at[0] == 0) continue;  /* no row of the block holds the term */
        out->holds |= 1u << t;
        if (q->qtf[t] > 0) out->bound[t] = sift_bound_block(&ranking, at, q->qtf[t], q->idf[t]);
    }
}

/* Whether no row of the block of `b` can beat `limit`: the sum of the bounds there of the terms in it is at most it,
   or (all terms) a group has no term in it. Not when a term's blocks do not reach it. */
static int block_ruled_out(const sift_postings_query *q, const block_bounds *b, const int *group_of, int group_count,
                           double limit) {
    if (b->known != (1u << q->terms) - 1) return 0;
    double bound = 0;
    unsigned groups = 0;
    for (unsigned h = b->holds; h; h &= h - 1) {
        int t = __builtin_ctz(h);
        groups |= 1u << group_of[t];
        bound += b->bound[t];
    }
    if (q->requires_all && groups != (1u << group_count) - 1) return 1;
    return bound * (1 + 1e-12) <= limit;
}

/* Whether the window's matching rows (`match`, `words` of it) cannot beat `limit`: the sum of the bounds in the
   block of `b` of the terms they hold (`bits`, per term) is at most it. Not when a term's block is not known. */
static int window_ruled_out(const sift_postings_query *q, const block_bounds *b, uint64_t (*bits)[WINDOW_WORDS],
                            const uint64_t *match, int words, double limit) {
    double bound = 0;
    for (int t = 0; t < q->terms; t++) {
        uint64_t held = 0;
        for (int w = 0; w < words; w++) held |= bits[t][w] & match[w];
        if (!held || q->qtf[t] <= 0) continue;
        if (!(b->known >> t & 1)) return 0;
        bound += b->bound[t];
    }
    return bound * (1 + 1e-12) <= limit;
}

/* The terms a row of the block of `b` must hold one of to beat `limit` (block-max MaxScore): taken by their bounds
   in the block, smallest first, the terms whose bounds sum to at most `limit` cannot beat it together, so a row
   that holds only those is passed over without being looked at. A term whose blocks do not reach the block is
   always one of them. */
static unsigned essential_terms(const sift_postings_query *q, const block_bounds *b, double limit) {
    double bound[SIFT_POSTINGS_MAX_TERMS];
    int order[SIFT_POSTINGS_MAX_TERMS], n = 0;
    for (unsigned k = b->known; k; k &= k - 1) {
        int t = __builtin_ctz(k);
        /* Insertion by increasing bound: few terms. */
        int i = n++;
        while (i > 0 && bound[i - 1] > b->bound[t]) {
            bound[i] = bound[i - 1];
            order[i] = order[i - 1];
            i--;
        }
        bound[i] = b->bound[t];
        order[i] = t;
    }
    unsigned passed = 0;
    double sum = 0;
    for (int i = 0; i < n && (sum + bound[i]) * (1 + 1e-12) <= limit; i++) {
        sum += bound[i];
        passed |= 1u << order[i];
    }
    return ((1u << q->terms) - 1) & ~passed;
}

/* Numbers the terms' groups from 0 in order of first use (`group_of`, per term); returns how many. */
static int number_groups(const sift_postings_query *q, int *group_of) {
    int count = 0, numbered[SIFT_POSTINGS_MAX_TERMS];
    for (int g = 0; g < SIFT_POSTINGS_MAX_TERMS; g++) numbered[g] = -1;
    for (int t = 0; t < q->terms; t++) {
        int group = group_of_term(q, t);
        if (numbered[group] < 0) numbered[group] = count++;
        group_of[t] = numbered[group];
    }
    return count;
}

/* The collector's k-th score with the margin that ties keep their first-seen order by: a row is kept only when
   its score (or bound) is above it. */
static double collector_limit(const sift_topk_collector *top) {
    double limit = top->scores[top->capacity - 1];
    return limit + 1e-9 * fmax(1, fabs(limit));
}

/* The rows of the chunk from the terms' decoded rows into the collector (see sift_topk_postings). */
static int merge_rows(const sift_postings_query *q, sift_topk_collector *top, term_rows *rows) {
    const int terms = q->terms, columns = q->columns;
    int group_of[SIFT_POSTINGS_MAX_TERMS];
    const int group_count = number_groups(q, group_of);
    const int requires_all = q->requires_all;
    int lengths[MAX_COLUMNS];
    /* Per term and column the weight of one count with the shortest size the block's rows holding the term there
       have (the impacts): a row's score is at most the terms' saturated sums of counts times these. Computed once a
       block (`coefficients_block`, INT64_MIN before the first: no block has that number), for its windows. */
    double coefficients[SIFT_POSTINGS_MAX_TERMS * MAX_COLUMNS];
    int64_t coefficients_block = INT64_MIN;
    /* The terms whose blocks do not reach the block (a rare term's rows handed in as extras): their coefficients
       are a size of one token's. */
    unsigned unknown = 0;
    /* A collector of no rows keeps none: the rows are only counted. */
    int keeps = top->capacity > 0;
    int full = keeps && top->count >= top->capacity;
    double limit = full ? collector_limit(top) : 1e-9;
    /* Impact blocks hold a byte and three per column: a stride too short for the query's columns means none. */
    int blocks_fit = top->stride >= 1 + 3 * columns;
    /* Whether whole blocks may be passed over (see sift_topk_collector.top_only), and the block last checked. */
    const int top_only = top->top_only && !top->matches;
    int64_t checked_block = -1;
    double checked_limit = -1;
    /* The terms a row must hold one of to be looked at (essential_terms), for `essential_block` and
       `essential_limit`. */
    unsigned essential = (1u << terms) - 1;
    int64_t essential_block = INT64_MIN;
    double essential_limit = -1;
    /* The terms' bounds in the block last checked (INT64_MIN: none yet, as no block has that number). */
    block_bounds bounds;
    bounds.block = INT64_MIN;
    int64_t matched = 0; /* added to top->matched on return */
    uint64_t bits[SIFT_POSTINGS_MAX_TERMS][WINDOW_WORDS], groups[SIFT_POSTINGS_MAX_TERMS][WINDOW_WORDS], match[WINDOW_WORDS];
    int first[SIFT_POSTINGS_MAX_TERMS];
    const int32_t *counts[SIFT_POSTINGS_MAX_TERMS];
    int rc = SQLITE_OK;
    for (;;) {
        /* The window's first rowid: the first row of any term, or with all terms the latest of the groups' first
           rows (no row before it holds a term of every group), which every term is moved up to. */
        int64_t start = INT64_MAX;
        if (requires_all) {
            int64_t next[SIFT_POSTINGS_MAX_TERMS];
            for (int g = 0; g < group_count; g++) next[g] = INT64_MAX;
            for (int t = 0; t < terms; t++) {
                int64_t at = rows[t].rowids[rows[t].at];
                if (at < next[group_of[t]]) next[group_of[t]] = at;
            }
            start = INT64_MIN;
            for (int g = 0; g < group_count; g++)
                if (next[g] > start) start = next[g];
            if (start == INT64_MAX) break;
            for (int t = 0; t < terms; t++) {
                const int64_t *r = rows[t].rowids;
                int at = rows[t].at;
                while (r[at] < start) at++;
                rows[t].at = at;
            }
        } else {
            for (int t = 0; t < terms; t++)
                if (rows[t].rowids[rows[t].at] < start) start = rows[t].rowids[rows[t].at];
            if (start == INT64_MAX) break;
        }
        /* Its block, and its end: WINDOW_ROWS on, or the block's end when sooner (INT64_MAX at most). */
        int64_t block = top->block > 0 && start >= 0 ? start / top->block : -1;
        /* Not counting every match: a block no row of which can beat the k-th score is passed over unread (checked
           once a block, and again when the k-th score has risen since). */
        if (top_only && full && block >= 0 && blocks_fit && (block != checked_block || limit != checked_limit)) {
            checked_block = block, checked_limit = limit;
            read_block_bounds(q, top, block, blocks_fit, &bounds);
            if (block_ruled_out(q, &bounds, group_of, group_count, limit)) {
                if (block >= INT64_MAX / top->block - 1) break;  /* the last block there can be */
                skip_to(rows, terms, (block + 1) * top->block);
                continue;
            }
        }
        int64_t end = start <= INT64_MAX - WINDOW_ROWS ? start + WINDOW_ROWS : INT64_MAX;
        if (block >= 0 && block * top->block <= INT64_MAX - top->block && block * top->block + top->block < end)
            end = block * top->block + top->block;
        const uint64_t width = (uint64_t)end - (uint64_t)start;
        const int words = (int)((width + 63) / 64);
        /* Each term's rows in the window as bits, and each group's. */
        for (int g = 0; g < group_count; g++)
            for (int w = 0; w < words; w++) groups[g][w] = 0;
        for (int t = 0; t < terms; t++) {
            uint64_t *b = bits[t];
            for (int w = 0; w < words; w++) b[w] = 0;
            const int64_t *r = rows[t].rowids;
            int at = first[t] = rows[t].at;
            /* The bits of one word are gathered in a register, stored when the rows move to the next word. */
            uint64_t word = 0, offset;
            int w = 0;
            for (; r[at] < end; at++)
                if ((offset = (uint64_t)r[at] - (uint64_t)start) < width) {
                    if ((int)(offset >> 6) != w) {
                        b[w] |= word;
                        word = 0, w = (int)(offset >> 6);
                    }
                    word |= UINT64_C(1) << (offset & 63);
                }
            b[w] |= word;
            rows[t].at = at;
            uint64_t *group = groups[group_of[t]];
            for (int w = 0; w < words; w++) group[w] |= b[w];
        }
        int found = 0;
        for (int w = 0; w < words; w++) {
            uint64_t m = groups[0][w];
            for (int g = 1; g < group_count; g++) m = requires_all ? m & groups[g][w] : m | groups[g][w];
            match[w] = m;
            found += __builtin_popcountll(m);
        }
        matched += found;
        if (top->matches)
            for (int w = 0; w < words; w++)
                for (uint64_t m = match[w]; m; m &= m - 1)
                    if (sift_facet_rowids_append(top->matches, start + 64 * w + __builtin_ctzll(m))) {
                        top->matched += matched;
                        return SQLITE_NOMEM;
                    }
        if (!keeps || !found) continue;
        /* The window's own bound rules it out when it cannot beat the k-th score: the bounds in its block of the
           terms its matching rows hold (not of the typo variants no match holds, as the block's bound counts). */
        if (full && block >= 0 && blocks_fit) {
            read_block_bounds(q, top, block, blocks_fit, &bounds);
            if (window_ruled_out(q, &bounds, bits, match, words, limit)) continue;
        }
        /* Per term, its rows in the window before the word at hand (the index of the next one's counts). */
        int before[SIFT_POSTINGS_MAX_TERMS];
        for (int t = 0; t < terms; t++) before[t] = first[t];
        /* The window's rows one by one, each bounded before its sizes are read. */
        for (int w = 0; w < words; w++) {
            uint64_t candidates = match[w];
            if (full && candidates) {
                if (block != essential_block || limit != essential_limit) {
                    read_block_bounds(q, top, block, blocks_fit, &bounds);
                    essential = essential_terms(q, &bounds, limit);
                    essential_block = block, essential_limit = limit;
                }
                uint64_t held = 0;
                for (unsigned e = essential; e; e &= e - 1) held |= bits[__builtin_ctz(e)][w];
                candidates &= held;
            }
            for (uint64_t m = candidates; m; m &= m - 1) {
                int bit = __builtin_ctzll(m);
                int64_t rowid = start + 64 * w + bit;
                /* The terms at the row (bit t for term t) and their counts. */
                unsigned present = 0;
                for (int t = 0; t < terms; t++)
                    if (bits[t][w] >> bit & 1) {
                        present |= 1u << t;
                        int rank = before[t] + __builtin_popcountll(bits[t][w] & ((UINT64_C(1) << bit) - 1));
                        counts[t] = rows[t].counts + (size_t)rank * (size_t)columns;
                    }
                if (full) {
                    if (coefficients_block != block) {
                        unknown = 0;
                        for (int t = 0; t < terms; t++) {
                            const unsigned char *at = blocks_fit ? term_block(top, t, block) : NULL;
                            if (!at) unknown |= 1u << t;
                            for (int c = 0; c < columns; c++) {
                                int shortest = 1;
                                if (at && at[1 + 3 * c] != 0) shortest = 65535 - (at[2 + 3 * c] | at[3 + 3 * c] << 8);
                                coefficients[t * columns + c] =
                                    q->weights[c] > 0 && q->avglen[c] > 0
                                        ? sift_score_column(q->inb2, q->c, q->b, q->weights[c], 1, q->avglen[c],
                                                            shortest > 1 ? shortest : 1)
                                        : 0;
                            }
                        }
                        coefficients_block = block;
                    }
                    /* The row's bound: without its sizes (a statement), from its counts and the coefficients. */
                    double bound = 0;
                    /* With a term without blocks here, a column's size is at least the shortest size there of each
                       term the row holds there, so the smallest of those terms' coefficients bounds every term's
                       counts in the column (a rare term is bounded by the listed terms beside it); else each term
                       has its own. */
                    const int shared = (present & unknown) != 0;
                    double least[MAX_COLUMNS];
                    if (shared) {
                        for (int c = 0; c < columns; c++) least[c] = HUGE_VAL;
                        for (unsigned p = present; p; p &= p - 1) {
                            int t = __builtin_ctz(p);
                            for (int c = 0; c < columns; c++)
                                if (counts[t][c] > 0 && coefficients[t * columns + c] < least[c])
                                    least[c] = coefficients[t * columns + c];
                        }
                        for (int c = 0; c < columns; c++)
                            if (least[c] == HUGE_VAL) least[c] = 0; /* no term here: every count is 0 */
                    }
                    for (unsigned p = present; p; p &= p - 1) {
                        int t = __builtin_ctz(p);
                        if (q->qtf[t] <= 0) continue;
                        const double *weight = shared ? least : coefficients + t * columns;
                        double pseudo = 0;
                        for (int c = 0; c < columns; c++) pseudo += weight[c] * counts[t][c];
                        if (pseudo > 0) bound += sift_score_saturate(q->qtf[t], q->idf[t], pseudo, q->k1);
                    }
                    if (bound * (1 + 1e-12) <= limit) continue;
                }
                /* The row's column sizes, as FTS5 keeps them. */
                sqlite3_bind_int64(q->docsize, 1, rowid);
                rc = sqlite3_step(q->docsize);
                if (rc == SQLITE_ROW) {
                    const unsigned char *at = sqlite3_column_blob(q->docsize, 0);
                    const unsigned char *stop = at ? at + sqlite3_column_bytes(q->docsize, 0) : NULL;
                    for (int c = 0; c < columns; c++) {
                        uint64_t size = 0;
                        lengths[c] = at && sift_sqlite_varint(&at, stop, &size) && size < INT32_MAX ? (int)size : 0;
                    }
                    rc = SQLITE_OK;
                } else if (rc == SQLITE_DONE) {
                    rc = SQLITE_CORRUPT; /* a row the postings hold and FTS5 does not */
                }
                sqlite3_reset(q->docsize);
                if (rc != SQLITE_OK) {
                    top->matched += matched;
                    return rc;
                }
                top->scored++;
                sift_topk_add(top, rowid, score_row(q, counts, present, lengths));
                if (top->count >= top->capacity) {
                    full = 1;
                    limit = collector_limit(top);
                }
            }
            for (int t = 0; t < terms; t++) before[t] += __builtin_popcountll(bits[t][w]);
        }
    }
    top->matched += matched;
    return SQLITE_OK;
}

int sift_topk_postings(const sift_postings_query *q, sift_topk_collector *top, int64_t base, int64_t last,
                       const unsigned char *const *postings, const int *bytes, const int64_t *expected,
                       const sift_postings_extra *extras) {
    if (q->terms < 1 || q->terms > SIFT_POSTINGS_MAX_TERMS || q->columns < 1 || q->columns > MAX_COLUMNS)
        return SQLITE_MISUSE;
    const int terms = q->terms, columns = q->columns;
    for (int t = 0; t < terms; t++)
        if (q->group && (q->group[t] < 0 || q->group[t] >= SIFT_POSTINGS_MAX_TERMS)) return SQLITE_MISUSE;
    /* Room for each term's rows: every row of the postings takes a byte and its packed counts at least, and the
       changed rows holding the term are added; one more entry for the INT64_MAX after them. */
    int room[SIFT_POSTINGS_MAX_TERMS];
    size_t entries = 0;
    for (int t = 0; t < terms; t++) {
        int n = postings[t] && bytes[t] > 0 ? bytes[t] : 0;
        int added = extras && extras[t].count > 0 ? extras[t].count : 0;
        int64_t most = (int64_t)(n / (1 + packed_bytes(columns))) + 1 + added;
        room[t] = most < INT32_MAX - 1 ? (int)most : INT32_MAX - 1;
        entries += (size_t)room[t] + 1;
    }
    int64_t *rowids = malloc(entries * sizeof *rowids);
    int32_t *counts = malloc(entries * (size_t)columns * sizeof *counts);
    if (!rowids || !counts) {
        free(rowids);
        free(counts);
        return SQLITE_NOMEM;
    }
    /* With all terms required, a group none of whose terms has postings here holds only its extras' rows (a rare
       term's rows read through FTS5, changed rows): every match is one of them, so the other terms keep only those
       rows of their postings (the group of the fewest, `only`; a union made when the group has several terms). */
    int driver = -1;
    int64_t driver_rows = INT64_MAX;
    if (q->requires_all && extras) {
        for (int t = 0; t < terms; t++) {
            int group = group_of_term(q, t), known = 1;
            int64_t held = 0;
            for (int u = 0; u < terms; u++) {
                if (group_of_term(q, u) != group) continue;
                if (postings[u] && bytes[u] > 0) known = 0;
                held += extras[u].count > 0 ? extras[u].count : 0;
            }
            if (known && held < driver_rows) driver = group, driver_rows = held;
        }
    }
    const int64_t *only = NULL, *only_end = NULL;
    int64_t *joined = NULL;
    int rc = SQLITE_OK;
    if (driver >= 0) {
        int with_rows = 0, last_with = -1;
        for (int t = 0; t < terms; t++)
            if (group_of_term(q, t) == driver && extras[t].count > 0) with_rows++, last_with = t;
        if (with_rows <= 1) {
            only = last_with >= 0 ? extras[last_with].rowids : (const int64_t *)rowids;
            only_end = last_with >= 0 ? only + extras[last_with].count : only;
        } else if ((joined = malloc((size_t)driver_rows * sizeof *joined))) {
            int64_t k = 0;
            for (int t = 0; t < terms; t++)
                if (group_of_term(q, t) == driver && extras[t].count > 0) {
                    memcpy(joined + k, extras[t].rowids, (size_t)extras[t].count * sizeof *joined);
                    k += extras[t].count;
                }
            qsort(joined, (size_t)k, sizeof *joined, compare_rowids);
            only = joined, only_end = joined + k;
        } else {
            rc = SQLITE_NOMEM;
        }
    }
    /* Not counting every match, with the collector full: the chunk's blocks that no row of can beat its k-th score
       now are passed over as the postings are decoded (merge_rows checks each block again as the score rises). */
    ruled_blocks ruled;
    const ruled_blocks *skip = NULL;
    const int64_t block = top->block;
    if (rc == SQLITE_OK && !only && top->top_only && !top->matches && top->capacity > 0 && top->count >= top->capacity &&
        block > 0 && top->stride >= 1 + 3 * columns && base >= -1 && last > base && last / block < INT64_MAX / block - 1 &&
        last / block - (base + 1) / block < 64 * RULED_WORDS) {
        int group_of[SIFT_POSTINGS_MAX_TERMS];
        const int group_count = number_groups(q, group_of);
        const double limit = collector_limit(top);
        ruled.block = block;
        ruled.first = (base + 1) / block;
        ruled.count = (int)(last / block - ruled.first + 1);
        memset(ruled.bits, 0, sizeof ruled.bits);
        block_bounds bounds;
        bounds.block = INT64_MIN;
        for (int i = 0; i < ruled.count; i++) {
            read_block_bounds(q, top, ruled.first + i, 1, &bounds);
            if (block_ruled_out(q, &bounds, group_of, group_count, limit)) {
                ruled.bits[i >> 6] |= UINT64_C(1) << (i & 63);
                skip = &ruled;
            }
        }
    }
    term_rows rows[SIFT_POSTINGS_MAX_TERMS];
    size_t used = 0;
    for (int t = 0; t < terms && rc == SQLITE_OK; t++) {
        rows[t].rowids = rowids + used;
        rows[t].counts = counts + used * (size_t)columns;
        used += (size_t)room[t] + 1;
        int n = postings[t] && bytes[t] > 0 ? bytes[t] : 0;
        const sift_postings_extra *extra = extras ? &extras[t] : NULL;
        const int64_t *out = extra && extra->left_out && extra->left_out_count > 0 ? extra->left_out : NULL;
        int filtered = only && group_of_term(q, t) != driver;
        if (decode_term(postings[t] ? postings[t] : (const unsigned char *)"", n, columns, base, last,
                        postings[t] && expected ? expected[t] : -1, out, out ? out + extra->left_out_count : NULL,
                        extra, filtered ? only : NULL, filtered ? only_end : NULL, skip, &rows[t], room[t]) < 0)
            rc = SQLITE_CORRUPT;
    }
    if (rc == SQLITE_OK) rc = merge_rows(q, top, rows);
    free(joined);
    free(rowids);
    free(counts);
    return rc;
}
