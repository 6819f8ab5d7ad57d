// The layouts of peers beside idgen's own: Twitter's and Discord's (the idgen kind with 1,024
// nodes, checked against Discord's published worked example), Sony's Sonyflake (10 ms ticks,
// the machine id below the counter) and the javascript kind (every id below 2^53): ids by hand
// from each formula, decoding back, the end of each time field, ids per tick, and threads
// drawing at once.
#include <gtest/gtest.h>
#include <set>

#include "core/layouts/snowflake.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::snowflake;

static constexpr int64_t kDiscordEpochMs = 1420070400000;    // 2015-01-01 00:00:00 UTC
static constexpr int64_t kSonyflakeEpochMs = 1409529600000;  // 2014-09-01 00:00:00 UTC
static constexpr int64_t kEpoch2020Ms = 1577836800000;       // 2020-01-01 00:00:00 UTC

static Layout layout(Kind kind, int32_t max_nodes, int64_t epoch_ms, int32_t backfill_nodes = 0) {
    int bits = 0;
    EXPECT_TRUE(node_bits_for(kind, max_nodes, &bits).ok());
    return Layout{epoch_ms, bits, backfill_nodes, kind};
}

static Next take(LogicalClock *c, const Layout &l, int64_t now_us, int32_t node, int64_t lead_ms = 1000) {
    Status err;
    return next(c, l, node, now_us, lead_ms, &err);
}

// Discord's documentation decodes 175928847299117063: 41944705796 ms after its epoch (2016-04-30
// 11:18:25.796 UTC), internal worker 1, process 0, increment 7. Worker and process are the node
// id's top and bottom five bits.
TEST(SnowflakePeerLayouts, DiscordsWorkedExample) {
    const Layout l = layout(Kind::idgen, 1024, kDiscordEpochMs);
    EXPECT_EQ(l.counter_bits(), 12);  // Twitter's and Discord's 12-bit sequence
    Parts p{};
    ASSERT_TRUE(decode(l, 175928847299117063, &p).ok());
    EXPECT_EQ(p.unix_ms, kDiscordEpochMs + 41944705796);
    EXPECT_EQ(p.node, 1 << 5 | 0);
    EXPECT_EQ(p.counter, 7);
}

TEST(SnowflakePeerLayouts, SonyflakePutsTheCounterAboveTheMachineId) {
    const Layout l = layout(Kind::sonyflake, 65536, kSonyflakeEpochMs, 16);
    EXPECT_EQ(l.node_bits, 16);
    EXPECT_EQ(l.counter_bits(), 8);
    // id = ticks << 24 | sequence << 16 | machine, ticks of 10 ms.
    const int64_t ticks = 12345, machine = 0x1234, sequence = 5;
    Parts p{};
    const int64_t id = ticks << 24 | sequence << 16 | machine;
    ASSERT_TRUE(decode(l, id, &p).ok());
    EXPECT_EQ(p.unix_ms, kSonyflakeEpochMs + ticks * 10);
    EXPECT_EQ(p.node, machine);
    EXPECT_EQ(p.counter, sequence);
    // A live draw composes the same way: node 0x1234, counter 0, in the tick of the time given,
    // whichever millisecond of the tick that is.
    LogicalClock c{0};
    const Next a = take(&c, l, (kSonyflakeEpochMs + ticks * 10 + 7) * 1000, static_cast<int32_t>(machine));
    ASSERT_EQ(a.kind, Next::Kind::issued);
    EXPECT_EQ(a.id, ticks << 24 | machine);
    EXPECT_EQ(a.unix_ms, kSonyflakeEpochMs + ticks * 10);
    EXPECT_EQ(a.end_unix_us, (kSonyflakeEpochMs + ticks * 10 + 10) * 1000);
    // Retrospective ids use the reserved machine ids at the top, the counter as their offset.
    int64_t back = 0;
    ASSERT_TRUE(at(l, (kSonyflakeEpochMs + ticks * 10 + 3) * 1000, 2, 9, &back).ok());
    EXPECT_EQ(back, ticks << 24 | 9 << 16 | (65536 - 16 + 2));
    EXPECT_EQ(backfill_key(l, (kSonyflakeEpochMs + ticks * 10 + 3) * 1000), kSonyflakeEpochMs + ticks * 10);
    // Sony's field lasts 2^39 ticks of 10 ms: about 174 years.
    EXPECT_EQ(runs_out_unix_ms(l), kSonyflakeEpochMs + (int64_t{1} << 39) * 10);
}

