// Snowflake layouts and the generator with a fake clock: bit layout for every max_nodes,
// decode round trips, counter exhaustion, clock steps back within and beyond the lead,
// the end of the time field, restart above a horizon, and uniqueness across threads.
#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <thread>
#include <vector>

#include "core/layouts/snowflake.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::snowflake;

static constexpr int64_t kEpochMs = 1577836800000;             // 2020-01-01 00:00:00 UTC
static constexpr int64_t kMaxMillis = (int64_t{1} << 41) - 1;  // the last millisecond of the time field
static constexpr int64_t kNowMs = 200LL * 86400 * 1000;        // 200 days after the epoch
static constexpr int64_t kNowUs = (kEpochMs + kNowMs) * 1000;

static Layout layout_for(int32_t max_nodes) {
    int bits = 0;
    EXPECT_TRUE(node_bits_for(Kind::idgen, max_nodes, &bits).ok());
    return Layout{kEpochMs, bits};
}

static Next take(LogicalClock *c, const Layout &l, int64_t now_us, int32_t node = 5, int64_t lead_ms = 1000) {
    Status err;
    return next(c, l, node, now_us, lead_ms, &err);
}

TEST(Snowflake, MaxNodesRoundsUpToAPowerOfTwoWithinSnowcastsRange) {
    int bits = 0;
    for (auto [n, want] :
         {std::pair{128, 7}, {129, 8}, {255, 8}, {256, 8}, {1000, 10}, {4097, 13}, {8192, 13}}) {
        ASSERT_TRUE(node_bits_for(Kind::idgen, n, &bits).ok()) << n;
        EXPECT_EQ(bits, want) << n;
    }
    for (int n : {-1, 0, 1, 127, 8193, INT32_MAX})
        EXPECT_EQ(node_bits_for(Kind::idgen, n, &bits).code, Errc::invalid_parameter) << n;
}

TEST(Snowflake, EveryLayoutPlacesTimeNodeAndCounterAndDecodesBack) {
    for (int32_t nodes = 128; nodes <= 8192; nodes *= 2) {
        const Layout l = layout_for(nodes);
        const int cb = l.counter_bits();
        EXPECT_EQ(l.node_bits + cb, 22);
        LogicalClock c{0};
        const int32_t node = nodes - 1;
        const Next a = take(&c, l, kNowUs, node);
        ASSERT_EQ(a.kind, Next::Kind::issued);
        EXPECT_EQ(a.id >> 22, kNowMs);
        EXPECT_EQ((a.id >> cb) & (nodes - 1), node);
        EXPECT_EQ(a.id & ((1 << cb) - 1), 0);
        Parts p{};
        ASSERT_TRUE(decode(l, a.id, &p).ok());
        EXPECT_EQ(p.unix_ms, kEpochMs + kNowMs);
        EXPECT_EQ(p.node, node);
        EXPECT_EQ(p.counter, 0);
        const Next b = take(&c, l, kNowUs, node);
        ASSERT_TRUE(decode(l, b.id, &p).ok());
        EXPECT_EQ(p.counter, 1);
        EXPECT_EQ(b.id, a.id + 1);
    }
}

TEST(Snowflake, ExhaustedCounterMovesToTheNextMillisecondThenWaits) {
    const Layout l = layout_for(8192);  // 13 node bits: 2^9 = 512 ids per millisecond
    ASSERT_EQ(l.counter_bits(), 9);
    LogicalClock c{0};
    int64_t last = -1;
    const int64_t lead_ms = 3;
    for (int i = 0; i < 512 * (lead_ms + 1); i++) {  // the current ms and 3 more ahead
        const Next n = take(&c, l, kNowUs, 5, lead_ms);
        ASSERT_EQ(n.kind, Next::Kind::issued) << i;
        ASSERT_GT(n.id, last);
        last = n.id;
    }
    const Next w = take(&c, l, kNowUs, 5, lead_ms);
    EXPECT_EQ(w.kind, Next::Kind::wait);
    EXPECT_EQ(w.ahead_ms, lead_ms + 1);
    const Next later = take(&c, l, kNowUs + 1000, 5, lead_ms);  // one ms later
    EXPECT_EQ(later.kind, Next::Kind::issued);
    EXPECT_GT(later.id, last);
}

TEST(Snowflake, ClockStepsBackWithinTheLeadKeepsGoingBeyondItWaits) {
    const Layout l = layout_for(1024);
    LogicalClock c{0};
    const Next a = take(&c, l, kNowUs);
    const Next within = take(&c, l, kNowUs - 500 * 1000, 5, 1000);  // back 500 ms, lead 1 s
    ASSERT_EQ(within.kind, Next::Kind::issued);
    EXPECT_GT(within.id, a.id);
    const Next beyond = take(&c, l, kNowUs - 3600LL * 1000 * 1000, 5, 1000);  // back an hour
    ASSERT_EQ(beyond.kind, Next::Kind::wait);
    EXPECT_EQ(beyond.ahead_ms, 3600 * 1000);
}

