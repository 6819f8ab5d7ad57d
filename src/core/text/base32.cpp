// Crockford's base32 for UUIDs and 64-bit ids (base32.hpp).
#include "core/text/base32.hpp"

#include <array>

namespace idgen::base32 {
namespace {

constexpr char kLower[] = "0123456789abcdefghjkmnpqrstvwxyz";
constexpr char kUpper[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Each byte's value in the alphabet, or -1: one table for lower case only, one for either case.
struct Values {
    std::array<int8_t, 256> lower_only{}, either_case{};
    constexpr Values() {
        for (auto &v : lower_only) v = -1;
        for (auto &v : either_case) v = -1;
        for (int i = 0; i < 32; i++) {
            lower_only[static_cast<unsigned char>(kLower[i])] = static_cast<int8_t>(i);
            either_case[static_cast<unsigned char>(kLower[i])] = static_cast<int8_t>(i);
            either_case[static_cast<unsigned char>(kUpper[i])] = static_cast<int8_t>(i);
        }
    }
};
constexpr Values kValues;

// The 5-bit values of a text of `width` characters, after the checks of base32.hpp; `first_max`
// is the largest first character the value's bits allow.
Fault read(const char *text, size_t len, Reading reading, size_t width, int first_max, uint8_t *values) {
    const std::array<int8_t, 256> &table =
        reading == Reading::lower_only ? kValues.lower_only : kValues.either_case;
    for (size_t i = 0; i < len; i++)
        if (table[static_cast<unsigned char>(text[i])] < 0) return Fault::alphabet;
    if (len != width) return Fault::length;
    for (size_t i = 0; i < len; i++)
        values[i] = static_cast<uint8_t>(table[static_cast<unsigned char>(text[i])]);
    return values[0] > first_max ? Fault::overflow : Fault::none;
}

}  // namespace

const char *reason(Fault f, size_t width) noexcept {
    const bool uuid = width == kUuidChars;
    switch (f) {
        case Fault::none:
            return "valid";
        case Fault::alphabet:
            return "it may hold only 0 to 9 and the letters but I, L, O and U";
        case Fault::length:
            return uuid ? "it must be 26 characters" : "it must be 13 characters";
        case Fault::overflow:
            return uuid ? "it holds more than 128 bits (its first character must be 0 to 7)"
                        : "it holds more than 64 bits (its first character must be 0 to 9 or A to F)";
    }
    return "invalid";
}

// 130 bits, two zero bits first: character i holds bits 5i .. 5i + 4 of them, that is bits
// 5i - 2 .. 5i + 2 of the UUID.
void encode_uuid(const Uuid &u, Letters letters, char out[kUuidChars]) noexcept {
    const char *alphabet = letters == Letters::lower ? kLower : kUpper;
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; i++) hi = hi << 8 | u.bytes[i];
    for (int i = 8; i < 16; i++) lo = lo << 8 | u.bytes[i];
    // The 128 bits as 26 groups from the least significant: 25 full groups below the top 3 bits.
    for (int i = static_cast<int>(kUuidChars) - 1; i >= 0; i--) {
        out[i] = alphabet[lo & 31];
        lo = lo >> 5 | hi << 59;
        hi >>= 5;
    }
}

void encode_u64(uint64_t v, char out[kInt64Chars]) noexcept {
    for (int i = static_cast<int>(kInt64Chars) - 1; i >= 0; i--) {
        out[i] = kLower[v & 31];
        v >>= 5;
    }
}

Fault decode_uuid(const char *text, size_t len, Reading reading, Uuid *out) noexcept {
    uint8_t values[kUuidChars];
    const Fault f = read(text, len, reading, kUuidChars, 7, values);
    if (f != Fault::none) return f;
    uint64_t hi = 0, lo = 0;
    for (size_t i = 0; i < kUuidChars; i++) {
        hi = hi << 5 | lo >> 59;
        lo = lo << 5 | values[i];
    }
    for (int i = 7; i >= 0; i--, hi >>= 8) out->bytes[i] = static_cast<uint8_t>(hi);
    for (int i = 15; i >= 8; i--, lo >>= 8) out->bytes[i] = static_cast<uint8_t>(lo);
    return Fault::none;
}

Fault decode_u64(const char *text, size_t len, Reading reading, uint64_t *out) noexcept {
    uint8_t values[kInt64Chars];
    const Fault f = read(text, len, reading, kInt64Chars, 15, values);
    if (f != Fault::none) return f;
    uint64_t v = 0;
    for (size_t i = 0; i < kInt64Chars; i++) v = v << 5 | values[i];
    *out = v;
    return Fault::none;
}

}  // namespace idgen::base32
