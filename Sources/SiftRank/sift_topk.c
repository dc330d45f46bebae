/* Auxiliary functions for Sift's pruned top-k search (see sift_topk.h). */
#include <stdint.h>
#include <string.h>

#include "sift_topk.h"

static void sift_stats(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                       sqlite3_value **argv) {
    (void)argc, (void)argv;
    sqlite3_int64 rows = 0;
    int rc = api->xRowCount(fts, &rows);
    sqlite3_str *text = sqlite3_str_new(NULL);
    sqlite3_str_appendf(text, "%lld", rows);
    for (int c = 0; rc == SQLITE_OK && c < api->xColumnCount(fts); c++) {
        sqlite3_int64 total = 0;
        rc = api->xColumnTotalSize(fts, c, &total);
        sqlite3_str_appendf(text, " %lld", total);
    }
    char *result = sqlite3_str_finish(text);
    if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
    else if (!result) sqlite3_result_error_nomem(context);
    else sqlite3_result_text(context, result, -1, sqlite3_free);
    if (rc != SQLITE_OK) sqlite3_free(result);
}

static void sift_doc_stats(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                           sqlite3_value **argv) {
    (void)argc, (void)argv;
    int columns = api->xColumnCount(fts);
    int32_t stats[2 * 64];
    if (columns > 64) {
        sqlite3_result_error(context, "sift_doc_stats: more than 64 columns", -1);
        return;
    }
    memset(stats, 0, sizeof stats);
    int instances = 0;
    int rc = api->xInstCount(fts, &instances);
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase = 0, column = 0, offset = 0;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK && phrase == 0 && column >= 0 && column < columns) stats[2 * column]++;
    }
    for (int c = 0; rc == SQLITE_OK && c < columns; c++) {
        int length = 0;
        if (stats[2 * c] > 0) rc = api->xColumnSize(fts, c, &length);
        stats[2 * c + 1] = length;
    }
    if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
    else sqlite3_result_blob(context, stats, (int)(sizeof(int32_t) * 2 * (size_t)columns), SQLITE_TRANSIENT);
}

int sift_topk_bind(sqlite3_stmt *stmt, int index, sift_topk_collector *collector) {
    return sqlite3_bind_pointer(stmt, index, collector, SIFT_TOPK_COLLECTOR, NULL);
}

void sift_topk_add(sift_topk_collector *top, sqlite3_int64 rowid, double score) {
    if (top->capacity <= 0) return;
    if (top->count >= top->capacity && score <= top->scores[top->capacity - 1]) return;
    for (int i = 0; i < top->count; i++)
        if (top->rowids[i] == rowid) return;
    int at = top->count < top->capacity ? top->count : top->capacity - 1;
    while (at > 0 && top->scores[at - 1] < score) {
        top->scores[at] = top->scores[at - 1];
        top->rowids[at] = top->rowids[at - 1];
        at--;
    }
    top->scores[at] = score;
    top->rowids[at] = rowid;
    if (top->count < top->capacity) top->count++;
}

int sift_topk_register_functions(fts5_api *api) {
    int rc = api->xCreateFunction(api, "sift_stats", NULL, sift_stats, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_doc_stats", NULL, sift_doc_stats, NULL);
    return rc;
}
