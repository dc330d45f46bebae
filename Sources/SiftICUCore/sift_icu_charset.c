/*
 * Charset detection (ICU's ucsdet) and conversion to UTF-8 (ICU's ucnv), for text files that are not UTF-8.
 */
#include <stdlib.h>
#include <string.h>
#include <unicode/ucnv.h>
#include <unicode/ucnv_err.h>
#include <unicode/ucsdet.h>

#include "sift_icu_internal.h"

/* Detection reads at most this many bytes, starting a little before the first non-ASCII byte: the bytes that
   tell charsets apart are the non-ASCII ones, and a long ASCII preamble (licence headers, markup) only dilutes
   them. Any offset before the first non-ASCII byte is a character boundary in every ASCII-compatible charset. */
#define SIFT_DETECT_SAMPLE (64 * 1024)
#define SIFT_DETECT_LEAD 1024

static void copy_name(const char *name, char *out, int32_t capacity) {
    if (!out || capacity <= 0) return;
    int32_t i = 0;
    for (; name && name[i] && i + 1 < capacity; i++) out[i] = name[i];
    out[i] = 0;
}

static int32_t sample_start(const unsigned char *s, int32_t n) {
    int32_t i = 0;
    while (i < n && s[i] < 0x80) i++;
    if (i == n) return 0;
    return i > SIFT_DETECT_LEAD ? i - SIFT_DETECT_LEAD : 0;
}

int sift_icu_detect_charset(const char *bytes, int32_t n, const char *declared, char *name, int32_t name_capacity,
                            int32_t *confidence) {
    copy_name("", name, name_capacity);
    if (confidence) *confidence = 0;
    if (!bytes || n <= 0) return SIFT_ICU_ERROR;
    UErrorCode status = U_ZERO_ERROR;
    UCharsetDetector *detector = ucsdet_open(&status);
    if (U_FAILURE(status)) return status == U_MEMORY_ALLOCATION_ERROR ? SIFT_ICU_NOMEM : SIFT_ICU_ERROR;
    int32_t start = sample_start((const unsigned char *)bytes, n);
    int32_t length = n - start < SIFT_DETECT_SAMPLE ? n - start : SIFT_DETECT_SAMPLE;
    ucsdet_enableInputFilter(detector, 1); /* drops <markup> when enough text remains without it */
    ucsdet_setText(detector, bytes + start, length, &status);
    if (declared && *declared) {
        UErrorCode hintStatus = U_ZERO_ERROR; /* a hint ICU may reject without harm */
        ucsdet_setDeclaredEncoding(detector, declared, -1, &hintStatus);
    }
    int32_t count = 0;
    const UCharsetMatch **matches = ucsdet_detectAll(detector, &count, &status);
    int rc = SIFT_ICU_ERROR;
    for (int32_t i = 0; U_SUCCESS(status) && matches && i < count; i++) {
        UErrorCode nameStatus = U_ZERO_ERROR;
        const char *match = ucsdet_getName(matches[i], &nameStatus);
        if (U_FAILURE(nameStatus) || !match) continue;
        /* Skip names the detector knows but no converter does (IBM424_rtl and the like). */
        UErrorCode openStatus = U_ZERO_ERROR;
        UConverter *converter = ucnv_open(match, &openStatus);
        if (U_FAILURE(openStatus)) continue;
        ucnv_close(converter);
        copy_name(match, name, name_capacity);
        if (confidence) *confidence = ucsdet_getConfidence(matches[i], &nameStatus);
        rc = SIFT_ICU_OK;
        break;
    }
    ucsdet_close(detector);
    return rc;
}

/* A to-Unicode callback that counts the byte sequences it replaces, then substitutes as ICU does by default. */
typedef struct {
    int32_t substitutions;
} sift_count_context;

static void count_substitutions(const void *context, UConverterToUnicodeArgs *args, const char *codeUnits,
                                int32_t length, UConverterCallbackReason reason, UErrorCode *err) {
    if (reason <= UCNV_IRREGULAR) ((sift_count_context *)context)->substitutions++;
    UCNV_TO_U_CALLBACK_SUBSTITUTE(NULL, args, codeUnits, length, reason, err);
}

