/* Column compression with zstd: the value format, the SQL functions and dictionary training (see sift_zstd.h). */
#include "sift_zstd.h"

#include <sqlite3.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

static _Thread_local int last_failure;
static _Thread_local int64_t last_detail;

int sift_zstd_take_failure(int64_t *detail) {
    int failure = last_failure;
    if (detail) *detail = last_detail;
    last_failure = SIFT_ZSTD_OK;
    last_detail = 0;
    return failure;
}

/* One dictionary as this connection uses it; the compression form is made per level on first use. */
typedef struct dictionary {
    uint32_t id;
    int level;
    ZSTD_DDict *ddict;
    ZSTD_CDict *cdict;
    void *bytes;
    size_t size;
    struct dictionary *next;
} dictionary;

/* What a connection's two functions share: zstd's contexts and the dictionaries read so far. */
typedef struct connection {
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
    dictionary *dictionaries;
} connection;

static void connection_free(void *pointer) {
    connection *c = pointer;
    if (!c) return;
    dictionary *d = c->dictionaries;
    while (d) {
        dictionary *next = d->next;
        ZSTD_freeDDict(d->ddict);
        ZSTD_freeCDict(d->cdict);
        sqlite3_free(d->bytes);
        sqlite3_free(d);
        d = next;
    }
    ZSTD_freeCCtx(c->cctx);
    ZSTD_freeDCtx(c->dctx);
    sqlite3_free(c);
}

static void fail(sqlite3_context *context, int failure, int64_t detail, const char *message) {
    last_failure = failure;
    last_detail = detail;
    sqlite3_result_error(context, message, -1);
}

/* The dictionary `id`, read from sift_zstd_dictionaries on first use; NULL when no row has it. */
static dictionary *find_dictionary(sqlite3_context *context, connection *c, uint32_t id) {
    for (dictionary *d = c->dictionaries; d; d = d->next) {
        if (d->id == id) return d;
    }
    sqlite3 *db = sqlite3_context_db_handle(context);
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, "SELECT dictionary FROM main.sift_zstd_dictionaries WHERE id = ?", -1, &stmt, NULL) != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return NULL;
    }
    sqlite3_bind_int64(stmt, 1, id);
    dictionary *found = NULL;
    if (sqlite3_step(stmt) == SQLITE_ROW) {
        const void *bytes = sqlite3_column_blob(stmt, 0);
        int size = sqlite3_column_bytes(stmt, 0);
        /* A stored dictionary must carry its own id (zstd's dictionary header): anything else is not one of ours. */
        if (bytes && size > 8 && ZDICT_getDictID(bytes, (size_t)size) == id) {
            found = sqlite3_malloc(sizeof *found);
            void *copy = sqlite3_malloc(size);
            if (found && copy) {
                memcpy(copy, bytes, (size_t)size);
                *found = (dictionary){.id = id, .bytes = copy, .size = (size_t)size, .next = c->dictionaries};
                found->ddict = ZSTD_createDDict(copy, (size_t)size);
                if (found->ddict) {
                    c->dictionaries = found;
                } else {
                    sqlite3_free(copy);
                    sqlite3_free(found);
                    found = NULL;
                }
            } else {
                sqlite3_free(copy);
                sqlite3_free(found);
                found = NULL;
            }
        }
    }
    sqlite3_finalize(stmt);
    return found;
}

static void put_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Writes `value` as unsigned LEB128 at `p` (room for 10 bytes); the bytes it took. */
static size_t put_leb128(unsigned char *p, uint64_t value) {
    size_t n = 0;
    for (; value >= 0x80; value >>= 7) p[n++] = (unsigned char)(value & 0x7F) | 0x80;
    p[n++] = (unsigned char)value;
    return n;
}

/* Reads an unsigned LEB128 number of at most 9 bytes at `*at`, before `size`, into `*value`; 0 when it is cut
   short or longer. */
