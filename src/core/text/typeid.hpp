// TypeIDs (version 0.3 of their specification): a type prefix, an underscore, and a UUID in 26
// characters of base32 in lower case (base32.hpp); no prefix, no underscore. A prefix is at most
// 63 characters of a-z and _, starting and ending with a letter.
#pragma once

#include <cstddef>

#include "core/base/uuid.hpp"
#include "core/text/base32.hpp"

namespace idgen::typeid_text {

constexpr size_t kMaxPrefix = 63;
constexpr size_t kMaxChars = kMaxPrefix + 1 + base32::kUuidChars;  // 90

// Why a text is not a TypeID, or a prefix not a TypeID's, in the order they are checked: the
// prefix's characters, its length, its ends; an underscore without a prefix; the suffix's
// characters, its length, its bits.
enum class Fault {
    none,
    prefix_characters,
    prefix_length,
    prefix_ends,
    separator_without_prefix,
    suffix_alphabet,
    suffix_length,
    suffix_overflow,
};

// What the fault says, for a message ("the prefix ...", "the suffix ...").
const char *reason(Fault f) noexcept;

// The prefix's checks alone (an empty prefix is valid).
Fault check_prefix(const char *prefix, size_t len) noexcept;

// Splits text at its last underscore (none: no prefix) and checks both parts; on success the
// prefix is text[0 .. *prefix_len) and *out the UUID.
Fault parse(const char *text, size_t len, size_t *prefix_len, Uuid *out) noexcept;

// Writes prefix (checked by the caller), the underscore when there is one, and the suffix into
// out (kMaxChars at least); returns the length.
size_t format(const char *prefix, size_t prefix_len, const Uuid &u, char *out) noexcept;

}  // namespace idgen::typeid_text
