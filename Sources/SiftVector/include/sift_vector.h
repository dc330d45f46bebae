#ifndef SIFT_VECTOR_H
#define SIFT_VECTOR_H

#include <stddef.h>
#include <stdint.h>

/* Exact nearest-neighbour scans over blocks of vectors (Sift's vector indexes). Every pointer to stored data may
 * be unaligned (SQLite hands out blobs at any address); the kernels use eight-lane vectors
 * and an AVX2+FMA+POPCNT build of each scan is chosen at run time when the processor has it. Scores: larger is better. */

/* How vectors are compared: the index's declared metric. Cosine vectors are stored normalized and scored as dot. */
enum { SIFT_VECTOR_DOT = 0, SIFT_VECTOR_L2 = 1 };

/* The best `capacity` (score, rowid) pairs seen so far: a min-heap on (score, then larger rowid first). When
 * `places` is set (`capacity` entries, beside the pairs), a scan also keeps where each kept pair's slot is:
 * block * SIFT_VECTOR_PLACE_BLOCK + slot, the block being `block` (set by the caller before it scans each block). */
typedef struct {
    float *scores;
    int64_t *rowids;
    int count;
    int capacity;
    int64_t *places;
    int64_t block;
} sift_vector_top;

/* A block's slots in a place (see sift_vector_top): more than any block holds. */
#define SIFT_VECTOR_PLACE_BLOCK 4294967296LL

/* Offers one pair; ties keep the smaller rowid. */
void sift_vector_top_offer(sift_vector_top *top, float score, int64_t rowid);
/* Sorts the kept pairs best first (score descending, then rowid ascending), in place. */
void sift_vector_top_sort(sift_vector_top *top);

/* The score of one float32 vector against the query (dot product, or minus the squared Euclidean distance). */
float sift_vector_score_f32(const float *query, const void *vector, int dim, int metric);
/* The scores of `count` float32 vectors (vectors[i], `dim` values each) into scores[i], each the very one
 * sift_vector_score_f32 gives; the next vectors' bytes are asked of the memory while one is scored (a re-rank's
 * candidates lie anywhere in the blocks kept). */
void sift_vector_score_f32_many(const float *query, const void *const *vectors, int count, int dim, int metric,
                                float *scores);

/* The score of a row's own blob (`bytes` bytes of little-endian float32) against the query as the index compares it:
 * the blob scaled to unit length first when `unit` (cosine), then as sift_vector_score_f32. NAN when the blob holds
 * no vector the index takes: another size than `dim` values, a NaN or an infinity, or all zeros with `unit`. */
float sift_vector_score_blob(const float *query, const void *blob, size_t bytes, int dim, int metric, int unit);

/* The checksum term of one stored slot: its bytes' sum and its rowid, mixed (a slot's place weighs it in its
 * block's checksum, see sift_vector_block_sum). */
uint32_t sift_vector_slot_sum(const void *bytes, size_t length, int64_t rowid);

/* Scores `count` float32 vectors of `dim` (stored one after another at `vectors`, rowids at `rowids`) against the
 * query and offers each to `top`, skipping slot i when mask is given and mask[i] is 0. The vectors are slots
 * `first`, `first` + 1, ... of their block (a block may be scanned in pieces). Returns their part of the block's
 * checksum: sum over slots i of (first + i + 1) * slot_sum(vector i, rowid i), modulo 2^64. */
uint64_t sift_vector_scan_f32(const float *query, const void *vectors, const void *rowids, const uint8_t *mask,
                              int first, int count, int dim, int metric, sift_vector_top *top);

/* The same over int8 codes: each slot is `dim` codes then two float32 (its scale and its squared norm); the query
 * is quantized the same way (codes in -127...127, scale, squared norm). Scores approximate those of the float
 * vectors; the codes' dot product in each is exact (32-bit integer sums). */
uint64_t sift_vector_scan_i8(const int8_t *query, float query_scale, float query_norm2, const void *codes,
                             const void *rowids, const uint8_t *mask, int first, int count, int dim, int metric,
                             sift_vector_top *top);

/* The int8 kernels (sift_vector_simd.h): the portable one, byte by byte; NEON (arm64); AVX2 (x86_64). */
enum { SIFT_VECTOR_KERNEL_SCALAR = 0, SIFT_VECTOR_KERNEL_NEON = 1, SIFT_VECTOR_KERNEL_AVX2 = 2, SIFT_VECTOR_KERNEL_AVX_VNNI = 3 };

/* Whether this build, on this processor, has `kernel`; the int8 scan runs the best of them (AVX-VNNI, else AVX2, else
 * NEON, else the scalar one). */
int sift_vector_has_kernel(int kernel);

/* What `kernel` (the scalar one when this build or processor lacks it) computes for one int8 slot of `stride`
 * bytes, its first `dim` bytes codes: their dot product with `query` (`dim` codes in -127...127), and in `words` the
 * sum of the slot's bytes as 32-bit words (see sift_vector_slot_sum). For tests of the kernels. */
int32_t sift_vector_dot_i8(int kernel, const int8_t *query, const void *slot, int dim, size_t stride, uint32_t *words);

/* The same over sign bits (`words` 64-bit words a slot): the score is minus the Hamming distance. */
uint64_t sift_vector_scan_bits(const uint64_t *query, const void *bits, const void *rowids, const uint8_t *mask,
                               int first, int count, int words, sift_vector_top *top);

/* Quantizes a float vector to int8 codes (symmetric, scale = max |x| / 127); writes the scale and squared norm. */
void sift_vector_quantize_i8(const float *vector, int dim, int8_t *codes, float *scale, float *norm2);
/* Writes the sign bits of a float vector (bit j set when x_j > 0) into `words` 64-bit words. */
void sift_vector_quantize_bits(const float *vector, int dim, uint64_t *bits, int words);

/* The memory-bandwidth floor of a scan: sums `length` bytes as 32-bit words (the same loads a scan makes). */
uint64_t sift_vector_sum_words(const void *bytes, size_t length);

#endif
