#ifndef SIFT_CIPHER_INTERNAL_H
#define SIFT_CIPHER_INTERNAL_H
#include "sift_cipher.h"
#include "sift_cipher_crypto.h"
#include <pthread.h>
#include <stdint.h>

#define SIFT_CIPHER_IV_SIZE 16
#define SIFT_CIPHER_HMAC_SIZE 64

/// The keys for one salt. Handed out by value: a context's cache evicts, so no one keeps a pointer into it.
typedef struct sift_keyset {
    unsigned char salt[SIFT_CIPHER_SALT_SIZE];
    unsigned char key[SIFT_CIPHER_KEY_SIZE];
    unsigned char hmac_key[SIFT_CIPHER_KEY_SIZE];
} sift_keyset;

/// Cryptographic state for one open file (used by one connection, so by one thread at a time); zeroed to start.
typedef struct sift_page_crypto {
    sift_crypto *state;       /// made on first use (sift_cipher_crypto.h)
    int loaded;               /// whether `keys` are the keys loaded in `state`
    sift_keyset keys;
} sift_page_crypto;

/// Copies the keys for `salt` into `out`: from the context's cache, else derived (and cached, evicting the least
/// recently used of SIFT_CIPHER_KEY_CACHE salts). Returns 1, or 0 when the cryptographic library fails.
int sift_cipher_keys(sift_cipher *cipher, const unsigned char *salt, sift_keyset *out);
/// The keys a new (empty) file gets: a random salt chosen once per context, or the raw key's salt. Returns 1, or 0
/// when the cryptographic library fails.
int sift_cipher_new_file_keys(sift_cipher *cipher, sift_keyset *out);
/// The context registered under `id`, with a reference the caller releases; NULL if none.
sift_cipher *sift_cipher_retain_id(uint64_t id);

/// Encrypts page `pgno` (`page_size` bytes) from `in` to `out` in SQLCipher's layout. Returns 0 on success.
int sift_page_encrypt(sift_page_crypto *crypto, const sift_keyset *keys, uint32_t pgno, int page_size,
                      const unsigned char *in, unsigned char *out);
/// Authenticates and decrypts page `pgno`; returns 0 on success, 1 when the HMAC does not match, -1 when
/// the cryptographic library fails. `out` holds the page as SQLite wrote it (page 1 starts with "SQLite format 3").
int sift_page_decrypt(sift_page_crypto *crypto, const sift_keyset *keys, uint32_t pgno, int page_size,
                      const unsigned char *in, unsigned char *out);
void sift_page_crypto_free(sift_page_crypto *crypto);

/// Records why an operation failed, for sift_cipher_take_failure on this thread.
void sift_cipher_fail(sift_cipher_failure failure, uint32_t page);

#endif
