// The VFS shim: pages of the main database file, the WAL and the rollback journal are encrypted on their way
// to the default VFS and decrypted on their way back; temporary files live in memory.
#include "sift_cipher_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

enum file_kind { KIND_PLAIN, KIND_MAIN, KIND_WAL, KIND_JOURNAL, KIND_MEMORY };

#define WAL_HEADER_SIZE 32
#define WAL_FRAME_HEADER_SIZE 24

typedef struct cipher_file {
    sqlite3_file base;
    int kind;
    int page_size;
    sift_cipher *cipher;        // retained by a main file, borrowed by its WAL and journal
    struct cipher_file *main;   // for a WAL or journal, the main database file it belongs to
    int has_keys;               // for a main file: `keys` are the keys of its salt, once known
    sift_keyset keys;
    int foreign_salts;          // for a main file: salts page 1 brought from its WAL or journal while it had none
    sift_page_crypto crypto;
    unsigned char *page;        // scratch page
    // WAL: the page number of the frame header written last, for the frame data written next.
    sqlite3_int64 frame_header_offset;
    uint32_t frame_header_pgno;
    // WAL: the page read last, as plaintext and as ciphertext. A checkpoint reads each page from the WAL and
    // writes it to the main file unchanged: the main file then gets the WAL's ciphertext, not a second encryption.
    unsigned char *last_plain, *last_cipher;
    uint32_t last_pgno;
    int last_valid;             // whether last_plain and last_cipher hold that page, encrypted with last_salt's keys
    unsigned char last_salt[SIFT_CIPHER_SALT_SIZE];
    // Main file: its WAL while open.
    struct cipher_file *wal;
    // Memory files.
    unsigned char *data;
    sqlite3_int64 size, capacity;
    sqlite3_file *real;
} cipher_file;

static sqlite3_vfs *base_vfs;
static sqlite3_vfs cipher_vfs;
static const sqlite3_io_methods cipher_methods;
static const sqlite3_io_methods memory_methods;

#define REAL_OFFSET ((sizeof(cipher_file) + 7) & ~(size_t)7)

static uint32_t read_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int real_read(cipher_file *f, void *buf, int amt, sqlite3_int64 off) {
    return f->real->pMethods->xRead(f->real, buf, amt, off);
}

static int real_write(cipher_file *f, const void *buf, int amt, sqlite3_int64 off) {
    return f->real->pMethods->xWrite(f->real, buf, amt, off);
}

// MARK: - Keys

static cipher_file *owner(cipher_file *f) { return f->kind == KIND_MAIN ? f : f->main; }

// The keys of the main file's salt: read from its first bytes, or a new file's salt when it is empty.
static const sift_keyset *main_keys(cipher_file *f) {
    cipher_file *m = owner(f);
    if (m->has_keys) return &m->keys;
    sqlite3_int64 size = 0;
    unsigned char salt[SIFT_CIPHER_SALT_SIZE];
    if (m->real->pMethods->xFileSize(m->real, &size) != SQLITE_OK) return NULL;
    if (size >= SIFT_CIPHER_SALT_SIZE && real_read(m, salt, sizeof salt, 0) == SQLITE_OK) {
        m->has_keys = sift_cipher_keys(m->cipher, salt, &m->keys);
    } else {
        m->has_keys = sift_cipher_new_file_keys(m->cipher, &m->keys);
    }
    if (!m->has_keys) sift_cipher_fail(SIFT_CIPHER_CRYPTO, 0);
    return m->has_keys ? &m->keys : NULL;
}

// How many salts page 1 may bring from the WAL or journal of a main file that has none yet, per open: one is
// the database's (its pages are all in the WAL until the first checkpoint), the rest are not worth a derivation.
#define FOREIGN_SALTS 2

