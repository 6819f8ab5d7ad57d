// Fuzz target for the text forms (core/text): any bytes read as a ULID, a Snowflake text and a
// TypeID must be refused, or read a value that writes back as the same text (the ULID and the
// Snowflake text lower-cased, as written in the other case); a refusal must be the one an
// independent reading of the rules (no shared code) expects.
#include <cctype>
#include <cstring>
#include <string>

#include "core/text/base32.hpp"
#include "core/text/typeid.hpp"

#include "fuzz_support.hpp"

using namespace idgen;

static bool in_alphabet(char c, bool lower_only) {
    const char lc = lower_only ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lc != '\0' && std::strchr("0123456789abcdefghjkmnpqrstvwxyz", lc) != nullptr;
}

// The fault the rules give: the alphabet over the whole text, then its length, then the first
// character's value against `first_max`.
static base32::Fault oracle(const std::string &s, bool lower_only, size_t width, int first_max) {
    for (char c : s)
        if (!in_alphabet(c, lower_only)) return base32::Fault::alphabet;
    if (s.size() != width) return base32::Fault::length;
    const char lc = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    const int first = static_cast<int>(std::strchr("0123456789abcdefghjkmnpqrstvwxyz", lc) -
                                       "0123456789abcdefghjkmnpqrstvwxyz");
    return first > first_max ? base32::Fault::overflow : base32::Fault::none;
}

static std::string lower(std::string s) {
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);

    Uuid u;
    const base32::Fault uf = base32::decode_uuid(text.data(), text.size(), base32::Reading::either_case, &u);
    FUZZ_CHECK(uf == oracle(text, false, base32::kUuidChars, 7));
    if (uf == base32::Fault::none) {
        char out[base32::kUuidChars];
        base32::encode_uuid(u, base32::Letters::lower, out);
        FUZZ_CHECK(std::string(out, sizeof out) == lower(text));
    }

    uint64_t v = 0;
    const base32::Fault sf = base32::decode_u64(text.data(), text.size(), base32::Reading::either_case, &v);
    FUZZ_CHECK(sf == oracle(text, false, base32::kInt64Chars, 15));
    if (sf == base32::Fault::none) {
        char out[base32::kInt64Chars];
        base32::encode_u64(v, out);
        FUZZ_CHECK(std::string(out, sizeof out) == lower(text));
    }

    size_t prefix_len = 0;
    if (typeid_text::parse(text.data(), text.size(), &prefix_len, &u) == typeid_text::Fault::none) {
        char out[typeid_text::kMaxChars];
        FUZZ_CHECK(std::string(out, typeid_text::format(text.data(), prefix_len, u, out)) == text);
        FUZZ_CHECK(typeid_text::check_prefix(text.data(), prefix_len) == typeid_text::Fault::none);
    }
    return 0;
}
