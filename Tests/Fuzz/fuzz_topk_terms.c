/* libFuzzer target: SiftRank's listed-term counting (sift_topk.c: sift_topk_terms_new, _add, sift_topk_collect_row)
   with terms added before and between rows, rows of 1 to 4 columns, tokenized by FTS5's unicode61. Checks that
   each listed term a row holds is reported once, with counts no larger than the column's size. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../Sources/CSQLite/shim.h"
#include "fuzz_input.h"
#include "sift_topk.h"

static sift_fts5_tokenizer *tokenizer(void) {
    static sqlite3 *db;
    static sift_fts5_tokenizer instance;
    if (!db) {
        const char *name[] = {"unicode61"};
        if (sqlite3_open(":memory:", &db) != SQLITE_OK || sift_fts5_tokenizer_open(db, name, 1, &instance) != SQLITE_OK)
            abort();
    }
    return &instance;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    int capacity = take_u8(&in) % 12;
    sift_topk_terms *set = sift_topk_terms_new(capacity);
    if (!set) abort();
    int listed = 0, limit = capacity < 1 ? 1 : capacity;
    int32_t indexes[12], stats[12 * 2 * 4];
    while (in.size) {
        uint8_t op = take_u8(&in);
        if (op % 3 == 0) {
            char *term = take_text(&in, 1 + op / 64);
            int index = sift_topk_terms_add(set, term, (int)strlen(term));
            if (index >= 0 && (index != listed || ++listed > limit)) abort();
            free(term);
        } else {
            int columns = 1 + op % 4;
            char *texts[4];
            int lengths[4];
            for (int c = 0; c < columns; c++) texts[c] = take_text(&in, take_u8(&in) % 24), lengths[c] = (int)strlen(texts[c]);
            int touched = -1;
            int rc = sift_topk_collect_row(set, tokenizer(), (const char *const *)texts, lengths, columns, indexes, stats, &touched);
            if (rc != SQLITE_OK || touched < 0 || touched > listed) abort();
            for (int k = 0; k < touched; k++) {
                if (indexes[k] < 0 || indexes[k] >= listed) abort();
                for (int j = 0; j < k; j++)
                    if (indexes[j] == indexes[k]) abort();
                for (int c = 0; c < columns; c++) {
                    int32_t count = stats[2 * columns * k + 2 * c], length = stats[2 * columns * k + 2 * c + 1];
                    if (count < 0 || count > length || (count == 0) != (length == 0)) abort();
                }
            }
            for (int c = 0; c < columns; c++) free(texts[c]);
        }
    }
    sift_topk_terms_free(set);
    return 0;
}