// The keys for page 1 as read (its first 16 bytes are the salt): the main file's, or copied into `out`. NULL when
// libcrypto fails, or (*refused set) for a copy of page 1 in the WAL or journal whose salt is not the main file's:
// every page is encrypted with the main file's keys, so such a copy cannot authenticate, and deriving keys for
// the salt of each such frame would cost 256,000 PBKDF2 iterations a frame to whoever wrote the file. Only while
// the main file is empty may page 1 bring its salt, and at most FOREIGN_SALTS of them per open.
static const sift_keyset *page_one_keys(cipher_file *f, const unsigned char *page, sift_keyset *out, int *refused) {
    cipher_file *m = owner(f);
    *refused = 0;
    if (m->has_keys && memcmp(m->keys.salt, page, SIFT_CIPHER_SALT_SIZE) == 0) return &m->keys;
    // A raw key with its salt derives nothing from the salt read (and reads a file whose salt bytes are lost).
    if (f->kind != KIND_MAIN && !sift_cipher_has_salt(m->cipher)) {
        sqlite3_int64 size = 0;
        unsigned char salt[SIFT_CIPHER_SALT_SIZE];
        if (m->real->pMethods->xFileSize(m->real, &size) == SQLITE_OK && size >= SIFT_CIPHER_SALT_SIZE) {
            *refused = real_read(m, salt, sizeof salt, 0) != SQLITE_OK
                || memcmp(salt, page, SIFT_CIPHER_SALT_SIZE) != 0;
        } else {
            *refused = m->foreign_salts >= FOREIGN_SALTS;
            if (!*refused) m->foreign_salts++;
        }
        if (*refused) return NULL;
    }
    if (!sift_cipher_keys(m->cipher, page, out)) {
        sift_cipher_fail(SIFT_CIPHER_CRYPTO, 1);
        return NULL;
    }
    return out;
}

// Decrypts one page read into `page` (in place). Returns SQLITE_OK, or the error for SQLite; on success the salt
// of the keys used goes to `used_salt` (NULL: not wanted).
// `tolerant`: a page that does not authenticate reads as zeros (a frame or journal record SQLite is about to
// reject by its own checksum: torn by a crash, or left from an earlier generation of the file).
static int decrypt_page(cipher_file *f, uint32_t pgno, unsigned char *page, int tolerant, unsigned char *used_salt) {
    if (pgno == 1 && f->kind == KIND_MAIN && memcmp(page, "SQLite format 3", SIFT_CIPHER_SALT_SIZE) == 0) {
        sift_cipher_fail(SIFT_CIPHER_NOT_ENCRYPTED, 1);
        return SQLITE_NOTADB;
    }
    sift_keyset found;
    int refused = 0;
    const sift_keyset *keys = pgno == 1 ? page_one_keys(f, page, &found, &refused) : main_keys(f);
    if (keys == NULL && !refused) return SQLITE_IOERR_READ;
    // A refused salt is a page that does not authenticate.
    int rc = keys ? sift_page_decrypt(&f->crypto, keys, pgno, f->page_size, page, page) : 1;
    if (rc == 0) {
        cipher_file *m = owner(f);
        if (used_salt) memcpy(used_salt, keys->salt, SIFT_CIPHER_SALT_SIZE);
        // Page 1 authenticated with its salt's keys: they are the main file's from now on.
        if (keys == &found) {
            m->keys = found;
            m->has_keys = 1;
        }
    }
    sift_crypto_cleanse(&found, sizeof found);
    if (rc == 0) return SQLITE_OK;
    if (rc < 0) {
        sift_cipher_fail(SIFT_CIPHER_CRYPTO, pgno);
        return SQLITE_IOERR_READ;
    }
    if (tolerant) {
        memset(page, 0, (size_t)f->page_size);
        return SQLITE_OK;
    }
    if (pgno == 1) {
        sift_cipher_fail(SIFT_CIPHER_WRONG_KEY, 1);
        return SQLITE_NOTADB;
    }
    sift_cipher_fail(SIFT_CIPHER_AUTHENTICATION, pgno);
    return SQLITE_IOERR_DATA;
}

// Encrypts page `pgno` from `in` into the scratch page and writes it at `offset`.
static int encrypt_and_write(cipher_file *f, uint32_t pgno, const unsigned char *in, sqlite3_int64 offset) {
    const sift_keyset *keys = main_keys(f);
    if (keys == NULL) return SQLITE_IOERR_WRITE;
    if (sift_page_encrypt(&f->crypto, keys, pgno, f->page_size, in, f->page) != 0) {
        sift_cipher_fail(SIFT_CIPHER_CRYPTO, pgno);
        return SQLITE_IOERR_WRITE;
    }
    return real_write(f, f->page, f->page_size, offset);
}

// MARK: - Main database file

