#ifndef CCACHEDIMAGECHECKSUM_H
#define CCACHEDIMAGECHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// The disk cache's 64-bit checksum of `count` bytes at `bytes` (see FastChecksum.swift for the
/// algorithm). In C so that one implementation runs at memory speed in optimised builds and stays
/// fast in unoptimised (debug) builds, where the same loop in Swift runs hundreds of times slower.
uint64_t cachedimage_checksum(const void *bytes, size_t count, uint64_t seed);

#endif