static int get_leb128(const unsigned char *in, size_t size, size_t *at, uint64_t *value) {
    *value = 0;
    for (int shift = 0; shift < 63; shift += 7) {
        if (*at >= size) return 0;
        unsigned char byte = in[(*at)++];
        *value |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) return 1;
    }
    return 0;
}

/* sift_compress(value, level, dictionary_id) */
static void compress_function(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    connection *c = sqlite3_user_data(context);
    int type = sqlite3_value_type(argv[0]);
    if (type != SQLITE_TEXT && type != SQLITE_BLOB) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    const void *source = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(argv[0]) : sqlite3_value_blob(argv[0]);
    size_t size = (size_t)sqlite3_value_bytes(argv[0]);
    /* Text that does not shrink stays text; a blob is always framed, so that a compressed column never holds a
     * bare blob that could be taken for a frame. */
    if (type == SQLITE_TEXT && size < 16) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    int level = sqlite3_value_int(argv[1]);
    if (level < 1 || level > ZSTD_maxCLevel()) level = 3;
    sqlite3_int64 wanted = sqlite3_value_int64(argv[2]);
    if (wanted < 0 || wanted > UINT32_MAX) {
        fail(context, SIFT_ZSTD_UNKNOWN_DICTIONARY, wanted, "sift_compress: no such dictionary");
        return;
    }
    uint32_t id = (uint32_t)wanted;
    if (id != 0 && id < SIFT_ZSTD_FIRST_ID) {
        fail(context, SIFT_ZSTD_UNKNOWN_DICTIONARY, wanted, "sift_compress: no such dictionary");
        return;
    }
    dictionary *d = NULL;
    if (id != 0) {
        d = find_dictionary(context, c, id);
        if (!d) {
            fail(context, SIFT_ZSTD_UNKNOWN_DICTIONARY, id, "sift_compress: no such dictionary");
            return;
        }
        if (!d->cdict || d->level != level) {
            ZSTD_freeCDict(d->cdict);
            d->cdict = ZSTD_createCDict(d->bytes, d->size, level);
            d->level = level;
            if (!d->cdict) {
                fail(context, SIFT_ZSTD_FAILED, 0, "sift_compress: out of memory");
                return;
            }
        }
    }
    if (!c->cctx && !(c->cctx = ZSTD_createCCtx())) {
        fail(context, SIFT_ZSTD_FAILED, 0, "sift_compress: out of memory");
        return;
    }
    /* The frame, with no dictionary id in its header (the value's number names the dictionary). */
    size_t bound = ZSTD_compressBound(size);
    unsigned char *frame = sqlite3_malloc64(bound);
    if (!frame) {
        fail(context, SIFT_ZSTD_FAILED, 0, "sift_compress: out of memory");
        return;
    }
    size_t written = ZSTD_CCtx_reset(c->cctx, ZSTD_reset_session_and_parameters);
    if (!ZSTD_isError(written)) written = ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_dictIDFlag, 0);
    if (!ZSTD_isError(written))
        written = d ? ZSTD_CCtx_refCDict(c->cctx, d->cdict) : ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(written)) written = ZSTD_compress2(c->cctx, frame, bound, source, size);
    if (ZSTD_isError(written) || written < 6 || get_u32(frame) != ZSTD_MAGICNUMBER) {
        sqlite3_free(frame);
        fail(context, SIFT_ZSTD_FAILED, 0, "sift_compress: zstd failed");
        return;
    }
    /* The compact form (see sift_zstd.h) when the frame's header says no more than the value's numbers do: one
       segment, its size, no dictionary id, no checksum; its blocks follow the numbers. Else the first form. */
    unsigned char descriptor = frame[4];
    size_t size_bytes = descriptor >> 6 == 0 ? 1 : (size_t)1 << (descriptor >> 6);
    int bare = (descriptor & 0x20) && !(descriptor & 0x07) && written > 5 + size_bytes &&
               ZSTD_getFrameContentSize(frame, written) == (unsigned long long)size;
    unsigned char header[SIFT_ZSTD_HEADER + 20];
    size_t header_size = 0;
    /* One block (what a value of a few KB compresses to): its 3-byte header is left out too, its kind kept in the
       value's first byte and its size told by the value's. */
    size_t skipped = bare ? 5 + size_bytes : 0;
    if (bare && written >= skipped + 3) {
        const unsigned char *block = frame + skipped;
        uint32_t block_header = (uint32_t)block[0] | (uint32_t)block[1] << 8 | (uint32_t)block[2] << 16;
        unsigned block_type = block_header >> 1 & 3;
        size_t block_size = block_header >> 3, content = block_type == 1 ? 1 : block_size;
        if ((block_header & 1) && block_type != 3 && skipped + 3 + content == written &&
            (block_type != 1 || block_size == size)) {
            skipped += 3;
            header[header_size++] = (unsigned char)(SIFT_ZSTD_ONE_BLOCK + 2 * block_type + (type == SQLITE_TEXT ? 0 : 1));
        }
    }
    if (bare) {
        if (header_size == 0) header[header_size++] = type == SQLITE_TEXT ? SIFT_ZSTD_COMPACT_TEXT : SIFT_ZSTD_COMPACT_BLOB;
        header_size += put_leb128(header + header_size, id == 0 ? 0 : (uint64_t)id - SIFT_ZSTD_FIRST_ID + 1);
        header_size += put_leb128(header + header_size, size);
    } else {
        /* The first form's frame names its dictionary: compressed again with the id in its header. */
        written = ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_dictIDFlag, 1);
        if (!ZSTD_isError(written)) written = ZSTD_compress2(c->cctx, frame, bound, source, size);
        if (ZSTD_isError(written)) {
            sqlite3_free(frame);
            fail(context, SIFT_ZSTD_FAILED, 0, "sift_compress: zstd failed");
            return;
        }
        header[0] = SIFT_ZSTD_MAGIC;
        header[1] = type == SQLITE_TEXT ? SIFT_ZSTD_TEXT : SIFT_ZSTD_BLOB;
        put_u32(header + 2, id);
        header_size = SIFT_ZSTD_HEADER;
    }
    const unsigned char *kept = frame + skipped;
    size_t kept_size = written - skipped;
    size_t total = header_size + kept_size;
    if (type == SQLITE_TEXT && total >= size) {
        sqlite3_free(frame);
        sqlite3_result_value(context, argv[0]);
        return;
    }
    unsigned char *out = sqlite3_malloc64(total);
    if (!out) {
        sqlite3_free(frame);
        fail(context, SIFT_ZSTD_FAILED, 0, "sift_compress: out of memory");
        return;
    }
    memcpy(out, header, header_size);
    memcpy(out + header_size, kept, kept_size);
    sqlite3_free(frame);
    sqlite3_result_blob64(context, out, total, sqlite3_free);
}