TEST(SnowflakePeerLayouts, SonyflakeIssues256IdsPerTickAndNode) {
    const Layout l = layout(Kind::sonyflake, 65536, kSonyflakeEpochMs);
    LogicalClock c{0};
    const int64_t now_us = (kSonyflakeEpochMs + 1000000) * 1000;
    int64_t prev = -1;
    for (int i = 0; i < 256; i++) {
        const Next n = take(&c, l, now_us, 77, 0);
        ASSERT_EQ(n.kind, Next::Kind::issued) << i;
        EXPECT_GT(n.id, prev);
        prev = n.id;
    }
    // The 257th would need the next tick, which is ahead of the clock when no lead is allowed.
    EXPECT_EQ(take(&c, l, now_us, 77, 0).kind, Next::Kind::wait);
    // Lead counts whole ticks: 9 ms of it is not one, 10 ms takes the next tick.
    EXPECT_EQ(take(&c, l, now_us, 77, 9).kind, Next::Kind::wait);
    const Next n = take(&c, l, now_us, 77, 10);
    ASSERT_EQ(n.kind, Next::Kind::issued);
    EXPECT_EQ(n.unix_ms, kSonyflakeEpochMs + 1000010);
}

// What makes a restart, a drop and a re-creation safe, in ticks of 10 ms: the end of an id is
// the end of its tick, a clock's issued bound covers every id it drew, and a clock started from
// such a bound (position_after) draws above all of them, rounding a time inside a tick up.
TEST(SnowflakePeerLayouts, SonyflakeBoundsCoverWholeTicks) {
    const Layout l = layout(Kind::sonyflake, 65536, kSonyflakeEpochMs);
    LogicalClock c{0};
    const int64_t tick_start_ms = kSonyflakeEpochMs + 777777 * 10;
    Next last{};
    for (int i = 0; i < 300; i++)
        last = take(&c, l, (tick_start_ms + 4) * 1000, 9, 1000);  // 256 in one tick, 44 in the next
    ASSERT_EQ(last.kind, Next::Kind::issued);
    EXPECT_EQ(last.unix_ms, tick_start_ms + 10);
    EXPECT_EQ(last.end_unix_us, (tick_start_ms + 20) * 1000);
    EXPECT_EQ(issued_bound_unix_us(l, c), (tick_start_ms + 20) * 1000);
    EXPECT_EQ(unix_us_of(l, c.next_free), (tick_start_ms + 10) * 1000);
    // A horizon inside a tick starts the next one; one at a tick's start starts that one.
    EXPECT_EQ(position_after(l, (tick_start_ms + 3) * 1000), static_cast<uint64_t>(777778) << 8);
    EXPECT_EQ(position_after(l, tick_start_ms * 1000 + 1), static_cast<uint64_t>(777778) << 8);
    EXPECT_EQ(position_after(l, tick_start_ms * 1000), static_cast<uint64_t>(777777) << 8);
    LogicalClock restarted{position_after(l, last.end_unix_us)};
    const Next first = take(&restarted, l, (tick_start_ms + 4) * 1000, 9, 1000);
    ASSERT_EQ(first.kind, Next::Kind::issued);
    EXPECT_GT(first.id, last.id);
    LogicalClock recreated{position_after(l, issued_bound_unix_us(l, c))};
    EXPECT_GT(take(&recreated, l, (tick_start_ms + 4) * 1000, 9, 1000).id, last.id);
    EXPECT_EQ(backfill_key(l, (tick_start_ms + 9) * 1000 + 999), tick_start_ms);
}

TEST(SnowflakePeerLayouts, SonyflakeOnlyHasSixteenMachineBits) {
    int bits = 0;
    for (int32_t n : {128, 8192, 32768, 65535, 65537})
        EXPECT_EQ(node_bits_for(Kind::sonyflake, n, &bits).code, Errc::invalid_parameter) << n;
    EXPECT_TRUE(node_bits_for(Kind::sonyflake, 65536, &bits).ok());
}

