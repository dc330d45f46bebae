/* Sift's postings evaluator: the top k of a query of listed terms from the impacts' postings (see sift_topk.h). */
#include <stdint.h>

#include "../CSQLite/shim.h"

#include "sift_score.h"
#include "sift_facet.h"
#include "sift_topk.h"

#define MAX_COLUMNS 64

/* One term's place in its postings and in the changed rows' counts: the row it is at (INT64_MAX once done) and
   its count in each column; the next row of the postings (`stored`, INT64_MAX when none) read ahead. */
typedef struct {
    const unsigned char *at, *end;
    int64_t stored;
    int64_t rows;                             /* rows of the postings read so far, changed ones included */
    int64_t last;                             /* the last of them */
    int32_t *stored_counts;                   /* one of buffers, the other one holding `counts` */
    int32_t buffers[2][MAX_COLUMNS];
    const int64_t *changed, *changed_end;     /* rows whose postings are out of date, sorted */
    const int64_t *extra, *extra_end;         /* changed rows holding the term now, sorted */
    const int32_t *extra_counts;              /* per extra row, its counts */
    int64_t rowid;
    const int32_t *counts;
} cursor;

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
    for (int i = 0; i < columns; i++) {
        uint64_t count = leb128(at, end);
        if (counts) counts[i] = count > INT32_MAX ? INT32_MAX : (int32_t)count;
    }
    return 1;
}

int sift_postings_decode(const unsigned char *postings, int bytes, int columns, int64_t base, int64_t *rowids,
                         int32_t *counts, int *whole) {
    *whole = columns >= 0;
    if (!postings || bytes <= 0 || columns < 0) return 0;
    const unsigned char *at = postings, *end = postings + bytes;
    int rows = 0;
    int64_t rowid = base;
    for (;;) {
        const unsigned char *row = at;
        if (rows >= bytes || !next_row(&at, end, columns, &rowid, counts + (size_t)rows * (size_t)columns)) {
            *whole = row == end;
            return rows;
        }
        rowids[rows++] = rowid;
    }
}

int64_t sift_postings_last_rowid(const unsigned char *postings, int bytes, int columns, int64_t base) {
    if (!postings || bytes <= 0) return base;
    const unsigned char *at = postings, *end = postings + bytes;
    int64_t rowid = base;
    while (next_row(&at, end, columns, &rowid, NULL)) {}
    return rowid;
}

/* Reads the postings' next row that has not changed into `stored`. */
static void read_stored(cursor *c, int columns) {
    for (;;) {
        if (!next_row(&c->at, c->end, columns, &c->stored, c->stored_counts)) {
            c->stored = INT64_MAX;
            return;
        }
        c->rows++;
        c->last = c->stored;
        while (c->changed < c->changed_end && *c->changed < c->stored) c->changed++;
        if (c->changed == c->changed_end || *c->changed != c->stored) return;
    }
}

/* Moves to the next row holding the term: from the postings or from the changed rows' counts. */
static void advance(cursor *c, int columns) {
    int64_t extra = c->extra < c->extra_end ? *c->extra : INT64_MAX;
    if (c->stored == INT64_MAX && extra == INT64_MAX) {
        c->rowid = INT64_MAX;
    } else if (c->stored < extra) {
        c->rowid = c->stored;
        c->counts = c->stored_counts;
        c->stored_counts = c->stored_counts == c->buffers[0] ? c->buffers[1] : c->buffers[0];
        read_stored(c, columns);
    } else {
        c->rowid = extra;
        c->counts = c->extra_counts;
        c->extra++;
        c->extra_counts += columns;
    }
}

/* A number in FTS5's varint format (SQLite's: big-endian groups of 7 bits, the ninth byte whole). */
static int fts5_varint(const unsigned char **at, const unsigned char *end, uint64_t *value) {
    uint64_t v = 0;
    for (int i = 0; i < 9; i++) {
        if (*at >= end) return 0;
        unsigned char byte = *(*at)++;
        if (i == 8) {
            *value = (v << 8) | byte;
            return 1;
        }
        v = (v << 7) | (byte & 0x7F);
        if (!(byte & 0x80)) {
            *value = v;
            return 1;
        }
    }
    return 0;
}