static void decode(sqlite3_context *context, connection *c, unsigned char kind, uint32_t id, int compact,
                   const unsigned char *frame, size_t frame_size);

/* sift_decompress(value) */
static void decompress_function(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    connection *c = sqlite3_user_data(context);
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    const unsigned char *in = sqlite3_value_blob(argv[0]);
    size_t size = (size_t)sqlite3_value_bytes(argv[0]);
    const int one_block = size > 0 && in && in[0] >= SIFT_ZSTD_ONE_BLOCK && in[0] < SIFT_ZSTD_ONE_BLOCK + 6;
    const int compact = one_block || (size > 0 && in && (in[0] == SIFT_ZSTD_COMPACT_TEXT || in[0] == SIFT_ZSTD_COMPACT_BLOB));
    if (size == 0 || !in || (in[0] != SIFT_ZSTD_MAGIC && !compact)) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    unsigned char kind;
    uint32_t id = 0;
    const unsigned char *frame;
    size_t frame_size;
    unsigned char *rebuilt = NULL;
    if (compact) {
        /* The dictionary's number and the size (LEB128), then the blocks of a one-segment frame, whose header is
           rebuilt from the size before they are read. */
        kind = (one_block ? (in[0] - SIFT_ZSTD_ONE_BLOCK) % 2 == 0 : in[0] == SIFT_ZSTD_COMPACT_TEXT) ? SIFT_ZSTD_TEXT : SIFT_ZSTD_BLOB;
        size_t at = 1;
        uint64_t number = 0, length = 0;
        if (!get_leb128(in, size, &at, &number) || !get_leb128(in, size, &at, &length) || (at >= size && !one_block) ||
            number > (uint64_t)UINT32_MAX - SIFT_ZSTD_FIRST_ID + 1) {
            fail(context, SIFT_ZSTD_DAMAGED, 0, "sift_decompress: damaged compressed value (header)");
            return;
        }
        sqlite3_int64 limit = sqlite3_limit(sqlite3_context_db_handle(context), SQLITE_LIMIT_LENGTH, -1);
        if (length > (uint64_t)limit) {
            fail(context, SIFT_ZSTD_TOO_LARGE, (int64_t)length, "sift_decompress: compressed value too large");
            return;
        }
        id = number == 0 ? 0 : (uint32_t)(number + SIFT_ZSTD_FIRST_ID - 1);
        unsigned char head[4 + 1 + 4 + 3];
        size_t head_size = 5;
        put_u32(head, ZSTD_MAGICNUMBER);
        if (length < 256) {
            head[4] = 0x20, head[head_size++] = (unsigned char)length;
        } else if (length < 65536 + 256) {
            head[4] = 0x60;
            head[head_size++] = (unsigned char)(length - 256), head[head_size++] = (unsigned char)((length - 256) >> 8);
        } else {
            head[4] = 0xA0;
            put_u32(head + head_size, (uint32_t)length);
            head_size += 4;
        }
        if (one_block) {
            /* The block's header: the last block, its kind, and its size (a repeated byte's: the value's size). */
            unsigned block_type = (unsigned)(in[0] - SIFT_ZSTD_ONE_BLOCK) / 2;
            uint64_t block_size = block_type == 1 ? length : size - at;
            if (block_size >= (1u << 21) || (block_type == 1 && size - at != 1)) {
                fail(context, SIFT_ZSTD_DAMAGED, 0, "sift_decompress: damaged compressed value (block)");
                return;
            }
            uint32_t block_header = (uint32_t)block_size << 3 | block_type << 1 | 1;
            head[head_size++] = (unsigned char)block_header;
            head[head_size++] = (unsigned char)(block_header >> 8);
            head[head_size++] = (unsigned char)(block_header >> 16);
        }
        frame_size = head_size + size - at;
        if (!(rebuilt = sqlite3_malloc64(frame_size))) {
            fail(context, SIFT_ZSTD_FAILED, 0, "sift_decompress: out of memory");
            return;
        }
        memcpy(rebuilt, head, head_size);
        memcpy(rebuilt + head_size, in + at, size - at);
        frame = rebuilt;
    } else {
        if (size < SIFT_ZSTD_HEADER + 4 || (in[1] != SIFT_ZSTD_TEXT && in[1] != SIFT_ZSTD_BLOB)) {
            fail(context, SIFT_ZSTD_DAMAGED, 0, "sift_decompress: damaged compressed value (header)");
            return;
        }
        kind = in[1];
        id = get_u32(in + 2);
        frame = in + SIFT_ZSTD_HEADER;
        frame_size = size - SIFT_ZSTD_HEADER;
    }
    decode(context, c, kind, id, compact, frame, frame_size);
    sqlite3_free(rebuilt);
}

