#ifndef SIFT_VARINT_H
#define SIFT_VARINT_H

#include <stdint.h>

/* An SQLite varint (big-endian groups of 7 bits while the high bit is set, the ninth byte whole: the format of
   SQLite's records, FTS5's docsize rows and the term dictionary's lists) at *at, before `end`; moves *at past it.
   0 when it stops short. */
static inline int sift_sqlite_varint(const unsigned char **at, const unsigned char *end, uint64_t *value) {
    uint64_t v = 0;
    for (int i = 0; i < 9; i++) {
        if (*at >= end) return 0;
        unsigned char byte = *(*at)++;
        if (i == 8) {
            *value = (v << 8) | byte;
            return 1;
        }
        v = (v << 7) | (byte & 0x7F);
        if (!(byte & 0x80)) {
            *value = v;
            return 1;
        }
    }
    return 0;
}

#endif