// Reads whole pages and hands back the requested bytes (SQLite also reads 100 bytes of the header, and 16).
static int main_read(cipher_file *f, unsigned char *out, int amt, sqlite3_int64 off) {
    int ps = f->page_size, short_read = 0;
    while (amt > 0) {
        sqlite3_int64 index = off / ps;
        int within = (int)(off % ps);
        int n = amt < ps - within ? amt : ps - within;
        int whole = within == 0 && n == ps;
        unsigned char *page = whole ? out : f->page;
        int rc = real_read(f, page, ps, index * ps);
        if (rc == SQLITE_IOERR_SHORT_READ) {
            // Past the end of the file (or a page cut short): zeros, as SQLite expects of a short read.
            memset(out, 0, (size_t)n);
            short_read = 1;
        } else if (rc != SQLITE_OK) {
            return rc;
        } else {
            rc = decrypt_page(f, (uint32_t)(index + 1), page, 0, NULL);
            if (rc != SQLITE_OK) return rc;
            if (!whole) memcpy(out, page + within, (size_t)n);
        }
        out += n;
        off += n;
        amt -= n;
    }
    return short_read ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}

static int main_write(cipher_file *f, const unsigned char *in, int amt, sqlite3_int64 off) {
    int ps = f->page_size;
    if (off % ps != 0 || amt % ps != 0) {
        sift_cipher_fail(SIFT_CIPHER_LAYOUT, 0);
        return SQLITE_IOERR_WRITE;
    }
    for (int done = 0; done < amt; done += ps) {
        uint32_t pgno = (uint32_t)((off + done) / ps + 1);
        const unsigned char *page = in + done;
        if (pgno == 1) {
            // The header must describe the page size the pages are encrypted at, with room for IV and HMAC.
            int header_size = page[16] << 8 | page[17];
            if (header_size == 1) header_size = 65536;
            if (header_size != ps || page[20] < SIFT_CIPHER_RESERVE) {
                sift_cipher_fail(SIFT_CIPHER_LAYOUT, 1);
                return SQLITE_IOERR_WRITE;
            }
        }
        cipher_file *wal = f->wal;
        const sift_keyset *keys = main_keys(f);
        int rc;
        if (wal && wal->last_valid && wal->last_pgno == pgno && keys
            && memcmp(wal->last_salt, keys->salt, SIFT_CIPHER_SALT_SIZE) == 0
            && memcmp(wal->last_plain, page, (size_t)ps) == 0) {
            rc = real_write(f, wal->last_cipher, ps, off + done);
        } else {
            rc = encrypt_and_write(f, pgno, page, off + done);
        }
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

// MARK: - WAL

// The page number in the header of the frame at `frame`: from the bytes at hand, else from the file.
static int frame_pgno(cipher_file *f, sqlite3_int64 frame, uint32_t *pgno) {
    if (f->frame_header_offset == frame) {
        *pgno = f->frame_header_pgno;
        return SQLITE_OK;
    }
    unsigned char header[4];
    int rc = real_read(f, header, 4, frame);
    if (rc == SQLITE_OK) *pgno = read_be32(header);
    return rc;
}

// Frame headers and the WAL header pass as they are; frame data is a page, encrypted.
static int wal_io(cipher_file *f, unsigned char *buf, int amt, sqlite3_int64 off, int writing) {
    int ps = f->page_size, short_read = 0;
    sqlite3_int64 frame_size = ps + WAL_FRAME_HEADER_SIZE;
    sqlite3_int64 header_here = -1;   // a frame whose header is part of this call
    uint32_t header_here_pgno = 0;
    while (amt > 0) {
        int n, rc;
        if (off < WAL_HEADER_SIZE) {
            n = (int)(WAL_HEADER_SIZE - off) < amt ? (int)(WAL_HEADER_SIZE - off) : amt;
            rc = writing ? real_write(f, buf, n, off) : real_read(f, buf, n, off);
        } else {
            sqlite3_int64 frame = WAL_HEADER_SIZE + (off - WAL_HEADER_SIZE) / frame_size * frame_size;
            int within = (int)(off - frame);
            if (within < WAL_FRAME_HEADER_SIZE) {
                n = WAL_FRAME_HEADER_SIZE - within < amt ? WAL_FRAME_HEADER_SIZE - within : amt;
                rc = writing ? real_write(f, buf, n, off) : real_read(f, buf, n, off);
                if (within == 0 && n >= 4) {
                    header_here = frame;
                    header_here_pgno = read_be32(buf);
                    if (writing) {
                        f->frame_header_offset = frame;
                        f->frame_header_pgno = header_here_pgno;
                    }
                }
            } else {
                int data = within - WAL_FRAME_HEADER_SIZE;
                n = ps - data < amt ? ps - data : amt;
                uint32_t pgno = header_here_pgno;
                rc = header_here == frame ? SQLITE_OK : frame_pgno(f, frame, &pgno);
                if (rc != SQLITE_OK) return rc;
                if (writing) {
                    if (data != 0 || n != ps) {
                        sift_cipher_fail(SIFT_CIPHER_LAYOUT, pgno);
                        return SQLITE_IOERR_WRITE;
                    }
                    rc = encrypt_and_write(f, pgno, buf, off);
                } else {
                    int whole = data == 0 && n == ps;
                    unsigned char *page = whole ? buf : f->page;
                    rc = real_read(f, page, ps, frame + WAL_FRAME_HEADER_SIZE);
                    if (rc == SQLITE_IOERR_SHORT_READ) {
                        memset(buf, 0, (size_t)n);
                    } else if (rc == SQLITE_OK) {
                        // A read of whole frames is WAL recovery, which checks each frame's checksum itself.
                        int remember = whole && header_here != frame && f->last_cipher != NULL;
                        if (remember) {
                            memcpy(f->last_cipher, page, (size_t)ps);
                            f->last_valid = 0;
                        }
                        rc = decrypt_page(f, pgno, page, header_here == frame, remember ? f->last_salt : NULL);
                        if (rc == SQLITE_OK && remember) {
                            memcpy(f->last_plain, page, (size_t)ps);
                            f->last_pgno = pgno;
                            f->last_valid = 1;
                        }
                        if (rc == SQLITE_OK && !whole) memcpy(buf, page + data, (size_t)n);
                    }
                }
            }
        }
        if (rc == SQLITE_IOERR_SHORT_READ) {
            short_read = 1;
        } else if (rc != SQLITE_OK) {
            return rc;
        }
        buf += n;
        off += n;
        amt -= n;
    }
    return short_read ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}

// MARK: - Rollback journal

// A journal record is a 4-byte page number, the page, a 4-byte checksum, after a header a multiple of the
// sector size long: page images are exactly page-sized accesses at offsets 4 modulo 8.
static int is_journal_page(cipher_file *f, int amt, sqlite3_int64 off) {
    return amt == f->page_size && off >= 4 && off % 8 == 4;
}

static int journal_read(cipher_file *f, unsigned char *buf, int amt, sqlite3_int64 off) {
    int rc = real_read(f, buf, amt, off);
    if (rc != SQLITE_OK || !is_journal_page(f, amt, off)) return rc;
    unsigned char number[4];
    rc = real_read(f, number, 4, off - 4);
    if (rc != SQLITE_OK) return rc;
    // A record SQLite would reject by its checksum (torn by a crash) reads as zeros.
    return decrypt_page(f, read_be32(number), buf, 1, NULL);
}

static int journal_write(cipher_file *f, const unsigned char *buf, int amt, sqlite3_int64 off) {
    if (!is_journal_page(f, amt, off)) return real_write(f, buf, amt, off);
    unsigned char number[4];
    int rc = real_read(f, number, 4, off - 4);
    if (rc != SQLITE_OK) return rc;
    return encrypt_and_write(f, read_be32(number), buf, off);
}

// MARK: - I/O methods of real files

static int cipher_close(sqlite3_file *file) {
    cipher_file *f = (cipher_file *)file;
    int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    sift_page_crypto_free(&f->crypto);
    if (f->page) {
        sift_crypto_cleanse(f->page, (size_t)f->page_size);
        free(f->page);
    }
    if (f->last_plain) {
        sift_crypto_cleanse(f->last_plain, (size_t)f->page_size);
        free(f->last_plain);
    }
    free(f->last_cipher);
    sift_crypto_cleanse(&f->keys, sizeof f->keys);
    if (f->kind == KIND_WAL && f->main->wal == f) f->main->wal = NULL;
    if (f->kind == KIND_MAIN) sift_cipher_release(f->cipher);
    return rc;
}

static int cipher_read(sqlite3_file *file, void *buf, int amt, sqlite3_int64 off) {
    cipher_file *f = (cipher_file *)file;
    switch (f->kind) {
    case KIND_MAIN: return main_read(f, buf, amt, off);
    case KIND_WAL: return wal_io(f, buf, amt, off, 0);
    case KIND_JOURNAL: return journal_read(f, buf, amt, off);
    default: return real_read(f, buf, amt, off);
    }
}

static int cipher_write(sqlite3_file *file, const void *buf, int amt, sqlite3_int64 off) {
    cipher_file *f = (cipher_file *)file;
    switch (f->kind) {
    case KIND_MAIN: return main_write(f, buf, amt, off);
    case KIND_WAL: return wal_io(f, (unsigned char *)buf, amt, off, 1);
    case KIND_JOURNAL: return journal_write(f, buf, amt, off);
    default: return real_write(f, buf, amt, off);
    }
}

#define FORWARD(f) (((cipher_file *)(f))->real)

static int cipher_truncate(sqlite3_file *f, sqlite3_int64 size) { return FORWARD(f)->pMethods->xTruncate(FORWARD(f), size); }
static int cipher_sync(sqlite3_file *f, int flags) { return FORWARD(f)->pMethods->xSync(FORWARD(f), flags); }
static int cipher_file_size(sqlite3_file *f, sqlite3_int64 *size) { return FORWARD(f)->pMethods->xFileSize(FORWARD(f), size); }
static int cipher_lock(sqlite3_file *f, int level) { return FORWARD(f)->pMethods->xLock(FORWARD(f), level); }
static int cipher_unlock(sqlite3_file *f, int level) { return FORWARD(f)->pMethods->xUnlock(FORWARD(f), level); }
static int cipher_check_reserved_lock(sqlite3_file *f, int *out) {
    return FORWARD(f)->pMethods->xCheckReservedLock(FORWARD(f), out);
}
static int cipher_file_control(sqlite3_file *f, int op, void *arg) {
    return FORWARD(f)->pMethods->xFileControl(FORWARD(f), op, arg);
}
static int cipher_sector_size(sqlite3_file *f) { return FORWARD(f)->pMethods->xSectorSize(FORWARD(f)); }
static int cipher_device_characteristics(sqlite3_file *f) {
    return FORWARD(f)->pMethods->xDeviceCharacteristics(FORWARD(f));
}
static int cipher_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    return FORWARD(f)->pMethods->xShmMap(FORWARD(f), region, size, extend, out);
}
static int cipher_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
    return FORWARD(f)->pMethods->xShmLock(FORWARD(f), offset, n, flags);
}
static void cipher_shm_barrier(sqlite3_file *f) { FORWARD(f)->pMethods->xShmBarrier(FORWARD(f)); }
static int cipher_shm_unmap(sqlite3_file *f, int delete_flag) {
    return FORWARD(f)->pMethods->xShmUnmap(FORWARD(f), delete_flag);
}

