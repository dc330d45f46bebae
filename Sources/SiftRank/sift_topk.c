/* Auxiliary functions for Sift's pruned top-k search (see sift_topk.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../CSQLite/shim.h"

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

/* Adds the row's instances of the query's first phrase to out[stride * c] for each column c (of `columns`). */
static int first_phrase_counts(const Fts5ExtensionApi *api, Fts5Context *fts, int columns, int32_t *out, int stride) {
    int instances = 0;
    int rc = api->xInstCount(fts, &instances);
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase = 0, column = 0, offset = 0;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK && phrase == 0 && column >= 0 && column < columns) out[stride * column]++;
    }
    return rc;
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
    int rc = first_phrase_counts(api, fts, columns, stats, 2);
    for (int c = 0; rc == SQLITE_OK && c < columns; c++) {
        int length = 0;
        if (stats[2 * c] > 0) rc = api->xColumnSize(fts, c, &length);
        stats[2 * c + 1] = length;
    }
    if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
    else sqlite3_result_blob(context, stats, (int)(sizeof(int32_t) * 2 * (size_t)columns), SQLITE_TRANSIENT);
}

static void sift_instances(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                           sqlite3_value **argv) {
    (void)argc, (void)argv;
    int instances = 0;
    int rc = api->xInstCount(fts, &instances);
    if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
    else sqlite3_result_int(context, instances);
}

static int term_rows_grow(sift_term_rows *rows) {
    int64_t capacity = rows->capacity ? rows->capacity * 2 : 1024;
    if (capacity > INT64_MAX / 64 / (int64_t)sizeof(int64_t)) return SQLITE_NOMEM;
    int64_t *rowids = realloc(rows->rowids, (size_t)capacity * sizeof *rowids);
    if (!rowids) return SQLITE_NOMEM;
    rows->rowids = rowids;
    int32_t *counts = realloc(rows->counts, (size_t)capacity * (size_t)rows->columns * sizeof *counts);
    if (!counts) return SQLITE_NOMEM;
    rows->counts = counts;
    rows->capacity = capacity;
    return SQLITE_OK;
}

static void sift_term_rows_function(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context,
                                    int argc, sqlite3_value **argv) {
    sift_term_rows *rows = argc == 1 ? sqlite3_value_pointer(argv[0], SIFT_TERM_ROWS) : NULL;
    int columns = api->xColumnCount(fts);
    if (!rows || rows->columns < 1 || rows->columns > 64 || rows->columns != columns) {
        sqlite3_result_error(context, "sift_term_rows: no rows bound, or another number of columns", -1);
        return;
    }
    int rc = rows->count < rows->capacity ? SQLITE_OK : term_rows_grow(rows);
    int32_t *counts = rc == SQLITE_OK ? rows->counts + (size_t)rows->count * (size_t)columns : NULL;
    if (counts) memset(counts, 0, sizeof *counts * (size_t)columns);
    if (rc == SQLITE_OK) rc = first_phrase_counts(api, fts, columns, counts, 1);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    rows->rowids[rows->count++] = api->xRowid(fts);
    sqlite3_result_int(context, 1);
}

int sift_term_rows_bind(sqlite3_stmt *stmt, int index, sift_term_rows *rows) {
    return sqlite3_bind_pointer(stmt, index, rows, SIFT_TERM_ROWS, NULL);
}

void sift_term_rows_free(sift_term_rows *rows) {
    if (!rows) return;
    free(rows->rowids);
    free(rows->counts);
    rows->rowids = NULL, rows->counts = NULL;
    rows->count = rows->capacity = 0;
}

int sift_topk_bind(sqlite3_stmt *stmt, int index, sift_topk_collector *collector) {
    return sqlite3_bind_pointer(stmt, index, collector, SIFT_TOPK_COLLECTOR, NULL);
}

void sift_topk_add(sift_topk_collector *top, int64_t rowid, double score) {
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
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_instances", NULL, sift_instances, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_term_rows", NULL, sift_term_rows_function, NULL);
    return rc;
}

/* MARK: counting listed terms (see sift_topk.h) */

struct sift_topk_terms {
    int count, capacity;
    uint32_t mask;        /* slots - 1 (a power of two, at least twice the capacity) */
    int32_t *slots;       /* term index + 1, 0 = empty */
    char **terms;
    int *lengths;
    int columns;          /* the width counts was allocated for */
    int32_t *counts;      /* per term (capacity of them) and column, this row's instances */
    uint8_t *is_touched;
    int32_t *touched;
    int touched_count;
};

static uint32_t sift_topk_hash(const char *bytes, int length) {
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (int i = 0; i < length; i++) hash = (hash ^ (uint8_t)bytes[i]) * 16777619u;
    return hash;
}

/* The most terms a set holds: its table keeps at least twice as many slots, at most 2^30. */
#define MAX_TERMS (1 << 29)

