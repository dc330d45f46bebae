/* libFuzzer target: sift_decompress (SiftZstd, sift_zstd.c) on arbitrary values, as a damaged or hostile compressed
   column hands them over, and sift_compress then sift_decompress on arbitrary text and blobs at a level the input
   picks, which must give the value back byte for byte in its kind. An in-memory database holds no dictionary: a
   value naming one fails with an error, never a crash. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "sift_zstd.h"

static sqlite3 *db;
static sqlite3_stmt *decompress, *round_trip;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!db) {
        if (sqlite3_open(":memory:", &db) != SQLITE_OK || sift_zstd_register(db) != SQLITE_OK ||
            sqlite3_exec(db, "CREATE TABLE sift_zstd_dictionaries(id INTEGER PRIMARY KEY, table_name TEXT, "
                             "column_name TEXT, dictionary BLOB)", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(db, "SELECT sift_decompress(?)", -1, &decompress, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(db, "SELECT sift_decompress(sift_compress(?1, ?2, 0)), typeof(?1)", -1, &round_trip,
                               NULL) != SQLITE_OK)
            abort();
    }
    fuzz_input in = {data, size};
    int level = take_u8(&in) % 23;
    int as_text = take_u8(&in) & 1;
    size_t length = 0;
    uint8_t *value = take_bytes(&in, in.size, &length);

    /* Whatever the bytes, a value or an error. */
    sqlite3_bind_blob(decompress, 1, value, (int)length, SQLITE_STATIC);
    int rc = sqlite3_step(decompress);
    if (rc != SQLITE_ROW && rc != SQLITE_ERROR) abort();
    sqlite3_reset(decompress);
    sift_zstd_take_failure(NULL);

    /* Compressed, then read back: the same bytes, the same kind. */
    if (as_text) sqlite3_bind_text(round_trip, 1, (const char *)value, (int)length, SQLITE_STATIC);
    else sqlite3_bind_blob(round_trip, 1, value, (int)length, SQLITE_STATIC);
    sqlite3_bind_int(round_trip, 2, level);
    if (sqlite3_step(round_trip) != SQLITE_ROW) abort();
    const void *back = sqlite3_column_blob(round_trip, 0);
    int back_length = sqlite3_column_bytes(round_trip, 0);
    int type = sqlite3_column_type(round_trip, 0);
    if (back_length != (int)length || (length && memcmp(back, value, length) != 0)) abort();
    if (type != (as_text ? SQLITE_TEXT : SQLITE_BLOB)) abort();
    sqlite3_reset(round_trip);
    free(value);
    return 0;
}
