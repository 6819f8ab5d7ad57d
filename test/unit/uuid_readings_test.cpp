// The readings idgen offers under other projects' names (uuid_readings.hpp), against RFC 9562's
// example UUIDs (appendix A: version 1 and version 7 of 2022-02-22 14:22:22 GMT-05:00) and
// UUIDs written out byte by byte here.
#include <cstring>
#include <gtest/gtest.h>
#include <string>

#include "core/layouts/uuid_readings.hpp"
#include "core/layouts/uuid_v7.hpp"

using namespace idgen;

static Uuid from_hex(const char *hex) {
    Uuid u{};
    for (int i = 0, j = 0; i < 16; j++) {
        if (hex[j] == '-') continue;
        u.bytes[i++] = static_cast<uint8_t>(std::stoi(std::string(hex + j, 2), nullptr, 16));
        j++;
    }
    return u;
}

static constexpr int64_t kRfcExampleUnixMicros = int64_t{1645557742} * 1000000;  // 2022-02-22 19:22:22 UTC

TEST(UuidReadings, EmbeddedTimeOfVersionOneAndSeven) {
    int64_t us = 0;
    ASSERT_TRUE(uuid_readings::embedded_unix_micros(from_hex("C232AB00-9414-11EC-B3C8-9F6BDECED846"), &us));
    EXPECT_EQ(us, kRfcExampleUnixMicros);
    // Version 7: the millisecond only, its fraction (0xCC3 of 4096) left out.
    ASSERT_TRUE(uuid_readings::embedded_unix_micros(from_hex("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"), &us));
    EXPECT_EQ(us, kRfcExampleUnixMicros);
    // Version 4, and a UUID of another variant whose nibble reads 7: no time.
    EXPECT_FALSE(uuid_readings::embedded_unix_micros(from_hex("919108F7-52D1-4320-9BAC-F847DB4148A8"), &us));
    EXPECT_FALSE(uuid_readings::embedded_unix_micros(from_hex("017F22E2-79B0-7CC3-18C4-DC0C0C07398F"), &us));
}

TEST(UuidReadings, MillisecondFieldWhateverTheVersion) {
    EXPECT_EQ(uuid_readings::unix_ms_field(from_hex("018570bb-4a7d-7000-8000-000000000000")), 1672633600637);
    EXPECT_EQ(uuid_readings::unix_ms_field(from_hex("018570bb-4a7d-4000-0000-000000000000")), 1672633600637);
    EXPECT_EQ(uuid_readings::unix_ms_field(from_hex("ffffffff-ffff-ffff-ffff-ffffffffffff")),
              uuid_v7::kMaxUnixMs);
}

TEST(UuidReadings, WholeMillisecondVersionSeven) {
    Uuid u;
    ASSERT_TRUE(uuid_readings::whole_ms_v7(1672633600637999, &u).ok());
    const Uuid want = from_hex("018570bb-4a7d-7000-8000-000000000000");
    EXPECT_EQ(0, memcmp(u.bytes, want.bytes, 16));
    ASSERT_TRUE(uuid_readings::whole_ms_v7(0, &u).ok());
    ASSERT_TRUE(uuid_readings::whole_ms_v7(uuid_v7::kMaxUnixMicros, &u).ok());
    EXPECT_EQ(uuid_readings::unix_ms_field(u), uuid_v7::kMaxUnixMs);
    EXPECT_EQ(uuid_readings::whole_ms_v7(-1, &u).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(uuid_readings::whole_ms_v7(uuid_v7::kMaxUnixMicros + 1, &u).code, Errc::timestamp_out_of_range);
}
