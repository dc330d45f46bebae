// sift_cipher_crypto.h implemented with OpenSSL's libcrypto (3.0 or later): the only file of SiftCipher that
// includes an OpenSSL header.
#include "sift_cipher_crypto.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdlib.h>

#define SIFT_CRYPTO_KEY_SIZE 32
#define SIFT_CRYPTO_HMAC_SIZE 64

struct sift_crypto {
    EVP_CIPHER_CTX *encrypt;
    EVP_CIPHER_CTX *decrypt;
    EVP_MAC_CTX *mac;
};

static EVP_CIPHER *fetched_cipher;
static EVP_MAC *fetched_mac;
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;

static void fetch_algorithms(void) {
    fetched_cipher = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
    fetched_mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
}

int sift_crypto_pbkdf2_sha512(const void *pass, size_t pass_len, const unsigned char *salt, size_t salt_len,
                              int iterations, unsigned char *out, size_t out_len) {
    return PKCS5_PBKDF2_HMAC((const char *)pass, (int)pass_len, salt, (int)salt_len, iterations, EVP_sha512(),
                             (int)out_len, out) == 1;
}

int sift_crypto_random(unsigned char *out, size_t length) { return RAND_bytes(out, (int)length) == 1; }

void sift_crypto_cleanse(void *pointer, size_t length) { OPENSSL_cleanse(pointer, length); }

int sift_crypto_equal(const void *a, const void *b, size_t length) { return CRYPTO_memcmp(a, b, length) == 0; }

sift_crypto *sift_crypto_new(void) {
    pthread_once(&fetch_once, fetch_algorithms);
    if (fetched_cipher == NULL || fetched_mac == NULL) return NULL;
    sift_crypto *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->encrypt = EVP_CIPHER_CTX_new();
    c->decrypt = EVP_CIPHER_CTX_new();
    c->mac = EVP_MAC_CTX_new(fetched_mac);
    if (c->encrypt == NULL || c->decrypt == NULL || c->mac == NULL) {
        sift_crypto_free(c);
        return NULL;
    }
    return c;
}

int sift_crypto_set_keys(sift_crypto *c, const unsigned char *key, const unsigned char *hmac_key) {
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA512", 0),
        OSSL_PARAM_construct_end(),
    };
    return EVP_EncryptInit_ex2(c->encrypt, fetched_cipher, key, NULL, NULL) == 1
        && EVP_DecryptInit_ex2(c->decrypt, fetched_cipher, key, NULL, NULL) == 1
        && EVP_MAC_init(c->mac, hmac_key, SIFT_CRYPTO_KEY_SIZE, params) == 1;
}

int sift_crypto_aes256cbc(sift_crypto *c, int encrypting, const unsigned char *iv, const unsigned char *in,
                          int length, unsigned char *out) {
    EVP_CIPHER_CTX *ctx = encrypting ? c->encrypt : c->decrypt;
    int written = 0;
    int ok = encrypting ? EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL) : EVP_DecryptInit_ex2(ctx, NULL, NULL, iv, NULL);
    if (ok != 1 || EVP_CIPHER_CTX_set_padding(ctx, 0) != 1) return 0;
    ok = encrypting ? EVP_EncryptUpdate(ctx, out, &written, in, length) : EVP_DecryptUpdate(ctx, out, &written, in, length);
    return ok == 1 && written == length;
}

int sift_crypto_hmac_sha512(sift_crypto *c, const unsigned char *data, size_t length, const unsigned char *suffix,
                            size_t suffix_length, unsigned char *out) {
    size_t written = 0;
    return EVP_MAC_init(c->mac, NULL, 0, NULL) == 1 && EVP_MAC_update(c->mac, data, length) == 1
        && EVP_MAC_update(c->mac, suffix, suffix_length) == 1
        && EVP_MAC_final(c->mac, out, &written, SIFT_CRYPTO_HMAC_SIZE) == 1 && written == SIFT_CRYPTO_HMAC_SIZE;
}

void sift_crypto_free(sift_crypto *c) {
    if (c == NULL) return;
    EVP_CIPHER_CTX_free(c->encrypt);
    EVP_CIPHER_CTX_free(c->decrypt);
    EVP_MAC_CTX_free(c->mac);
    OPENSSL_cleanse(c, sizeof *c);
    free(c);
}
