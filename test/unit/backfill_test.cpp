// The retrospective-id allocator and its two layouts: timestamps in random order with heavy
// duplication through a small table (so it is cleared many times), sessions on real threads
// leasing from one counter, namespaces running out, and the UUID / Snowflake fields.
#include <atomic>
#include <cstring>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "core/backfill/backfill_allocator.hpp"
#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/layouts/uuid_v1.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::backfill;

namespace {

// One session's allocator with its own memory, leasing from a counter shared by all sessions
// (the durable lease store in the server).
struct Session {
    test::GrowingTable table;
    std::vector<uint64_t> held;
    Allocator a{};

    Session(uint32_t max_keys, uint64_t per_namespace, uint32_t held_capacity = 64)
        : table(max_keys), held(held_capacity) {
        init(&a, table.cells.data(), max_keys, per_namespace, held.data(), held_capacity);
    }

    struct Got {
        bool ok;
        uint64_t ns, offset;
        Status error;
    };

    // The namespace and offset for `key`, leasing as the server does (from `leases`, or from
    // this session's own counter); not ok when out of leases.
    Got next(int64_t key, std::atomic<uint64_t> *leases = nullptr, uint64_t lease_limit = UINT64_MAX) {
        if (leases == nullptr) leases = &own_leases;
        table.make_room(&a);
        const Take t = take(&a, key);
        Got got{true, 0, t.offset, Status::success()};
        while (!held_namespace(&a, t.index, &got.ns)) {
            const uint64_t lease = leases->fetch_add(1);
            got.error =
                lease < lease_limit ? hold(&a, lease) : Status::error(Errc::exhausted, "no lease left");
            if (!got.error.ok()) {
                got.ok = false;
                return got;
            }
        }
        return got;
    }

    std::atomic<uint64_t> own_leases{0};
};

// Keys as a backfill meets them: random order, 30% sharing a key with others, one key very
// often (as rows inserted in one transaction share now()).
std::vector<int64_t> backfill_keys(size_t n, int64_t hot_key, size_t hot_count, uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int64_t> keys;
    for (size_t i = 0; i < n; i++) {
        const int64_t k = static_cast<int64_t>(rng() % 1000000000);
        keys.push_back(k);
        if (rng() % 10 < 3) keys.push_back(k);  // shared
    }
    keys.insert(keys.end(), hot_count, hot_key);
    std::shuffle(keys.begin(), keys.end(), rng);
    return keys;
}

}  // namespace

TEST(BackfillAllocator, EveryKeyPositionPairOnceThroughManyClears) {
    Session s(64, 10);
    std::set<std::tuple<int64_t, uint64_t, uint64_t>> seen;
    std::map<int64_t, std::pair<uint64_t, uint64_t>> last;  // key -> (namespace, offset)
    for (const int64_t key : backfill_keys(20000, 42, 5000, 1)) {
        const Session::Got g = s.next(key);
        ASSERT_TRUE(g.ok) << g.error.message;
        ASSERT_TRUE(seen.emplace(key, g.ns, g.offset).second)
            << "key " << key << " ns " << g.ns << " offset " << g.offset;
        // Per key, ids come in the order of the calls: namespaces are leased in increasing
        // order, so (namespace, offset) increases.
        auto it = last.find(key);
        if (it != last.end()) {
            EXPECT_LT(it->second, std::make_pair(g.ns, g.offset));
        }
        last[key] = {g.ns, g.offset};
    }
    EXPECT_GT(s.a.clears, 100u);
    EXPECT_LE(s.a.held_count, 1u + 5000 / 10);
}