TEST(Snowflake, NodeMustFitTheLayout) {
    const Layout l = layout_for(128);
    LogicalClock c{0};
    Status err;
    EXPECT_EQ(next(&c, l, 128, kNowUs, 1000, &err).kind, Next::Kind::failed);
    EXPECT_EQ(err.code, Errc::not_attached);
    EXPECT_EQ(next(&c, l, -1, kNowUs, 1000, &err).kind, Next::Kind::failed);
    EXPECT_EQ(next(&c, l, 127, kNowUs, 1000, &err).kind, Next::Kind::issued);
}

TEST(Snowflake, TheEndOfTheTimeFieldIsAnErrorNotAWrap) {
    const Layout l = layout_for(8192);
    const int64_t end_us = (kEpochMs + kMaxMillis) * 1000;
    LogicalClock c{0};
    Status err;
    Next last{};
    for (int i = 0; i < 512; i++) last = next(&c, l, 1, end_us, 0, &err);
    ASSERT_EQ(last.kind, Next::Kind::issued);
    EXPECT_EQ(last.id >> 22, kMaxMillis);  // the last millisecond, sign bit still 0
    EXPECT_EQ(last.id & 511, 511);
    EXPECT_GE(last.id, 0);
    // Past the last millisecond the field can hold: exhausted even when lead would allow it.
    EXPECT_EQ(next(&c, l, 1, end_us + 5000, 10, &err).kind, Next::Kind::failed);
    EXPECT_EQ(err.code, Errc::exhausted);
}

TEST(Snowflake, WallClockBeforeTheEpochWaitsInsteadOfIssuing) {
    const Layout l = layout_for(8192);
    LogicalClock c{0};
    const Next n = take(&c, l, kEpochMs * 1000 - 5000 * 1000, 5, 1000);
    EXPECT_EQ(n.kind, Next::Kind::wait);
    EXPECT_EQ(c.next_free, 0u);  // nothing was drawn
}

TEST(Snowflake, ResumesAboveADurableHorizon) {
    const Layout l = layout_for(8192);
    LogicalClock c{0};
    const int64_t horizon_us = kNowUs + 2500;  // ids up to 2.5 ms past now were possible
    raise_to(&c, position_after(l, horizon_us));
    const Next n = take(&c, l, kNowUs);
    Parts p{};
    ASSERT_TRUE(decode(l, n.id, &p).ok());
    EXPECT_GE(p.unix_ms * 1000, horizon_us);  // strictly after every id that ended by then
    EXPECT_EQ(n.end_unix_us, (p.unix_ms + 1) * 1000);
}

TEST(Snowflake, IssuedBoundIsAfterEveryIdHandedOut) {
    const Layout l = layout_for(1024);
    LogicalClock c{0};
    int64_t last_end = 0;
    for (int i = 0; i < 10000; i++) last_end = take(&c, l, kNowUs).end_unix_us;
    const int64_t bound = issued_bound_unix_us(l, c);
    EXPECT_GE(bound, last_end);
    EXPECT_LE(bound, last_end + 1000);  // and not further than the next millisecond
    LogicalClock fresh{0};
    raise_to(&fresh, position_after(l, bound));
    EXPECT_GT(take(&fresh, l, kNowUs).end_unix_us, last_end);
}

