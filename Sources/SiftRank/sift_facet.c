/* Facet counting over Sift's facet chunks (sift_facet.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../CSQLite/shim.h"
#include "sift_facet.h"

static uint32_t read_ordinal(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int compare_rowids(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int sift_facet_rowids_grow(sift_facet_rowids *rowids) {
    if (rowids->capacity > INT64_MAX / 2 / (int64_t)sizeof(int64_t)) return 1;
    int64_t capacity = rowids->capacity ? rowids->capacity * 2 : 4096;
    int64_t *grown = realloc(rowids->rowids, (size_t)capacity * sizeof(int64_t));
    if (!grown) return 1;
    rowids->rowids = grown;
    rowids->capacity = capacity;
    return 0;
}

int sift_facet_collect(sqlite3_stmt *stmt, int column, sift_facet_rowids *out) {
    int sorted = 1;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int64_t rowid = sqlite3_column_int64(stmt, column);
        if (out->count > 0 && out->rowids[out->count - 1] > rowid) sorted = 0;
        if (sift_facet_rowids_append(out, rowid)) return SQLITE_NOMEM;
    }
    if (rc != SQLITE_DONE) return rc;
    if (!sorted) qsort(out->rowids, (size_t)out->count, sizeof(int64_t), compare_rowids);
    return SQLITE_DONE;
}

void sift_facet_rowids_free(sift_facet_rowids *rowids) {
    free(rowids->rowids);
    rowids->rowids = NULL;
    rowids->count = rowids->capacity = 0;
}

int sift_facet_tally(const void *blob, int bytes, int64_t chunk, const int64_t *rowids, int64_t count,
                     uint32_t *counts, uint32_t ordinals, int64_t *consumed) {
    *consumed = 0;
    if (bytes != SIFT_FACET_CHUNK_BYTES || !blob) return 1;
    const unsigned char *base = blob;
    int64_t i = 0;
    for (; i < count && (rowids[i] >> SIFT_FACET_CHUNK_SHIFT) == chunk; i++) {
        uint32_t ordinal = read_ordinal(base + 4 * (rowids[i] & (SIFT_FACET_CHUNK_ROWS - 1)));
        if (ordinal == 0 || ordinal >= ordinals) return 1;
        counts[ordinal]++;
        /* A rowid listed twice (a join's duplicate) counts once, as a row. */
        while (i + 1 < count && rowids[i + 1] == rowids[i]) i++;
    }
    *consumed = i;
    return 0;
}

int64_t sift_facet_tally_all(const void *blob, int bytes, uint32_t *counts, uint32_t ordinals) {
    if (bytes != SIFT_FACET_CHUNK_BYTES || !blob) return -1;
    const unsigned char *base = blob;
    int64_t rows = 0;
    for (int i = 0; i < SIFT_FACET_CHUNK_ROWS; i++) {
        uint32_t ordinal = read_ordinal(base + 4 * i);
        if (ordinal == 0) continue;
        if (ordinal >= ordinals) return -1;
        counts[ordinal]++;
        rows++;
    }
    return rows;
}

static void facet_set(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    int null = sqlite3_value_type(argv[0]) == SQLITE_NULL;
    int bytes = null ? SIFT_FACET_CHUNK_BYTES : sqlite3_value_bytes(argv[0]);
    sqlite3_int64 offset = sqlite3_value_int64(argv[1]);
    sqlite3_int64 ordinal = sqlite3_value_int64(argv[2]);
    if (bytes != SIFT_FACET_CHUNK_BYTES || offset < 0 || offset >= SIFT_FACET_CHUNK_ROWS || ordinal < 0 || ordinal > UINT32_MAX) {
        sqlite3_result_error(context, "sift_facet_set: a damaged facet chunk or an ordinal out of range", -1);
        sqlite3_result_error_code(context, SQLITE_CORRUPT);
        return;
    }
    unsigned char *chunk = sqlite3_malloc(SIFT_FACET_CHUNK_BYTES);
    if (!chunk) {
        sqlite3_result_error_nomem(context);
        return;
    }
    if (null) {
        memset(chunk, 0, SIFT_FACET_CHUNK_BYTES);
    } else {
        const void *old = sqlite3_value_blob(argv[0]);
        if (!old) {
            sqlite3_free(chunk);
            sqlite3_result_error_nomem(context);
            return;
        }
        memcpy(chunk, old, SIFT_FACET_CHUNK_BYTES);
    }
    unsigned char *p = chunk + 4 * offset;
    uint32_t value = (uint32_t)ordinal;
    p[0] = value & 0xFF;
    p[1] = (value >> 8) & 0xFF;
    p[2] = (value >> 16) & 0xFF;
    p[3] = (value >> 24) & 0xFF;
    sqlite3_result_blob(context, chunk, SIFT_FACET_CHUNK_BYTES, sqlite3_free);
}

int sift_facet_register(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "sift_facet_set", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                      NULL, facet_set, NULL, NULL, NULL);
}