/* The row's score: its counts from the cursors at it (the bits of `present`) and column sizes `lengths`. */
static double score_row(const sift_postings_query *q, const cursor *cursors, unsigned present, const int *lengths) {
    double score = 0;
    for (; present; present &= present - 1) {
        int t = __builtin_ctz(present);
        if (q->qtf[t] <= 0) continue;
        double pseudo = 0;
        for (int c = 0; c < q->columns; c++) {
            double tf = cursors[t].counts[c];
            if (tf <= 0 || q->weights[c] <= 0 || q->avglen[c] <= 0) continue;
            pseudo += sift_score_column(q->inb2, q->c, q->b, q->weights[c], tf, q->avglen[c], lengths[c]);
        }
        if (pseudo > 0) score += sift_score_saturate(q->qtf[t], q->idf[t], pseudo, q->k1);
    }
    return score;
}

/* Whether each term's postings were read to their last byte, hold the rows their chunk records and end within
   the chunk: anything else is damage, which the caller must not take as the term's rows. */
static int postings_intact(const sift_postings_query *q, const cursor *cursors, const int64_t *expected, int64_t last) {
    for (int t = 0; t < q->terms; t++) {
        const cursor *c = &cursors[t];
        if (!c->end) continue;
        if (c->at != c->end || (expected && c->rows != expected[t]) || c->last > last) return 0;
    }
    return 1;
}