TEST(BackfillAllocator, ATableGrowsToItsBoundBeforeItForgets) {
    // 65,536 keys remembered: the table starts at 1,024 cells and doubles to 131,072; 60,000
    // keys, each taken three times spread over the run, keep counting (never a clear) and
    // never repeat a (key, offset). A growth that loses a key would hand out its offsets again.
    Session s(65536, 1000);
    EXPECT_EQ(s.table.cells.size(), first_cells(65536));
    std::vector<int64_t> keys;
    for (int round = 0; round < 3; round++)
        for (int64_t k = 0; k < 60000; k++) keys.push_back(k * 7919);
    std::set<std::tuple<int64_t, uint64_t, uint64_t>> seen;
    for (const int64_t key : keys) {
        const Session::Got g = s.next(key);
        ASSERT_TRUE(g.ok);
        ASSERT_TRUE(seen.insert({key, g.ns, g.offset}).second) << "repeat of key " << key;
    }
    EXPECT_EQ(s.table.cells.size(), cells_for(65536));
    EXPECT_EQ(s.a.clears, 0u);
    EXPECT_EQ(s.a.high, 3u);  // every key at offsets 0, 1, 2
}

TEST(BackfillAllocator, ForgottenKeysStartAboveEverythingHandedOut) {
    Session s(2, 100);
    EXPECT_EQ(take(&s.a, 1).offset, 0u);
    EXPECT_EQ(take(&s.a, 1).offset, 1u);
    EXPECT_EQ(take(&s.a, 2).offset, 0u);
    EXPECT_EQ(take(&s.a, 3).offset, 2u);  // table full: cleared, floor 2
    EXPECT_EQ(take(&s.a, 1).offset, 2u);  // forgotten: starts at the floor, above 0 and 1
    EXPECT_EQ(s.a.clears, 1u);
}

TEST(BackfillAllocator, UnreachableNamespacesLeaveTheWindow) {
    Session s(1, 2, 4);
    for (int i = 0; i < 7; i++) ASSERT_TRUE(s.next(5).ok);
    EXPECT_EQ(s.a.held_count, 4u);     // positions 0..6: namespaces 0..3
    const Session::Got g = s.next(6);  // cleared: floor 7
    ASSERT_TRUE(g.ok);
    EXPECT_EQ(s.a.held_base, 3u);
    EXPECT_EQ(g.ns, 3u);
    EXPECT_EQ(g.offset, 1u);
}

TEST(BackfillAllocator, OneKeyPastTheHeldWindowIsAnError) {
    Session s(16, 10, 3);
    for (int i = 0; i < 30; i++) ASSERT_TRUE(s.next(9).ok);
    const Session::Got g = s.next(9);
    EXPECT_FALSE(g.ok);
    EXPECT_EQ(g.error.code, Errc::exhausted);
}

TEST(BackfillAllocator, NamespacesRunningOutIsAnErrorNeverAReuse) {
    std::atomic<uint64_t> leases{0};
    Session a(4, 10), b(4, 10);
    ASSERT_TRUE(a.next(1, &leases, 2).ok);
    EXPECT_EQ(b.next(1, &leases, 2).ns, 1u);
    for (int i = 0; i < 9; i++) ASSERT_TRUE(b.next(1, &leases, 2).ok);
    const Session::Got third = b.next(1, &leases, 2);  // needs a third namespace
    EXPECT_FALSE(third.ok);
    EXPECT_EQ(third.error.code, Errc::exhausted);
    EXPECT_FALSE(b.next(1, &leases, 2).ok);  // and again: still none
}

TEST(UuidV1Backfill, TimeIsExactAndFieldsFollowTheFixedMapping) {
    const int64_t t = 1700000000123456;
    std::set<std::string> seen;
    for (uint64_t offset = 0; offset < uuid_v1::backfill::kAutoPerNamespace; offset += 997) {
        Uuid u;
        ASSERT_TRUE(uuid_v1::backfill::make_auto(t, 300, 5, offset, &u).ok());
        uuid_v1::Fields f;
        ASSERT_TRUE(uuid_v1::decode(u, &f));
        EXPECT_EQ(uuid_v1::unix_micros_from_ticks(f.ticks), t);
        EXPECT_EQ(f.clock_seq, static_cast<int32_t>(offset % 16383));
        EXPECT_EQ(f.node, uint64_t{0x03} << 40 | uint64_t{300} << 27 | 5);
        EXPECT_TRUE(seen.insert(test::uuid_text(u)).second);
    }
    Uuid u;
    ASSERT_TRUE(uuid_v1::backfill::make_given(t, 0x001122334455, 16382, 9, &u).ok());
    uuid_v1::Fields f;
    ASSERT_TRUE(uuid_v1::decode(u, &f));
    EXPECT_EQ(f.clock_seq, 16382);  // namespace i is clock sequence i; 16,383 is never used
    EXPECT_EQ(f.node, 0x001122334455u);
    EXPECT_EQ(uuid_v1::unix_micros_from_ticks(f.ticks), t);
}

