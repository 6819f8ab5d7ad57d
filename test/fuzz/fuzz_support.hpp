// Shared by the libFuzzer targets in test/fuzz: reading fixed-width values out of the fuzzer's
// bytes (missing bytes read as zero, so every input is usable) and the invariant check,
// which names the broken invariant on stderr and then traps, so libFuzzer keeps the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#define FUZZ_CHECK(cond)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            std::fprintf(stderr, "invariant violated: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            __builtin_trap();                                                                    \
        }                                                                                        \
    } while (0)

namespace fuzz {

// Big-endian, so a seed file reads as the number it holds in a hex dump.
class Reader {
public:
    Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    uint64_t u64() { return take(8); }
    int64_t i64() { return static_cast<int64_t>(take(8)); }
    uint32_t u32() { return static_cast<uint32_t>(take(4)); }
    int32_t i32() { return static_cast<int32_t>(u32()); }
    uint8_t u8() { return static_cast<uint8_t>(take(1)); }
    bool more() const { return pos_ < size_; }

private:
    uint64_t take(int n) {
        uint64_t v = 0;
        for (int i = 0; i < n; i++) v = v << 8 | (pos_ < size_ ? data_[pos_++] : 0);
        return v;
    }
    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
};

// Floor division of int64s, written apart from the core's so that the two can disagree.
inline int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace fuzz
