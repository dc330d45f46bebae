/* Sift's postings evaluator: the top k of a query of listed terms from the impacts' postings (see sift_topk.h). */
#include <stdint.h>
#include <string.h>

#include "../CSQLite/shim.h"

#include "sift_score.h"
#include "sift_topk.h"

#define MAX_COLUMNS 64

/* One term's place in its postings and in the changed rows' counts: the row it is at (INT64_MAX once done) and
   its count in each column; the next row of the postings (`stored`, INT64_MAX when none) read ahead. */
typedef struct {
    const unsigned char *at, *end;
    int64_t stored;
    int stored_counts[MAX_COLUMNS];
    const int64_t *changed, *changed_end;     /* rows whose postings are out of date, sorted */
    const int64_t *extra, *extra_end;         /* changed rows holding the term now, sorted */
    const int32_t *extra_counts;              /* per extra row, its counts */
    int64_t rowid;
    int counts[MAX_COLUMNS];
} cursor;

/* An unsigned LEB128 number (what TopKImpacts writes); 0 and the end on a truncated one. */
static uint64_t leb128(const unsigned char **at, const unsigned char *end) {
    uint64_t value = 0;
    for (int shift = 0; *at < end && shift < 64; shift += 7) {
        unsigned char byte = *(*at)++;
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) return value;
    }
    *at = end;
    return 0;
}

/* Reads the postings' next row that has not changed into `stored`. */
static void read_stored(cursor *c, int columns) {
    for (;;) {
        uint64_t delta = c->at < c->end ? leb128(&c->at, c->end) : 0;
        if (delta == 0) {
            c->stored = INT64_MAX;
            return;
        }
        c->stored += (int64_t)delta;
        for (int i = 0; i < columns; i++) c->stored_counts[i] = (int)leb128(&c->at, c->end);
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
        memcpy(c->counts, c->stored_counts, sizeof(int) * (size_t)columns);
        read_stored(c, columns);
    } else {
        c->rowid = extra;
        for (int i = 0; i < columns; i++) c->counts[i] = c->extra_counts[i];
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

/* The row's score: its counts from the cursors at it (present[t]) and column sizes `lengths`. */
static double score_row(const sift_postings_query *q, cursor *const *cursors, const unsigned char *present,
                        const int *lengths) {
    double score = 0;
    for (int t = 0; t < q->terms; t++) {
        if (!present[t] || q->qtf[t] <= 0) continue;
        double pseudo = 0;
        for (int c = 0; c < q->columns; c++) {
            double tf = cursors[t]->counts[c];
            if (tf <= 0 || q->weights[c] <= 0 || q->avglen[c] <= 0) continue;
            pseudo += sift_score_column(q->inb2, q->c, q->b, q->weights[c], tf, q->avglen[c], lengths[c]);
        }
        if (pseudo > 0) score += sift_score_saturate(q->qtf[t], q->idf[t], pseudo, q->k1);
    }
    return score;
}

int sift_topk_postings(const sift_postings_query *q, sift_topk_collector *top, int64_t base,
                       const unsigned char *const *postings, const int *bytes, const int64_t *changed, int changed_count,
                       const sift_postings_extra *extras) {
    if (q->terms < 1 || q->terms > SIFT_POSTINGS_MAX_TERMS || q->columns < 1 || q->columns > MAX_COLUMNS)
        return SQLITE_MISUSE;
    cursor storage[SIFT_POSTINGS_MAX_TERMS], *cursors[SIFT_POSTINGS_MAX_TERMS];
    unsigned char present[SIFT_POSTINGS_MAX_TERMS];
    for (int t = 0; t < q->terms; t++) {
        cursors[t] = &storage[t];
        cursor *c = &storage[t];
        c->at = postings[t];
        c->end = postings[t] ? postings[t] + (bytes[t] > 0 ? bytes[t] : 0) : NULL;
        c->changed = changed;
        c->changed_end = changed ? changed + changed_count : NULL;
        c->extra = extras ? extras[t].rowids : NULL;
        c->extra_end = extras && extras[t].rowids ? extras[t].rowids + extras[t].count : NULL;
        c->extra_counts = extras ? extras[t].counts : NULL;
        c->stored = base;
        read_stored(c, q->columns);
        advance(c, q->columns);
    }
    int lengths[MAX_COLUMNS];
    for (;;) {
        int64_t rowid = INT64_MAX;
        int holding = 0;
        for (int t = 0; t < q->terms; t++)
            if (cursors[t]->rowid < rowid) rowid = cursors[t]->rowid;
        if (rowid == INT64_MAX) return SQLITE_OK;
        for (int t = 0; t < q->terms; t++) holding += present[t] = cursors[t]->rowid == rowid;
        if (q->requires_all && holding < q->terms) goto next;
        top->matched++;
        int full = top->count >= top->capacity;
        double threshold = full ? top->scores[top->capacity - 1] : 0, limit = threshold + 1e-9 * fmax(1, fabs(threshold));
        int64_t block = top->block > 0 ? rowid / top->block : -1;
        if (full && top->block_bounds && block >= 0 && block < top->block_count && top->block_bounds[block] <= limit)
            goto next;
        if (full) {
            /* The score with the shortest sizes the row's columns can have (the impacts' per block): a bound. */
            for (int c = 0; c < q->columns; c++) {
                int least = 1;
                for (int t = 0; t < q->terms; t++) {
                    if (!present[t] || cursors[t]->counts[c] <= 0 || t >= top->terms || !top->blocks[t]) continue;
                    size_t at = (size_t)block * (size_t)top->stride;
                    if (block < 0 || at + (size_t)top->stride > top->bytes[t] || top->blocks[t][at + 1 + 3 * c] == 0)
                        continue;
                    int shortest = 65535 - (top->blocks[t][at + 2 + 3 * c] | top->blocks[t][at + 3 + 3 * c] << 8);
                    if (shortest > least) least = shortest;
                }
                lengths[c] = least;
            }
            if (score_row(q, cursors, present, lengths) <= limit) goto next;
        }
        /* The row's column sizes, as FTS5 keeps them. */
        sqlite3_bind_int64(q->docsize, 1, rowid);
        int rc = sqlite3_step(q->docsize);
        if (rc == SQLITE_ROW) {
            const unsigned char *at = sqlite3_column_blob(q->docsize, 0);
            const unsigned char *end = at ? at + sqlite3_column_bytes(q->docsize, 0) : NULL;
            for (int c = 0; c < q->columns; c++) {
                uint64_t size = 0;
                lengths[c] = at && fts5_varint(&at, end, &size) && size < INT32_MAX ? (int)size : 0;
            }
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_CORRUPT; /* a row the postings hold and FTS5 does not */
        }
        sqlite3_reset(q->docsize);
        if (rc != SQLITE_OK) return rc;
        top->scored++;
        sift_topk_add(top, rowid, score_row(q, cursors, present, lengths));
    next:
        for (int t = 0; t < q->terms; t++)
            if (present[t]) advance(cursors[t], q->columns);
    }
}
