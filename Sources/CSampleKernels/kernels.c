#include "CSampleKernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void ws_upmix_unity(const int16_t *in, int16_t *out, size_t count) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i m = _mm_set1_epi16(23170);
    const __m128i half = _mm_set1_epi32(16384);
    for (; i + 8 <= count; i += 8) {
        __m128i s = _mm_loadu_si128((const __m128i *)(in + i));
        __m128i lo = _mm_mullo_epi16(s, m), hi = _mm_mulhi_epi16(s, m);
        __m128i p0 = _mm_srai_epi32(_mm_add_epi32(_mm_unpacklo_epi16(lo, hi), half), 15);
        __m128i p1 = _mm_srai_epi32(_mm_add_epi32(_mm_unpackhi_epi16(lo, hi), half), 15);
        __m128i v = _mm_packs_epi32(p0, p1);  // within 16 bits already: |v| <= 23170
        _mm_storeu_si128((__m128i *)(out + 2 * i), _mm_unpacklo_epi16(v, v));
        _mm_storeu_si128((__m128i *)(out + 2 * i + 8), _mm_unpackhi_epi16(v, v));
    }
#endif
    for (; i < count; i++) {
        int16_t v = (int16_t)(((int32_t)in[i] * 23170 + 16384) >> 15);
        out[2 * i] = v;
        out[2 * i + 1] = v;
    }
}

// s * q in 32 bits: q = hi * 65536 + lo, and s * lo = s * (lo - 32768) + s * 32768, two products
// of 16-bit values (what SSE2 multiplies); then (s * q + 32768 + (s < 0 ? -1 : 0)) >> 16 is
// s * hi + ((s * lo + 32768 + (s < 0 ? -1 : 0)) >> 16), which never passes 2^31.
static inline int16_t q16_one(int32_t s, uint32_t q) {
    int32_t low = s * ((int32_t)(q & 0xFFFF) - 32768) + s * 32768;
    int32_t v = s * (int32_t)(q >> 16) + ((low + 32768 + (s >> 31)) >> 16);
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

void ws_upmix_q16(const int16_t *in, int16_t *out, size_t count, uint32_t q) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i m = _mm_set1_epi16((int16_t)((int32_t)(q & 0xFFFF) - 32768));
    const __m128i whole = _mm_set1_epi16((int16_t)(q >> 16));
    const __m128i half = _mm_set1_epi32(32768);
    for (; i + 8 <= count; i += 8) {
        __m128i s = _mm_loadu_si128((const __m128i *)(in + i));
        __m128i lo = _mm_mullo_epi16(s, m), hi = _mm_mulhi_epi16(s, m);
        __m128i s0 = _mm_srai_epi32(_mm_unpacklo_epi16(s, s), 16), s1 = _mm_srai_epi32(_mm_unpackhi_epi16(s, s), 16);
        __m128i p0 = _mm_add_epi32(_mm_unpacklo_epi16(lo, hi), _mm_slli_epi32(s0, 15));
        __m128i p1 = _mm_add_epi32(_mm_unpackhi_epi16(lo, hi), _mm_slli_epi32(s1, 15));
        p0 = _mm_srai_epi32(_mm_add_epi32(p0, _mm_add_epi32(half, _mm_srai_epi32(s0, 31))), 16);
        p1 = _mm_srai_epi32(_mm_add_epi32(p1, _mm_add_epi32(half, _mm_srai_epi32(s1, 31))), 16);
        __m128i wl = _mm_mullo_epi16(s, whole), wh = _mm_mulhi_epi16(s, whole);
        p0 = _mm_add_epi32(p0, _mm_unpacklo_epi16(wl, wh));
        p1 = _mm_add_epi32(p1, _mm_unpackhi_epi16(wl, wh));
        __m128i v = _mm_packs_epi32(p0, p1);  // saturated
        _mm_storeu_si128((__m128i *)(out + 2 * i), _mm_unpacklo_epi16(v, v));
        _mm_storeu_si128((__m128i *)(out + 2 * i + 8), _mm_unpackhi_epi16(v, v));
    }
#endif
    for (; i < count; i++) {
        int16_t v = q16_one(in[i], q);
        out[2 * i] = v;
        out[2 * i + 1] = v;
    }
}