// Memory-mapped pages would bypass decryption: encrypted files never hand one out; plain ones forward.
static int cipher_fetch(sqlite3_file *file, sqlite3_int64 off, int amt, void **out) {
    cipher_file *f = (cipher_file *)file;
    if (f->kind == KIND_PLAIN && f->real->pMethods->iVersion >= 3) return f->real->pMethods->xFetch(f->real, off, amt, out);
    *out = NULL;
    return SQLITE_OK;
}

static int cipher_unfetch(sqlite3_file *file, sqlite3_int64 off, void *page) {
    cipher_file *f = (cipher_file *)file;
    if (f->kind == KIND_PLAIN && f->real->pMethods->iVersion >= 3) return f->real->pMethods->xUnfetch(f->real, off, page);
    return SQLITE_OK;
}

static const sqlite3_io_methods cipher_methods = {
    3, cipher_close, cipher_read, cipher_write, cipher_truncate, cipher_sync, cipher_file_size, cipher_lock,
    cipher_unlock, cipher_check_reserved_lock, cipher_file_control, cipher_sector_size,
    cipher_device_characteristics, cipher_shm_map, cipher_shm_lock, cipher_shm_barrier, cipher_shm_unmap,
    cipher_fetch, cipher_unfetch,
};

// MARK: - Memory files (statement journals, sorter files, temp and transient databases)

