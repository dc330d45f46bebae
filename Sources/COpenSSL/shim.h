#ifndef SIFT_COPENSSL_SHIM_H
#define SIFT_COPENSSL_SHIM_H
// OpenSSL's libcrypto (Debian libssl-dev): every cryptographic operation of SiftCipher goes through it.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#endif
