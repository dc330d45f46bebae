/* The one table of CJK characters: see sift_text.h. */
#include "sift_text.h"

int sift_is_cjk(uint32_t c) {
    if (c < 0x1100) return 0;
    if (c <= 0x11FF) return 1; /* Hangul Jamo */
    if (c == 0x25CB) return 1; /* ○, written for 〇 (zero) in Chinese years: 二○○○年 */
    if (c < 0x2E80) return 0;
    if (c <= 0x2FDF) return 1;                  /* CJK and Kangxi radicals */
    if (c >= 0x3005 && c <= 0x3007) return 1;   /* 々 〆 〇 */
    if (c >= 0x3021 && c <= 0x3029) return 1;   /* Hangzhou numerals */
    if (c >= 0x3031 && c <= 0x3035) return 1;   /* vertical kana repeat marks */
    if (c >= 0x3038 && c <= 0x303C) return 1;
    if (c >= 0x3041 && c <= 0x30FF) return c != 0x30FB; /* kana, ー; not the middle dot, which is punctuation */
    if (c >= 0x3131 && c <= 0x318E) return 1;   /* Hangul compatibility jamo */
    if (c >= 0x31F0 && c <= 0x31FF) return 1;   /* small katakana */
    if (c >= 0x3400 && c <= 0x4DBF) return 1;   /* ext A */
    if (c >= 0x4E00 && c <= 0x9FFF) return 1;   /* unified ideographs */
    if (c >= 0xA960 && c <= 0xA97F) return 1;   /* Hangul jamo ext A */
    if (c >= 0xAC00 && c <= 0xD7FF) return 1;   /* Hangul syllables, jamo ext B */
    if (c >= 0xF900 && c <= 0xFAFF) return 1;   /* compatibility ideographs */
    if (c >= 0xFF66 && c <= 0xFF9F) return 1;   /* halfwidth katakana */
    if (c >= 0xFFA0 && c <= 0xFFDC) return 1;   /* halfwidth Hangul */
    if (c >= 0x1B000 && c <= 0x1B16F) return 1; /* kana supplement */
    if (c >= 0x20000 && c <= 0x323AF) return 1; /* ext B..H */
    return 0;
}

int sift_is_cjk_mark(uint32_t c) {
    return c == 0x3099 || c == 0x309A || c == 0xFF9E || c == 0xFF9F || (c >= 0x302A && c <= 0x302F) ||
           (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF);
}
