// The clocks of the live UUID generators with fake clocks and real threads: version-1 UUIDs
// strictly increasing in their 60-bit time, locality UUID times and counters unique within
// every millisecond, both resuming above a durable horizon; every clock's positions read back as
// times.
#include <algorithm>
#include <gtest/gtest.h>
#include <utility>
#include <vector>

#include "core/generators/locality_clock.hpp"
#include "core/generators/uuid_v1_clock.hpp"
#include "core/layouts/locality_uuid.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/layouts/unique_timestamp.hpp"

#include "test_support.hpp"

using namespace idgen;

static constexpr int64_t kNowNs = int64_t{1763787600} * 1000000000;  // 2025-11-22 05:00 UTC

TEST(UuidV1Clock, TimeIsUniqueAndIncreasingWhateverTheWallClockDoes) {
    LogicalClock c{0};
    Status err;
    uint64_t last = 0;
    int64_t now = kNowNs;
    for (int i = 0; i < 100000; i++) {
        if (i % 1000 == 0) now -= 50000;  // steps back 50 us now and then
        const uuid_v1::Next n = uuid_v1::next(&c, now, 1000, 1234, 0x010203040506, &err);
        ASSERT_EQ(n.kind, uuid_v1::Next::Kind::issued);
        uuid_v1::Fields f{};
        ASSERT_TRUE(uuid_v1::decode(n.uuid, &f));
        ASSERT_GT(f.ticks, last);
        EXPECT_EQ(f.clock_seq, 1234);
        EXPECT_EQ(f.node, 0x010203040506u);
        EXPECT_GE(n.end_unix_us * 10, static_cast<int64_t>(f.ticks) - uuid_v1::kUnixEpochTicks + 1);
        last = f.ticks;
    }
}

TEST(UuidV1Clock, BeyondTheLeadItWaitsAndAboveAHorizonItResumes) {
    LogicalClock c{0};
    Status err;
    ASSERT_EQ(uuid_v1::next(&c, kNowNs, 1, 0, 0, &err).kind, uuid_v1::Next::Kind::issued);
    const uuid_v1::Next back = uuid_v1::next(&c, kNowNs - int64_t{3600} * 1000000000, 1000, 0, 0, &err);
    ASSERT_EQ(back.kind, uuid_v1::Next::Kind::wait);
    EXPECT_EQ(back.ahead_ms, 3600 * 1000 + 1);  // an hour and one tick, rounded up to a ms

    LogicalClock restarted{0};
    const int64_t horizon_us = kNowNs / 1000 + 2500000;
    raise_to(&restarted, uuid_v1::position_after(horizon_us));
    const uuid_v1::Next n = uuid_v1::next(&restarted, kNowNs, 5000, 0, 0, &err);
    ASSERT_EQ(n.kind, uuid_v1::Next::Kind::issued);
    uuid_v1::Fields f{};
    ASSERT_TRUE(uuid_v1::decode(n.uuid, &f));
    EXPECT_GE(uuid_v1::unix_micros_from_ticks(f.ticks), horizon_us);
}

TEST(LocalityClock, ConsecutiveCountersDifferByThePrimeAndTimeNeverGoesBack) {
    locality::State s{};
    Status err;
    int64_t last_ms = 0;
    uint32_t last_counter = 0;
    for (int i = 0; i < 200000; i++) {
        const int64_t now_ms = kNowNs / 1000000 + i / 1000 - (i % 7000 == 0 ? 30 : 0);
        const locality::Tick t = locality::next(&s, now_ms, 1000, &err);
        ASSERT_EQ(t.kind, locality::Tick::Kind::issued);
        ASSERT_GE(t.unix_ms, last_ms);
        const uint32_t counter = locality::variable_counter(t.sequence);
        if (i > 0) {
            ASSERT_EQ(static_cast<uint32_t>(counter - last_counter), locality::kVariableStep);
        }
        last_ms = t.unix_ms;
        last_counter = counter;
    }
}

TEST(LocalityClock, AtMost65536IdsShareAMillisecondThenItWaits) {
    locality::State s{};
    Status err;
    const int64_t now_ms = kNowNs / 1000000;
    for (int i = 0; i < 65536 * 3; i++) {  // this millisecond and two ahead
        ASSERT_EQ(locality::next(&s, now_ms, 2, &err).kind, locality::Tick::Kind::issued) << i;
    }
    const locality::Tick w = locality::next(&s, now_ms, 2, &err);
    EXPECT_EQ(w.kind, locality::Tick::Kind::wait);
    EXPECT_EQ(w.ahead_ms, 3);
}

TEST(LocalityClock, ThreadsNeverShareAMillisecondAndCounter) {
    locality::State s{};
    constexpr int kThreads = 8, kPerThread = 50000;
    const auto all = test::run_threads<std::pair<int64_t, uint32_t>>(
        kThreads, [&](int, std::vector<std::pair<int64_t, uint32_t>> &got) {
            Status err;
            for (int i = 0; i < kPerThread; i++) {
                const int64_t now_ms = kNowNs / 1000000 + (i % 3);  // a clock that wobbles
                const locality::Tick k = locality::next(&s, now_ms, 100000, &err);
                ASSERT_EQ(k.kind, locality::Tick::Kind::issued);
                got.emplace_back(k.unix_ms, locality::variable_counter(k.sequence));
            }
        });
    EXPECT_EQ(all.size(), size_t{kThreads} * kPerThread);
    EXPECT_TRUE(test::all_distinct(all)) << "two ids shared a millisecond and counter";
}

TEST(LocalityClock, ResumesAboveAHorizonAndRefusesTimesOutsideTheField) {
    locality::State s{};
    Status err;
    const int64_t horizon_us = kNowNs / 1000 + 1500;
    raise_to(&s.clock, locality::position_after(horizon_us));
    const locality::Tick t = locality::next(&s, kNowNs / 1000000, 1000, &err);
    ASSERT_EQ(t.kind, locality::Tick::Kind::issued);
    EXPECT_GE(t.unix_ms * 1000, horizon_us);
    EXPECT_EQ(locality::next(&s, -1, 1000, &err).kind, locality::Tick::Kind::failed);
    EXPECT_EQ(err.code, Errc::timestamp_out_of_range);
    EXPECT_EQ(locality::next(&s, int64_t{1} << 48, 1000, &err).kind, locality::Tick::Kind::failed);
}

// The view idgen_state reads how far each clock runs ahead through unix_us_of: it must invert
// position_after at each clock's resolution.
TEST(LiveClocks, PositionsReadBackAsTheTimesTheyStartAt) {
    for (int64_t t : {int64_t{0}, int64_t{1000}, int64_t{1795323459327000}, int64_t{1795323459327446}}) {
        EXPECT_EQ(uuid_v1::unix_us_of(uuid_v1::position_after(t)), t);
        EXPECT_EQ(locality::unix_us_of(locality::position_after(t)), (t + 999) / 1000 * 1000);
        EXPECT_EQ(
            unique_ts::unix_us_of(unique_ts::Layout{2}, unique_ts::position_after(unique_ts::Layout{2}, t)),
            t);
        EXPECT_EQ(
            unique_ts::unix_us_of(unique_ts::Layout{3}, unique_ts::position_after(unique_ts::Layout{3}, t)),
            t);
        const snowflake::Layout layout{1577836800000, 7};
        if (t >= 1577836800000000) {
            EXPECT_EQ(snowflake::unix_us_of(layout, snowflake::position_after(layout, t)),
                      (t + 999) / 1000 * 1000);
        }
    }
}
