// Crockford's base32 for UUIDs and 64-bit ids, and TypeIDs: the specifications' examples (the
// ULID and TypeID specifications' own; their full conformance vectors run in SQL, sql/ and
// test/typeid_vectors), every fault in the order it is checked, round trips of random values,
// and text order against value order.
#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

#include "core/text/base32.hpp"
#include "core/text/typeid.hpp"

using namespace idgen;

static Uuid from_hex(const std::string &hex) {
    Uuid u{};
    std::string h;
    for (char c : hex)
        if (c != '-') h += c;
    for (int i = 0; i < 16; i++)
        u.bytes[i] = static_cast<uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
    return u;
}

static std::string uuid_text(const Uuid &u, base32::Letters letters) {
    char out[base32::kUuidChars];
    base32::encode_uuid(u, letters, out);
    return std::string(out, sizeof out);
}

TEST(Base32, UuidsAsTheSpecificationsWriteThem) {
    EXPECT_EQ(uuid_text(from_hex("01890a5d-ac96-774b-bcce-b302099a8057"), base32::Letters::lower),
              "01h455vb4pex5vsknk084sn02q");
    EXPECT_EQ(uuid_text(from_hex("ffffffff-ffff-ffff-ffff-ffffffffffff"), base32::Letters::upper),
              "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    EXPECT_EQ(uuid_text(from_hex("00000000-0000-0000-0000-000000000020"), base32::Letters::lower),
              "00000000000000000000000010");
    EXPECT_EQ(uuid_text(from_hex("0110c853-1d09-52d8-d73e-1194e95b5f19"), base32::Letters::lower),
              "0123456789abcdefghjkmnpqrs");
}

TEST(Base32, DecodingRefusesInTheOrderOfItsChecks) {
    Uuid u;
    const char *ok = "01h455vb4pex5vsknk084sn02q";
    EXPECT_EQ(base32::decode_uuid(ok, 26, base32::Reading::lower_only, &u), base32::Fault::none);
    EXPECT_EQ(uuid_text(u, base32::Letters::lower), ok);
    EXPECT_EQ(base32::decode_uuid("01H455VB4PEX5VSKNK084SN02Q", 26, base32::Reading::lower_only, &u),
              base32::Fault::alphabet);
    EXPECT_EQ(base32::decode_uuid("01H455VB4PEX5VSKNK084SN02Q", 26, base32::Reading::either_case, &u),
              base32::Fault::none);
    EXPECT_EQ(uuid_text(u, base32::Letters::lower), ok);
    for (const char *bad : {"0lh455vb4pex5vsknk084sn02q", "0ih455vb4pex5vsknk084sn02q",
                            "0oh455vb4pex5vsknk084sn02q", "0uh455vb4pex5vsknk084sn02q"})
        EXPECT_EQ(base32::decode_uuid(bad, 26, base32::Reading::either_case, &u), base32::Fault::alphabet)
            << bad;
    EXPECT_EQ(base32::decode_uuid("01h455vb4pex5vsknk084sn02", 25, base32::Reading::lower_only, &u),
              base32::Fault::length);
    EXPECT_EQ(base32::decode_uuid("8zzzzzzzzzzzzzzzzzzzzzzzzz", 26, base32::Reading::lower_only, &u),
              base32::Fault::overflow);
    // The alphabet first: a text too long and with a bad character is refused for the character.
    EXPECT_EQ(base32::decode_uuid("01h455vb4pex5vsknk084sn02q-", 27, base32::Reading::lower_only, &u),
              base32::Fault::alphabet);
}

