// The version-1 codec against RFC 9562's published example, its range edges, and round trips.
#include <cstdio>
#include <gtest/gtest.h>
#include <random>
#include <string>

#include "core/base/mac_address.hpp"
#include "core/generators/uuid_v1_clock.hpp"
#include "core/layouts/uuid_v1.hpp"

#include "test_support.hpp"

using namespace idgen;

// RFC 9562 appendix A.1: 2022-02-22 19:22:22 UTC, clock_seq 0x33C8, node 9F:6B:DE:CE:D8:46.
TEST(UuidV1, MatchesRfc9562Example) {
    uint64_t ticks = 0;
    ASSERT_TRUE(uuid_v1::ticks_from_unix_micros(int64_t{1645557742} * 1000000, &ticks).ok());
    EXPECT_EQ(ticks, 0x1EC9414C232AB00u);
    Uuid u;
    ASSERT_TRUE(uuid_v1::encode({ticks, 0x33C8, 0x9F6BDECED846}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
    EXPECT_EQ(uuid_version(u), 1);
    EXPECT_EQ(uuid_variant(u), UuidVariant::rfc);
}

TEST(UuidV1, RangeEdgesAreTheDocumentedOnes) {
    uint64_t ticks = 1;
    ASSERT_TRUE(uuid_v1::ticks_from_unix_micros(uuid_v1::kMinUnixMicros, &ticks).ok());
    EXPECT_EQ(ticks, 0u);
    ASSERT_TRUE(uuid_v1::ticks_from_unix_micros(uuid_v1::kMaxUnixMicros, &ticks).ok());
    EXPECT_LE(ticks, uuid_v1::kMaxTicks);
    EXPECT_GT(ticks + 10, uuid_v1::kMaxTicks);  // one more microsecond would not fit
    // 1582-10-15 00:00:00 UTC and 5236-03-31 21:21:00.684697 UTC.
    EXPECT_EQ(uuid_v1::kMinUnixMicros, -12219292800000000);
    EXPECT_EQ(uuid_v1::kMaxUnixMicros, 103072857660684697);

    EXPECT_EQ(uuid_v1::ticks_from_unix_micros(uuid_v1::kMinUnixMicros - 1, &ticks).code,
              Errc::timestamp_out_of_range);
    EXPECT_EQ(uuid_v1::ticks_from_unix_micros(uuid_v1::kMaxUnixMicros + 1, &ticks).code,
              Errc::timestamp_out_of_range);
    EXPECT_EQ(uuid_v1::ticks_from_unix_micros(INT64_MIN, &ticks).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(uuid_v1::ticks_from_unix_micros(INT64_MAX, &ticks).code, Errc::timestamp_out_of_range);
}

TEST(UuidV1, EncodeRejectsFieldsOutOfRange) {
    Uuid u;
    EXPECT_EQ(uuid_v1::encode({uuid_v1::kMaxTicks + 1, 0, 0}, &u).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(uuid_v1::encode({0, -1, 0}, &u).code, Errc::value_out_of_range);
    EXPECT_EQ(uuid_v1::encode({0, 16384, 0}, &u).code, Errc::value_out_of_range);
    EXPECT_EQ(uuid_v1::encode({0, 0, uuid_v1::kMaxNode + 1}, &u).code, Errc::value_out_of_range);
    EXPECT_TRUE(uuid_v1::encode({uuid_v1::kMaxTicks, 16383, uuid_v1::kMaxNode}, &u).ok());
    EXPECT_EQ(test::uuid_text(u), "ffffffff-ffff-1fff-bfff-ffffffffffff");
}

TEST(UuidV1, RoundTripsEveryField) {
    std::mt19937_64 rng(42);
    for (int i = 0; i < 100000; i++) {
        const uuid_v1::Fields in{rng() & uuid_v1::kMaxTicks, static_cast<int32_t>(rng() & 0x3FFF),
                                 rng() & uuid_v1::kMaxNode};
        Uuid u;
        ASSERT_TRUE(uuid_v1::encode(in, &u).ok());
        uuid_v1::Fields out{};
        ASSERT_TRUE(uuid_v1::decode(u, &out));
        ASSERT_EQ(out.ticks, in.ticks);
        ASSERT_EQ(out.clock_seq, in.clock_seq);
        ASSERT_EQ(out.node, in.node);
    }
}

TEST(UuidV1, MicrosRoundTripExactlyAndSubMicrosecondTicksTruncateTowardsThePast) {
    for (int64_t us : {uuid_v1::kMinUnixMicros, int64_t{-1}, int64_t{0}, int64_t{1},
                       int64_t{1645557742123456}, uuid_v1::kMaxUnixMicros}) {
        uint64_t ticks = 0;
        ASSERT_TRUE(uuid_v1::ticks_from_unix_micros(us, &ticks).ok());
        EXPECT_EQ(uuid_v1::unix_micros_from_ticks(ticks), us);
        EXPECT_EQ(uuid_v1::unix_micros_from_ticks(ticks + 9), us);
    }
    // 1969-12-31 23:59:59.9999999 is in microsecond -1, not 0.
    EXPECT_EQ(uuid_v1::unix_micros_from_ticks(uuid_v1::kUnixEpochTicks - 1), -1);
}

TEST(UuidV1, DecodeRefusesOtherVersionsAndVariants) {
    Uuid u;
    ASSERT_TRUE(uuid_v1::encode({123456789, 5, 6}, &u).ok());
    uuid_v1::Fields f{};
    ASSERT_TRUE(uuid_v1::decode(u, &f));

    Uuid v4 = u;
    v4.bytes[6] = static_cast<uint8_t>((v4.bytes[6] & 0x0F) | 0x40);
    EXPECT_FALSE(uuid_v1::decode(v4, &f));

    for (uint8_t variant_bits : {0x00, 0x40, 0xC0, 0xE0}) {
        Uuid other = u;
        other.bytes[8] = static_cast<uint8_t>((other.bytes[8] & 0x1F) | variant_bits);
        EXPECT_FALSE(uuid_v1::decode(other, &f)) << int(variant_bits);
    }
}

TEST(Uuid, VersionOnlyForTheRfcVariant) {
    Uuid nil{};
    EXPECT_EQ(uuid_variant(nil), UuidVariant::ncs);
    EXPECT_FALSE(uuid_version(nil).has_value());
    Uuid max;
    for (auto &b : max.bytes) b = 0xFF;
    EXPECT_EQ(uuid_variant(max), UuidVariant::future);
    EXPECT_FALSE(uuid_version(max).has_value());
    Uuid ms{};
    ms.bytes[8] = 0xC0;
    EXPECT_EQ(uuid_variant(ms), UuidVariant::microsoft);
    for (int v = 0; v < 16; v++) {
        Uuid r{};
        r.bytes[6] = static_cast<uint8_t>(v << 4);
        r.bytes[8] = 0xBF;
        EXPECT_EQ(uuid_version(r), v);
    }
}

// The layout knowledge that used to live in the PostgreSQL layer: MAC text and the random
// identity of live UUIDs.
TEST(MacAddress, ParsesBothSeparatorsAndATrailingNewlineOnly) {
    uint64_t mac = 7;
    EXPECT_TRUE(parse_mac("08:00:2b:01:02:03", &mac));
    EXPECT_EQ(mac, 0x08002b010203u);
    EXPECT_TRUE(parse_mac("02-00-5E-10-00-01\n", &mac));
    EXPECT_EQ(mac, 0x02005e100001u);
    mac = 7;
    for (const char *bad :
         {"", "08:00:2b:01:02", "08:00:2b:01:02:03:04", "08:00:2b:01:02:0g", "08 00 2b 01 02 03",
          "8:00:2b:01:02:03", "08:00:2b:01:02:03\n\n", "08:00:2b:01:02:03x", "random"}) {
        EXPECT_FALSE(parse_mac(bad, &mac)) << bad;
        EXPECT_EQ(mac, 7u) << bad;
    }
}

TEST(UuidV1Clock, RandomIdentityIsAMulticastNodeAndA14BitClockSequence) {
    const uint8_t all_ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    const uint8_t zeros[8] = {};
    EXPECT_EQ(uuid_v1::random_identity(all_ones).node, 0xffffffffffffu);
    EXPECT_EQ(uuid_v1::random_identity(all_ones).clock_seq, 0x3fff);
    EXPECT_EQ(uuid_v1::random_identity(zeros).node, uint64_t{1} << 40);  // the multicast bit
    EXPECT_EQ(uuid_v1::random_identity(zeros).clock_seq, 0);
}
