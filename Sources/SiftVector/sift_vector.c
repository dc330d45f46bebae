#include "sift_vector.h"
#include "sift_vector_simd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Stored data comes at any address: loads through these types are unaligned and may alias the blob's bytes. */
typedef uint32_t sift_uu32 __attribute__((aligned(1), may_alias));
typedef int64_t sift_ui64 __attribute__((aligned(1), may_alias));
typedef uint64_t sift_uu64 __attribute__((aligned(1), may_alias));

#define SIFT_LANES 16
#define SIFT_INLINE static inline __attribute__((always_inline))

/* ---- top k ---- */

/* Whether (a, ra) ranks below (b, rb): a smaller score, or the same score and a larger rowid. */
SIFT_INLINE int worse(float a, int64_t ra, float b, int64_t rb) { return a < b || (a == b && ra > rb); }

SIFT_INLINE void swap_entries(sift_vector_top *top, int i, int j) {
    float s = top->scores[i]; top->scores[i] = top->scores[j]; top->scores[j] = s;
    int64_t id = top->rowids[i]; top->rowids[i] = top->rowids[j]; top->rowids[j] = id;
    if (top->places) { int64_t p = top->places[i]; top->places[i] = top->places[j]; top->places[j] = p; }
}

static void sift_down(sift_vector_top *top, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < top->count && worse(top->scores[l], top->rowids[l], top->scores[m], top->rowids[m])) m = l;
        if (r < top->count && worse(top->scores[r], top->rowids[r], top->scores[m], top->rowids[m])) m = r;
        if (m == i) return;
        swap_entries(top, i, m);
        i = m;
    }
}

/* Offers a pair from slot `slot` of block `top->block` (its place, kept when `top->places` is set). */
static void top_offer(sift_vector_top *top, float score, int64_t rowid, int slot) {
    if (top->capacity <= 0) return;
    if (score != score) score = -INFINITY;  /* overflowing magnitudes: last, never in the way of a real score */
    int64_t place = top->block * SIFT_VECTOR_PLACE_BLOCK + slot;
    if (top->count < top->capacity) {
        int i = top->count++;
        top->scores[i] = score;
        top->rowids[i] = rowid;
        if (top->places) top->places[i] = place;
        while (i > 0) {
            int p = (i - 1) / 2;
            if (!worse(top->scores[i], top->rowids[i], top->scores[p], top->rowids[p])) break;
            swap_entries(top, i, p);
            i = p;
        }
        return;
    }
    if (!worse(top->scores[0], top->rowids[0], score, rowid)) return;
    top->scores[0] = score;
    top->rowids[0] = rowid;
    if (top->places) top->places[0] = place;
    sift_down(top, 0);
}

void sift_vector_top_offer(sift_vector_top *top, float score, int64_t rowid) { top_offer(top, score, rowid, 0); }

void sift_vector_top_sort(sift_vector_top *top) {
    /* Heap sort: the root (the worst kept) goes to the end each round, so the array ends best first. */
    int n = top->count;
    while (top->count > 1) {
        swap_entries(top, 0, top->count - 1);
        top->count--;
        sift_down(top, 0);
    }
    top->count = n;
}

/* ---- kernels (inlined into a baseline and an AVX2+FMA+POPCNT build of each scan) ---- */

/* One float32 vector's score against the query (dot product, or minus the squared Euclidean distance when `l2`)
 * and the sum of its bytes as 32-bit words, in one pass: each load feeds both. Four accumulators of eight lanes
 * keep the multiply-adds independent (one chain would wait on each add's latency); the lanes are summed in a fixed
 * order (SIFT_SUM_F32X8), so every build of a scan and sift_vector_score_f32 give the same order of additions. */