static int memory_close(sqlite3_file *file) {
    cipher_file *f = (cipher_file *)file;
    if (f->data) {
        sift_crypto_cleanse(f->data, (size_t)f->capacity);
        free(f->data);
    }
    f->data = NULL;
    return SQLITE_OK;
}

static int memory_read(sqlite3_file *file, void *buf, int amt, sqlite3_int64 off) {
    cipher_file *f = (cipher_file *)file;
    sqlite3_int64 available = f->size > off ? f->size - off : 0;
    if (available >= amt) {
        memcpy(buf, f->data + off, (size_t)amt);
        return SQLITE_OK;
    }
    if (available > 0) memcpy(buf, f->data + off, (size_t)available);
    memset((unsigned char *)buf + available, 0, (size_t)(amt - available));
    return SQLITE_IOERR_SHORT_READ;
}

static int memory_write(sqlite3_file *file, const void *buf, int amt, sqlite3_int64 off) {
    cipher_file *f = (cipher_file *)file;
    sqlite3_int64 end = off + amt;
    if (end > f->capacity) {
        sqlite3_int64 capacity = f->capacity ? f->capacity : 65536;
        while (capacity < end) capacity *= 2;
        unsigned char *grown = malloc((size_t)capacity);
        if (grown == NULL) return SQLITE_IOERR_NOMEM;
        if (f->data) {
            memcpy(grown, f->data, (size_t)f->size);
            sift_crypto_cleanse(f->data, (size_t)f->capacity);
            free(f->data);
        }
        f->data = grown;
        f->capacity = capacity;
    }
    if (off > f->size) memset(f->data + f->size, 0, (size_t)(off - f->size));
    memcpy(f->data + off, buf, (size_t)amt);
    if (end > f->size) f->size = end;
    return SQLITE_OK;
}