sift_topk_terms *sift_topk_terms_new(int capacity) {
    if (capacity < 1) capacity = 1;
    if (capacity > MAX_TERMS) return NULL;
    uint32_t slots = 16;
    while (slots < 2u * (uint32_t)capacity) slots <<= 1;
    sift_topk_terms *set = calloc(1, sizeof *set);
    if (!set) return NULL;
    set->capacity = capacity;
    set->mask = slots - 1;
    set->slots = calloc(slots, sizeof *set->slots);
    set->terms = calloc((size_t)capacity, sizeof *set->terms);
    set->lengths = calloc((size_t)capacity, sizeof *set->lengths);
    set->is_touched = calloc((size_t)capacity, 1);
    set->touched = calloc((size_t)capacity, sizeof *set->touched);
    if (!set->slots || !set->terms || !set->lengths || !set->is_touched || !set->touched) {
        sift_topk_terms_free(set);
        return NULL;
    }
    return set;
}

static int sift_topk_find(const sift_topk_terms *set, const char *term, int length, uint32_t *slot) {
    uint32_t at = sift_topk_hash(term, length) & set->mask;
    for (;; at = (at + 1) & set->mask) {
        int32_t entry = set->slots[at];
        if (entry == 0) { *slot = at; return -1; }
        int index = entry - 1;
        if (set->lengths[index] == length && memcmp(set->terms[index], term, (size_t)length) == 0) return index;
    }
}

int sift_topk_terms_add(sift_topk_terms *set, const char *term, int length) {
    if (!set || set->count >= set->capacity || length < 0) return -1;
    uint32_t slot = 0;
    if (sift_topk_find(set, term, length, &slot) >= 0) return -1;
    char *copy = malloc((size_t)length + 1);
    if (!copy) return -1;
    if (length > 0) memcpy(copy, term, (size_t)length);
    copy[length] = 0;
    int index = set->count++;
    set->terms[index] = copy;
    set->lengths[index] = length;
    set->slots[slot] = index + 1;
    return index;
}

void sift_topk_terms_free(sift_topk_terms *set) {
    if (!set) return;
    for (int i = 0; i < set->count; i++) free(set->terms[i]);
    free(set->slots);
    free(set->terms);
    free(set->lengths);
    free(set->counts);
    free(set->is_touched);
    free(set->touched);
    free(set);
}

typedef struct {
    sift_topk_terms *set;
    int column;
    int length;
} sift_topk_row;

static int sift_topk_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)start, (void)end;
    sift_topk_row *row = context;
    sift_topk_terms *set = row->set;
    /* A column's size as FTS5 counts it: tokens colocated with the previous one share its position. */
    if (!(flags & FTS5_TOKEN_COLOCATED) || row->length == 0) row->length++;
    uint32_t slot = 0;
    int index = sift_topk_find(set, token, length, &slot);
    if (index < 0) return SQLITE_OK;
    if (!set->is_touched[index]) {
        set->is_touched[index] = 1;
        set->touched[set->touched_count++] = index;
    }
    set->counts[(size_t)index * (size_t)set->columns + (size_t)row->column]++;
    return SQLITE_OK;
}

int sift_topk_collect_row(sift_topk_terms *set, void *tokenizer, const char *const *texts, const int *lengths,
                          int columns, int32_t *indexes, int32_t *stats, int *touched) {
    *touched = 0;
    if (!set || columns < 1 || columns > 64) return SQLITE_MISUSE;
    if (set->columns != columns) {
        free(set->counts);
        /* Room for every term the set may hold, so that a term added after this row still has its counts. */
        set->counts = calloc((size_t)set->capacity * (size_t)columns, sizeof *set->counts);
        set->columns = set->counts ? columns : 0;
        if (!set->counts) return SQLITE_NOMEM;
    }
    int sizes[64];
    sift_topk_row row = { set, 0, 0 };
    int rc = SQLITE_OK;
    for (int c = 0; c < columns; c++) {
        row.column = c;
        row.length = 0;
        if (texts[c] && lengths[c] > 0)
            rc = sift_fts5_tokenizer_run((sift_fts5_tokenizer *)tokenizer, &row, FTS5_TOKENIZE_DOCUMENT, texts[c], lengths[c],
                                         sift_topk_token);
        sizes[c] = row.length;
        if (rc != SQLITE_OK) break;
    }
    for (int k = 0; k < set->touched_count; k++) {
        int index = set->touched[k];
        int32_t *counts = set->counts + (size_t)index * (size_t)columns;
        if (rc == SQLITE_OK) {
            indexes[k] = index;
            int32_t *row_stats = stats + 2 * (size_t)columns * (size_t)k;
            for (int c = 0; c < columns; c++) {
                row_stats[2 * c] = counts[c];
                row_stats[2 * c + 1] = counts[c] > 0 ? sizes[c] : 0;
            }
        }
        memset(counts, 0, sizeof *counts * (size_t)columns);
        set->is_touched[index] = 0;
    }
    if (rc == SQLITE_OK) *touched = set->touched_count;
    set->touched_count = 0;
    return rc;
}
