#ifndef SIFT_CIPHER_CRYPTO_H
#define SIFT_CIPHER_CRYPTO_H
// The cryptographic primitives SiftCipher uses, and the only ones: PBKDF2-HMAC-SHA512, random bytes,
// AES-256-CBC without padding, HMAC-SHA512, wiping memory, comparing in constant time.
//
// This header is the cipher's one seam to a cryptographic library: sift_cipher_openssl.c implements it with
// OpenSSL's libcrypto and is the only file that includes an OpenSSL header. A port to another library is another
// implementation of these functions in a file of its own (on Apple platforms, CommonCrypto: CCKeyDerivationPBKDF,
// CCRandomGenerateBytes, CCCryptor with kCCAlgorithmAES and no padding, CCHmac with kCCHmacAlgSHA512, as
// SQLCipher's CommonCrypto provider does).
#include <stddef.h>
#include <stdint.h>

/// Per-file state: an AES-256-CBC key and an HMAC-SHA512 key, loaded once and used for many pages (by one
/// thread at a time).
typedef struct sift_crypto sift_crypto;

/// PBKDF2-HMAC-SHA512 of `pass` with `salt`, `iterations` rounds, `out_len` bytes into `out`. Returns 1, or 0 on
/// failure.
int sift_crypto_pbkdf2_sha512(const void *pass, size_t pass_len, const unsigned char *salt, size_t salt_len,
                              int iterations, unsigned char *out, size_t out_len);

/// `length` cryptographically secure random bytes into `out`. Returns 1, or 0 on failure.
int sift_crypto_random(unsigned char *out, size_t length);

/// Overwrites `length` bytes at `pointer` with zeros, in a way the compiler does not remove.
void sift_crypto_cleanse(void *pointer, size_t length);

/// Whether the `length` bytes at `a` and `b` are equal, in time that does not depend on where they differ:
/// 1 when equal, 0 when not.
int sift_crypto_equal(const void *a, const void *b, size_t length);

/// New state with no keys; NULL when memory or the library fails.
sift_crypto *sift_crypto_new(void);

/// Loads a 32-byte AES-256 key and a 32-byte HMAC-SHA512 key. Returns 1, or 0 on failure.
int sift_crypto_set_keys(sift_crypto *crypto, const unsigned char *key, const unsigned char *hmac_key);

/// AES-256-CBC with the loaded key, no padding: `length` (a multiple of 16) bytes from `in` to `out`, with the
/// 16-byte `iv`; encrypts when `encrypting`, else decrypts. Returns 1, or 0 on failure.
int sift_crypto_aes256cbc(sift_crypto *crypto, int encrypting, const unsigned char *iv, const unsigned char *in,
                          int length, unsigned char *out);

/// HMAC-SHA512 with the loaded HMAC key over `data` then `suffix`: 64 bytes into `out`. Returns 1, or 0 on failure.
int sift_crypto_hmac_sha512(sift_crypto *crypto, const unsigned char *data, size_t length, const unsigned char *suffix,
                            size_t suffix_length, unsigned char *out);

/// Frees the state (its keys wiped); NULL is allowed.
void sift_crypto_free(sift_crypto *crypto);

#endif
