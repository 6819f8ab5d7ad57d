// TypeIDs' prefix rules, parsing and formatting (typeid.hpp).
#include "core/text/typeid.hpp"

#include <cstring>

namespace idgen::typeid_text {

const char *reason(Fault f) noexcept {
    switch (f) {
        case Fault::none:
            return "valid";
        case Fault::prefix_characters:
            return "the prefix may hold only the letters a to z and underscores";
        case Fault::prefix_length:
            return "the prefix is longer than 63 characters";
        case Fault::prefix_ends:
            return "the prefix must start and end with a letter";
        case Fault::separator_without_prefix:
            return "a TypeID without a prefix has no underscore";
        case Fault::suffix_alphabet:
            return "the suffix may hold only 0 to 9 and the lower-case letters but i, l, o and u";
        case Fault::suffix_length:
            return "the suffix must be 26 characters";
        case Fault::suffix_overflow:
            return "the suffix holds more than 128 bits (its first character must be 0 to 7)";
    }
    return "invalid";
}

Fault check_prefix(const char *prefix, size_t len) noexcept {
    for (size_t i = 0; i < len; i++)
        if (!((prefix[i] >= 'a' && prefix[i] <= 'z') || prefix[i] == '_')) return Fault::prefix_characters;
    if (len > kMaxPrefix) return Fault::prefix_length;
    if (len > 0 && (prefix[0] == '_' || prefix[len - 1] == '_')) return Fault::prefix_ends;
    return Fault::none;
}

Fault parse(const char *text, size_t len, size_t *prefix_len, Uuid *out) noexcept {
    size_t split = len;  // the last underscore, or len: none
    for (size_t i = len; i > 0; i--)
        if (text[i - 1] == '_') {
            split = i - 1;
            break;
        }
    const bool separated = split < len;
    const size_t plen = separated ? split : 0;
    const Fault prefix = check_prefix(text, plen);
    if (prefix != Fault::none) return prefix;
    if (separated && plen == 0) return Fault::separator_without_prefix;
    const char *suffix = separated ? text + split + 1 : text;
    switch (base32::decode_uuid(suffix, len - (suffix - text), base32::Reading::lower_only, out)) {
        case base32::Fault::none:
            *prefix_len = plen;
            return Fault::none;
        case base32::Fault::alphabet:
            return Fault::suffix_alphabet;
        case base32::Fault::length:
            return Fault::suffix_length;
        case base32::Fault::overflow:
            return Fault::suffix_overflow;
    }
    return Fault::suffix_alphabet;
}

size_t format(const char *prefix, size_t prefix_len, const Uuid &u, char *out) noexcept {
    size_t n = 0;
    if (prefix_len > 0) {
        std::memcpy(out, prefix, prefix_len);
        n = prefix_len;
        out[n++] = '_';
    }
    base32::encode_uuid(u, base32::Letters::lower, out + n);
    return n + base32::kUuidChars;
}

}  // namespace idgen::typeid_text