SIFT_INLINE float score_f32(const float *q, const uint8_t *v, int dim, int l2, uint32_t *words) {
    sift_f32x8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    sift_u32x8 w0 = {0}, w1 = {0};
    int j = 0;
    for (; j + 32 <= dim; j += 32) {
        sift_f32x8 v0 = SIFT_LOAD(sift_f32x8, v + 4 * j), v1 = SIFT_LOAD(sift_f32x8, v + 4 * j + 32);
        sift_f32x8 v2 = SIFT_LOAD(sift_f32x8, v + 4 * j + 64), v3 = SIFT_LOAD(sift_f32x8, v + 4 * j + 96);
        w0 += (sift_u32x8)v0 + (sift_u32x8)v1;
        w1 += (sift_u32x8)v2 + (sift_u32x8)v3;
        sift_f32x8 q0 = SIFT_LOAD(sift_f32x8, q + j), q1 = SIFT_LOAD(sift_f32x8, q + j + 8);
        sift_f32x8 q2 = SIFT_LOAD(sift_f32x8, q + j + 16), q3 = SIFT_LOAD(sift_f32x8, q + j + 24);
        if (l2) {
            sift_f32x8 d0 = q0 - v0, d1 = q1 - v1, d2 = q2 - v2, d3 = q3 - v3;
            a0 += d0 * d0; a1 += d1 * d1; a2 += d2 * d2; a3 += d3 * d3;
        } else {
            a0 += q0 * v0; a1 += q1 * v1; a2 += q2 * v2; a3 += q3 * v3;
        }
    }
    for (; j + 8 <= dim; j += 8) {
        sift_f32x8 v0 = SIFT_LOAD(sift_f32x8, v + 4 * j), q0 = SIFT_LOAD(sift_f32x8, q + j);
        w0 += (sift_u32x8)v0;
        if (l2) { sift_f32x8 d0 = q0 - v0; a0 += d0 * d0; } else { a0 += q0 * v0; }
    }
    sift_f32x8 all = (a0 + a1) + (a2 + a3);
    float sum = SIFT_SUM_F32X8(all);
    sift_u32x8 words_x8 = w0 + w1;
    uint32_t word = SIFT_SUM_U32X8(words_x8);
    for (; j < dim; j++) {
        float x;
        uint32_t bits;
        memcpy(&x, v + 4 * j, 4);
        memcpy(&bits, v + 4 * j, 4);
        word += bits;
        if (l2) { float d = q[j] - x; sum += d * d; } else { sum += q[j] * x; }
    }
    *words = word;
    return l2 ? -sum : sum;
}

SIFT_INLINE uint32_t word_sum(const uint8_t *bytes, size_t length) {
    const sift_uu32 *w = (const sift_uu32 *)bytes;
    size_t words = length / 4;
    uint32_t acc[SIFT_LANES] = {0};
    size_t i = 0;
    for (; i + SIFT_LANES <= words; i += SIFT_LANES)
        for (int l = 0; l < SIFT_LANES; l++) acc[l] += w[i + l];
    uint32_t sum = 0;
    for (; i < words; i++) sum += w[i];
    for (int l = 0; l < SIFT_LANES; l++) sum += acc[l];
    for (size_t b = words * 4; b < length; b++) sum += bytes[b];
    return sum;
}

/* A slot's rowid, mixed into its checksum term. */
SIFT_INLINE uint32_t rowid_mix(int64_t rowid) {
    uint64_t id = (uint64_t)rowid;
    return (uint32_t)id * 2654435761u + (uint32_t)(id >> 32) * 40503u;
}

SIFT_INLINE uint32_t slot_sum(const uint8_t *bytes, size_t length, int64_t rowid) {
    return word_sum(bytes, length) + rowid_mix(rowid);
}

/* Offers a pair unless it cannot enter a full top (a strictly smaller score than the worst kept): most pairs of a
 * scan stop at this one comparison. */
SIFT_INLINE void offer(sift_vector_top *top, float score, int64_t rowid, int slot) {
    if (top->count == top->capacity && score < top->scores[0]) return;
    top_offer(top, score, rowid, slot);
}