static int memory_truncate(sqlite3_file *file, sqlite3_int64 size) {
    cipher_file *f = (cipher_file *)file;
    if (size < f->size) f->size = size;
    return SQLITE_OK;
}

static int memory_sync(sqlite3_file *file, int flags) { (void)file; (void)flags; return SQLITE_OK; }
static int memory_file_size(sqlite3_file *file, sqlite3_int64 *size) { *size = ((cipher_file *)file)->size; return SQLITE_OK; }
static int memory_lock(sqlite3_file *file, int level) { (void)file; (void)level; return SQLITE_OK; }
static int memory_check_reserved_lock(sqlite3_file *file, int *out) { (void)file; *out = 0; return SQLITE_OK; }
static int memory_file_control(sqlite3_file *file, int op, void *arg) { (void)file; (void)op; (void)arg; return SQLITE_NOTFOUND; }
static int memory_sector_size(sqlite3_file *file) { (void)file; return 4096; }
static int memory_device_characteristics(sqlite3_file *file) { (void)file; return 0; }

static const sqlite3_io_methods memory_methods = {
    1, memory_close, memory_read, memory_write, memory_truncate, memory_sync, memory_file_size, memory_lock,
    memory_lock, memory_check_reserved_lock, memory_file_control, memory_sector_size,
    memory_device_characteristics, NULL, NULL, NULL, NULL, NULL, NULL,
};

// MARK: - VFS

static int cipher_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    cipher_file *f = (cipher_file *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)((char *)f + REAL_OFFSET);
    f->frame_header_offset = -1;
    if (flags & (SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_SUBJOURNAL | SQLITE_OPEN_TRANSIENT_DB)) {
        f->kind = KIND_MEMORY;
        f->base.pMethods = &memory_methods;
        if (out_flags) *out_flags = flags;
        return SQLITE_OK;
    }
    f->kind = KIND_PLAIN;
    if ((flags & SQLITE_OPEN_MAIN_DB) && name != NULL) {
        const char *id = sqlite3_uri_parameter(name, "sift_cipher");
        if (id != NULL) {
            f->cipher = sift_cipher_retain_id(strtoull(id, NULL, 10));
            if (f->cipher == NULL) return SQLITE_CANTOPEN;
            f->kind = KIND_MAIN;
        }
    } else if ((flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL)) && name != NULL) {
        cipher_file *main = (cipher_file *)sqlite3_database_file_object(name);
        if (main != NULL && main->base.pMethods == &cipher_methods && main->kind == KIND_MAIN) {
            f->main = main;
            f->cipher = main->cipher;
            f->kind = (flags & SQLITE_OPEN_WAL) ? KIND_WAL : KIND_JOURNAL;
        }
    }
    int rc = SQLITE_OK;
    if (f->kind != KIND_PLAIN) {
        f->page_size = sift_cipher_page_size(f->cipher);
        f->page = malloc((size_t)f->page_size);
        if (f->kind == KIND_WAL) {
            f->last_plain = malloc((size_t)f->page_size);
            f->last_cipher = malloc((size_t)f->page_size);
        }
        if (f->page == NULL || (f->kind == KIND_WAL && (f->last_plain == NULL || f->last_cipher == NULL))) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK) rc = base_vfs->xOpen(base_vfs, name, f->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        free(f->page);
        free(f->last_plain);
        free(f->last_cipher);
        if (f->kind == KIND_MAIN) sift_cipher_release(f->cipher);
        memset(f, 0, sizeof *f);
        return rc;
    }
    if (f->kind == KIND_WAL) f->main->wal = f;
    f->base.pMethods = &cipher_methods;
    return SQLITE_OK;
}

