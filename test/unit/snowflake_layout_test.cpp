// snowcast's exact layout (Kind::snowcast: id = ms << 23 | node << (23 - node_bits) | counter)
// beside idgen's default (Kind::idgen): ids computed by hand from snowcast's formula,
// snowcast's own worked example, round trips for every max_nodes, ids with the top bit set
// (negative as int64), the ids per millisecond, and min_id across the sign boundary.
#include <gtest/gtest.h>

#include "core/layouts/snowflake.hpp"

using namespace idgen;
using namespace idgen::snowflake;

static constexpr int64_t kEpochMs = 1577836800000;  // 2020-01-01 00:00:00 UTC
static constexpr int64_t kMaxMillis = (int64_t{1} << 41) - 1;
static constexpr int64_t kSignMs = int64_t{1} << 40;  // the first millisecond with the top bit set

static Layout snowcast(int32_t max_nodes, int64_t epoch_ms = kEpochMs, int32_t backfill_nodes = 0) {
    int bits = 0;
    EXPECT_TRUE(node_bits_for(Kind::snowcast, max_nodes, &bits).ok());
    return Layout{epoch_ms, bits, backfill_nodes, Kind::snowcast};
}

static int64_t us_at(const Layout &l, int64_t ms) {
    return (l.epoch_unix_ms + ms) * 1000;
}

static Next take(LogicalClock *c, const Layout &l, int64_t now_us, int32_t node) {
    Status err;
    return next(c, l, node, now_us, 1000, &err);
}

TEST(SnowflakeLayout, NodeAndCounterShare23BitsInsteadOf22) {
    for (int32_t nodes = 128; nodes <= 8192; nodes *= 2) {
        const Layout l = snowcast(nodes);
        EXPECT_EQ(l.node_bits + l.counter_bits(), 23) << nodes;
        Layout idgen = l;
        idgen.kind = Kind::idgen;
        EXPECT_EQ(idgen.node_bits + idgen.counter_bits(), 22) << nodes;
    }
}

// epochDelta = 1, node = 1, counter = 1 with 128 nodes: 1 << 23 | 1 << 16 | 1 = 8,454,145
// (idgen's layout: 1 << 22 | 1 << 15 | 1 = 4,227,073).
TEST(SnowflakeLayout, KnownIdsFollowTheSeedsFormula) {
    const Layout l = snowcast(128, kEpochMs, 127);  // node ids 1..127 reserved: lease 0 is node 1
    int64_t id = 0;
    ASSERT_TRUE(at(l, us_at(l, 1), 0, 1, &id).ok());
    EXPECT_EQ(id, 8454145);
    Layout idgen = l;
    idgen.kind = Kind::idgen;
    ASSERT_TRUE(at(idgen, us_at(idgen, 1), 0, 1, &id).ok());
    EXPECT_EQ(id, 4227073);

    LogicalClock c{0};
    EXPECT_EQ(take(&c, snowcast(128), us_at(l, 1), 1).id, 8454144);  // counter 0
    EXPECT_EQ(take(&c, snowcast(128), us_at(l, 1), 1).id, 8454145);  // counter 1
}

// snowcast's example: epoch 2014-01-01, 2014-03-03 05:12:12 (epochDelta 5,289,132,000),
// node 1234 of 8192, counter 5.
TEST(SnowflakeLayout, SnowcastsWorkedExample) {
    const Layout l = snowcast(8192, 1388534400000);
    const int64_t want = 5289132000LL << 23 | 1234LL << 10 | 5;
    EXPECT_EQ(want, 44368455009519621);
    Parts p{};
    ASSERT_TRUE(decode(l, want, &p).ok());
    EXPECT_EQ(p.unix_ms, 1393823532000);
    EXPECT_EQ(p.node, 1234);
    EXPECT_EQ(p.counter, 5);
    LogicalClock c{0};
    EXPECT_EQ(take(&c, l, 1393823532000000, 1234).id, want - 5);
}

TEST(SnowflakeLayout, EveryMaxNodesRoundTrips) {
    for (int32_t nodes = 128; nodes <= 8192; nodes *= 2) {
        const Layout l = snowcast(nodes);
        for (int64_t ms : {int64_t{0}, int64_t{12345}, kSignMs - 1, kSignMs, kMaxMillis}) {
            LogicalClock c{0};
            const int32_t node = nodes - 1;
            const Next a = take(&c, l, us_at(l, ms), node);
            ASSERT_EQ(a.kind, Next::Kind::issued) << nodes << " " << ms;
            const uint64_t bits = static_cast<uint64_t>(a.id);
            EXPECT_EQ(bits >> 23, static_cast<uint64_t>(ms));
            EXPECT_EQ((bits >> l.counter_bits()) & static_cast<uint64_t>(nodes - 1),
                      static_cast<uint64_t>(node));
            EXPECT_EQ(a.id < 0, ms >= kSignMs);
            Parts p{};
            ASSERT_TRUE(decode(l, a.id, &p).ok());
            EXPECT_EQ(p.unix_ms, kEpochMs + ms);
            EXPECT_EQ(p.node, node);
            EXPECT_EQ(p.counter, 0);
        }
    }
}