/* Vectors ahead of the one scored whose bytes a float32 scan asks the memory for (a hint: no fault, no effect on the
 * results). Blocks kept in memory are separate allocations and the hardware's prefetchers stop at each 4 KB page:
 * at 100,000 x 384 dimensions the scan of kept blocks went from 1.36x to 1.21-1.25x the memory floor; 8 ahead
 * measured the same as 4. */
#define SIFT_PREFETCH_F32 4
/* The same for int8 slots, a quarter of the bytes: int8 codes kept in memory, with an exact re-rank of 100, went
 * from 2.15 to 1.78 ms at 100,000 slots. */
#define SIFT_PREFETCH_I8 16
/* The same for binary slots (48 bytes at 384 dimensions): about a kilobyte and a half ahead. */
#define SIFT_PREFETCH_BITS 32
SIFT_INLINE uint64_t scan_f32_metric(const float *query, const void *vectors, const void *rowids, const uint8_t *mask,
                                     int first, int count, int dim, int l2, sift_vector_top *top) {
    const uint8_t *base = (const uint8_t *)vectors;
    const sift_ui64 *ids = (const sift_ui64 *)rowids;
    size_t stride = (size_t)dim * 4;
    uint64_t checksum = 0;
    for (int i = 0; i < count; i++) {
        const uint8_t *v = base + (size_t)i * stride;
        int64_t rowid = ids[i];
        if (i + SIFT_PREFETCH_F32 < count)
            for (size_t b = 0; b < stride; b += 64) __builtin_prefetch(v + SIFT_PREFETCH_F32 * stride + b);
        if (mask && !mask[i]) {
            checksum += (uint64_t)(first + i + 1) * slot_sum(v, stride, rowid);
            continue;
        }
        uint32_t words;
        float score = score_f32(query, v, dim, l2, &words);
        checksum += (uint64_t)(first + i + 1) * (words + rowid_mix(rowid));
        offer(top, score, rowid, first + i);
    }
    return checksum;
}

SIFT_INLINE uint64_t scan_f32(const float *query, const void *vectors, const void *rowids, const uint8_t *mask,
                              int first, int count, int dim, int metric, sift_vector_top *top) {
    /* The metric as a constant in each loop. */
    return metric == SIFT_VECTOR_L2 ? scan_f32_metric(query, vectors, rowids, mask, first, count, dim, 1, top)
                                    : scan_f32_metric(query, vectors, rowids, mask, first, count, dim, 0, top);
}

/* An int8 kernel of sift_vector_simd.h. Each build of the scan passes a constant one, so once the scan is inlined
 * into that build the kernel is called directly and inlined in turn: no call through a pointer remains. */
typedef int32_t (*dot_i8_kernel)(const int8_t *q, const uint8_t *c, int dim, size_t stride, uint32_t *words);

SIFT_INLINE uint64_t scan_i8(dot_i8_kernel dot, const int8_t *query, float qscale, float qnorm2, const void *codes,
                             const void *rowids, const uint8_t *mask, int first, int count, int dim, int metric,
                             sift_vector_top *top) {
    const uint8_t *base = (const uint8_t *)codes;
    const sift_ui64 *ids = (const sift_ui64 *)rowids;
    size_t stride = (size_t)dim + 8;
    uint64_t checksum = 0;
    for (int i = 0; i < count; i++) {
        const uint8_t *c = base + (size_t)i * stride;
        int64_t rowid = ids[i];
        if (i + SIFT_PREFETCH_I8 < count)
            for (size_t b = 0; b < stride; b += 64) __builtin_prefetch(c + SIFT_PREFETCH_I8 * stride + b);
        if (mask && !mask[i]) {
            checksum += (uint64_t)(first + i + 1) * slot_sum(c, stride, rowid);
            continue;
        }
        uint32_t words;
        int32_t codes_dot = dot(query, c, dim, stride, &words);
        checksum += (uint64_t)(first + i + 1) * (words + rowid_mix(rowid));
        float scale, norm2;
        memcpy(&scale, c + dim, 4);
        memcpy(&norm2, c + dim + 4, 4);
        float product = qscale * scale * (float)codes_dot;
        offer(top, metric == SIFT_VECTOR_L2 ? -(qnorm2 + norm2 - 2 * product) : product, rowid, first + i);
    }
    return checksum;
}