TEST(Snowflake, MinIdBoundsEveryIdOfThatMillisecond) {
    const Layout l = layout_for(256);
    int64_t lo = -1;
    ASSERT_TRUE(min_id(l, kNowUs + 999, &lo).ok());
    LogicalClock c{0};
    const Next n = take(&c, l, kNowUs, 255);
    EXPECT_GE(n.id, lo);
    int64_t next_ms = -1;
    ASSERT_TRUE(min_id(l, kNowUs + 1000, &next_ms).ok());
    EXPECT_LT(n.id, next_ms);
    ASSERT_TRUE(min_id(l, INT64_MIN, &lo).ok());
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(min_id(l, INT64_MAX, &lo).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(min_id(l, (kEpochMs + kMaxMillis + 1) * 1000, &lo).code, Errc::timestamp_out_of_range);
}

TEST(Snowflake, MinIdFloorsTimesBeforeNineteenSeventyAsTheGeneratorDoes) {
    // Found by fuzz_snowflake: an epoch before 1970 and a time that is not a whole millisecond.
    const Layout l{-315619200000, 10};  // 1960-01-01
    LogicalClock c{0};
    Status err;
    const Next n = next(&c, l, 3, -1500, 1000, &err);
    ASSERT_EQ(n.kind, Next::Kind::issued);
    int64_t lo = 0;
    ASSERT_TRUE(min_id(l, -1500, &lo).ok());
    EXPECT_LE(lo, n.id);
    EXPECT_EQ(n.unix_ms, -2);
}

TEST(Snowflake, EpochRules) {
    EXPECT_TRUE(check_epoch(Layout{}, kEpochMs * 1000, kNowUs).ok());
    EXPECT_EQ(check_epoch(Layout{}, kEpochMs * 1000 + 1, kNowUs).code, Errc::invalid_parameter);
    EXPECT_EQ(check_epoch(Layout{}, kNowUs + 1000, kNowUs).code, Errc::invalid_parameter);
    EXPECT_EQ(check_epoch(Layout{}, kNowUs - (kMaxMillis + 1) * 1000, kNowUs).code, Errc::invalid_parameter);
    EXPECT_EQ(decode(layout_for(128), -1, nullptr).code, Errc::value_out_of_range);
}

TEST(Snowflake, ThreadsWithAFakeClockGetUniqueIncreasingIds) {
    const Layout l = layout_for(8192);
    LogicalClock c{0};
    constexpr int kThreads = 8, kPerThread = 100000;
    const std::vector<int64_t> all =
        test::run_threads<int64_t>(kThreads, [&](int, std::vector<int64_t> &got) {
            int64_t now = kNowUs;
            while (got.size() < kPerThread) {
                const Next n = take(&c, l, now, 42, 50);
                if (n.kind == Next::Kind::wait) {
                    now += 1000;  // the fake clock moves on while we "wait"
                    continue;
                }
                ASSERT_EQ(n.kind, Next::Kind::issued);
                if (!got.empty()) {
                    ASSERT_GT(n.id, got.back());
                }
                got.push_back(n.id);
                if (got.size() % 997 == 0) now -= 20000;  // and sometimes steps back 20 ms
            }
        });
    EXPECT_TRUE(test::all_distinct(all)) << "an id was issued twice";
}

// Groups backfilling at once (snowflake.hpp): every group below the windows, each counting its
// reserved node ids from 0 on its own, makes ids no other group makes; a group past them has none.
TEST(Snowflake, GroupsBackfillInWindowsOfTheirOwn) {
    int bits = 0;
    ASSERT_TRUE(node_bits_for(Kind::idgen, 1024, &bits).ok());
    const Layout l{kEpochMs, bits, 3};
    const uint64_t windows = cluster_backfill_windows(l), per = cluster_backfill_per_namespace(l);
    std::vector<int64_t> all;
    for (uint64_t group = 0; group < windows; group++)
        for (uint64_t reserved = 0; reserved < 3; reserved++) {
            uint64_t v = 0;
            ASSERT_TRUE(group_backfill_namespace(l, group, reserved, &v));
            for (uint64_t o = 0; o < per; o++) {
                uint64_t lease = 0, offset = 0;
                cluster_backfill_position(l, v, o, &lease, &offset);
                ASSERT_EQ(lease, reserved);
                int64_t id = 0;
                ASSERT_TRUE(at(l, (kEpochMs + 5) * 1000, lease, offset, &id).ok());
                all.push_back(id);
            }
        }
    EXPECT_EQ(all.size(), windows * 3 * per);
    EXPECT_TRUE(test::all_distinct(all)) << "two groups made the same id";
    uint64_t v = 0;
    EXPECT_FALSE(group_backfill_namespace(l, windows, 0, &v));
}

// Cluster mode's windows (snowflake.hpp): every (cluster namespace, offset) is one (reserved
// node id, counter value), none twice, and a count of whole reserved node ids covers exactly
// the cluster namespaces below it times the windows.
TEST(Snowflake, ClusterWindowsCutEachReservedNodeIdWithoutOverlap) {
    for (int32_t max_nodes : {128, 8192}) {
        int bits = 0;
        ASSERT_TRUE(node_bits_for(Kind::idgen, max_nodes, &bits).ok());
        const Layout l{kEpochMs, bits, 4};
        const uint64_t windows = cluster_backfill_windows(l), per = cluster_backfill_per_namespace(l);
        EXPECT_EQ(cluster_backfill_namespaces(l), 4 * windows);
        EXPECT_EQ(windows * per, backfill_per_namespace(l));
        std::set<std::pair<uint64_t, uint64_t>> seen;
        for (uint64_t v = 0; v < cluster_backfill_namespaces(l); v++)
            for (uint64_t o = 0; o < per; o++) {
                uint64_t lease = 0, offset = 0;
                cluster_backfill_position(l, v, o, &lease, &offset);
                ASSERT_LT(lease, 4u);
                ASSERT_LT(offset, backfill_per_namespace(l));
                ASSERT_TRUE(seen.emplace(lease, offset).second);
                ASSERT_EQ(lease, v / windows);  // node-major
            }
    }
}
