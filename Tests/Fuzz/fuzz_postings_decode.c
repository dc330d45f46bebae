/* libFuzzer target: sift_postings_decode and sift_postings_last_rowid (SiftRank, sift_postings.c) on arbitrary
   postings, columns and base, as a damaged impacts table hands them over. Checks that the rows decoded stay in
   the input's bounds, rowids rise strictly from the base and stay below INT64_MAX, counts are never negative,
   and the last rowid agrees with the decoded rows. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "sift_topk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    int columns = (int)(take_u8(&in) % 70) - 2;
    int64_t base = take_i64(&in);
    size_t length = 0;
    uint8_t *postings = take_bytes(&in, in.size, &length);
    int bytes = (int)length;
    size_t room = length ? length : 1;
    int64_t *rowids = malloc(sizeof *rowids * room);
    int32_t *counts = malloc(sizeof *counts * room * (size_t)(columns > 0 ? columns : 1));
    if (!rowids || !counts) abort();
    int whole = -1;
    int rows = sift_postings_decode(postings, bytes, columns, base, rowids, counts, &whole);
    if (rows < 0 || rows > bytes || (whole != 0 && whole != 1)) abort();
    int64_t previous = base;
    for (int r = 0; r < rows; r++) {
        if (rowids[r] <= previous || rowids[r] == INT64_MAX) abort();
        previous = rowids[r];
        for (int c = 0; c < columns; c++)
            if (counts[(size_t)r * (size_t)columns + (size_t)c] < 0) abort();
    }
    if (columns >= 0 && sift_postings_last_rowid(postings, bytes, columns, base) != previous) abort();
    free(postings);
    free(rowids);
    free(counts);
    return 0;
}
