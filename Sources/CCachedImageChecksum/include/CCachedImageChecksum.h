#ifndef CCACHEDIMAGECHECKSUM_H
#define CCACHEDIMAGECHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// The disk cache's 64-bit checksum of `count` bytes at `bytes` (see FastChecksum.swift for the
/// algorithm). In C so that one implementation runs at memory speed in optimised builds and stays
/// fast in unoptimised (debug) builds, where the same loop in Swift runs hundreds of times slower.
/// Runs an AVX2 loop on x86-64 processors that have it, the portable one elsewhere: the same value.
uint64_t cachedimage_checksum(const void *bytes, size_t count, uint64_t seed);

/// The portable loop (two 64-bit lanes per vector), whatever the processor: for tests.
uint64_t cachedimage_checksum_portable(const void *bytes, size_t count, uint64_t seed);

/// Whether `cachedimage_checksum` runs the AVX2 loop on this processor: for tests.
int cachedimage_checksum_uses_avx2(void);

#endif
