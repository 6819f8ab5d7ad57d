// Version-7 and version-6 UUIDs: the field positions, version and variant bits against the
// RFC 9562 tables (read here bit by bit, not through idgen's decoders), the sub-millisecond
// fraction's exact round trip for every microsecond of a millisecond, range boundaries,
// uuid_v7_min's exact boundary, and the live clock with fake clocks and real threads.
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

#include "core/clocks/logical_clock.hpp"
#include "core/generators/uuid_v7_clock.hpp"
#include "core/layouts/uuid_v1.hpp"
#include "core/layouts/uuid_v7.hpp"

#include "test_support.hpp"

using namespace idgen;

static constexpr int64_t kNowNs = int64_t{1763787600} * 1000000000;  // 2025-11-22 05:00 UTC

// Bits [from, from + n) of a UUID, bit 0 being the most significant bit of byte 0.
static uint64_t bits(const Uuid &u, int from, int n) {
    uint64_t v = 0;
    for (int i = from; i < from + n; i++) v = v << 1 | ((u.bytes[i / 8] >> (7 - i % 8)) & 1);
    return v;
}

TEST(UuidV7, FieldsSitWhereRfc9562PutsThem) {
    Uuid u;
    uuid_v7::encode(uuid_v7::Time{0x017F22E279B0, 0xCC3}, 0x18C4DC0C0C07398F & ((uint64_t{1} << 62) - 1), &u);
    // RFC 9562 appendix A.6's example: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F.
    EXPECT_EQ(test::uuid_text(u), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    EXPECT_EQ(bits(u, 0, 48), 0x017F22E279B0u);
    EXPECT_EQ(bits(u, 48, 4), 7u);
    EXPECT_EQ(bits(u, 52, 12), 0xCC3u);
    EXPECT_EQ(bits(u, 64, 2), 2u);
    uuid_v7::Time t{};
    uint64_t rand_b = 0;
    ASSERT_TRUE(uuid_v7::decode(u, &t, &rand_b));
    EXPECT_EQ(t.unix_ms, 0x017F22E279B0);
    EXPECT_EQ(t.fraction, 0xCC3u);
    EXPECT_EQ(rand_b, bits(u, 66, 62));
}

TEST(UuidV7, EveryMicrosecondOfAMillisecondRoundTripsExactly) {
    for (int64_t base : {int64_t{0}, int64_t{1763787600123} * 1000, uuid_v7::kMaxUnixMs * 1000}) {
        uint32_t last_fraction = 0;
        for (int64_t us = 0; us < 1000; us++) {
            uuid_v7::Time t{};
            ASSERT_TRUE(uuid_v7::time_from_unix_micros(base + us, &t).ok());
            EXPECT_EQ(t.unix_ms, (base + us) / 1000);
            ASSERT_LT(t.fraction, uuid_v7::kFractionSteps);
            if (us > 0) {
                EXPECT_GT(t.fraction, last_fraction) << us;
            }
            last_fraction = t.fraction;
            EXPECT_EQ(uuid_v7::unix_micros_of(t), base + us) << us;
            Uuid u;
            uuid_v7::encode(t, 0, &u);
            uint64_t r;
            uuid_v7::Time back{};
            ASSERT_TRUE(uuid_v7::decode(u, &back, &r));
            EXPECT_EQ(uuid_v7::unix_micros_of(back), base + us);
        }
    }
    // And every step of a millisecond reads as the microsecond it lies in, in order.
    int64_t last = -1;
    for (uint32_t f = 0; f < uuid_v7::kFractionSteps; f++) {
        const int64_t us = uuid_v7::unix_micros_of(uuid_v7::Time{5, f});
        EXPECT_GE(us, last);
        EXPECT_LE(us - 5000, int64_t{999});
        last = us;
    }
}

TEST(UuidV7, RangeIsTheUnixMillisecondsOf48Bits) {
    uuid_v7::Time t{};
    EXPECT_EQ(uuid_v7::time_from_unix_micros(-1, &t).code, Errc::timestamp_out_of_range);
    EXPECT_TRUE(uuid_v7::time_from_unix_micros(0, &t).ok());
    EXPECT_TRUE(uuid_v7::time_from_unix_micros(uuid_v7::kMaxUnixMicros, &t).ok());
    EXPECT_EQ(t.unix_ms, uuid_v7::kMaxUnixMs);
    EXPECT_EQ(uuid_v7::time_from_unix_micros(uuid_v7::kMaxUnixMicros + 1, &t).code,
              Errc::timestamp_out_of_range);
}

TEST(UuidV7, DecodeRefusesOtherVersionsAndLeavesOutputsAlone) {
    Uuid u;
    uuid_v7::encode(uuid_v7::Time{1, 2}, 3, &u);
    u.bytes[6] = static_cast<uint8_t>((u.bytes[6] & 0x0F) | 0x40);  // version 4
    uuid_v7::Time t{77, 88};
    uint64_t r = 99;
    EXPECT_FALSE(uuid_v7::decode(u, &t, &r));
    EXPECT_EQ(t.unix_ms, 77);
    EXPECT_EQ(r, 99u);
    u.bytes[6] = static_cast<uint8_t>((u.bytes[6] & 0x0F) | 0x70);
    u.bytes[8] = static_cast<uint8_t>(u.bytes[8] & 0x3F);  // NCS variant
    EXPECT_FALSE(uuid_v7::decode(u, &t, &r));
}

// u >= min_at(t) exactly when u's time is at or after t, for UUIDs on both sides of the bound.
TEST(UuidV7, MinAtIsTheExactBoundOfDecodedTimes) {
    const int64_t base = int64_t{1763787600000} * 1000;
    for (int64_t t = base; t < base + 2000; t += 7) {
        Uuid bound;
        ASSERT_TRUE(uuid_v7::min_at(t, &bound).ok());
        for (int64_t ms = base / 1000; ms <= base / 1000 + 2; ms++) {
            for (uint32_t f = 0; f < uuid_v7::kFractionSteps; f += 13) {
                for (uint64_t rb : {uint64_t{0}, (uint64_t{1} << 62) - 1}) {
                    Uuid u;
                    uuid_v7::encode(uuid_v7::Time{ms, f}, rb, &u);
                    const bool above = std::memcmp(u.bytes, bound.bytes, 16) >= 0;
                    ASSERT_EQ(above, uuid_v7::unix_micros_of(uuid_v7::Time{ms, f}) >= t)
                        << t << " " << ms << " " << f;
                }
            }
        }
    }
    Uuid lowest;
    ASSERT_TRUE(uuid_v7::min_at(-5000000, &lowest).ok());
    EXPECT_EQ(test::uuid_text(lowest), "00000000-0000-7000-8000-000000000000");
    EXPECT_EQ(uuid_v7::min_at(uuid_v7::kMaxUnixMicros + 1, &lowest).code, Errc::timestamp_out_of_range);
}

TEST(UuidV7, LiveRandBHoldsCounterNodeAndRandomBits) {
    Uuid u;
    uuid_v7::encode(uuid_v7::Time{1, 0}, uuid_v7::live_rand_b(0x1F, 8191, ~uint64_t{0}), &u);
    EXPECT_EQ(bits(u, 66, 1), 0u);      // live
    EXPECT_EQ(bits(u, 67, 4), 0xFu);    // the counter's 4 bits
    EXPECT_EQ(bits(u, 71, 13), 8191u);  // node id
    EXPECT_EQ(bits(u, 84, 44), (uint64_t{1} << 44) - 1);
    uuid_v7::encode(uuid_v7::Time{1, 0}, uuid_v7::live_rand_b(3, 5, 0), &u);
    EXPECT_EQ(bits(u, 67, 4), 3u);
    EXPECT_EQ(bits(u, 71, 13), 5u);
    EXPECT_EQ(bits(u, 84, 44), 0u);
    // No node id: the node bits are random too, and the live bit stays clear.
    uuid_v7::encode(uuid_v7::Time{1, 0}, uuid_v7::live_rand_b(0, -1, ~uint64_t{0}), &u);
    EXPECT_EQ(bits(u, 66, 1), 0u);
    EXPECT_EQ(bits(u, 67, 4), 0u);
    EXPECT_EQ(bits(u, 71, 57), (uint64_t{1} << 57) - 1);
}

TEST(UuidV7, RetrospectiveUuidsCarryTheirExactTimeNodeNamespaceAndOffset) {
    const int64_t ts = int64_t{1500000000} * 1000000 + 123457;
    Uuid u;
    ASSERT_TRUE(uuid_v7::make_retrospective(ts, 42, 77, 12345, &u).ok());
    uuid_v7::Time t{};
    uint64_t r = 0;
    ASSERT_TRUE(uuid_v7::decode(u, &t, &r));
    EXPECT_EQ(uuid_v7::unix_micros_of(t), ts);
    EXPECT_EQ(bits(u, 66, 1), 1u);  // retrospective
    EXPECT_EQ(bits(u, 67, 13), 42u);
    EXPECT_EQ(bits(u, 80, 24), 77u);
    EXPECT_EQ(bits(u, 104, 24), 12345u);
    EXPECT_EQ(uuid_v7::make_retrospective(-1, 42, 0, 0, &u).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(uuid_v7::make_retrospective(ts, -1, 0, 0, &u).code, Errc::not_attached);
    EXPECT_EQ(uuid_v7::make_retrospective(ts, 8192, 0, 0, &u).code, Errc::not_attached);
    EXPECT_EQ(uuid_v7::make_retrospective(ts, 1, uuid_v7::kNamespaces, 0, &u).code, Errc::exhausted);
    EXPECT_EQ(uuid_v7::make_retrospective(ts, 1, 0, uuid_v7::kPerNamespace, &u).code, Errc::exhausted);
}

TEST(UuidV7Clock, UuidsStrictlyIncreaseAndReadAsTheWallClockWhateverItDoes) {
    LogicalClock c{0};
    Status err;
    Uuid last{};
    int64_t now = kNowNs;
    for (int i = 0; i < 200000; i++) {
        if (i % 1000 == 0) now -= 50000;  // steps back 50 us now and then
        if (i % 10 == 0) now += 300;
        const uuid_v7::Next n = uuid_v7::next(&c, now, 1000, 42, 0x123456789ABCDEFull * i, &err);
        ASSERT_EQ(n.kind, uuid_v7::Next::Kind::issued);
        ASSERT_GT(std::memcmp(n.uuid.bytes, last.bytes, 16), 0) << i;
        uuid_v7::Time t{};
        uint64_t r = 0;
        ASSERT_TRUE(uuid_v7::decode(n.uuid, &t, &r));
        EXPECT_EQ(bits(n.uuid, 71, 13), 42u);
        // The UUID's time is within the lead of the wall clock and ends by end_unix_us.
        const int64_t us = uuid_v7::unix_micros_of(t);
        EXPECT_GE(us, kNowNs / 1000 - 60000);
        EXPECT_GT(n.end_unix_us, us);
        last = n.uuid;
    }
}

TEST(UuidV7Clock, SixteenPerStepThenTheClockRunsAheadUntilTheLeadThenWaits) {
    LogicalClock c{0};
    Status err;
    const int64_t frozen = kNowNs;
    int issued = 0;
    for (;;) {
        const uuid_v7::Next n = uuid_v7::next(&c, frozen, 2, -1, 0, &err);
        if (n.kind == uuid_v7::Next::Kind::wait) {
            EXPECT_GE(n.ahead_ms, 2);
            EXPECT_LE(n.ahead_ms, 3);
            break;
        }
        ASSERT_EQ(n.kind, uuid_v7::Next::Kind::issued);
        issued++;
    }
    // A frozen clock gives 65,536 per millisecond: the current one plus a 2 ms lead.
    EXPECT_GE(issued, 2 * 65536);
    EXPECT_LE(issued, 3 * 65536 + 16);
}

TEST(UuidV7Clock, ThreadsGetDistinctIncreasingUuidsAndAHorizonIsRespected) {
    LogicalClock c{0};
    raise_to(&c, uuid_v7::position_after(kNowNs / 1000 + 1000000));  // a horizon 1 s ahead
    const auto all = test::run_threads<std::string>(8, [&](int, std::vector<std::string> &out) {
        Status err;
        std::string last;
        for (int i = 0; i < 20000; i++) {
            const uuid_v7::Next n = uuid_v7::next(&c, kNowNs, 5000, 7, 0, &err);
            ASSERT_EQ(n.kind, uuid_v7::Next::Kind::issued);
            const std::string s = test::uuid_text(n.uuid);
            ASSERT_GT(s, last);  // increasing within each thread
            last = s;
            uuid_v7::Time tm{};
            uint64_t r;
            ASSERT_TRUE(uuid_v7::decode(n.uuid, &tm, &r));
            ASSERT_GE(uuid_v7::unix_micros_of(tm), kNowNs / 1000 + 1000000);
            out.push_back(s);
        }
    });
    // The random bits are zero: distinct means the shared clock's time, fraction and counter
    // (with the thread's node id) never repeated.
    EXPECT_TRUE(test::all_distinct(all));
}

TEST(UuidV7Clock, PositionsReadBackAsTheTimesTheyStartAt) {
    for (int64_t h : {int64_t{1}, int64_t{999}, int64_t{1000}, kNowNs / 1000, kNowNs / 1000 + 1}) {
        const uint64_t p = uuid_v7::position_after(h);
        EXPECT_GE(uuid_v7::unix_us_of(p), h - 1);
        EXPECT_LE(uuid_v7::unix_us_of(p), h);
        // The position before starts before the horizon.
        EXPECT_LT(uuid_v7::unix_us_of(p - 16) * 4096, h * 4096);
    }
    EXPECT_EQ(uuid_v7::position_after(0), 0u);
}

TEST(UuidV6, FieldsSitWhereRfc9562PutsThemAndConvertLosslessly) {
    // RFC 9562 appendix A.5: v6 1EC9414C-232A-6B00-B3C8-9F6BDECED846 is v1
    // C232AB00-9414-11EC-B3C8-9F6BDECED846.
    const uuid_v1::Fields f{0x1EC9414C232AB00ull, 0x33C8, 0x9F6BDECED846ull};
    Uuid v6, v1;
    ASSERT_TRUE(uuid_v1::encode_v6(f, &v6).ok());
    EXPECT_EQ(test::uuid_text(v6), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
    ASSERT_TRUE(uuid_v1::encode(f, &v1).ok());
    EXPECT_EQ(test::uuid_text(v1), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
    EXPECT_EQ(bits(v6, 0, 48), f.ticks >> 12);
    EXPECT_EQ(bits(v6, 48, 4), 6u);
    EXPECT_EQ(bits(v6, 52, 12), f.ticks & 0xFFF);
    Uuid conv;
    ASSERT_TRUE(uuid_v1::v1_to_v6(v1, &conv));
    EXPECT_EQ(std::memcmp(conv.bytes, v6.bytes, 16), 0);
    ASSERT_TRUE(uuid_v1::v6_to_v1(v6, &conv));
    EXPECT_EQ(std::memcmp(conv.bytes, v1.bytes, 16), 0);
    uuid_v1::Fields d{};
    ASSERT_TRUE(uuid_v1::decode_v6(v6, &d));
    EXPECT_EQ(d.ticks, f.ticks);
    EXPECT_EQ(d.clock_seq, f.clock_seq);
    EXPECT_EQ(d.node, f.node);
    // The wrong version in: false, output untouched.
    std::memset(conv.bytes, 0xAB, 16);
    EXPECT_FALSE(uuid_v1::v1_to_v6(v6, &conv));
    EXPECT_FALSE(uuid_v1::v6_to_v1(v1, &conv));
    EXPECT_EQ(conv.bytes[0], 0xAB);
    EXPECT_EQ(uuid_v1::encode_v6(uuid_v1::Fields{uuid_v1::kMaxTicks + 1, 0, 0}, &conv).code,
              Errc::timestamp_out_of_range);
}

TEST(UuidV6, SortsByTimeWhereVersion1DoesNot) {
    // Ticks crossing a time_low wrap: v1 sorts them backwards, v6 in time order.
    const uuid_v1::Fields a{0x1EC9414FFFFFFFFull, 1, 2}, b{0x1EC94150000000Full, 1, 2};
    Uuid a6, b6, a1, b1;
    ASSERT_TRUE(uuid_v1::encode_v6(a, &a6).ok());
    ASSERT_TRUE(uuid_v1::encode_v6(b, &b6).ok());
    ASSERT_TRUE(uuid_v1::encode(a, &a1).ok());
    ASSERT_TRUE(uuid_v1::encode(b, &b1).ok());
    EXPECT_LT(std::memcmp(a6.bytes, b6.bytes, 16), 0);
    EXPECT_GT(std::memcmp(a1.bytes, b1.bytes, 16), 0);
}

// u >= v6_min_at(t) exactly when u's time is at or after t, for version-6 UUIDs of every tick,
// clock sequence and node around the bound.
TEST(UuidV6, MinAtIsTheExactBoundOfDecodedTimes) {
    const int64_t base = int64_t{1763787600000} * 1000;
    for (int64_t t = base; t < base + 50; t += 3) {
        Uuid bound;
        ASSERT_TRUE(uuid_v1::v6_min_at(t, &bound).ok());
        uint64_t base_ticks;
        ASSERT_TRUE(uuid_v1::ticks_from_unix_micros(base, &base_ticks).ok());
        for (uint64_t ticks = base_ticks - 20; ticks < base_ticks + 600; ticks++) {
            for (const auto &[seq, node] :
                 {std::pair{0, uint64_t{0}}, std::pair{uuid_v1::kMaxClockSeq, uuid_v1::kMaxNode}}) {
                Uuid u;
                ASSERT_TRUE(uuid_v1::encode_v6(uuid_v1::Fields{ticks, seq, node}, &u).ok());
                const bool above = std::memcmp(u.bytes, bound.bytes, 16) >= 0;
                ASSERT_EQ(above, uuid_v1::unix_micros_from_ticks(ticks) >= t) << t << " " << ticks;
            }
        }
    }
    Uuid lowest;
    ASSERT_TRUE(uuid_v1::v6_min_at(uuid_v1::kMinUnixMicros - 1000, &lowest).ok());
    EXPECT_EQ(test::uuid_text(lowest), "00000000-0000-6000-8000-000000000000");
    EXPECT_EQ(uuid_v1::v6_min_at(uuid_v1::kMaxUnixMicros + 1, &lowest).code, Errc::timestamp_out_of_range);
}