static int vfs_delete(sqlite3_vfs *v, const char *name, int sync) { (void)v; return base_vfs->xDelete(base_vfs, name, sync); }
static int vfs_access(sqlite3_vfs *v, const char *name, int flags, int *out) {
    (void)v;
    return base_vfs->xAccess(base_vfs, name, flags, out);
}
static int vfs_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out) {
    (void)v;
    return base_vfs->xFullPathname(base_vfs, name, n, out);
}
static void *vfs_dl_open(sqlite3_vfs *v, const char *name) { (void)v; return base_vfs->xDlOpen(base_vfs, name); }
static void vfs_dl_error(sqlite3_vfs *v, int n, char *out) { (void)v; base_vfs->xDlError(base_vfs, n, out); }
static void (*vfs_dl_sym(sqlite3_vfs *v, void *h, const char *sym))(void) { (void)v; return base_vfs->xDlSym(base_vfs, h, sym); }
static void vfs_dl_close(sqlite3_vfs *v, void *h) { (void)v; base_vfs->xDlClose(base_vfs, h); }
static int vfs_randomness(sqlite3_vfs *v, int n, char *out) { (void)v; return base_vfs->xRandomness(base_vfs, n, out); }
static int vfs_sleep(sqlite3_vfs *v, int micros) { (void)v; return base_vfs->xSleep(base_vfs, micros); }
static int vfs_current_time(sqlite3_vfs *v, double *out) { (void)v; return base_vfs->xCurrentTime(base_vfs, out); }
static int vfs_last_error(sqlite3_vfs *v, int n, char *out) {
    (void)v;
    return base_vfs->xGetLastError ? base_vfs->xGetLastError(base_vfs, n, out) : 0;
}
static int vfs_current_time_int64(sqlite3_vfs *v, sqlite3_int64 *out) {
    (void)v;
    return base_vfs->xCurrentTimeInt64(base_vfs, out);
}

static pthread_once_t register_once = PTHREAD_ONCE_INIT;
static int registered;

static void register_vfs(void) {
    base_vfs = sqlite3_vfs_find(NULL);
    if (base_vfs == NULL || base_vfs->iVersion < 2) return;
    cipher_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)(REAL_OFFSET + (size_t)base_vfs->szOsFile),
        .mxPathname = base_vfs->mxPathname,
        .zName = "sift-cipher",
        .xOpen = cipher_open,
        .xDelete = vfs_delete,
        .xAccess = vfs_access,
        .xFullPathname = vfs_full_pathname,
        .xDlOpen = vfs_dl_open,
        .xDlError = vfs_dl_error,
        .xDlSym = vfs_dl_sym,
        .xDlClose = vfs_dl_close,
        .xRandomness = vfs_randomness,
        .xSleep = vfs_sleep,
        .xCurrentTime = vfs_current_time,
        .xGetLastError = vfs_last_error,
        .xCurrentTimeInt64 = vfs_current_time_int64,
    };
    registered = sqlite3_vfs_register(&cipher_vfs, 0) == SQLITE_OK;
}

const char *sift_cipher_vfs_name(void) {
    pthread_once(&register_once, register_vfs);
    return registered ? cipher_vfs.zName : NULL;
}