int sift_icu_convert_to_utf8(const char *bytes, int32_t n, const char *charset, char **out, int32_t *out_length,
                             int32_t *substitutions) {
    *out = NULL;
    *out_length = 0;
    if (substitutions) *substitutions = 0;
    if (!charset || n < 0 || (n > 0 && !bytes)) return SIFT_ICU_ERROR;
    UErrorCode status = U_ZERO_ERROR;
    UConverter *source = ucnv_open(charset, &status);
    if (U_FAILURE(status)) return status == U_MEMORY_ALLOCATION_ERROR ? SIFT_ICU_NOMEM : SIFT_ICU_ERROR;
    UConverter *utf8 = ucnv_open("UTF-8", &status);
    if (U_FAILURE(status)) {
        ucnv_close(source);
        return status == U_MEMORY_ALLOCATION_ERROR ? SIFT_ICU_NOMEM : SIFT_ICU_ERROR;
    }
    sift_count_context counter = {0};
    ucnv_setToUCallBack(source, count_substitutions, &counter, NULL, NULL, &status);
    /* Most input bytes become at most 3 UTF-8 bytes; grow and start over in the rare other case. */
    int64_t capacity = (int64_t)n * 3 + 16;
    char *buffer = NULL;
    int rc = SIFT_ICU_OK;
    for (;;) {
        if (capacity > INT32_MAX) {
            rc = SIFT_ICU_NOMEM;
            break;
        }
        char *grown = realloc(buffer, (size_t)capacity);
        if (!grown) {
            rc = SIFT_ICU_NOMEM;
            break;
        }
        buffer = grown;
        counter.substitutions = 0;
        status = U_ZERO_ERROR;
        char *target = buffer;
        const char *input = bytes ? bytes : "";
        ucnv_convertEx(utf8, source, &target, buffer + capacity - 1, &input, input + n, NULL, NULL, NULL, NULL,
                       1, 1, &status);
        if (status == U_BUFFER_OVERFLOW_ERROR) {
            capacity *= 2;
            continue;
        }
        if (U_FAILURE(status)) {
            rc = status == U_MEMORY_ALLOCATION_ERROR ? SIFT_ICU_NOMEM : SIFT_ICU_ERROR;
            break;
        }
        *target = 0;
        *out_length = (int32_t)(target - buffer);
        break;
    }
    ucnv_close(source);
    ucnv_close(utf8);
    if (rc != SIFT_ICU_OK) {
        free(buffer);
        return rc;
    }
    *out = buffer;
    if (substitutions) *substitutions = counter.substitutions;
    return SIFT_ICU_OK;
}

/* What a declaration names, as browsers read it (WHATWG Encoding): Latin-1 and ASCII labels mean windows-1252,
   whose printable characters are a superset. UTF-8 is ignored (the caller only asks about invalid UTF-8), and so
   are charsets with no single-byte characters (UTF-16, UTF-32): a declaration found by reading the bytes as ASCII
   is not written in them. */
static const char *effective_declared(const char *declared) {
    if (!declared || !*declared || ucnv_compareNames(declared, "UTF-8") == 0) return NULL;
    UErrorCode status = U_ZERO_ERROR;
    UConverter *converter = ucnv_open(declared, &status);
    if (U_FAILURE(status)) return NULL;
    int8_t min_size = ucnv_getMinCharSize(converter);
    ucnv_close(converter);
    if (min_size > 1) return NULL;
    status = U_ZERO_ERROR;
    const char *canonical = ucnv_getCanonicalName(declared, "IANA", &status);
    if (U_FAILURE(status) || !canonical) canonical = declared;
    if (ucnv_compareNames(canonical, "ISO-8859-1") == 0 || ucnv_compareNames(canonical, "US-ASCII") == 0 ||
        ucnv_compareNames(declared, "latin1") == 0 || ucnv_compareNames(declared, "ascii") == 0) {
        return "windows-1252";
    }
    return declared;
}

int sift_icu_transcode(const char *bytes, int32_t n, const char *declared, int32_t min_confidence, char **out,
                       int32_t *out_length, char *charset, int32_t charset_capacity, int32_t *confidence) {
    *out = NULL;
    *out_length = 0;
    copy_name("", charset, charset_capacity);
    if (confidence) *confidence = 0;
    const char *use = effective_declared(declared);
    if (use) {
        int32_t substitutions = 0;
        int rc = sift_icu_convert_to_utf8(bytes, n, use, out, out_length, &substitutions);
        if (rc == SIFT_ICU_NOMEM) return rc;
        /* A declaration that more than 2% of the text contradicts is wrong: detect instead. */
        if (rc == SIFT_ICU_OK && (int64_t)substitutions * 50 <= n) {
            copy_name(use, charset, charset_capacity);
            if (confidence) *confidence = 100;
            return SIFT_ICU_OK;
        }
        free(*out);
        *out = NULL;
        *out_length = 0;
    }
    char name[64];
    int32_t found = 0;
    int rc = sift_icu_detect_charset(bytes, n, declared, name, (int32_t)sizeof name, &found);
    if (rc != SIFT_ICU_OK) return rc;
    if (confidence) *confidence = found;
    copy_name(name, charset, charset_capacity);
    if (found < min_confidence) return SIFT_ICU_ERROR;
    return sift_icu_convert_to_utf8(bytes, n, name, out, out_length, NULL);
}

void sift_icu_free(void *pointer) { free(pointer); }