SIFT_INLINE uint64_t scan_bits(const uint64_t *query, const void *bits, const void *rowids, const uint8_t *mask,
                               int first, int count, int words, sift_vector_top *top) {
    const uint8_t *base = (const uint8_t *)bits;
    const sift_ui64 *ids = (const sift_ui64 *)rowids;
    size_t stride = (size_t)words * 8;
    uint64_t checksum = 0;
    for (int i = 0; i < count; i++) {
        const sift_uu64 *w = (const sift_uu64 *)(base + (size_t)i * stride);
        int64_t rowid = ids[i];
        if (i + SIFT_PREFETCH_BITS < count) __builtin_prefetch((const uint8_t *)w + SIFT_PREFETCH_BITS * stride);
        /* Each 64-bit word read once: its bits against the query's, and its two 32-bit halves into the word sum. */
        int distance = 0;
        uint64_t halves = 0;
        for (int j = 0; j < words; j++) {
            uint64_t word = w[j];
            distance += __builtin_popcountll(query[j] ^ word);
            halves += (word & 0xFFFFFFFFu) + (word >> 32);
        }
        checksum += (uint64_t)(first + i + 1) * ((uint32_t)halves + rowid_mix(rowid));
        if (mask && !mask[i]) continue;
        offer(top, -(float)distance, rowid, first + i);
    }
    return checksum;
}

/* ---- run-time choice of the build ---- */

/* The int8 kernel of the builds without AVX2: NEON on arm64 (always there), else a byte at a time. */
#if defined(__aarch64__)
#define SIFT_DOT_I8_PORTABLE sift_dot_i8_neon
#else
#define SIFT_DOT_I8_PORTABLE sift_dot_i8_scalar
#endif

#ifdef SIFT_TARGET_AVX2
#define SIFT_AVX2 SIFT_TARGET_AVX2
static int has_avx2(void) {
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("popcnt");
    }
    return known;
}
SIFT_AVX2 static uint64_t scan_f32_avx2(const float *q, const void *v, const void *r, const uint8_t *m, int f, int n, int d,
                                        int metric, sift_vector_top *t) { return scan_f32(q, v, r, m, f, n, d, metric, t); }
SIFT_AVX2 static uint64_t scan_i8_avx2(const int8_t *q, float qs, float qn, const void *c, const void *r,
                                       const uint8_t *m, int f, int n, int d, int metric, sift_vector_top *t) {
    return scan_i8(sift_dot_i8_avx2, q, qs, qn, c, r, m, f, n, d, metric, t);
}
SIFT_AVX2 static uint64_t scan_bits_avx2(const uint64_t *q, const void *b, const void *r, const uint8_t *m, int f, int n, int w,
                                         sift_vector_top *t) { return scan_bits(q, b, r, m, f, n, w, t); }
SIFT_AVX2 static uint64_t sum_words_avx2(const void *bytes, size_t length) { return word_sum((const uint8_t *)bytes, length); }
#include <cpuid.h>
/* AVX-VNNI: CPUID leaf 7, subleaf 1, EAX bit 4 (the operating system keeps the YMM registers, as AVX2 needs too). */
static int has_avx_vnni(void) {
    static int known = -1;
    if (known < 0) {
        unsigned a = 0, b = 0, c = 0, d = 0;
        known = has_avx2() && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1);
    }
    return known;
}
#define SIFT_AVX_VNNI SIFT_TARGET_AVX_VNNI
SIFT_AVX_VNNI static uint64_t scan_i8_avx_vnni(const int8_t *q, float qs, float qn, const void *c, const void *r,
                                               const uint8_t *m, int f, int n, int d, int metric, sift_vector_top *t) {
    return scan_i8(sift_dot_i8_avx_vnni, q, qs, qn, c, r, m, f, n, d, metric, t);
}
SIFT_AVX_VNNI static int32_t dot_i8_avx_vnni(const int8_t *q, const void *c, int dim, size_t stride, uint32_t *words) {
    return sift_dot_i8_avx_vnni(q, (const uint8_t *)c, dim, stride, words);
}
#else
static int has_avx2(void) { return 0; }
static int has_avx_vnni(void) { return 0; }
#endif

