#include "CCachedImageChecksum.h"
#include <string.h>
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#define CACHEDIMAGE_CHECKSUM_AVX2 1
#endif

// The algorithm is described in FastChecksum.swift. The stripe loop is written with the
// compiler's generic vectors (GCC and Clang), so it is vectorised on every target without
// intrinsics: two 64-bit lanes per vector, and the 32x32->64-bit multiply becomes PMULUDQ on
// x86-64 (SSE2, the baseline) and UMLAL on arm64. Written as scalar lanes, Clang left the loop
// scalar on both (3.3x slower on x86-64 at -O2).
//
// On x86-64 processors with AVX2 the same sums run four lanes per vector (checksum_avx2, chosen
// at run time): the values are the same bit for bit, in half the time (a 400 KB entry in 15 us
// instead of 27-36 us here; the checksum was most of what a disk hit adds to a plain file read).

typedef uint64_t u64x2 __attribute__((vector_size(16)));

static const uint64_t prime1 = 0x9E3779B185EBCA87ULL;
static const uint64_t prime2 = 0xC2B2AE3D27D4EB4FULL;
static const uint64_t prime3 = 0x165667B19E3779F9ULL;

static inline uint64_t step(uint64_t accumulator, uint64_t word) {
    uint64_t product = (accumulator ^ word) * prime1;
    return (product << 31) | (product >> 33);
}

static inline uint64_t load_le64(const unsigned char *pointer) {
    uint64_t value;
    memcpy(&value, pointer, sizeof value);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap64(value);
#endif
    return value;
}

static inline u64x2 load_le64x2(const unsigned char *pointer) {
    u64x2 value;
    memcpy(&value, pointer, sizeof value);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = (u64x2){__builtin_bswap64(value[0]), __builtin_bswap64(value[1])};
#endif
    return value;
}

static uint64_t finalize(uint64_t hash) {
    hash ^= hash >> 33;
    hash *= prime2;
    hash ^= hash >> 29;
    hash *= prime3;
    hash ^= hash >> 32;
    return hash;
}

// The words after the last whole stripe, then the finalizer.
static uint64_t finish(uint64_t hash, const unsigned char *base, size_t offset, size_t count) {
    while (count - offset >= 8) {
        hash = step(hash, load_le64(base + offset));
        offset += 8;
    }
    if (offset < count) {
        uint64_t tail = 0;
        unsigned shift = 0;
        while (offset < count) {
            tail |= (uint64_t)base[offset] << shift;
            shift += 8;
            offset += 1;
        }
        hash = step(hash, tail);
    }
    return finalize(hash);
}

uint64_t cachedimage_checksum_portable(const void *bytes, size_t count, uint64_t seed) {
    uint64_t hash = step(seed ^ prime3, (uint64_t)count);
    if (bytes == NULL) return finalize(hash);
    const unsigned char *base = (const unsigned char *)bytes;
    size_t offset = 0;
    if (count >= 128) {
        // Eight 2x64-bit accumulators, one per 16-byte vector of a 128-byte stripe.
        u64x2 accumulators[8] = {{seed, prime1}, {prime2, prime3}, {1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}};
        u64x2 evenKey = {0x243F6A8885A308D3ULL + seed, 0x13198A2E03707344ULL + seed};
        const u64x2 oddOffset = {0xA4093822299F31D0ULL, 0x082EFA98EC4E6C89ULL};
        const u64x2 keyStep = {0x9E3779B97F4A7C15ULL, 0xD1B54A32D192ED03ULL};
        const u64x2 low32 = {0xFFFFFFFFULL, 0xFFFFFFFFULL};
        while (count - offset >= 128) {
            u64x2 words[8];
            for (int vector = 0; vector < 8; vector++) words[vector] = load_le64x2(base + offset + 16 * vector);
            const u64x2 oddKey = evenKey + oddOffset;
            for (int vector = 0; vector < 8; vector++) {
                const u64x2 mixed = words[vector] ^ (vector % 2 == 0 ? evenKey : oddKey);
                accumulators[vector] += (mixed & low32) * (mixed >> 32) + words[(vector + 7) % 8];
            }
            evenKey += keyStep;
            offset += 128;
        }
        for (int vector = 0; vector < 8; vector++) {
            hash = step(step(hash, accumulators[vector][0]), accumulators[vector][1]);
        }
    }
    return finish(hash, base, offset, count);
}

