#ifndef SIFT_CIPHER_H
#define SIFT_CIPHER_H
// SQLCipher 4 compatible page encryption for the system SQLite, as a VFS shim over the default VFS.
//
// A connection opened through the VFS named by sift_cipher_vfs_name() with the URI parameter
// `sift_cipher=<id>` (the id of a key context) reads and writes its main database file, its WAL and its rollback
// journal encrypted, page by page, in SQLCipher 4's default format:
// - the first 16 bytes of the file are the key-derivation salt (page 1 is encrypted from byte 16 on);
// - the key is PBKDF2-HMAC-SHA512 of the passphrase, 256,000 iterations, 32 bytes; the HMAC key is
//   PBKDF2-HMAC-SHA512 of that key with the salt XOR 0x3a, 2 iterations; a passphrase of the form x'<64 hex>'
//   is the key itself, x'<96 hex>' the key and the salt, x'<160 hex>' key, HMAC key and salt (as SQLCipher);
// - each page keeps 80 reserved bytes at its end: a random 16-byte IV (AES-256-CBC, no padding, over the rest
//   of the page) followed by HMAC-SHA512 over ciphertext + IV + the page number (4 bytes, little-endian).
// The WAL header, WAL frame headers and journal headers stay as SQLite writes them (their checksums are SQLite's, of
// the plaintext pages: unlike SQLCipher's, which are of the ciphertext); a page's reserve reads back as zeros.
// Temporary files (statement journals, sorter and temp databases) opened through the VFS stay in memory.
// Every cryptographic operation goes through sift_cipher_crypto.h (SiftCipher's one seam to a cryptographic
// library), implemented with OpenSSL's libcrypto in sift_cipher_openssl.c.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Bytes reserved at the end of every page (IV + HMAC-SHA512).
#define SIFT_CIPHER_RESERVE 80
/// Size of the key-derivation salt at the start of the file.
#define SIFT_CIPHER_SALT_SIZE 16
/// Size of the AES-256 key.
#define SIFT_CIPHER_KEY_SIZE 32

/// How many salts' keys a key context keeps: a derivation costs 256,000 PBKDF2 iterations, and a file has one salt.
#define SIFT_CIPHER_KEY_CACHE 8

/// A key context: a passphrase (or raw key) and the keys derived from it, one derivation per salt (the keys of at
/// most SIFT_CIPHER_KEY_CACHE salts are kept, the least recently used evicted).
typedef struct sift_cipher sift_cipher;

/// Why the last cipher operation on this thread failed.
typedef enum sift_cipher_failure {
    SIFT_CIPHER_NO_FAILURE = 0,
    /// Page 1 does not authenticate: wrong key (or page size, or page 1 damaged).
    SIFT_CIPHER_WRONG_KEY = 1,
    /// The file is a plain SQLite database: it starts with "SQLite format 3".
    SIFT_CIPHER_NOT_ENCRYPTED = 2,
    /// A page other than page 1 does not authenticate: tampering or damage.
    SIFT_CIPHER_AUTHENTICATION = 3,
    /// libcrypto failed (or memory ran out).
    SIFT_CIPHER_CRYPTO = 4,
    /// SQLite wrote something that is not a whole page with the reserve the format needs.
    SIFT_CIPHER_LAYOUT = 5,
} sift_cipher_failure;

/// Registers the VFS (once; thread-safe) and returns its name, or NULL when registration failed.
const char *sift_cipher_vfs_name(void);

/// A key context for `pass` (copied); `page_size` is a power of two from 512 to 65536. NULL on bad arguments.
/// The caller holds one reference.
sift_cipher *sift_cipher_create(const void *pass, int pass_len, int page_size);

/// A key context for a raw 32-byte key and optionally its 16-byte salt (SQLCipher's x'...' forms); the hex
/// passphrase is built and wiped here. NULL on bad arguments.
sift_cipher *sift_cipher_create_raw(const void *key, int key_len, const void *salt, int salt_len, int page_size);

/// Drops the caller's reference; the context (and its keys, cleansed) goes when open files no longer use it.
void sift_cipher_release(sift_cipher *cipher);

/// The number to pass as the `sift_cipher` URI parameter.
uint64_t sift_cipher_id(const sift_cipher *cipher);

/// The context's page size.
int sift_cipher_page_size(const sift_cipher *cipher);

/// How many key derivations the context has run (one per salt met, and again for a salt met after its keys were
/// evicted): the KDF is paid once per context and file.
int sift_cipher_derivations(sift_cipher *cipher);

/// How many salts' keys the context keeps now (at most SIFT_CIPHER_KEY_CACHE).
int sift_cipher_cached_keys(sift_cipher *cipher);

/// The failure recorded on this thread since the last call (and the page it concerned), then clears it.
sift_cipher_failure sift_cipher_take_failure(uint32_t *page);

/// Whether the context's key came with its salt (a raw key in the x'<96 hex>' or x'<160 hex>' form): such a
/// key reads a file whose first 16 bytes (the salt) are lost.
int sift_cipher_has_salt(const sift_cipher *cipher);

/// A reader of one encrypted file's pages, for recovery: decrypts pages read by other means than the VFS.
typedef struct sift_cipher_pages sift_cipher_pages;

/// A page reader for a file encrypted with `cipher` whose salt is `salt` (the file's first 16 bytes; a key with
/// its own salt uses that one). Runs the key derivation for that salt unless the context already did. NULL when
/// libcrypto fails or memory runs out. Holds a reference to `cipher`.
sift_cipher_pages *sift_cipher_pages_create(sift_cipher *cipher, const void *salt);

/// Authenticates page `pgno` (`sift_cipher_page_size` bytes at `in`) and decrypts it into `out` (which may be
/// `in`): page 1 then starts with "SQLite format 3", the reserve is zeros. Returns 0 on success, 1 when the
/// page's HMAC does not match (`out` is left as it was), -1 when libcrypto fails.
int sift_cipher_pages_decrypt(sift_cipher_pages *pages, uint32_t pgno, const void *in, void *out);

/// Frees the reader and drops its reference to the key context.
void sift_cipher_pages_free(sift_cipher_pages *pages);

#ifdef __cplusplus
}
#endif
#endif