int sift_vector_has_kernel(int kernel) {
    switch (kernel) {
    case SIFT_VECTOR_KERNEL_SCALAR: return 1;
#if defined(__aarch64__)
    case SIFT_VECTOR_KERNEL_NEON: return 1;
#endif
    case SIFT_VECTOR_KERNEL_AVX2: return has_avx2();
    case SIFT_VECTOR_KERNEL_AVX_VNNI: return has_avx_vnni();
    default: return 0;
    }
}

#ifdef SIFT_AVX2
SIFT_AVX2 static int32_t dot_i8_avx2(const int8_t *q, const void *c, int dim, size_t stride, uint32_t *words) {
    return sift_dot_i8_avx2(q, (const uint8_t *)c, dim, stride, words);
}
#endif

int32_t sift_vector_dot_i8(int kernel, const int8_t *query, const void *slot, int dim, size_t stride, uint32_t *words) {
#ifdef SIFT_AVX2
    if (kernel == SIFT_VECTOR_KERNEL_AVX_VNNI && has_avx_vnni()) return dot_i8_avx_vnni(query, slot, dim, stride, words);
    if (kernel == SIFT_VECTOR_KERNEL_AVX2 && has_avx2()) return dot_i8_avx2(query, slot, dim, stride, words);
#endif
#if defined(__aarch64__)
    if (kernel == SIFT_VECTOR_KERNEL_NEON) return sift_dot_i8_neon(query, (const uint8_t *)slot, dim, stride, words);
#endif
    return sift_dot_i8_scalar(query, (const uint8_t *)slot, dim, stride, words);
}

/* Vectors of sift_vector_score_f32_many asked of the memory ahead of the one scored: a re-rank reads its
 * candidates' vectors from all over the kept blocks, so each one is a wait on the memory unless asked early. */
#define SIFT_PREFETCH_MANY 2
SIFT_INLINE void score_many(const float *query, const void *const *vectors, int count, int dim, int l2, float *scores) {
    size_t bytes = (size_t)dim * 4;
    for (int i = 0; i < count && i < SIFT_PREFETCH_MANY; i++)
        for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch((const uint8_t *)vectors[i] + b);
    for (int i = 0; i < count; i++) {
        if (i + SIFT_PREFETCH_MANY < count)
            for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch((const uint8_t *)vectors[i + SIFT_PREFETCH_MANY] + b);
        uint32_t words;
        scores[i] = score_f32(query, (const uint8_t *)vectors[i], dim, l2, &words);
    }
}

/* The baseline build only, as sift_vector_score_f32 and sift_vector_score_blob: an AVX2+FMA build fuses the
 * multiply-adds, and its scores differ from theirs in the last bit. */
void sift_vector_score_f32_many(const float *query, const void *const *vectors, int count, int dim, int metric,
                                float *scores) {
    score_many(query, vectors, count, dim, metric == SIFT_VECTOR_L2, scores);
}

float sift_vector_score_f32(const float *query, const void *vector, int dim, int metric) {
    uint32_t words;
    return score_f32(query, (const uint8_t *)vector, dim, metric == SIFT_VECTOR_L2, &words);
}

