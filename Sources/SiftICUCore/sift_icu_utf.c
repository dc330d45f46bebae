/* UTF-8 <-> UTF-16 conversion that keeps exact byte offsets into the original, possibly invalid, input. */
#include <stdlib.h>

#include "sift_icu_internal.h"

int sift_grow(void **buf, int32_t *cap, int64_t need, size_t elem) {
    if (need <= *cap) return 1;
    int64_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    if (n > INT32_MAX) n = INT32_MAX;
    if (n < need) return 0;
    void *p = realloc(*buf, (size_t)n * elem);
    if (!p) return 0;
    *buf = p;
    *cap = (int32_t)n;
    return 1;
}

/*
 * Decodes len bytes into out (capacity len + 1 units is always enough: no sequence makes more UTF-16 units than
 * it has bytes). map[k] is the byte offset of the sequence unit k came from; map[result] = len.
 * An ill-formed sequence becomes one U+FFFD per maximal valid prefix (the Unicode "maximal subpart" practice),
 * so a bad byte never swallows the valid character after it; U+FFFD is no word character, so it separates tokens.
 */
int32_t sift_utf8_decode(const unsigned char *s, int32_t len, UChar *out, int32_t *map) {
    int32_t i = 0, k = 0;
    while (i < len) {
        unsigned b = s[i];
        if (b < 0x80) {
            out[k] = (UChar)b;
            map[k++] = i++;
            continue;
        }
        int need;
        UChar32 cp;
        unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        if (b >= 0xC2 && b <= 0xDF) {
            need = 1, cp = b & 0x1F;
        } else if (b >= 0xE0 && b <= 0xEF) {
            need = 2, cp = b & 0x0F;
            if (b == 0xE0) lo = 0xA0;      /* overlong */
            else if (b == 0xED) hi = 0x9F; /* surrogates */
        } else if (b >= 0xF0 && b <= 0xF4) {
            need = 3, cp = b & 0x07;
            if (b == 0xF0) lo = 0x90;      /* overlong */
            else if (b == 0xF4) hi = 0x8F; /* > U+10FFFF */
        } else {
            out[k] = 0xFFFD;
            map[k++] = i++;
            continue;
        }
        int j = 1;
        for (; j <= need; j++) {
            if (i + j >= len) break;
            unsigned c = s[i + j];
            if (j == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) break;
            cp = (cp << 6) | (c & 0x3F);
        }
        if (j <= need) { /* ill-formed: replace the j bytes seen so far */
            out[k] = 0xFFFD;
            map[k++] = i;
            i += j;
            continue;
        }
        if (cp >= 0x10000) {
            out[k] = (UChar)(0xD7C0 + (cp >> 10));
            map[k++] = i;
            out[k] = (UChar)(0xDC00 | (cp & 0x3FF));
            map[k++] = i;
        } else {
            out[k] = (UChar)cp;
            map[k++] = i;
        }
        i += need + 1;
    }
    map[k] = len;
    return k;
}

/* Writes c as UTF-8 (at most 4 bytes); surrogates and out-of-range values become U+FFFD. */
int32_t sift_utf8_put(char *out, UChar32 c) {
    unsigned char *o = (unsigned char *)out;
    if (c < 0x80 && c >= 0) {
        o[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800 && c >= 0) {
        o[0] = (unsigned char)(0xC0 | (c >> 6));
        o[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
    if (c < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (c >> 12));
        o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (c >> 18));
    o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

/* Converts n UTF-16 units to UTF-8 (out needs 3 * n bytes); returns the byte count. */
int32_t sift_utf16_to_utf8(const UChar *s, int32_t n, char *out) {
    int32_t o = 0;
    for (int32_t i = 0; i < n; i++) {
        UChar32 c = s[i];
        if (c < 0x80) {
            out[o++] = (char)c;
            continue;
        }
        if (U16_IS_LEAD(c) && i + 1 < n && U16_IS_TRAIL(s[i + 1])) {
            c = U16_GET_SUPPLEMENTARY(c, s[i + 1]);
            i++;
        }
        o += sift_utf8_put(out + o, c);
    }
    return o;
}
