/* libFuzzer target: the postings evaluator sift_topk_postings (SiftRank, sift_postings.c) on hostile postings,
   impact blocks, column sizes (FTS5's docsize blob, read with fts5_varint), changed rows and collectors: what a
   damaged or crafted database hands it. Every buffer has exactly its size, so a read out of bounds is reported.
   Checks that the collector keeps at most its capacity, best first. */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "sift_facet.h"
#include "sift_topk.h"

/* The column sizes statement: any row's sizes are the input's docsize blob (parameter 2), or none when it binds
   NULL (no row: SQLITE_CORRUPT). */
static sqlite3_stmt *docsize_statement(void) {
    static sqlite3 *db;
    static sqlite3_stmt *stmt;
    if (!stmt) {
        if (sqlite3_open(":memory:", &db) != SQLITE_OK) abort();
        if (sqlite3_prepare_v2(db, "SELECT ?2 WHERE ?1 IS NOT NULL AND ?2 IS NOT NULL", -1, &stmt, NULL) != SQLITE_OK)
            abort();
    }
    return stmt;
}

static int compare_rowids(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* `count` sorted distinct rowids near `around` (small distances, so they meet the postings' rows). */
static int64_t *take_rowids(fuzz_input *in, int count, int64_t around, int *kept) {
    int64_t *rowids = malloc(sizeof *rowids * (size_t)(count ? count : 1));
    if (!rowids) abort();
    for (int i = 0; i < count; i++) rowids[i] = (int64_t)((uint64_t)around + take_u8(in));
    qsort(rowids, (size_t)count, sizeof *rowids, compare_rowids);
    int n = 0;
    for (int i = 0; i < count; i++)
        if (n == 0 || rowids[n - 1] != rowids[i]) rowids[n++] = rowids[i];
    *kept = n;
    return rowids;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    sqlite3_stmt *docsize = docsize_statement();
    uint8_t shape = take_u8(&in);
    int terms = 1 + shape % 4, columns = (shape >> 2) % 5; /* 0 columns: SQLITE_MISUSE */
    int capacity = (shape >> 5) % 4;
    uint8_t flags = take_u8(&in);
    int64_t base = take_i64(&in);
    if (flags & 0x80) base = (int64_t)(take_u8(&in)) - 2;

    double weights[8], avglen[8], qtf[SIFT_POSTINGS_MAX_TERMS], idf[SIFT_POSTINGS_MAX_TERMS];
    for (int c = 0; c < 8; c++) weights[c] = take_u8(&in) / 64.0, avglen[c] = take_u8(&in) / 8.0;
    for (int t = 0; t < SIFT_POSTINGS_MAX_TERMS; t++) qtf[t] = take_u8(&in) / 32.0, idf[t] = take_u8(&in) / 16.0;
    /* Groups (a word and its typo variants): from the input, some out of range (SQLITE_MISUSE), or none. */
    int group[SIFT_POSTINGS_MAX_TERMS];
    uint8_t grouping = take_u8(&in);
    for (int t = 0; t < SIFT_POSTINGS_MAX_TERMS; t++) group[t] = (grouping & 0x40) ? (int)take_u8(&in) % 20 - 2 : t / 2;
    sift_postings_query query = {terms, columns, flags & 1, (flags >> 1) & 1, 1.2, 0.75, 1, weights, avglen, qtf, idf, docsize,
                                 (grouping & 0x80) ? group : NULL};
    if (query.inb2) query.k1 = 1;

    size_t length = 0;
    uint8_t *sizes_blob = take_bytes(&in, take_u8(&in) % 24, &length);
    sqlite3_reset(docsize);
    if (flags & 0x04) sqlite3_bind_null(docsize, 2);
    else sqlite3_bind_blob(docsize, 2, sizes_blob, (int)length, SQLITE_TRANSIENT);
    free(sizes_blob);

    /* The collector: its rows so far (scores non-increasing) and the terms' impact blocks. */
    sift_topk_collector top = {0};
    top.capacity = capacity;
    top.count = capacity ? take_u8(&in) % (capacity + 1) : 0;
    top.rowids = malloc(sizeof(int64_t) * (size_t)(capacity ? capacity : 1));
    top.scores = malloc(sizeof(double) * (size_t)(capacity ? capacity : 1));
    double score = take_u8(&in) / 16.0;
    for (int i = 0; i < top.count; i++) top.rowids[i] = -1 - i, top.scores[i] = score, score -= take_u8(&in) / 64.0;
    top.terms = take_u8(&in) % (terms + 1);
    top.blocks = malloc(sizeof *top.blocks * (size_t)(top.terms ? top.terms : 1));
    top.bytes = malloc(sizeof *top.bytes * (size_t)(top.terms ? top.terms : 1));
    top.block = (flags & 0x08) ? take_i64(&in) : take_u8(&in);
    top.watermark = take_i64(&in);
    top.stride = (int)(take_u8(&in) % 20) - 2;
    for (int t = 0; t < top.terms; t++) {
        size_t n = 0;
        top.blocks[t] = (flags & 0x10) && t == 0 ? NULL : take_bytes(&in, take_u8(&in), &n);
        top.bytes[t] = n;
    }
    int bound_count = take_u8(&in) % 8;
    double *bounds = malloc(sizeof *bounds * (size_t)(bound_count ? bound_count : 1));
    for (int i = 0; i < bound_count; i++) bounds[i] = take_u8(&in) / 32.0;
    top.block_bounds = (flags & 0x20) ? bounds : NULL;
    top.block_count = (flags & 0x20) ? bound_count : 0;

    /* Per term, the changed rows left out of its postings and those holding it now, with their counts. */
    sift_postings_extra extras[SIFT_POSTINGS_MAX_TERMS];
    int32_t *extra_counts[SIFT_POSTINGS_MAX_TERMS];
    for (int t = 0; t < terms; t++) {
        extras[t].left_out = take_rowids(&in, take_u8(&in) % 4, base, &extras[t].left_out_count);
        extras[t].rowids = take_rowids(&in, take_u8(&in) % 3, base, &extras[t].count);
        size_t n = (size_t)(extras[t].count ? extras[t].count : 1) * (size_t)(columns ? columns : 1);
        extra_counts[t] = malloc(sizeof(int32_t) * n);
        for (size_t i = 0; i < n; i++) extra_counts[t][i] = take_u8(&in) % 4;
        extras[t].counts = extra_counts[t];
    }

    /* The chunk's last rowid and the rows recorded per term: from the input, or unchecked. */
    uint8_t checks = take_u8(&in);
    int64_t step = take_u8(&in) * 64;
    int64_t last = (checks & 1) && base <= INT64_MAX - step ? base + step : INT64_MAX;
    int64_t expected[SIFT_POSTINGS_MAX_TERMS];
    for (int t = 0; t < terms; t++) expected[t] = take_u8(&in);

    /* The terms' postings share the rest of the input. */
    const unsigned char *postings[SIFT_POSTINGS_MAX_TERMS];
    int bytes[SIFT_POSTINGS_MAX_TERMS];
    for (int t = 0; t < terms; t++) {
        size_t n = 0;
        postings[t] = take_bytes(&in, t == terms - 1 ? in.size : take_u8(&in), &n);
        bytes[t] = (flags & 0x40) && t == 0 ? -(int)n : (int)n;
    }

    /* Every matching row's rowid appended, as facet counting asks: one a match. */
    sift_facet_rowids matches = {0};
    if (checks & 4) top.matches = &matches;
    /* Without a count: the blocks the bounds rule out are passed over, before decoding and while merging. */
    top.top_only = (checks & 8) != 0;
    sift_topk_postings(&query, &top, base, last, postings, bytes, (checks & 2) ? expected : NULL,
                       (flags & 0x02) ? extras : NULL);
    if ((checks & 4) && matches.count != top.matched) abort();
    sift_facet_rowids_free(&matches);
    if (top.count < 0 || top.count > (capacity > 0 ? capacity : 0)) abort();
    for (int i = 1; i < top.count; i++)
        if (!(top.scores[i - 1] >= top.scores[i]) && !isnan(top.scores[i - 1]) && !isnan(top.scores[i])) abort();

    for (int t = 0; t < terms; t++) {
        free((void *)postings[t]);
        free((void *)extras[t].rowids);
        free((void *)extras[t].left_out);
        free(extra_counts[t]);
    }
    for (int t = 0; t < top.terms; t++) free((void *)top.blocks[t]);
    free(bounds);
    free(top.blocks);
    free(top.bytes);
    free(top.rowids);
    free(top.scores);
    sqlite3_reset(docsize);
    return 0;
}