// Where no node count is given, each layout takes one it allows: the decoders of a layout given
// explicitly read a Sonyflake id with Sonyflake's one node count, not idgen's 8192.
TEST(SnowflakePeerLayouts, EachLayoutsDefaultNodeCountIsOneItAllows) {
    int bits = 0;
    for (Kind kind : {Kind::idgen, Kind::snowcast, Kind::sonyflake, Kind::javascript})
        EXPECT_TRUE(node_bits_for(kind, default_max_nodes(kind), &bits).ok()) << static_cast<int>(kind);
    EXPECT_EQ(default_max_nodes(Kind::idgen), 8192);
    EXPECT_EQ(default_max_nodes(Kind::sonyflake), 65536);
    EXPECT_EQ(default_max_nodes(Kind::javascript), 64);
}

TEST(SnowflakePeerLayouts, JavascriptIdsStayBelowTwoToThe53) {
    int bits = 0;
    for (int32_t n : {8, 15, 513, 1024, 8192})
        EXPECT_EQ(node_bits_for(Kind::javascript, n, &bits).code, Errc::invalid_parameter) << n;
    for (int32_t nodes = 16; nodes <= 512; nodes *= 2) {
        const Layout l = layout(Kind::javascript, nodes, kEpoch2020Ms);
        EXPECT_EQ(l.node_bits + l.counter_bits(), 12) << nodes;
        EXPECT_GE(l.counter_bits(), 3);
        // The last tick of the field, the last counter value of the last node: 2^53 - 1.
        const int64_t last_us = (runs_out_unix_ms(l) - 1) * 1000;
        LogicalClock c{0};
        Next last{};
        for (int i = 0; i < (1 << l.counter_bits()); i++) last = take(&c, l, last_us, nodes - 1, 0);
        ASSERT_EQ(last.kind, Next::Kind::issued);
        EXPECT_EQ(last.id, (int64_t{1} << 53) - 1);
        Status err;
        EXPECT_EQ(next(&c, l, nodes - 1, last_us + 5000, 10, &err).kind, Next::Kind::failed);
        EXPECT_EQ(err.code, Errc::exhausted);
    }
    const Layout l = layout(Kind::javascript, 64, kEpoch2020Ms);
    Parts p{};
    EXPECT_EQ(decode(l, int64_t{1} << 53, &p).code, Errc::value_out_of_range);
    EXPECT_EQ(decode(l, -1, &p).code, Errc::value_out_of_range);
    ASSERT_TRUE(decode(l, (int64_t{1} << 53) - 1, &p).ok());
    EXPECT_EQ(p.unix_ms, runs_out_unix_ms(l) - 1);
    EXPECT_EQ(p.node, 63);
    EXPECT_EQ(p.counter, 63);
}

// Threads drawing from one clock for one node get distinct ids, each decoding to its own tick,
// in every peer layout.
TEST(SnowflakePeerLayouts, ThreadsNeverShareAnIdInAnyLayout) {
    for (const Layout l :
         {layout(Kind::idgen, 1024, kDiscordEpochMs), layout(Kind::sonyflake, 65536, kSonyflakeEpochMs),
          layout(Kind::javascript, 64, kEpoch2020Ms)}) {
        LogicalClock c{0};
        const int64_t now_us = (kEpoch2020Ms + 86400000) * 1000;
        const auto ids = test::run_threads<int64_t>(4, [&](int, auto &out) {
            for (int i = 0; i < 5000; i++) {
                const Next n = take(&c, l, now_us, 3, 60000);
                ASSERT_EQ(n.kind, Next::Kind::issued);
                Parts p{};
                ASSERT_TRUE(decode(l, n.id, &p).ok());
                EXPECT_EQ(p.unix_ms, n.unix_ms);
                EXPECT_EQ(p.node, 3);
                out.push_back(n.id);
            }
        });
        EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), ids.size()) << static_cast<int>(l.kind);
    }
}

TEST(SnowflakePeerLayouts, EpochsMustLeaveRoomInTheLayoutsField) {
    const int64_t now_us = 1795000000000000;  // 2026-11-17
    // Twitter's epoch (2010) still fits 41 bits of ms; Sony's 10 ms ticks reach an epoch of 1900.
    EXPECT_TRUE(check_epoch(layout(Kind::idgen, 1024, 0), 1288834974657000, now_us).ok());
    const int64_t y1900_us = -2208988800000000;
    EXPECT_EQ(check_epoch(layout(Kind::idgen, 1024, 0), y1900_us, now_us).code, Errc::invalid_parameter);
    EXPECT_TRUE(check_epoch(layout(Kind::sonyflake, 65536, 0), y1900_us, now_us).ok());
}
