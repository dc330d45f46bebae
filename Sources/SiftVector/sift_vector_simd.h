#ifndef SIFT_VECTOR_SIMD_H
#define SIFT_VECTOR_SIMD_H

/* The scan kernels' vector code, all of it in this header.
 *
 * Float32: eight-lane vectors in the compilers' vector extensions (Clang and GCC): the same source becomes two SSE
 * registers on baseline x86_64, one AVX2 register (with FMA) in the AVX2 builds, and two NEON registers on arm64.
 *
 * Int8: one kernel a processor kind (sift_dot_i8_avx_vnni, sift_dot_i8_avx2, sift_dot_i8_neon, sift_dot_i8_scalar),
 * each giving a slot's
 * dot product with the query and the sum of the slot's bytes as 32-bit words in one pass over its bytes.
 *
 * Loads are unaligned (stored data comes at any address). */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef float sift_f32x8 __attribute__((vector_size(32)));
typedef uint32_t sift_u32x8 __attribute__((vector_size(32)));

/* Macros rather than functions: a function taking or returning these types would warn of its ABI in the builds
 * without AVX (they are always expanded in place, so no such call exists). */

/* An unaligned load of eight lanes of `type` at `p`, through memcpy (one unaligned vector load). */
#define SIFT_LOAD(type, p) __extension__({ type sift_v_; memcpy(&sift_v_, (p), sizeof sift_v_); sift_v_; })

/* The lanes' float sum, always in the same order (pairs, then pairs of pairs), so every build ranks alike. */
#define SIFT_SUM_F32X8(v) (((v)[0] + (v)[4]) + ((v)[2] + (v)[6])) + (((v)[1] + (v)[5]) + ((v)[3] + (v)[7]))

/* The lanes' integer sum (modulo 2^32: any order gives the same). */
#define SIFT_SUM_U32X8(v) ((v)[0] + (v)[1] + (v)[2] + (v)[3] + (v)[4] + (v)[5] + (v)[6] + (v)[7])

#define SIFT_SIMD_INLINE static inline __attribute__((always_inline))

/* ---- int8 ----
 *
 * Every kernel has the same contract: `q` holds `dim` query codes in -127...127, `c` one slot of `stride` bytes
 * (`dim` codes, any of -128...127, then what follows them in the slot); it returns the dot product of the codes,
 * exact in 32 bits (at most 65,536 * 127 * 128 < 2^31 in magnitude, for every dimension an index takes), and
 * writes the sum of the slot's `stride` bytes as 32-bit words (native order, modulo 2^32; a last partial word's
 * bytes one by one), the checksum term sift_vector.c's word_sum gives. */

/* The words of `length` bytes from `bytes` (a kernel's tail, a few words long). */
SIFT_SIMD_INLINE uint32_t sift_words_tail(const uint8_t *bytes, size_t length) {
    uint32_t sum = 0;
    size_t b = 0;
    for (; b + 4 <= length; b += 4) {
        uint32_t word;
        memcpy(&word, bytes + b, 4);
        sum += word;
    }
    for (; b < length; b++) sum += bytes[b];
    return sum;
}

/* Codes `from`..<`dim`, one at a time. */
SIFT_SIMD_INLINE int32_t sift_dot_i8_tail(const int8_t *q, const uint8_t *c, int from, int dim) {
    int32_t sum = 0;
    for (int j = from; j < dim; j++) sum += (int32_t)q[j] * (int32_t)(int8_t)c[j];
    return sum;
}

