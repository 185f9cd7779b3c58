#include "CCachedImageChecksum.h"
#include <string.h>

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

static uint64_t finalize(uint64_t hash) {
    hash ^= hash >> 33;
    hash *= prime2;
    hash ^= hash >> 29;
    hash *= prime3;
    hash ^= hash >> 32;
    return hash;
}

uint64_t cachedimage_checksum(const void *bytes, size_t count, uint64_t seed) {
    uint64_t hash = step(seed ^ prime3, (uint64_t)count);
    if (bytes == NULL) return finalize(hash);
    const unsigned char *base = (const unsigned char *)bytes;
    size_t offset = 0;
    if (count >= 128) {
        // Sixteen lanes: eight pairs, each pair one 2x64-bit vector of the Swift description.
        uint64_t accumulators[16] = {seed, prime1, prime2, prime3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        uint64_t evenKey[2] = {0x243F6A8885A308D3ULL + seed, 0x13198A2E03707344ULL + seed};
        const uint64_t oddOffset[2] = {0xA4093822299F31D0ULL, 0x082EFA98EC4E6C89ULL};
        const uint64_t keyStep[2] = {0x9E3779B97F4A7C15ULL, 0xD1B54A32D192ED03ULL};
        while (count - offset >= 128) {
            uint64_t words[16];
            for (int lane = 0; lane < 16; lane++) words[lane] = load_le64(base + offset + 8 * lane);
            const uint64_t oddKey[2] = {evenKey[0] + oddOffset[0], evenKey[1] + oddOffset[1]};
            for (int pair = 0; pair < 8; pair++) {
                const uint64_t *key = (pair % 2 == 0) ? evenKey : oddKey;
                const int previous = (pair + 7) % 8;
                for (int half = 0; half < 2; half++) {
                    uint64_t mixed = words[2 * pair + half] ^ key[half];
                    accumulators[2 * pair + half] += (mixed & 0xFFFFFFFFULL) * (mixed >> 32) + words[2 * previous + half];
                }
            }
            evenKey[0] += keyStep[0];
            evenKey[1] += keyStep[1];
            offset += 128;
        }
        for (int lane = 0; lane < 16; lane += 2) {
            hash = step(step(hash, accumulators[lane]), accumulators[lane + 1]);
        }
    }
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
