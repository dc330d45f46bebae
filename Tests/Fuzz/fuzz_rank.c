/* libFuzzer target: SiftRank's FTS5 functions (sift_rank.c, sift_topk.c) on an FTS5 table of rows with arbitrary
   rowids and text, called with arbitrary argument texts (phrase weights, phrase counts) and a collector holding
   arbitrary impact blocks, block size, watermark, stride and block bounds: sift_rank, sift_rank_df, sift_inb2_df,
   sift_topk, sift_topk_inb2, sift_doc_stats, sift_stats, sift_phrase_counts and sift_instances. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "sift_rank.h"
#include "sift_topk.h"

static sqlite3 *connection(void) {
    static sqlite3 *db;
    if (!db) {
        if (sqlite3_open(":memory:", &db) != SQLITE_OK || sift_rank_register(db) != SQLITE_OK) abort();
        if (sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(x, y)", NULL, NULL, NULL) != SQLITE_OK) abort();
    }
    return db;
}

/* Steps `sql` to its end with `text1`, `text2` bound as texts (NULL: left unbound), the integer `number` at 3
   and the collector at 4 (when given). Errors are expected: the arguments are arbitrary. */
static void run(sqlite3 *db, const char *sql, const char *text1, const char *text2, int number, sift_topk_collector *top) {
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) abort();
    if (text1) sqlite3_bind_text(stmt, 1, text1, -1, SQLITE_STATIC);
    if (text2) sqlite3_bind_text(stmt, 2, text2, -1, SQLITE_STATIC);
    if (sqlite3_bind_parameter_count(stmt) >= 3) sqlite3_bind_int(stmt, 3, number);
    if (top) sift_topk_bind(stmt, 4, top);
    while (sqlite3_step(stmt) == SQLITE_ROW) {}
    sqlite3_finalize(stmt);
}

/* An argument text: digits, '.', '/', '-' and spaces, as the phrase weights and counts are written. */
static char *take_argument(fuzz_input *in) {
    static const char alphabet[] = "0123456789 ./-9";
    size_t length = take_u8(in) % 48;
    char *text = malloc(length + 1);
    if (!text) abort();
    for (size_t i = 0; i < length; i++) text[i] = alphabet[take_u8(in) % 15];
    text[length] = 0;
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    sqlite3 *db = connection();
    if (sqlite3_exec(db, "DELETE FROM t", NULL, NULL, NULL) != SQLITE_OK) abort();
    sqlite3_stmt *insert = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO t(rowid, x, y) VALUES (?, ?, ?)", -1, &insert, NULL) != SQLITE_OK) abort();
    int rows = 1 + take_u8(&in) % 4;
    for (int r = 0; r < rows; r++) {
        uint8_t kind = take_u8(&in);
        int64_t rowid = kind & 1 ? take_i64(&in) : (int64_t)(kind >> 1);
        char *x = take_text(&in, take_u8(&in) % 24), *y = take_text(&in, take_u8(&in) % 8);
        sqlite3_bind_int64(insert, 1, rowid);
        sqlite3_bind_text(insert, 2, x, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 3, y, -1, SQLITE_TRANSIENT);
        sqlite3_step(insert);
        sqlite3_reset(insert);
        free(x);
        free(y);
    }
    sqlite3_finalize(insert);

    char *weights = take_argument(&in), *counts = take_argument(&in);
    int ignored = (int)take_i32(&in);
    if (!(ignored & 0x100)) ignored &= 3;

    /* The collector. */
    sift_topk_collector top = {0};
    top.capacity = take_u8(&in) % 4;
    top.rowids = malloc(sizeof(int64_t) * (size_t)(top.capacity ? top.capacity : 1));
    top.scores = malloc(sizeof(double) * (size_t)(top.capacity ? top.capacity : 1));
    top.count = top.capacity ? take_u8(&in) % (top.capacity + 1) : 0;
    double score = take_u8(&in) / 64.0;
    for (int i = 0; i < top.count; i++) top.rowids[i] = -1 - i, top.scores[i] = score, score /= 2;
    top.terms = take_u8(&in) % 4;
    top.blocks = malloc(sizeof *top.blocks * (size_t)(top.terms ? top.terms : 1));
    top.bytes = malloc(sizeof *top.bytes * (size_t)(top.terms ? top.terms : 1));
    for (int t = 0; t < top.terms; t++) top.blocks[t] = take_bytes(&in, take_u8(&in) % 64, &top.bytes[t]);
    uint8_t flags = take_u8(&in);
    top.block = flags & 1 ? take_i64(&in) : take_u8(&in);
    top.watermark = flags & 2 ? take_i64(&in) : INT64_MAX;
    top.stride = (int)(take_u8(&in) % 12) - 2;
    int bound_count = take_u8(&in) % 8;
    double *bounds = malloc(sizeof *bounds * (size_t)(bound_count ? bound_count : 1));
    for (int i = 0; i < bound_count; i++) bounds[i] = take_u8(&in) / 64.0;
    top.block_bounds = flags & 4 ? bounds : NULL;
    top.block_count = flags & 4 ? bound_count : 0;

    static const char *const queries[] = {"a", "a OR b", "\"a b\" OR c", "x : a OR d", "a NOT b", "ab OR a OR b OR c"};
    char match[96];
    sqlite3_snprintf(sizeof match, match, "%s", queries[take_u8(&in) % 6]);
    char sql[512];
    sqlite3_snprintf(sizeof sql, sql,
                     "SELECT sift_rank(t), sift_rank(t, 1.2, 0.75, 2, 1, 0.5, ?1), sift_rank_df(t, 1.2, 0.75, 2, 1, 1, ?1, ?2), "
                     "sift_inb2_df(t, 1, 2, 1, 1, ?1, ?2), sift_doc_stats(t), sift_stats(t), sift_phrase_counts(t), "
                     "sift_instances(t) FROM t WHERE t MATCH %Q",
                     match);
    run(db, sql, weights, counts, 0, NULL);
    sqlite3_snprintf(sizeof sql, sql,
                     "SELECT count(*) FROM t WHERE t MATCH %Q AND %s(t, %s, 2, 1, 1, ?1, ?2, ?3, ?4)", match,
                     flags & 8 ? "sift_topk_inb2" : "sift_topk", flags & 8 ? "1" : "1.2, 0.75");
    run(db, sql, weights, counts, ignored, &top);
    if (top.count < 0 || top.count > top.capacity) abort();

    for (int t = 0; t < top.terms; t++) free((void *)top.blocks[t]);
    free(top.blocks);
    free(top.bytes);
    free(top.rowids);
    free(top.scores);
    free(bounds);
    free(weights);
    free(counts);
    return 0;
}