/* The portable kernel, a byte at a time (and the reference the tests hold the others to). */
SIFT_SIMD_INLINE int32_t sift_dot_i8_scalar(const int8_t *q, const uint8_t *c, int dim, size_t stride, uint32_t *words) {
    *words = sift_words_tail(c, stride);
    return sift_dot_i8_tail(q, c, 0, dim);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

/* Code compiled for AVX2, FMA and POPCNT; called only when the processor has them (see sift_vector.c). Without
 * POPCNT, a baseline build counts a word's bits with a dozen shifts, masks and adds. */
#define SIFT_TARGET_AVX2 __attribute__((target("avx2,fma,popcnt")))
/* Code compiled for AVX2, FMA, POPCNT and AVX-VNNI (VEX-encoded, 256-bit); called only when the processor has them. */
#define SIFT_TARGET_AVX_VNNI __attribute__((target("avx2,fma,popcnt,avxvnni")))

/* The body of both x86 kernels: 32 codes a step, two accumulators a step of 64, the same 32-byte load feeding the
 * word sum; `ACCUMULATE(acc, c, q)` adds a step's products c * q into acc's 32-bit lanes. Both take |c| (vpabsb:
 * 128 for -128, right as an unsigned byte) times q with c's sign (vpsignb; |q| <= 127, so never -128), since their
 * multiplies take unsigned by signed bytes:
 * - AVX2: vpmaddubsw adds the products in pairs into 16 bits (at most 2 * 128 * 127 = 32,512: no saturation), and
 *   vpmaddwd by ones adds those pairs into 32-bit lanes;
 * - AVX-VNNI: vpdpbusd adds each four products (at most 4 * 128 * 127 = 65,024 in magnitude) into a 32-bit lane,
 *   without saturating. */
#define SIFT_DOT_I8_X86(ACCUMULATE)                                                                                   \
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256(), w = _mm256_setzero_si256();                \
    int j = 0;                                                                                                        \
    for (; j + 64 <= dim; j += 64) {                                                                                  \
        __m256i c0 = _mm256_loadu_si256((const __m256i *)(c + j)), c1 = _mm256_loadu_si256((const __m256i *)(c + j + 32)); \
        __m256i q0 = _mm256_loadu_si256((const __m256i *)(q + j)), q1 = _mm256_loadu_si256((const __m256i *)(q + j + 32)); \
        w = _mm256_add_epi32(w, _mm256_add_epi32(c0, c1));                                                            \
        acc0 = ACCUMULATE(acc0, c0, q0);                                                                              \
        acc1 = ACCUMULATE(acc1, c1, q1);                                                                              \
    }                                                                                                                 \
    if (j + 32 <= dim) {                                                                                              \
        __m256i c0 = _mm256_loadu_si256((const __m256i *)(c + j)), q0 = _mm256_loadu_si256((const __m256i *)(q + j)); \
        w = _mm256_add_epi32(w, c0);                                                                                  \
        acc0 = ACCUMULATE(acc0, c0, q0);                                                                              \
        j += 32;                                                                                                      \
    }                                                                                                                 \
    /* Both sums at once: lane 0 the dot product's, lane 1 the words'. */                                             \
    __m256i pairs = _mm256_hadd_epi32(_mm256_add_epi32(acc0, acc1), w);                                               \
    pairs = _mm256_hadd_epi32(pairs, pairs);                                                                          \
    __m128i sums = _mm_add_epi32(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1));                  \
    *words = (uint32_t)_mm_extract_epi32(sums, 1) + sift_words_tail(c + j, stride - (size_t)j);                       \
    return _mm_cvtsi128_si32(sums) + sift_dot_i8_tail(q, c, j, dim);

#define SIFT_ACCUMULATE_AVX2(acc, cv, qv)                                                                             \
    _mm256_add_epi32((acc), _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(cv), _mm256_sign_epi8((qv), (cv))), \
                                              _mm256_set1_epi16(1)))
#define SIFT_ACCUMULATE_AVX_VNNI(acc, cv, qv) _mm256_dpbusd_avx_epi32((acc), _mm256_abs_epi8(cv), _mm256_sign_epi8((qv), (cv)))

SIFT_TARGET_AVX2 SIFT_SIMD_INLINE int32_t sift_dot_i8_avx2(const int8_t *q, const uint8_t *c, int dim, size_t stride,
                                                           uint32_t *words) {
    SIFT_DOT_I8_X86(SIFT_ACCUMULATE_AVX2)
}

SIFT_TARGET_AVX_VNNI SIFT_SIMD_INLINE int32_t sift_dot_i8_avx_vnni(const int8_t *q, const uint8_t *c, int dim, size_t stride,
                                                                   uint32_t *words) {
    SIFT_DOT_I8_X86(SIFT_ACCUMULATE_AVX_VNNI)
}
#endif

#if defined(__aarch64__)
#include <arm_neon.h>

/* 16 codes a step: with the dot-product extension, sdot adds four products into each 32-bit lane; without it,
 * smull/smull2 make eight 16-bit products each (at most 128 * 127: no overflow) and sadalp adds them in pairs
 * into 32-bit lanes. The same 16-byte load feeds the word sum. */
SIFT_SIMD_INLINE int32_t sift_dot_i8_neon(const int8_t *q, const uint8_t *c, int dim, size_t stride, uint32_t *words) {
    int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
    uint32x4_t w = vdupq_n_u32(0);
    int j = 0;
    for (; j + 16 <= dim; j += 16) {
        int8x16_t cv = vld1q_s8((const int8_t *)(c + j)), qv = vld1q_s8(q + j);
        w = vaddq_u32(w, vreinterpretq_u32_s8(cv));
#if defined(__ARM_FEATURE_DOTPROD)
        acc0 = vdotq_s32(acc0, cv, qv);
#else
        acc0 = vpadalq_s16(acc0, vmull_s8(vget_low_s8(cv), vget_low_s8(qv)));
        acc1 = vpadalq_s16(acc1, vmull_high_s8(cv, qv));
#endif
    }
    *words = vaddvq_u32(w) + sift_words_tail(c + j, stride - (size_t)j);
    return vaddvq_s32(vaddq_s32(acc0, acc1)) + sift_dot_i8_tail(q, c, j, dim);
}
#endif

#endif