TEST(Base32, RandomValuesComeBackAndSortAsText) {
    std::mt19937_64 rng(7);
    std::vector<std::pair<std::string, std::string>> uuids;  // (hex order key, text)
    std::vector<std::pair<uint64_t, std::string>> ids;
    for (int n = 0; n < 20000; n++) {
        Uuid u;
        for (auto &b : u.bytes) b = static_cast<uint8_t>(rng());
        const std::string text = uuid_text(u, base32::Letters::upper);
        Uuid back;
        ASSERT_EQ(base32::decode_uuid(text.data(), text.size(), base32::Reading::either_case, &back),
                  base32::Fault::none);
        ASSERT_EQ(0, memcmp(u.bytes, back.bytes, 16)) << text;
        uuids.emplace_back(std::string(reinterpret_cast<const char *>(u.bytes), 16), text);

        const uint64_t v = rng() >> (rng() % 64);
        char out[base32::kInt64Chars];
        base32::encode_u64(v, out);
        uint64_t w = 0;
        ASSERT_EQ(base32::decode_u64(out, sizeof out, base32::Reading::either_case, &w), base32::Fault::none);
        ASSERT_EQ(v, w);
        ids.emplace_back(v, std::string(out, sizeof out));
    }
    std::sort(uuids.begin(), uuids.end());
    for (size_t i = 1; i < uuids.size(); i++) ASSERT_LT(uuids[i - 1].second, uuids[i].second);
    std::sort(ids.begin(), ids.end());
    for (size_t i = 1; i < ids.size(); i++) ASSERT_LE(ids[i - 1].second, ids[i].second);
    uint64_t w = 0;
    EXPECT_EQ(base32::decode_u64("g000000000000", 13, base32::Reading::either_case, &w),
              base32::Fault::overflow);
    EXPECT_EQ(base32::decode_u64("fzzzzzzzzzzzz", 13, base32::Reading::either_case, &w), base32::Fault::none);
    EXPECT_EQ(w, UINT64_MAX);
}

static typeid_text::Fault parse(const std::string &text, std::string *prefix = nullptr, Uuid *u = nullptr) {
    size_t plen = 0;
    Uuid out;
    const typeid_text::Fault f = typeid_text::parse(text.data(), text.size(), &plen, &out);
    if (f == typeid_text::Fault::none) {
        if (prefix) *prefix = text.substr(0, plen);
        if (u) *u = out;
    }
    return f;
}

TEST(TypeId, ParsesAndFormatsTheSpecificationsExamples) {
    std::string prefix;
    Uuid u;
    ASSERT_EQ(parse("prefix_01h455vb4pex5vsknk084sn02q", &prefix, &u), typeid_text::Fault::none);
    EXPECT_EQ(prefix, "prefix");
    EXPECT_EQ(0, memcmp(u.bytes, from_hex("01890a5d-ac96-774b-bcce-b302099a8057").bytes, 16));
    char out[typeid_text::kMaxChars];
    EXPECT_EQ(std::string(out, typeid_text::format("prefix", 6, u, out)),
              "prefix_01h455vb4pex5vsknk084sn02q");
    ASSERT_EQ(parse("pre_fix_00000000000000000000000000", &prefix, &u), typeid_text::Fault::none);
    EXPECT_EQ(prefix, "pre_fix");
    ASSERT_EQ(parse("00000000000000000000000001", &prefix, &u), typeid_text::Fault::none);
    EXPECT_EQ(prefix, "");
    EXPECT_EQ(std::string(out, typeid_text::format("", 0, u, out)), "00000000000000000000000001");
    const std::string longest(63, 'a');
    EXPECT_EQ(parse(longest + "_01h455vb4pex5vsknk084sn02q"), typeid_text::Fault::none);
}

TEST(TypeId, RefusesWithTheFirstFaultItFinds) {
    using F = typeid_text::Fault;
    EXPECT_EQ(parse("PREFIX_00000000000000000000000000"), F::prefix_characters);
    EXPECT_EQ(parse("pr\xc3\xa9"
                    "fix_00000000000000000000000000"),
              F::prefix_characters);
    EXPECT_EQ(parse(std::string(64, 'a') + "_00000000000000000000000000"), F::prefix_length);
    EXPECT_EQ(parse("_prefix_00000000000000000000000000"), F::prefix_ends);
    EXPECT_EQ(parse("prefix__00000000000000000000000000"), F::prefix_ends);
    EXPECT_EQ(parse("_00000000000000000000000000"), F::separator_without_prefix);
    EXPECT_EQ(parse("_"), F::separator_without_prefix);
    EXPECT_EQ(parse("prefix_0123456789ABCDEFGHJKMNPQRS"), F::suffix_alphabet);
    EXPECT_EQ(parse("prefix_123456789-123456789-123456"), F::suffix_alphabet);
    EXPECT_EQ(parse("prefix_1234567890123456789012345"), F::suffix_length);
    EXPECT_EQ(parse(""), F::suffix_length);
    EXPECT_EQ(parse("prefix_"), F::suffix_length);
    EXPECT_EQ(parse("prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz"), F::suffix_overflow);
    EXPECT_EQ(typeid_text::check_prefix("user", 4), F::none);
    EXPECT_EQ(typeid_text::check_prefix("", 0), F::none);
    EXPECT_EQ(typeid_text::check_prefix("user_", 5), F::prefix_ends);
    EXPECT_STRNE(typeid_text::reason(F::prefix_ends), typeid_text::reason(F::prefix_length));
}