// ms = 2^40 + 7, node 127 of 128, counter 65535: 2^63 + 7 * 2^23 + 2^23 - 1 as unsigned.
TEST(SnowflakeLayout, ANegativeIdDecodesInSnowcastsLayoutOnly) {
    const int64_t id = INT64_MIN + 8 * (int64_t{1} << 23) - 1;
    EXPECT_EQ(id, -9223372036787666945);
    Parts p{};
    ASSERT_TRUE(decode(snowcast(128), id, &p).ok());
    EXPECT_EQ(p.unix_ms, kEpochMs + kSignMs + 7);
    EXPECT_EQ(p.node, 127);
    EXPECT_EQ(p.counter, 65535);
    Layout idgen = snowcast(128);
    idgen.kind = Kind::idgen;
    EXPECT_EQ(decode(idgen, id, &p).code, Errc::value_out_of_range);
}

TEST(SnowflakeLayout, OneHundredTwentyEightNodesGive65536IdsPerMillisecond) {
    const Layout l = snowcast(128);
    EXPECT_EQ(l.counter_bits(), 16);
    EXPECT_EQ(backfill_per_namespace(l), 65536u);
    LogicalClock c{0};
    const int64_t now = us_at(l, 500);
    Next n{};
    for (int i = 0; i < 65536; i++) {
        n = take(&c, l, now, 3);
        ASSERT_EQ(n.kind, Next::Kind::issued);
        ASSERT_EQ(n.unix_ms, kEpochMs + 500) << i;
    }
    EXPECT_EQ(n.id & 0xFFFF, 65535);
    EXPECT_EQ(take(&c, l, now, 3).unix_ms, kEpochMs + 501);  // the 65,537th: the next millisecond
}

TEST(SnowflakeLayout, MinIdIsTheMillisecondsFirstIdAcrossTheSignBoundary) {
    const Layout l = snowcast(128);
    int64_t before = 0, at_sign = 0;
    ASSERT_TRUE(min_id(l, us_at(l, kSignMs - 1) + 999, &before).ok());
    ASSERT_TRUE(min_id(l, us_at(l, kSignMs), &at_sign).ok());
    EXPECT_EQ(before, INT64_MAX - ((int64_t{1} << 23) - 1));  // the last positive millisecond
    EXPECT_EQ(at_sign, INT64_MIN);                            // the first negative one
    LogicalClock c{0};
    const Next n = take(&c, l, us_at(l, kSignMs + 3), 9);
    int64_t floor = 0;
    ASSERT_TRUE(min_id(l, us_at(l, kSignMs + 3), &floor).ok());
    EXPECT_LE(floor, n.id);
    EXPECT_LT(n.id, floor + (int64_t{1} << 23));
    EXPECT_LT(n.id, 0);
}

TEST(SnowflakeLayout, ClockPositionsCountTheWiderCounter) {
    const Layout l = snowcast(128);
    EXPECT_EQ(position_after(l, us_at(l, 5)), uint64_t{5} << 16);
    EXPECT_EQ(unix_us_of(l, (uint64_t{5} << 16) + 65535), us_at(l, 5));
}

TEST(SnowflakeLayout, AboveAnEarlierDefinitionComparesIdsNotTimes) {
    using namespace idgen::snowflake;
    const Layout old_layout{1577836800000, 10};              // 2020-01-01, 1,024 nodes
    const int64_t bound = (1577836800000 + 1000000) * 1000;  // 1,000 s after its epoch
    // The same layout: the tick after the bound's. A later epoch: as many ticks after its own
    // epoch, so 2 s later in time. An earlier one: sooner.
    EXPECT_EQ(above_earlier_unix_us(old_layout, bound, old_layout), bound);
    EXPECT_EQ(above_earlier_unix_us(old_layout, bound + 1, old_layout), bound + 1000);
    EXPECT_EQ(above_earlier_unix_us(old_layout, bound, Layout{1577836802000, 13}), bound + 2000000);
    EXPECT_EQ(above_earlier_unix_us(old_layout, bound, Layout{1577836700000, 7}), bound - 100000000);
    // Sony's layout has 2 more bits below its time field, in ticks of 10 ms: a quarter of the
    // ticks, 2.5 times the time from its epoch.
    EXPECT_EQ(above_earlier_unix_us(old_layout, bound, Layout{1577836800000, 16, 0, Kind::sonyflake}),
              (1577836800000 + 2500000) * 1000);
    // Nothing issued before the bound: no constraint. Ids past the new time field: none possible.
    EXPECT_EQ(above_earlier_unix_us(old_layout, 1577836800000 * 1000, old_layout), INT64_MIN);
    // javascript has 10 bits fewer below its time field: 1,024 times the ticks, which its field
    // holds 1,000 s after the epoch and no longer 30 days after it.
    const Layout javascript{1577836800000, 6, 0, Kind::javascript};
    EXPECT_EQ(above_earlier_unix_us(old_layout, bound, javascript), (1577836800000 + 1024000000) * 1000);
    EXPECT_EQ(above_earlier_unix_us(old_layout, (1577836800000 + 30 * 86400000LL) * 1000, javascript),
              INT64_MAX);
    // snowcast's last tick: its ids reach 2^64 (no overflow), beyond every layout.
    const Layout snowcast{0, 10, 0, Kind::snowcast};
    EXPECT_EQ(above_earlier_unix_us(snowcast, INT64_MAX, snowcast), INT64_MAX);
}
