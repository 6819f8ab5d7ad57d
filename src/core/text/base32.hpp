// Crockford's base32 as ULIDs and TypeIDs write a UUID's 128 bits, and as idgen writes a Snowflake
// id's 64: the alphabet 0-9 and a-z without i, l, o and u, most significant bits first, at a fixed
// width with zero bits on the left. Its characters sort in ASCII as their values do, so a text
// sorts as the value it writes (under the C collation, and any that puts digits before letters).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/uuid.hpp"

namespace idgen::base32 {

constexpr size_t kUuidChars = 26;   // 130 bits: the first character carries 3 (0 to 7)
constexpr size_t kInt64Chars = 13;  // 65 bits: the first character carries 4 (0 to f)

enum class Letters { lower, upper };
// How a decoder reads letters: TypeIDs only in lower case; ULIDs and Snowflake texts in either.
enum class Reading { lower_only, either_case };

// Why a text is not a value: a character outside the alphabet (in the case read), another
// length than the width, or more bits than the value has (the first character too large).
enum class Fault { none, alphabet, length, overflow };

// What the fault says of a text of `width` characters ("it ..."), for a message.
const char *reason(Fault f, size_t width) noexcept;

void encode_uuid(const Uuid &u, Letters letters, char out[kUuidChars]) noexcept;
void encode_u64(uint64_t v, char out[kInt64Chars]) noexcept;  // lower case

// The checks in that order: the alphabet over the whole text, then the length, then the bits.
Fault decode_uuid(const char *text, size_t len, Reading reading, Uuid *out) noexcept;
Fault decode_u64(const char *text, size_t len, Reading reading, uint64_t *out) noexcept;

}  // namespace idgen::base32