#if CACHEDIMAGE_CHECKSUM_AVX2
typedef uint64_t u64x4 __attribute__((vector_size(32)));

// The portable loop's sums, four lanes at a time. Accumulator v of the portable loop adds, for
// every stripe, the product of its own words and the words of vector v - 1: additions modulo
// 2^64 commute, so the products and the plain word sums are kept apart here and combined per
// portable accumulator at the end, in the portable order, with no shuffle inside the loop.
__attribute__((target("avx2")))
static uint64_t checksum_avx2(const void *bytes, size_t count, uint64_t seed) {
    uint64_t hash = step(seed ^ prime3, (uint64_t)count);
    if (bytes == NULL) return finalize(hash);
    const unsigned char *base = (const unsigned char *)bytes;
    size_t offset = 0;
    if (count >= 128) {
        // Lane l of 256-bit vector v is 64-bit word 4v + l of the stripe: portable vector
        // 2v (even key) then 2v + 1 (odd key).
        u64x4 products[4] = {{0}, {0}, {0}, {0}}, sums[4] = {{0}, {0}, {0}, {0}};
        const uint64_t even0 = 0x243F6A8885A308D3ULL + seed, even1 = 0x13198A2E03707344ULL + seed;
        u64x4 key = {even0, even1, even0 + 0xA4093822299F31D0ULL, even1 + 0x082EFA98EC4E6C89ULL};
        const u64x4 keyStep = {0x9E3779B97F4A7C15ULL, 0xD1B54A32D192ED03ULL, 0x9E3779B97F4A7C15ULL, 0xD1B54A32D192ED03ULL};
        const u64x4 low32 = {0xFFFFFFFFULL, 0xFFFFFFFFULL, 0xFFFFFFFFULL, 0xFFFFFFFFULL};
        while (count - offset >= 128) {
            for (int vector = 0; vector < 4; vector++) {
                u64x4 words;
                memcpy(&words, base + offset + 32 * vector, sizeof words);
                const u64x4 mixed = words ^ key;
                products[vector] += (mixed & low32) * (mixed >> 32);
                sums[vector] += words;
            }
            key += keyStep;
            offset += 128;
        }
        const uint64_t initial[16] = {seed, prime1, prime2, prime3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        uint64_t product[16], sum[16];
        memcpy(product, products, sizeof product);
        memcpy(sum, sums, sizeof sum);
        for (int word = 0; word < 16; word++) {
            // The portable accumulator of this word adds the words one 128-bit vector earlier.
            hash = step(hash, initial[word] + product[word] + sum[(word + 14) % 16]);
        }
    }
    return finish(hash, base, offset, count);
}

// Whether the processor has AVX2 and the system saves its registers (XCR0 bits 1 and 2).
static int has_avx2(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE) || !(ecx & bit_AVX)) return 0;
    unsigned xcr0_low, xcr0_high;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 0x6) != 0x6) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & bit_AVX2) != 0;
}
#endif

int cachedimage_checksum_uses_avx2(void) {
#if CACHEDIMAGE_CHECKSUM_AVX2
    // 0: not checked yet; 1: no; 2: yes. Racing first calls store the same answer.
    static int state = 0;
    int known = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (known == 0) {
        known = has_avx2() ? 2 : 1;
        __atomic_store_n(&state, known, __ATOMIC_RELAXED);
    }
    return known == 2;
#else
    return 0;
#endif
}

uint64_t cachedimage_checksum(const void *bytes, size_t count, uint64_t seed) {
#if CACHEDIMAGE_CHECKSUM_AVX2
    if (count >= 128 && cachedimage_checksum_uses_avx2()) return checksum_avx2(bytes, count, seed);
#endif
    return cachedimage_checksum_portable(bytes, count, seed);
}
