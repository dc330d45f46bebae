// Key contexts, key derivation and the page transform, their cryptography through sift_cipher_crypto.h.
#include "sift_cipher_internal.h"

#include <stdlib.h>
#include <string.h>

#define KDF_ITERATIONS 256000
#define HMAC_KDF_ITERATIONS 2
#define HMAC_SALT_MASK 0x3a

struct sift_cipher {
    uint64_t id;
    int refs;                   // guarded by registry_lock
    int page_size;
    unsigned char *pass;
    int pass_len;
    // Raw keys (x'...'): the key, maybe the HMAC key and the salt, used as given.
    int raw_key, raw_hmac_key, raw_salt;
    unsigned char key[SIFT_CIPHER_KEY_SIZE];
    unsigned char hmac_key[SIFT_CIPHER_KEY_SIZE];
    unsigned char salt[SIFT_CIPHER_SALT_SIZE];
    pthread_mutex_t lock;       // guards what follows
    int has_new_salt;
    unsigned char new_salt[SIFT_CIPHER_SALT_SIZE];
    // The keys of the salts met last: cache_used[i] is when entry i was last used (0: empty), on cache_clock.
    sift_keyset cache[SIFT_CIPHER_KEY_CACHE];
    uint64_t cache_used[SIFT_CIPHER_KEY_CACHE];
    uint64_t cache_clock;
    int derivations;
    struct sift_cipher *next_registered;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sift_cipher *registry;
static uint64_t next_id = 1;

static _Thread_local sift_cipher_failure last_failure;
static _Thread_local uint32_t last_failure_page;

void sift_cipher_fail(sift_cipher_failure failure, uint32_t page) {
    last_failure = failure;
    last_failure_page = page;
}

sift_cipher_failure sift_cipher_take_failure(uint32_t *page) {
    sift_cipher_failure failure = last_failure;
    if (page) *page = last_failure_page;
    last_failure = SIFT_CIPHER_NO_FAILURE;
    last_failure_page = 0;
    return failure;
}

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int decode_hex(const unsigned char *hex, int bytes, unsigned char *out) {
    for (int i = 0; i < bytes; i++) {
        int high = hex_value(hex[2 * i]), low = hex_value(hex[2 * i + 1]);
        if (high < 0 || low < 0) return 0;
        out[i] = (unsigned char)(high << 4 | low);
    }
    return 1;
}

// SQLCipher's raw-key forms: x'KEY', x'KEY SALT', x'KEY HMACKEY SALT' (hex).
static void parse_raw_key(sift_cipher *c) {
    const unsigned char *p = c->pass;
    int n = c->pass_len;
    if (n < 5 || (p[0] != 'x' && p[0] != 'X') || p[1] != '\'' || p[n - 1] != '\'') return;
    const unsigned char *hex = p + 2;
    int digits = n - 3;
    if (digits == 2 * SIFT_CIPHER_KEY_SIZE) {
        c->raw_key = decode_hex(hex, SIFT_CIPHER_KEY_SIZE, c->key);
    } else if (digits == 2 * (SIFT_CIPHER_KEY_SIZE + SIFT_CIPHER_SALT_SIZE)) {
        c->raw_key = c->raw_salt = decode_hex(hex, SIFT_CIPHER_KEY_SIZE, c->key)
            && decode_hex(hex + 2 * SIFT_CIPHER_KEY_SIZE, SIFT_CIPHER_SALT_SIZE, c->salt);
    } else if (digits == 2 * (2 * SIFT_CIPHER_KEY_SIZE + SIFT_CIPHER_SALT_SIZE)) {
        c->raw_key = c->raw_hmac_key = c->raw_salt = decode_hex(hex, SIFT_CIPHER_KEY_SIZE, c->key)
            && decode_hex(hex + 2 * SIFT_CIPHER_KEY_SIZE, SIFT_CIPHER_KEY_SIZE, c->hmac_key)
            && decode_hex(hex + 4 * SIFT_CIPHER_KEY_SIZE, SIFT_CIPHER_SALT_SIZE, c->salt);
    }
    if (!c->raw_key) c->raw_hmac_key = c->raw_salt = 0;
}

sift_cipher *sift_cipher_create(const void *pass, int pass_len, int page_size) {
    if (pass == NULL || pass_len <= 0) return NULL;
    if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) return NULL;
    sift_cipher *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->pass = malloc((size_t)pass_len);
    if (c->pass == NULL) { free(c); return NULL; }
    memcpy(c->pass, pass, (size_t)pass_len);
    c->pass_len = pass_len;
    c->page_size = page_size;
    c->refs = 1;
    pthread_mutex_init(&c->lock, NULL);
    parse_raw_key(c);
    if (c->raw_salt) {
        memcpy(c->new_salt, c->salt, SIFT_CIPHER_SALT_SIZE);
        c->has_new_salt = 1;
    }
    pthread_mutex_lock(&registry_lock);
    c->id = next_id++;
    c->next_registered = registry;
    registry = c;
    pthread_mutex_unlock(&registry_lock);
    return c;
}

