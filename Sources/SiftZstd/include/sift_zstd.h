#ifndef SIFT_ZSTD_H
#define SIFT_ZSTD_H

/*
 * SiftZstd: column compression with zstd (Debian's libzstd), used by Sift with the Compression package trait only.
 * Every zstd call of Sift is in sift_zstd.c, behind this header (which names no zstd type).
 *
 * A compressed value is a BLOB, written in the compact form:
 *
 *   byte 0      what the value was before compression: SIFT_ZSTD_COMPACT_TEXT or SIFT_ZSTD_COMPACT_BLOB
 *   then        the dictionary's number as unsigned LEB128: 0 for none, else its id less SIFT_ZSTD_FIRST_ID, plus 1
 *   then        the decompressed size as unsigned LEB128
 *   then        the blocks of one zstd frame of a single segment, without a dictionary id or a checksum, whose
 *               header (magic number, descriptor, size) the reader rebuilds from the size
 *
 * and when the frame holds one block (values up to a few KB), without the block's 3-byte header either: byte 0 is
 * then SIFT_ZSTD_ONE_BLOCK + 2 * the block's type (raw 0, a repeated byte 1, compressed 2) + 1 for a blob, and the
 * block's size is what follows the two numbers (the value's size for a repeated byte, whose block is that byte).
 *
 * or, when zstd's frame says more than that (a value too large for one segment), in the first form, which stored
 * values may also hold:
 *
 *   byte 0      SIFT_ZSTD_MAGIC
 *   byte 1      SIFT_ZSTD_TEXT or SIFT_ZSTD_BLOB
 *   bytes 2-5   the dictionary id, little-endian (0: no dictionary)
 *   bytes 6-    one zstd frame, whose header records the decompressed size and the dictionary id
 *
 * A compact value of one block takes 16 bytes less than the first form with a dictionary (zstd's magic number,
 * frame descriptor and block header, the frame's dictionary id, the kind's byte, and 3 of the 4 bytes of the id):
 * values of a few hundred bytes, a column's usual ones, lose a tenth of their size or more.
 *
 * Two SQL functions are registered on a connection by sift_zstd_register():
 *
 *   sift_compress(value, level, dictionary_id)   TEXT or BLOB -> the format above; NULL and numbers unchanged.
 *                                                 A value that would not shrink is returned as it was.
 *   sift_decompress(value)                       the format above -> the TEXT or BLOB it was; anything else
 *                                                 (plain text, numbers, other blobs) unchanged.
 *
 * Dictionaries are rows of `sift_zstd_dictionaries(id INTEGER PRIMARY KEY, ..., dictionary BLOB)`, read on first
 * use and kept per connection (an id is never given to another dictionary: ids are handed out in order from
 * SIFT_ZSTD_FIRST_ID, the first of zstd's private range, and written into the dictionary's header). A value that cannot be decoded (bad header or frame, unknown dictionary,
 * a size past SQLite's length limit) fails the statement with SQLITE_ERROR, and the reason is kept for
 * sift_zstd_take_failure(); no size read from a value allocates memory before it is checked.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sqlite3 sqlite3;

#define SIFT_ZSTD_MAGIC 0xC5
#define SIFT_ZSTD_TEXT 1
#define SIFT_ZSTD_BLOB 2
#define SIFT_ZSTD_HEADER 6
#define SIFT_ZSTD_COMPACT_TEXT 0xC6
#define SIFT_ZSTD_COMPACT_BLOB 0xC7
/* The first of six bytes (0xD0-0xD5) that start a compact value of one block: + 2 * the block's type (0 raw, 1 one
   byte repeated, 2 compressed) + 1 for a blob. */
#define SIFT_ZSTD_ONE_BLOCK 0xD0
#define SIFT_ZSTD_FIRST_ID 32768u

/* Why the last decoding on this thread failed. */
enum sift_zstd_failure {
    SIFT_ZSTD_OK = 0,
    SIFT_ZSTD_DAMAGED = 1,            /* bad header, or a frame zstd refuses */
    SIFT_ZSTD_UNKNOWN_DICTIONARY = 2, /* the dictionary id names no stored dictionary */
    SIFT_ZSTD_TOO_LARGE = 3,          /* the frame's decompressed size is past the limit, or unknown */
    SIFT_ZSTD_FAILED = 4,             /* compression failed, or memory ran out */
};

/* Registers sift_compress() and sift_decompress() on `db`; returns an SQLite result code. */
int sift_zstd_register(sqlite3 *db);

/* The failure of the last sift_compress/sift_decompress on this thread and its detail (the dictionary id, or the
 * size); clears it. */
int sift_zstd_take_failure(int64_t *detail);

/* Trains a dictionary of at most `capacity` bytes into `dictionary` from `count` samples laid end to end in
 * `samples` (`sizes` their lengths), with id `id` (at least SIFT_ZSTD_FIRST_ID). Returns its length (0 when zstd's
 * trainer failed, e.g. too few samples, or the id is too small). */
size_t sift_zstd_train(void *dictionary, size_t capacity, const void *samples, const size_t *sizes, unsigned count,
                       uint32_t id);

#ifdef __cplusplus
}
#endif

#endif