/* Decodes `frame` (of dictionary `id`; a compact value's frame names none) into the TEXT or BLOB it was. */
static void decode(sqlite3_context *context, connection *c, unsigned char kind, uint32_t id, int compact,
                   const unsigned char *frame, size_t frame_size) {
    unsigned long long length = ZSTD_getFrameContentSize(frame, frame_size);
    if (length == ZSTD_CONTENTSIZE_ERROR) {
        fail(context, SIFT_ZSTD_DAMAGED, 0, "sift_decompress: damaged compressed value (frame)");
        return;
    }
    sqlite3_int64 limit = sqlite3_limit(sqlite3_context_db_handle(context), SQLITE_LIMIT_LENGTH, -1);
    if (length == ZSTD_CONTENTSIZE_UNKNOWN || length > (unsigned long long)limit) {
        fail(context, SIFT_ZSTD_TOO_LARGE, length == ZSTD_CONTENTSIZE_UNKNOWN ? -1 : (int64_t)length,
             "sift_decompress: compressed value too large");
        return;
    }
    if (ZSTD_getDictID_fromFrame(frame, frame_size) != (compact ? 0 : id)) {
        fail(context, SIFT_ZSTD_DAMAGED, id, "sift_decompress: damaged compressed value (dictionary id)");
        return;
    }
    dictionary *d = NULL;
    if (id != 0 && !(d = find_dictionary(context, c, id))) {
        fail(context, SIFT_ZSTD_UNKNOWN_DICTIONARY, id, "sift_decompress: unknown dictionary");
        return;
    }
    if (!c->dctx && !(c->dctx = ZSTD_createDCtx())) {
        fail(context, SIFT_ZSTD_FAILED, 0, "sift_decompress: out of memory");
        return;
    }
    /* One byte more than the length, so that text can end with the NUL SQLite likes. */
    unsigned char *out = sqlite3_malloc64(length + 1);
    if (!out) {
        fail(context, SIFT_ZSTD_FAILED, 0, "sift_decompress: out of memory");
        return;
    }
    size_t got = d ? ZSTD_decompress_usingDDict(c->dctx, out, (size_t)length, frame, frame_size, d->ddict)
                   : ZSTD_decompressDCtx(c->dctx, out, (size_t)length, frame, frame_size);
    if (ZSTD_isError(got) || got != length) {
        sqlite3_free(out);
        fail(context, SIFT_ZSTD_DAMAGED, id, "sift_decompress: damaged compressed value (frame)");
        return;
    }
    if (kind == SIFT_ZSTD_TEXT) {
        out[length] = 0;
        sqlite3_result_text64(context, (const char *)out, length, sqlite3_free, SQLITE_UTF8);
    } else {
        sqlite3_result_blob64(context, out, length, sqlite3_free);
    }
}

int sift_zstd_register(sqlite3 *db) {
    connection *c = sqlite3_malloc(sizeof *c);
    if (!c) return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    /* Deterministic and innocuous: the views that decode compressed columns call sift_decompress. */
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function_v2(db, "sift_decompress", 1, flags, c, decompress_function, NULL, NULL,
                                        connection_free);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_create_function_v2(db, "sift_compress", 3, flags, c, compress_function, NULL, NULL, NULL);
}

size_t sift_zstd_train(void *dictionary, size_t capacity, const void *samples, const size_t *sizes, unsigned count,
                       uint32_t id) {
    if (id < SIFT_ZSTD_FIRST_ID) return 0;
    size_t size = ZDICT_trainFromBuffer(dictionary, capacity, samples, sizes, count);
    if (ZDICT_isError(size) || size < 8 || ZDICT_getDictID(dictionary, size) == 0) return 0;
    /* zstd's dictionary format: its magic number, then its id (little-endian), which the trainer drew at random. */
    put_u32((unsigned char *)dictionary + 4, id);
    return ZDICT_getDictID(dictionary, size) == id ? size : 0;
}