int sift_topk_postings(const sift_postings_query *q, sift_topk_collector *top, int64_t base, int64_t last,
                       const unsigned char *const *postings, const int *bytes, const int64_t *expected,
                       const int64_t *changed, int changed_count, const sift_postings_extra *extras) {
    if (q->terms < 1 || q->terms > SIFT_POSTINGS_MAX_TERMS || q->columns < 1 || q->columns > MAX_COLUMNS)
        return SQLITE_MISUSE;
    const int terms = q->terms, columns = q->columns;
    /* Per term the bit of its group, and the groups a matching row must hold a term of. */
    unsigned group_bit[SIFT_POSTINGS_MAX_TERMS], groups = 0;
    for (int t = 0; t < terms; t++) {
        int group = q->group ? q->group[t] : t;
        if (group < 0 || group >= SIFT_POSTINGS_MAX_TERMS) return SQLITE_MISUSE;
        group_bit[t] = 1u << group;
        groups |= group_bit[t];
    }
    const int requires_all = q->requires_all;
    /* Locals, bits and the cursors' own array keep the loop below in registers: no byte store may alias them. */
    cursor cursors[SIFT_POSTINGS_MAX_TERMS];
    for (int t = 0; t < terms; t++) {
        cursor *c = &cursors[t];
        c->at = postings[t];
        c->end = postings[t] ? postings[t] + (bytes[t] > 0 ? bytes[t] : 0) : NULL;
        c->changed = changed_count > 0 ? changed : NULL;
        c->changed_end = c->changed ? changed + changed_count : NULL;
        c->extra = extras && extras[t].count > 0 ? extras[t].rowids : NULL;
        c->extra_end = c->extra ? c->extra + extras[t].count : NULL;
        c->extra_counts = extras ? extras[t].counts : NULL;
        c->stored = base;
        c->rows = 0;
        c->last = base;
        c->stored_counts = c->buffers[0];
        read_stored(c, columns);
        advance(c, columns);
    }
    int lengths[MAX_COLUMNS];
    /* The block of the rows at hand: its end, whether its bound cannot beat the k-th score, and (computed on first
       use) per term and column the weight of one count with the shortest size the block's rows holding the term
       there have (the impacts): a row's score is at most the terms' saturated sums of counts times these. */
    int64_t block = -1, block_end = INT64_MIN;
    int block_skipped = 0, have_coefficients = 0;
    double coefficients[SIFT_POSTINGS_MAX_TERMS * MAX_COLUMNS];
    /* A collector of no rows keeps none: the rows are only counted. */
    int keeps = top->capacity > 0;
    int full = keeps && top->count >= top->capacity;
    double limit = full ? top->scores[top->capacity - 1] : 0;
    limit += 1e-9 * fmax(1, fabs(limit));
    /* Impact blocks hold a byte and three per column: a stride too short for the query's columns means none. */
    int blocks_fit = top->stride >= 1 + 3 * columns;
    int64_t matched = 0; /* added to top->matched on return */
    for (;;) {
        int64_t rowid = INT64_MAX;
        for (int t = 0; t < terms; t++)
            if (cursors[t].rowid < rowid) rowid = cursors[t].rowid;
        if (rowid == INT64_MAX) {
            top->matched += matched;
            return postings_intact(q, cursors, expected, last) ? SQLITE_OK : SQLITE_CORRUPT;
        }
        /* The terms at the row (bit t for term t) and the groups they stand for. */
        unsigned present = 0, held = 0;
        for (int t = 0; t < terms; t++)
            if (cursors[t].rowid == rowid) {
                present |= 1u << t;
                held |= group_bit[t];
            }
        if (requires_all && held != groups) goto next;
        matched++;
        if (top->matches && sift_facet_rowids_append(top->matches, rowid)) {
            top->matched += matched;
            return SQLITE_NOMEM;
        }
        if (!keeps) goto next;
        if (rowid >= block_end) {
            block = top->block > 0 && rowid >= 0 ? rowid / top->block : -1;
            /* The next block's first rowid, INT64_MAX when it would pass it (block * top->block <= rowid). */
            block_end = block < 0 ? INT64_MAX
                        : block * top->block <= INT64_MAX - top->block ? block * top->block + top->block
                                                                      : INT64_MAX;
            have_coefficients = 0;
            block_skipped = full && top->block_bounds && block >= 0 && block < top->block_count &&
                            top->block_bounds[block] <= limit;
        }
        if (block_skipped) goto next;
        if (full) {
            if (!have_coefficients) {
                for (int t = 0; t < terms; t++) {
                    /* The block's bytes, when the term's blocks reach it: its index is compared with their number
                       before it is multiplied, so that a large rowid cannot wrap the offset around. */
                    int known = block >= 0 && blocks_fit && t < top->terms && top->blocks[t] &&
                                (uint64_t)block < top->bytes[t] / (size_t)top->stride;
                    size_t at = known ? (size_t)block * (size_t)top->stride : 0;
                    for (int c = 0; c < columns; c++) {
                        int shortest = 1;
                        if (known && top->blocks[t][at + 1 + 3 * c] != 0)
                            shortest = 65535 - (top->blocks[t][at + 2 + 3 * c] | top->blocks[t][at + 3 + 3 * c] << 8);
                        coefficients[t * columns + c] =
                            q->weights[c] > 0 && q->avglen[c] > 0
                                ? sift_score_column(q->inb2, q->c, q->b, q->weights[c], 1, q->avglen[c], shortest > 1 ? shortest : 1)
                                : 0;
                    }
                }
                have_coefficients = 1;
            }
            /* The row's bound: without its sizes (a statement), from its counts and the coefficients. */
            double bound = 0;
            for (unsigned m = present; m; m &= m - 1) {
                int t = __builtin_ctz(m);
                if (q->qtf[t] <= 0) continue;
                double pseudo = 0;
                for (int c = 0; c < columns; c++) pseudo += coefficients[t * columns + c] * cursors[t].counts[c];
                if (pseudo > 0) bound += sift_score_saturate(q->qtf[t], q->idf[t], pseudo, q->k1);
            }
            if (bound * (1 + 1e-12) <= limit) goto next;
        }
        /* The row's column sizes, as FTS5 keeps them. */
        sqlite3_bind_int64(q->docsize, 1, rowid);
        int rc = sqlite3_step(q->docsize);
        if (rc == SQLITE_ROW) {
            const unsigned char *at = sqlite3_column_blob(q->docsize, 0);
            const unsigned char *end = at ? at + sqlite3_column_bytes(q->docsize, 0) : NULL;
            for (int c = 0; c < columns; c++) {
                uint64_t size = 0;
                lengths[c] = at && fts5_varint(&at, end, &size) && size < INT32_MAX ? (int)size : 0;
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
        sift_topk_add(top, rowid, score_row(q, cursors, present, lengths));
        if (top->count >= top->capacity) {
            full = 1;
            limit = top->scores[top->capacity - 1];
            limit += 1e-9 * fmax(1, fabs(limit));
            block_skipped = top->block_bounds && block >= 0 && block < top->block_count && top->block_bounds[block] <= limit;
        }
    next:
        for (; present; present &= present - 1) advance(&cursors[__builtin_ctz(present)], columns);
    }
}