float sift_vector_score_blob(const float *query, const void *blob, size_t bytes, int dim, int metric, int unit) {
    if (!blob || dim < 1 || dim > 65536 || bytes != (size_t)dim * 4) return NAN;
    float stack[1024];
    float *values = dim <= 1024 ? stack : malloc((size_t)dim * sizeof *values);
    if (!values) return NAN;
    const uint8_t *b = (const uint8_t *)blob;
    double norm2 = 0;
    int finite = 1;
    for (int j = 0; j < dim; j++) {
        uint32_t bits = (uint32_t)b[4 * j] | (uint32_t)b[4 * j + 1] << 8 | (uint32_t)b[4 * j + 2] << 16 | (uint32_t)b[4 * j + 3] << 24;
        memcpy(&values[j], &bits, 4);
        finite &= isfinite(values[j]) != 0;
        norm2 += (double)values[j] * (double)values[j];
    }
    float score = NAN;
    if (finite && unit) {
        /* As VectorIndex.prepared scales a vector: each value divided by the norm in double, then rounded. */
        double norm = sqrt(norm2);
        if (norm > 0 && isfinite(norm)) {
            for (int j = 0; j < dim; j++) values[j] = (float)((double)values[j] / norm);
            score = sift_vector_score_f32(query, values, dim, metric);
        }
    } else if (finite) {
        score = sift_vector_score_f32(query, values, dim, metric);
    }
    if (values != stack) free(values);
    return score;
}

uint32_t sift_vector_slot_sum(const void *bytes, size_t length, int64_t rowid) {
    return slot_sum((const uint8_t *)bytes, length, rowid);
}

uint64_t sift_vector_scan_f32(const float *query, const void *vectors, const void *rowids, const uint8_t *mask,
                              int first, int count, int dim, int metric, sift_vector_top *top) {
#ifdef SIFT_AVX2
    if (has_avx2()) return scan_f32_avx2(query, vectors, rowids, mask, first, count, dim, metric, top);
#endif
    return scan_f32(query, vectors, rowids, mask, first, count, dim, metric, top);
}

uint64_t sift_vector_scan_i8(const int8_t *query, float query_scale, float query_norm2, const void *codes,
                             const void *rowids, const uint8_t *mask, int first, int count, int dim, int metric,
                             sift_vector_top *top) {
#ifdef SIFT_AVX2
    if (has_avx_vnni()) return scan_i8_avx_vnni(query, query_scale, query_norm2, codes, rowids, mask, first, count, dim, metric, top);
    if (has_avx2()) return scan_i8_avx2(query, query_scale, query_norm2, codes, rowids, mask, first, count, dim, metric, top);
#endif
    return scan_i8(SIFT_DOT_I8_PORTABLE, query, query_scale, query_norm2, codes, rowids, mask, first, count, dim, metric, top);
}

uint64_t sift_vector_scan_bits(const uint64_t *query, const void *bits, const void *rowids, const uint8_t *mask,
                               int first, int count, int words, sift_vector_top *top) {
#ifdef SIFT_AVX2
    if (has_avx2()) return scan_bits_avx2(query, bits, rowids, mask, first, count, words, top);
#endif
    return scan_bits(query, bits, rowids, mask, first, count, words, top);
}

void sift_vector_quantize_i8(const float *vector, int dim, int8_t *codes, float *scale, float *norm2) {
    float max = 0, n2 = 0;
    for (int j = 0; j < dim; j++) {
        float a = fabsf(vector[j]);
        if (a > max) max = a;
        n2 += vector[j] * vector[j];
    }
    float s = max > 0 ? max / 127.0f : 1.0f;
    for (int j = 0; j < dim; j++) {
        long c = lrintf(vector[j] / s);
        codes[j] = (int8_t)(c > 127 ? 127 : c < -127 ? -127 : c);
    }
    *scale = s;
    *norm2 = n2;
}

void sift_vector_quantize_bits(const float *vector, int dim, uint64_t *bits, int words) {
    memset(bits, 0, (size_t)words * 8);
    for (int j = 0; j < dim && j / 64 < words; j++)
        if (vector[j] > 0) bits[j / 64] |= (uint64_t)1 << (j % 64);
}

uint64_t sift_vector_sum_words(const void *bytes, size_t length) {
#ifdef SIFT_AVX2
    if (has_avx2()) return sum_words_avx2(bytes, length);
#endif
    return word_sum((const uint8_t *)bytes, length);
}
