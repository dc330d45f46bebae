#ifndef SIFT_VECTOR_SIMD_H
#define SIFT_VECTOR_SIMD_H

/* Eight-lane vectors for the scan kernels, in the compilers' vector extensions (Clang and GCC): the same source
 * becomes two SSE registers on baseline x86_64, one AVX2 register (with FMA) in the AVX2 builds, and two NEON
 * registers on arm64. Loads are unaligned (stored data comes at any address) and go through memcpy, which the
 * compilers turn into one unaligned vector load. */

#include <stdint.h>
#include <string.h>

typedef float sift_f32x8 __attribute__((vector_size(32)));
typedef uint32_t sift_u32x8 __attribute__((vector_size(32)));

/* Macros rather than functions: a function taking or returning these types would warn of its ABI in the builds
 * without AVX (they are always expanded in place, so no such call exists). */

/* An unaligned load of eight lanes of `type` at `p`. */
#define SIFT_LOAD(type, p) __extension__({ type sift_v_; memcpy(&sift_v_, (p), sizeof sift_v_); sift_v_; })

/* The lanes' float sum, always in the same order (pairs, then pairs of pairs), so every build ranks alike. */
#define SIFT_SUM_F32X8(v) (((v)[0] + (v)[4]) + ((v)[2] + (v)[6])) + (((v)[1] + (v)[5]) + ((v)[3] + (v)[7]))

/* The lanes' integer sum (modulo 2^32: any order gives the same). */
#define SIFT_SUM_U32X8(v) ((v)[0] + (v)[1] + (v)[2] + (v)[3] + (v)[4] + (v)[5] + (v)[6] + (v)[7])

#endif
