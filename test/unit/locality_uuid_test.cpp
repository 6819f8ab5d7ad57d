// The locality UUID codec against Groupon's published ids: the decoded example, the
// variable mode's prime step, the sequential mode's step of one, round trips in both modes,
// the version check, the time field's range and the sequential seed text.
#include <cstdio>
#include <gtest/gtest.h>
#include <random>
#include <string>

#include "core/layouts/locality_uuid.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::locality;

static Uuid parse(const std::string &s) {
    Uuid u{};
    int i = 0;
    for (size_t c = 0; c + 1 < s.size(); c++) {
        if (s[c] == '-') continue;
        u.bytes[i++] = static_cast<uint8_t>(std::stoi(s.substr(c, 2), nullptr, 16));
        c++;
    }
    EXPECT_EQ(i, 16) << s;
    return u;
}

static Decoded decoded(const std::string &s) {
    Decoded d{};
    EXPECT_TRUE(decode(parse(s), &d).ok()) << s;
    return d;
}

// Groupon's example: "counter : 3,488,672,514, process id : 12,618, MAC address :
// __:__:_d:53:7a:50, timestamp : 1,350,327,498,450 (Mon, 15 Oct 2012 18:58:18.450 UTC)".
TEST(LocalityUuid, DecodesAndEncodesGrouponsExample) {
    const Decoded d = decoded("20be0ffc-314a-bd53-7a50-013a65ca76d2");
    EXPECT_EQ(d.variable_counter, 3488672514u);
    EXPECT_EQ(d.raw_counter, 0x20be0ffcu);
    EXPECT_EQ(d.pid, 12618u);
    EXPECT_EQ(d.mac, 0xd537a50u);
    EXPECT_EQ(d.unix_ms, 1350327498450);

    Uuid u;
    ASSERT_TRUE(encode(Mode::variable, {3488672514u, 12618, 0xd537a50, 1350327498450}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "20be0ffc-314a-bd53-7a50-013a65ca76d2");
    ASSERT_TRUE(encode(Mode::sequential, {0x20be0ffc, 12618, 0xd537a50, 1350327498450}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "20be0ffc-314a-bd53-7a50-013a65ca76d2");
}

TEST(LocalityUuid, CounterDigitsAreReversedInVariableModeOnly) {
    Uuid u;
    ASSERT_TRUE(encode(Mode::variable, {0x12345678, 0, 0, 0}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "87654321-0000-b000-0000-000000000000");
    ASSERT_TRUE(encode(Mode::sequential, {0x12345678, 0, 0, 0}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "12345678-0000-b000-0000-000000000000");
}

// Groupon's published ids "sequentially generated in the default counter mode". Its Java
// implementation (which printed them) writes the counter's top digit with an arithmetic
// shift of a signed int, so for a counter with its top bit set, as all eight are, the
// seventh hex digit of the id always reads f and the real digit is lost. Every other digit
// follows the step exactly: starting from the first counter, counter + i * kVariableStep
// with that digit forced to f gives each id in turn.
TEST(LocalityUuid, GrouponsVariableIdsStepByThePrime) {
    const char *ids[] = {
        "c8c9cef9-7a7f-bd53-7a50-013e4e2afbde", "14951cfa-7a7f-bd53-7a50-013e4e2afbde",
        "6f5169fb-7a7f-bd53-7a50-013e4e2afbde", "ba2da6fc-7a7f-bd53-7a50-013e4e2afbde",
        "06f8f3fc-7a7f-bd53-7a50-013e4e2afbde", "51c441fd-7a7f-bd53-7a50-013e4e2afbde",
        "ac809efe-7a7f-bd53-7a50-013e4e2afbde", "f75cdbff-7a7f-bd53-7a50-013e4e2afbde",
    };
    constexpr uint32_t kJavaSignDigit = 0x0F000000;
    const uint32_t first = decoded(ids[0]).variable_counter;
    EXPECT_EQ(first, 0x9fec9c8cu);
    for (uint32_t i = 0; i < 8; i++) {
        const Decoded d = decoded(ids[i]);
        EXPECT_EQ(d.pid, 0x7a7fu);
        EXPECT_EQ(d.mac, 0xd537a50u);
        EXPECT_EQ(d.unix_ms, 0x013e4e2afbde);
        const uint32_t expected = first + i * kVariableStep;
        ASSERT_NE(expected & 0x80000000u, 0u) << i;  // negative as a Java int
        EXPECT_EQ(d.variable_counter, expected | kJavaSignDigit) << ids[i];
        if (i > 0) {  // below the lost digit, consecutive counters differ by exactly the step
            const uint32_t step = d.variable_counter - decoded(ids[i - 1]).variable_counter;
            EXPECT_EQ(step & 0x00FFFFFF, kVariableStep & 0x00FFFFFF) << ids[i];
        }
    }
}

TEST(LocalityUuid, GrouponsSequentialIdsStepByOne) {
    const char *ids[] = {
        "f5166777-7a7f-bd53-7a50-013e4e2afc26", "f5166778-7a7f-bd53-7a50-013e4e2afc26",
        "f5166779-7a7f-bd53-7a50-013e4e2afc26", "f516677a-7a7f-bd53-7a50-013e4e2afc26",
        "f516677b-7a7f-bd53-7a50-013e4e2afc26", "f516677c-7a7f-bd53-7a50-013e4e2afc26",
        "f516677d-7a7f-bd53-7a50-013e4e2afc26", "f516677e-7a7f-bd53-7a50-013e4e2afc26",
    };
    for (uint32_t i = 0; i < 8; i++) {
        const Decoded d = decoded(ids[i]);
        EXPECT_EQ(d.raw_counter, 0xf5166777u + i) << ids[i];
        Uuid u;
        ASSERT_TRUE(encode(Mode::sequential, {d.raw_counter, d.pid, d.mac, d.unix_ms}, &u).ok());
        EXPECT_EQ(test::uuid_text(u), ids[i]);
    }
}

TEST(LocalityUuid, RoundTripsInBothModes) {
    std::mt19937_64 rng(42);
    for (int i = 0; i < 100000; i++) {
        const Fields in{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng() & 0xFFFF),
                        rng() & 0xFFFFFFF, static_cast<int64_t>(rng() >> 16)};
        Uuid v, s;
        ASSERT_TRUE(encode(Mode::variable, in, &v).ok());
        ASSERT_TRUE(encode(Mode::sequential, in, &s).ok());
        Decoded dv{}, ds{};
        ASSERT_TRUE(decode(v, &dv).ok());
        ASSERT_TRUE(decode(s, &ds).ok());
        ASSERT_EQ(dv.variable_counter, in.counter);
        ASSERT_EQ(ds.raw_counter, in.counter);
        for (const Decoded &d : {dv, ds}) {
            ASSERT_EQ(d.pid, in.pid);
            ASSERT_EQ(d.mac, in.mac);
            ASSERT_EQ(d.unix_ms, in.unix_ms);
        }
    }
}

TEST(LocalityUuid, PidAndMacKeepTheirLowBits) {
    Uuid u;
    ASSERT_TRUE(encode(Mode::sequential, {0, 65536 + 7, 0xFFFF1234567, 1}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "00000000-0007-b123-4567-000000000001");
}

TEST(LocalityUuid, DecodeRefusesOtherVersions) {
    Decoded d{};
    const Status s = decode(parse("f47ac10b-58cc-4372-a567-0e02b2c3d479"), &d);  // a v4 UUID
    EXPECT_EQ(s.code, Errc::invalid_parameter);
    EXPECT_STREQ(s.message, "not a locality UUID: its version digit is not b");
    EXPECT_EQ(decode(Uuid{}, &d).code, Errc::invalid_parameter);
}

TEST(LocalityUuid, TimeFieldHolds48BitsOfMilliseconds) {
    Uuid u;
    constexpr int64_t kLimit = int64_t{1} << 48;
    ASSERT_TRUE(encode(Mode::variable, {0, 0, 0, kLimit - 1}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "00000000-0000-b000-0000-ffffffffffff");
    ASSERT_TRUE(encode(Mode::variable, {0, 0, 0, 0}, &u).ok());
    for (int64_t ms : {kLimit, int64_t{-1}, INT64_MIN, INT64_MAX})
        EXPECT_EQ(encode(Mode::variable, {0, 0, 0, ms}, &u).code, Errc::timestamp_out_of_range) << ms;
}

TEST(LocalityUuid, SequentialSeedTextHasTenMinutePrecision) {
    char buf[12];
    sequential_seed_text(1350327498450, buf);  // 2012-10-15 18:58:18.450 UTC
    EXPECT_STREQ(buf, "20121015185");
    sequential_seed_text(0, buf);
    EXPECT_STREQ(buf, "19700101000");
    sequential_seed_text(951868799999, buf);  // 2000-02-29 23:59:59.999 UTC
    EXPECT_STREQ(buf, "20000229235");
    sequential_seed_text(951868800000, buf);  // a millisecond later
    EXPECT_STREQ(buf, "20000301000");
    sequential_seed_text(1350327000000 - 1, buf);  // 18:49:59.999, the previous ten minutes
    EXPECT_STREQ(buf, "20121015184");
    sequential_seed_text(253402300799999, buf);  // 9999-12-31 23:59:59.999 UTC
    EXPECT_STREQ(buf, "99991231235");
}

// Groupon's sequential ids carry the time 2013-04-28 01:04:00.038 UTC; the text of that
// time's ten minutes hashes (MD5, computed outside the core) to the counter Groupon started
// from, and the listed ids continue it: the first is its second id (start + 1 + 1).
TEST(LocalityUuid, GrouponsSequentialIdsStartFromTheHashOfTheirTenMinutes) {
    char buf[12];
    sequential_seed_text(0x013e4e2afc26, buf);
    EXPECT_STREQ(buf, "20130428010");
    const uint8_t md5_20130428010[16] = {0x75, 0x67, 0x16, 0xf5, 0x98, 0xaf, 0xc6, 0xa8,
                                         0xab, 0x5f, 0x2d, 0xf9, 0xcd, 0x01, 0xcc, 0x9e};
    const uint32_t start = sequential_start(md5_20130428010);
    EXPECT_EQ(start, 0xf5166775u);
    EXPECT_EQ(decoded("f5166777-7a7f-bd53-7a50-013e4e2afc26").raw_counter, start + 2);
}

TEST(LocalityUuid, SequentialStartReadsTheDigestLittleEndian) {
    const uint8_t digest[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    EXPECT_EQ(sequential_start(digest), 0x67452301u);
}

TEST(LocalityUuid, TheSeedTextChangesOnlyAtTheWindowsBoundaries) {
    // 2013-04-28 01:09:59.999 and 01:10:00.000 UTC: another window, another text.
    const int64_t before = 1367111399999, after = 1367111400000;
    char a[12], b[12], c[12];
    locality::sequential_seed_text(before, a);
    locality::sequential_seed_text(after, b);
    locality::sequential_seed_text(after + 599999, c);
    EXPECT_NE(locality::sequential_seed_window(before), locality::sequential_seed_window(after));
    EXPECT_STRNE(a, b);
    EXPECT_EQ(locality::sequential_seed_window(after), locality::sequential_seed_window(after + 599999));
    EXPECT_STREQ(b, c);
    EXPECT_EQ(locality::sequential_seed_window(-1), -1);  // before 1970: floored, not truncated
}