sift_cipher *sift_cipher_create_raw(const void *key, int key_len, const void *salt, int salt_len, int page_size) {
    static const char digits[] = "0123456789abcdef";
    if (key == NULL || key_len != SIFT_CIPHER_KEY_SIZE) return NULL;
    if (salt != NULL ? salt_len != SIFT_CIPHER_SALT_SIZE : salt_len != 0) return NULL;
    unsigned char text[3 + 2 * (SIFT_CIPHER_KEY_SIZE + SIFT_CIPHER_SALT_SIZE)];
    int n = 0;
    text[n++] = 'x';
    text[n++] = '\'';
    for (int part = 0; part < 2; part++) {
        const unsigned char *bytes = part == 0 ? key : salt;
        int length = part == 0 ? key_len : salt_len;
        for (int i = 0; bytes != NULL && i < length; i++) {
            text[n++] = (unsigned char)digits[bytes[i] >> 4];
            text[n++] = (unsigned char)digits[bytes[i] & 15];
        }
    }
    text[n++] = '\'';
    sift_cipher *c = sift_cipher_create(text, n, page_size);
    sift_crypto_cleanse(text, sizeof text);
    return c;
}

static void destroy(sift_cipher *c) {
    sift_crypto_cleanse(c->pass, (size_t)c->pass_len);
    free(c->pass);
    pthread_mutex_destroy(&c->lock);
    sift_crypto_cleanse(c, sizeof *c);
    free(c);
}

static void unregister(sift_cipher *c) {
    for (sift_cipher **p = &registry; *p != NULL; p = &(*p)->next_registered) {
        if (*p == c) { *p = c->next_registered; c->next_registered = NULL; return; }
    }
}

void sift_cipher_release(sift_cipher *c) {
    if (c == NULL) return;
    pthread_mutex_lock(&registry_lock);
    int last = --c->refs == 0;
    if (last) unregister(c);
    pthread_mutex_unlock(&registry_lock);
    if (last) destroy(c);
}

