#ifndef SIFT_CZLIB_SHIM_H
#define SIFT_CZLIB_SHIM_H
// zlib (Debian zlib1g-dev): SiftTools reads gzip files through it.
#include <zlib.h>

// inflateInit2 and deflateInit2 are macros, which Swift cannot call.

/// Prepares `stream` to inflate gzip data only (a gzip header and trailer around each deflate stream).
static inline int sift_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, MAX_WBITS + 16);
}

/// Prepares `stream` to deflate into gzip data at `level` (0-9, or Z_DEFAULT_COMPRESSION).
static inline int sift_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif
