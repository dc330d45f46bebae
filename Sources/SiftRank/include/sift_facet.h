#ifndef SIFT_FACET_H
#define SIFT_FACET_H

#include <stdint.h>

/*
 * Facet counting over Sift's facet chunks (`FacetStore` in Sources/Sift/FullText/Facets): a facet keeps, per chunk
 * of SIFT_FACET_CHUNK_ROWS consecutive rowids (chunk = rowid >> SIFT_FACET_CHUNK_SHIFT, arithmetic), one 32-bit
 * little-endian value ordinal per rowid: 0 for a rowid without a content row, 1 for NULL, 2 and up for the entries
 * of the facet's value dictionary.
 */
#define SIFT_FACET_CHUNK_SHIFT 10
#define SIFT_FACET_CHUNK_ROWS (1 << SIFT_FACET_CHUNK_SHIFT)
#define SIFT_FACET_CHUNK_BYTES (SIFT_FACET_CHUNK_ROWS * 4)

/* A growable list of rowids, filled by sift_facet_collect and freed by sift_facet_rowids_free. */
typedef struct sift_facet_rowids {
    int64_t *rowids;
    int64_t count;
    int64_t capacity;
} sift_facet_rowids;

struct sqlite3_stmt;

/* Grows `rowids` to hold at least one more rowid (doubling, from 4,096). Returns 0, or 1 when memory ran out. */
int sift_facet_rowids_grow(sift_facet_rowids *rowids);

/* Appends `rowid` to `rowids`. Returns 0, or 1 when memory ran out. */
static inline int sift_facet_rowids_append(sift_facet_rowids *rowids, int64_t rowid) {
    if (rowids->count == rowids->capacity && sift_facet_rowids_grow(rowids)) return 1;
    rowids->rowids[rowids->count++] = rowid;
    return 0;
}

/* Steps `stmt` to its end, appending the integer of its column `column` of every row to `out`, then sorts `out`
   ascending when the statement did not return them in order. Returns SQLITE_DONE, SQLite's error code of the failed
   step, or SQLITE_NOMEM. */
int sift_facet_collect(struct sqlite3_stmt *stmt, int column, sift_facet_rowids *out);

void sift_facet_rowids_free(sift_facet_rowids *rowids);

/* Adds 1 to counts[ordinal] for each rowid of `rowids` (sorted, `count` of them) that falls in chunk `chunk`,
   from the first on, reading the ordinals of `blob` (`bytes` long). Sets *consumed to how many rowids it counted.
   Returns 0, or 1 when what it read is implausible (a blob not SIFT_FACET_CHUNK_BYTES long, an ordinal 0 for a
   matching row, or one at or past `ordinals`): the caller then counts another way. */
int sift_facet_tally(const void *blob, int bytes, int64_t chunk, const int64_t *rowids, int64_t count,
                     uint32_t *counts, uint32_t ordinals, int64_t *consumed);

/* Adds 1 to counts[ordinal] for every nonzero ordinal of `blob` (all the rows of a chunk). Returns the rows counted,
   or -1 when the blob is implausible (see sift_facet_tally). */
int64_t sift_facet_tally_all(const void *blob, int bytes, uint32_t *counts, uint32_t ordinals);

/* Registers sift_facet_set(chunk, offset, ordinal) on `db`: `chunk` (a blob, or NULL for a new chunk of zeros) with
   the ordinal at row `offset` (0 to SIFT_FACET_CHUNK_ROWS - 1) set; an error for any other shape. */
struct sqlite3;
int sift_facet_register(struct sqlite3 *db);

#endif