sift_cipher *sift_cipher_retain_id(uint64_t id) {
    pthread_mutex_lock(&registry_lock);
    sift_cipher *found = NULL;
    for (sift_cipher *c = registry; c != NULL; c = c->next_registered) {
        if (c->id == id) { found = c; c->refs++; break; }
    }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

uint64_t sift_cipher_id(const sift_cipher *c) { return c->id; }

int sift_cipher_derivations(sift_cipher *c) {
    pthread_mutex_lock(&c->lock);
    int count = c->derivations;
    pthread_mutex_unlock(&c->lock);
    return count;
}

int sift_cipher_cached_keys(sift_cipher *c) {
    pthread_mutex_lock(&c->lock);
    int count = 0;
    for (int i = 0; i < SIFT_CIPHER_KEY_CACHE; i++) count += c->cache_used[i] != 0;
    pthread_mutex_unlock(&c->lock);
    return count;
}
int sift_cipher_page_size(const sift_cipher *c) { return c->page_size; }
int sift_cipher_has_salt(const sift_cipher *c) { return c->raw_salt; }

static int derive(const sift_cipher *c, const unsigned char *salt, sift_keyset *out) {
    memcpy(out->salt, salt, SIFT_CIPHER_SALT_SIZE);
    if (c->raw_key) {
        memcpy(out->key, c->key, SIFT_CIPHER_KEY_SIZE);
    } else if (!sift_crypto_pbkdf2_sha512(c->pass, (size_t)c->pass_len, salt, SIFT_CIPHER_SALT_SIZE, KDF_ITERATIONS,
                                          out->key, SIFT_CIPHER_KEY_SIZE)) {
        return 0;
    }
    if (c->raw_hmac_key) {
        memcpy(out->hmac_key, c->hmac_key, SIFT_CIPHER_KEY_SIZE);
        return 1;
    }
    unsigned char hmac_salt[SIFT_CIPHER_SALT_SIZE];
    for (int i = 0; i < SIFT_CIPHER_SALT_SIZE; i++) hmac_salt[i] = salt[i] ^ HMAC_SALT_MASK;
    return sift_crypto_pbkdf2_sha512(out->key, SIFT_CIPHER_KEY_SIZE, hmac_salt, SIFT_CIPHER_SALT_SIZE,
                                     HMAC_KDF_ITERATIONS, out->hmac_key, SIFT_CIPHER_KEY_SIZE);
}

// Caller holds c->lock.
static int keys_locked(sift_cipher *c, const unsigned char *salt, sift_keyset *out) {
    // A raw key with its salt uses that salt whatever the file says (as SQLCipher does).
    if (c->raw_salt) salt = c->salt;
    int victim = 0;
    for (int i = 0; i < SIFT_CIPHER_KEY_CACHE; i++) {
        if (c->cache_used[i] != 0 && memcmp(c->cache[i].salt, salt, SIFT_CIPHER_SALT_SIZE) == 0) {
            c->cache_used[i] = ++c->cache_clock;
            *out = c->cache[i];
            return 1;
        }
        if (c->cache_used[i] < c->cache_used[victim]) victim = i;
    }
    sift_keyset made;
    int ok = derive(c, salt, &made);
    c->derivations++;
    if (ok) {
        c->cache[victim] = made;
        c->cache_used[victim] = ++c->cache_clock;
        *out = made;
    }
    sift_crypto_cleanse(&made, sizeof made);
    return ok;
}

int sift_cipher_keys(sift_cipher *c, const unsigned char *salt, sift_keyset *out) {
    pthread_mutex_lock(&c->lock);
    int ok = keys_locked(c, salt, out);
    pthread_mutex_unlock(&c->lock);
    return ok;
}

int sift_cipher_new_file_keys(sift_cipher *c, sift_keyset *out) {
    pthread_mutex_lock(&c->lock);
    int ok = 0;
    if (!c->has_new_salt && sift_crypto_random(c->new_salt, SIFT_CIPHER_SALT_SIZE)) c->has_new_salt = 1;
    if (c->has_new_salt) ok = keys_locked(c, c->new_salt, out);
    pthread_mutex_unlock(&c->lock);
    return ok;
}

// MARK: - Pages

static int load(sift_page_crypto *p, const sift_keyset *keys) {
    if (p->loaded && memcmp(&p->keys, keys, sizeof *keys) == 0) return 1;
    if (p->state == NULL && (p->state = sift_crypto_new()) == NULL) return 0;
    p->loaded = 0;
    if (!sift_crypto_set_keys(p->state, keys->key, keys->hmac_key)) return 0;
    p->keys = *keys;
    p->loaded = 1;
    return 1;
}

void sift_page_crypto_free(sift_page_crypto *p) {
    sift_crypto_free(p->state);
    sift_crypto_cleanse(p, sizeof *p);
}

// HMAC-SHA512 over `data` (ciphertext + IV) and the page number, little-endian.
static int page_mac(sift_page_crypto *p, uint32_t pgno, const unsigned char *data, size_t length,
                    unsigned char *out) {
    unsigned char number[4] = {(unsigned char)pgno, (unsigned char)(pgno >> 8), (unsigned char)(pgno >> 16),
                               (unsigned char)(pgno >> 24)};
    return sift_crypto_hmac_sha512(p->state, data, length, number, sizeof number, out);
}

int sift_page_encrypt(sift_page_crypto *p, const sift_keyset *keys, uint32_t pgno, int page_size,
                      const unsigned char *in, unsigned char *out) {
    if (!load(p, keys)) return -1;
    int offset = pgno == 1 ? SIFT_CIPHER_SALT_SIZE : 0;
    int length = page_size - offset - SIFT_CIPHER_RESERVE;
    unsigned char *iv = out + page_size - SIFT_CIPHER_RESERVE;
    if (offset) memcpy(out, keys->salt, SIFT_CIPHER_SALT_SIZE);
    // A fresh random IV; the HMAC fills the rest of the reserve (IV and HMAC are all of its 80 bytes).
    if (!sift_crypto_random(iv, SIFT_CIPHER_IV_SIZE)) return -1;
    if (!sift_crypto_aes256cbc(p->state, 1, iv, in + offset, length, out + offset)) return -1;
    if (!page_mac(p, pgno, out + offset, (size_t)length + SIFT_CIPHER_IV_SIZE, iv + SIFT_CIPHER_IV_SIZE)) return -1;
    return 0;
}

int sift_page_decrypt(sift_page_crypto *p, const sift_keyset *keys, uint32_t pgno, int page_size,
                      const unsigned char *in, unsigned char *out) {
    if (!load(p, keys)) return -1;
    int offset = pgno == 1 ? SIFT_CIPHER_SALT_SIZE : 0;
    int length = page_size - offset - SIFT_CIPHER_RESERVE;
    const unsigned char *iv = in + page_size - SIFT_CIPHER_RESERVE;
    unsigned char mac[SIFT_CIPHER_HMAC_SIZE];
    if (!page_mac(p, pgno, in + offset, (size_t)length + SIFT_CIPHER_IV_SIZE, mac)) return -1;
    if (!sift_crypto_equal(mac, iv + SIFT_CIPHER_IV_SIZE, SIFT_CIPHER_HMAC_SIZE)) return 1;
    if (!sift_crypto_aes256cbc(p->state, 0, iv, in + offset, length, out + offset)) return -1;
    if (offset) memcpy(out, "SQLite format 3", SIFT_CIPHER_SALT_SIZE);
    // The reserve reads back as SQLite left it: zeros. SQLite zero-fills every page it does not read and never
    // writes the reserve, and it checksums whole pages in the WAL, which recovery after a crash compares.
    memset(out + page_size - SIFT_CIPHER_RESERVE, 0, SIFT_CIPHER_RESERVE);
    return 0;
}

// MARK: - Pages read outside the VFS (recovery)

struct sift_cipher_pages {
    sift_cipher *cipher;
    sift_keyset keys;
    sift_page_crypto crypto;
};

sift_cipher_pages *sift_cipher_pages_create(sift_cipher *cipher, const void *salt) {
    if (cipher == NULL || salt == NULL) return NULL;
    sift_cipher_pages *pages = calloc(1, sizeof *pages);
    if (pages == NULL) return NULL;
    pages->cipher = sift_cipher_retain_id(cipher->id);
    if (pages->cipher == NULL || !sift_cipher_keys(pages->cipher, salt, &pages->keys)) {
        sift_cipher_pages_free(pages);
        return NULL;
    }
    return pages;
}

int sift_cipher_pages_decrypt(sift_cipher_pages *pages, uint32_t pgno, const void *in, void *out) {
    return sift_page_decrypt(&pages->crypto, &pages->keys, pgno, pages->cipher->page_size, in, out);
}

void sift_cipher_pages_free(sift_cipher_pages *pages) {
    if (pages == NULL) return;
    sift_page_crypto_free(&pages->crypto);
    sift_cipher_release(pages->cipher);
    sift_crypto_cleanse(pages, sizeof *pages);
    free(pages);
}