TEST(UuidV1Backfill, LiveRandomNodesAreNeverReserved) {
    EXPECT_EQ(uuid_v1::backfill::live_random_node(0x0b1122334455), 0x0b1122334455u);
    EXPECT_EQ(uuid_v1::backfill::live_random_node(0x031122334455), 0x011122334455u);  // a draw of one in 128
    for (uint64_t first = 0; first < 256; first++) {
        const uint64_t drawn = first << 40 | 0x1122334455;
        EXPECT_FALSE(uuid_v1::backfill::reserved_node(uuid_v1::backfill::live_random_node(drawn)));
    }
}

TEST(UuidV1Backfill, OneNamespaceSortsInTheOrderOfItsOffsets) {
    // PostgreSQL compares UUIDs bytewise; within one microsecond (away from a time_low wrap)
    // offsets must give increasing UUIDs.
    Uuid prev{};
    for (uint64_t offset = 0; offset < uuid_v1::backfill::kAutoPerNamespace; offset++) {
        Uuid u;
        ASSERT_TRUE(uuid_v1::backfill::make_auto(1600000000000000, 1, 0, offset, &u).ok());
        if (offset > 0) {
            ASSERT_LT(std::memcmp(prev.bytes, u.bytes, 16), 0) << offset;
        }
        prev = u;
    }
}

