/* libFuzzer target: sift_bound_block and sift_bound_idf (SiftRank, sift_bound.c), the block bounds of Sift's pruned
   search, on impact blocks from the input (any counts, lengths and column counts, 255 "no bound" bytes) with any
   ranking parameters, weights and average lengths. A bound must be a number at least 0 and at most qtf * idf when
   they are finite and not negative. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "sift_bound.h"

static double take_double(fuzz_input *in) {
    uint64_t bits = (uint64_t)take_i64(in);
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    uint8_t flags = take_u8(&in);
    int columns = take_u8(&in) % 80;  /* past SIFT_BOUND_MAX_COLUMNS too */
    double weights[80], avglen[80];
    for (int c = 0; c < columns; c++) {
        weights[c] = (flags & 1) ? take_double(&in) : take_u8(&in) / 16.0;
        avglen[c] = (flags & 2) ? take_double(&in) : take_u8(&in) + 1;
    }
    sift_bound_ranking ranking = {flags & 4 ? 1 : 0, (flags & 8) ? take_double(&in) : 1.2, 0.75,
                                  (flags & 16) ? take_double(&in) : 1.0, columns, weights, avglen};
    size_t bytes = 1 + 3 * (size_t)(columns < SIFT_BOUND_MAX_COLUMNS ? columns : SIFT_BOUND_MAX_COLUMNS);
    unsigned char *impact = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) impact[i] = take_u8(&in);
    double qtf = take_u8(&in) / 4.0, idf = take_u8(&in) / 8.0;
    double bound = sift_bound_block(&ranking, impact, qtf, idf);
    double weight = sift_bound_idf(&ranking, take_u16(&in), take_u16(&in), take_u16(&in));
    (void)weight;
    free(impact);
    /* With finite parameters of the ranges Sift passes (weights and lengths above 0, k1 1.2, c 1): a bound between 0
       and qtf * idf, the most a saturated term adds. */
    if (!(flags & 0x1F) && !(bound >= 0 && bound <= qtf * idf * (1 + 1e-12))) abort();
    return 0;
}