TEST(UuidV1Backfill, Errors) {
    Uuid u;
    using namespace uuid_v1::backfill;
    EXPECT_EQ(make_auto(0, 8192, 0, 0, &u).code, Errc::not_attached);
    EXPECT_EQ(make_auto(0, -1, 0, 0, &u).code, Errc::not_attached);
    EXPECT_EQ(make_auto(0, 1, kAutoNamespaces, 0, &u).code, Errc::exhausted);
    EXPECT_EQ(make_given(0, 1, kGivenNamespaces, 0, &u).code, Errc::exhausted);
    EXPECT_EQ(make_given(0, 0x03aabbccddee, 0, 0, &u).code, Errc::invalid_parameter);
    EXPECT_EQ(make_auto(uuid_v1::kMinUnixMicros - 1, 1, 0, 0, &u).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(make_auto(uuid_v1::kMaxUnixMicros + 1, 1, 0, 0, &u).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(check_time(INT64_MIN).code, Errc::timestamp_out_of_range);
    // The last microsecond holds only the ticks that fit 60 bits.
    EXPECT_TRUE(make_given(uuid_v1::kMaxUnixMicros, 1, 0, 5, &u).ok());
    EXPECT_EQ(make_given(uuid_v1::kMaxUnixMicros, 1, 0, 6, &u).code, Errc::timestamp_out_of_range);
    EXPECT_TRUE(make_given(uuid_v1::kMinUnixMicros, 1, 0, 9, &u).ok());
}

TEST(SnowflakeBackfill, IdsUseTheReservedNodesAndTheExactMillisecond) {
    const snowflake::Layout l{1577836800000, 7, 16};  // 128 nodes, 112..127 for backfill
    EXPECT_TRUE(snowflake::node_fits(l, 111));
    EXPECT_FALSE(snowflake::node_fits(l, 112));
    EXPECT_EQ(snowflake::backfill_per_namespace(l), 32768u);
    int64_t id = 0;
    ASSERT_TRUE(snowflake::at(l, 1600000000123999, 3, 42, &id).ok());
    snowflake::Parts p{};
    ASSERT_TRUE(snowflake::decode(l, id, &p).ok());
    EXPECT_EQ(p.unix_ms, 1600000000123);
    EXPECT_EQ(p.node, 115);
    EXPECT_EQ(p.counter, 42);
    int64_t next_ns = 0;
    ASSERT_TRUE(snowflake::at(l, 1600000000123000, 4, 0, &next_ns).ok());
    EXPECT_LT(id, next_ns);  // a later namespace of the same millisecond sorts after
    EXPECT_EQ(snowflake::backfill_key(snowflake::Layout{0, 10}, -1),
              -1);  // 1969: floored, as the time field is
}

TEST(SnowflakeBackfill, Errors) {
    const snowflake::Layout l{1577836800000, 7, 16};
    int64_t id = 0;
    EXPECT_EQ(snowflake::at(l, 1577836799999999, 0, 0, &id).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(snowflake::at(l, INT64_MIN, 0, 0, &id).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(snowflake::at(l, INT64_MAX, 0, 0, &id).code, Errc::timestamp_out_of_range);
    EXPECT_EQ(snowflake::at(l, 1600000000000000, 16, 0, &id).code, Errc::exhausted);
    EXPECT_EQ(snowflake::at(snowflake::Layout{1577836800000, 7}, 1600000000000000, 0, 0, &id).code,
              Errc::not_attached);
    EXPECT_TRUE(snowflake::check_backfill_nodes(l, 127).ok());
    EXPECT_EQ(snowflake::check_backfill_nodes(l, 128).code, Errc::invalid_parameter);
    EXPECT_EQ(snowflake::check_backfill_nodes(l, -1).code, Errc::invalid_parameter);
}

TEST(BackfillConcurrency, SessionsOnRealThreadsNeverMakeTheSameId) {
    // Eight sessions backfill overlapping rows at once, each with a small table, all leasing
    // from one counter; then eight more "after a restart" (the counter continues, as the
    // durable lease store does). Every UUID and every Snowflake id is distinct.
    std::atomic<uint64_t> uuid_leases{0}, snowflake_leases{0};
    const snowflake::Layout layout{1577836800000, 7, 64};
    struct Ids {
        std::vector<std::string> uuids;
        std::vector<int64_t> snowflakes;
    };
    auto backfill = [&](int round) {
        return test::run_threads<std::pair<std::string, int64_t>>(8, [&](int t, auto &out) {
            Session us(256, uuid_v1::backfill::kAutoPerNamespace);
            Session ss(256, snowflake::backfill_per_namespace(layout));
            for (const int64_t us_time : backfill_keys(3000, 1600000000000001, 2000, 7 + t + 100 * round)) {
                const int64_t t_us = 1600000000000000 + us_time % 1000000;
                const Session::Got gu = us.next(t_us, &uuid_leases, uuid_v1::backfill::kAutoNamespaces);
                Uuid u;
                EXPECT_TRUE(gu.ok && uuid_v1::backfill::make_auto(t_us, 1, gu.ns, gu.offset, &u).ok());
                const Session::Got gs = ss.next(snowflake::backfill_key(layout, t_us), &snowflake_leases, 64);
                int64_t id = 0;
                EXPECT_TRUE(gs.ok && snowflake::at(layout, t_us, gs.ns, gs.offset, &id).ok());
                out.emplace_back(test::uuid_text(u), id);
            }
        });
    };
    Ids all;
    for (int round = 0; round < 2; round++)
        for (auto &[u, s] : backfill(round)) {
            all.uuids.push_back(u);
            all.snowflakes.push_back(s);
        }
    EXPECT_GT(all.uuids.size(), 2u * 8 * (3000 + 2000));
    EXPECT_TRUE(test::all_distinct(all.uuids));
    EXPECT_TRUE(test::all_distinct(all.snowflakes));
    EXPECT_LE(snowflake_leases.load(), 64u);
}
