// Namespaces handed back when a session ends and adopted by the next: thousands of
// simulated sessions on real threads, random timestamps with heavy duplication, every
// (key, namespace, offset) handed out once; 100,000 short sessions fit one namespace; and each
// mutation (parking without the floor or without the table, adopting without the starts)
// finds a repeat.
#include <atomic>
#include <cstdio>
#include <gtest/gtest.h>
#include <mutex>
#include <random>
#include <tuple>
#include <vector>

#include "core/backfill/backfill_allocator.hpp"
#include "core/backfill/backfill_pool.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::backfill;

namespace {

// The server side: the pool under its lock and the durable lease counter of one id space.
struct Server {
    std::mutex lock;
    std::vector<PoolSlot> slots;
    std::atomic<uint64_t> leases{0};
    uint64_t limit;
    Parking parking = Parking::exact;
    bool adopt_starts = true;
    static constexpr SpaceId kSpace{3, 42};

    Server(uint32_t pool_slots, uint64_t lease_limit) : slots(pool_slots), limit(lease_limit) {
        pool_init(slots.data(), pool_slots);
    }
};

// One session: an allocator that adopts from the server's pool before it leases, and parks
// every namespace it holds when it ends.
struct PooledSession {
    Server *server;
    test::GrowingTable table;
    std::vector<uint64_t> held;
    std::vector<uint32_t> adopted;
    Allocator a{};

    PooledSession(Server *s, uint32_t max_keys, uint64_t per_namespace)
        : server(s), table(max_keys), held(64), adopted(kMaxAdopted * kStartBuckets) {
        init(&a, table.cells.data(), max_keys, per_namespace, held.data(), 64);
        enable_adoption(&a, adopted.data());
    }

    // (namespace, offset) for `key`; false when the id space has no namespace left.
    bool next(int64_t key, uint64_t *ns, uint64_t *offset) {
        Take t;
        table.make_room(&a);
        while (!try_take(&a, key, &t)) {
            std::vector<uint32_t> starts(kStartBuckets);
            uint64_t got = 0;
            bool adopted_one = false;
            if (can_adopt(&a)) {
                std::lock_guard<std::mutex> g(server->lock);
                adopted_one =
                    pool_adopt(server->slots.data(), static_cast<uint32_t>(server->slots.size()),
                               Server::kSpace, a.per_namespace, &got, starts.data(), server->adopt_starts);
            }
            if (adopted_one) {
                if (!hold_adopted(&a, got, starts.data()).ok()) return false;
                continue;
            }
            got = server->leases.fetch_add(1);
            if (got >= server->limit || !hold(&a, got).ok()) return false;
        }
        *offset = t.offset;
        return held_namespace(&a, t.index, ns);
    }

    void end() {
        std::vector<uint32_t> starts(kStartBuckets);
        for (uint64_t i = a.held_base; i < a.held_base + a.held_count; i++) {
            if (!park_starts(&a, i, starts.data(), server->parking)) continue;
            uint64_t ns = 0;
            held_namespace(&a, i, &ns);
            std::lock_guard<std::mutex> g(server->lock);
            pool_park(server->slots.data(), static_cast<uint32_t>(server->slots.size()), Server::kSpace,
                      a.per_namespace, ns, starts.data());
        }
    }
};

using Id = std::tuple<int64_t, uint64_t, uint64_t>;  // key, namespace, offset

struct Outcome {
    size_t ids = 0, repeats = 0, failures = 0;
    uint64_t leases = 0;
};

// `threads` x `sessions` short sessions of 1..rows ids each: with `hot`, half of the keys from
// a small hot set (heavy duplication across sessions), the others random times over a year;
// inside a session a key is often repeated. Small tables (max_keys) make sessions forget keys.
Outcome run_sessions(Server *server, int threads, int sessions, int rows, uint32_t max_keys,
                     uint64_t per_namespace, uint32_t seed, bool hot = true) {
    std::atomic<size_t> failures{0};
    std::vector<Id> ids = test::run_threads<Id>(threads, [&](int t, std::vector<Id> &out) {
        std::mt19937_64 rng(seed * 1000 + t);
        for (int s = 0; s < sessions; s++) {
            PooledSession session(server, max_keys, per_namespace);
            const int n = 1 + static_cast<int>(rng() % rows);
            int64_t key = 0;
            for (int r = 0; r < n; r++) {
                if (r == 0 || rng() % 3 != 0)
                    key = hot && rng() % 2 == 0 ? static_cast<int64_t>(rng() % 300)
                                                : static_cast<int64_t>(rng() % 31536000000ull) + 1000;
                uint64_t ns = 0, offset = 0;
                if (!session.next(key, &ns, &offset)) {
                    failures++;
                    continue;
                }
                out.emplace_back(key, ns, offset);
            }
            session.end();
        }
    });
    Outcome o;
    o.ids = ids.size();
    std::sort(ids.begin(), ids.end());
    for (size_t i = 1; i < ids.size(); i++) o.repeats += ids[i] == ids[i - 1];
    o.failures = failures;
    o.leases = server->leases.load();
    return o;
}

}  // namespace

TEST(BackfillPool, AnAdoptedNamespaceContinuesAboveWhatItsKeysUsed) {
    Server server(4, 100);
    PooledSession first(&server, 16, 10);
    uint64_t ns = 0, offset = 0;
    for (int i = 0; i < 3; i++) ASSERT_TRUE(first.next(7, &ns, &offset));
    first.end();
    PooledSession second(&server, 16, 10);
    ASSERT_TRUE(second.next(7, &ns, &offset));
    EXPECT_EQ(ns, 0u);
    EXPECT_EQ(offset, 3u);  // above the first session's 0, 1, 2
    ASSERT_TRUE(second.next(8, &ns, &offset));
    EXPECT_EQ(offset, 0u);  // another key starts at the bottom of the same namespace
    EXPECT_EQ(server.leases.load(), 1u);
}

TEST(BackfillPool, AKeyWhoseBucketIsFullMovesOnToAnotherNamespace) {
    Server server(4, 100);
    PooledSession first(&server, 16, 10);
    uint64_t ns = 0, offset = 0;
    for (int i = 0; i < 10; i++) ASSERT_TRUE(first.next(7, &ns, &offset));
    ASSERT_TRUE(first.next(8, &ns, &offset));  // namespace 0 still has room for other keys
    first.end();
    PooledSession second(&server, 16, 10);
    ASSERT_TRUE(second.next(7, &ns, &offset));
    EXPECT_EQ(ns, 1u);  // the key's bucket is full in namespace 0: a fresh one
    EXPECT_EQ(offset, 0u);
    ASSERT_TRUE(second.next(8, &ns, &offset));
    EXPECT_EQ(ns, 0u);
    EXPECT_EQ(offset, 1u);
}

TEST(BackfillPool, ASpentNamespaceIsNotParkedAndAFullPoolKeepsTheLeastUsed) {
    Server server(1, 100);
    PooledSession full(&server, 1, 2);
    uint64_t ns = 0, offset = 0;
    ASSERT_TRUE(full.next(1, &ns, &offset));
    ASSERT_TRUE(full.next(2, &ns, &offset));  // forgets key 1: floor 1
    ASSERT_TRUE(full.next(3, &ns, &offset));  // floor 2: namespace 0 is unreachable
    std::vector<uint32_t> starts(kStartBuckets);
    EXPECT_FALSE(park_starts(&full.a, 0, starts.data()));
    std::vector<uint32_t> little(kStartBuckets, 0), much(kStartBuckets, 1);
    EXPECT_EQ(pool_park(server.slots.data(), 1, Server::kSpace, 2, 5, much.data()), Parked::kept);
    EXPECT_EQ(pool_park(server.slots.data(), 1, Server::kSpace, 2, 6, little.data()),
              Parked::replaced_fuller);
    EXPECT_EQ(pool_park(server.slots.data(), 1, Server::kSpace, 2, 7, much.data()), Parked::dropped);
    EXPECT_FALSE(pool_adopt(server.slots.data(), 1, Server::kSpace, 3, &ns, starts.data()));  // other layout
    EXPECT_EQ(pool_count(server.slots.data(), 1, Server::kSpace), 0u);
}

// Random parks and adoptions over `spaces` id spaces in a pool of `slots`: true when no park
// ever left a space that had a parked namespace without one.
static bool parks_keep_every_space_served(uint32_t slots, uint32_t spaces, Eviction mode) {
    std::vector<PoolSlot> pool(slots);
    pool_init(pool.data(), slots);
    std::mt19937_64 rng(7);
    std::vector<uint32_t> starts(kStartBuckets);
    uint64_t ns = 0;
    for (int step = 0; step < 20000; step++) {
        // Space 0 is small and rarely used; the others are busy and park often.
        const SpaceId space{1, rng() % 8 == 0 ? 0 : 1 + rng() % (spaces - 1)};
        if (rng() % 3 == 0) {
            pool_adopt(pool.data(), slots, space, 100, &ns, starts.data());
            continue;
        }
        std::fill(starts.begin(), starts.end(), static_cast<uint32_t>(rng() % 100));
        std::vector<uint32_t> before(spaces);
        for (uint32_t k = 0; k < spaces; k++) before[k] = pool_count(pool.data(), slots, SpaceId{1, k});
        pool_park(pool.data(), slots, space, 100, step, starts.data(), mode);
        for (uint32_t k = 0; k < spaces; k++)
            if (before[k] > 0 && pool_count(pool.data(), slots, SpaceId{1, k}) == 0) return false;
    }
    return true;
}

TEST(BackfillPool, AFullPoolNeverTakesASpacesLastParkedNamespace) {
    EXPECT_TRUE(parks_keep_every_space_served(8, 8, Eviction::most_parked_space));
    EXPECT_TRUE(parks_keep_every_space_served(8, 3, Eviction::most_parked_space));
    // The mutation: giving up the fullest namespace whatever its space.
    EXPECT_FALSE(parks_keep_every_space_served(8, 8, Eviction::fullest_anywhere));
}

TEST(BackfillPool, AFullPoolTakesFromTheSpaceWithTheMost) {
    std::vector<PoolSlot> pool(3);
    pool_init(pool.data(), 3);
    std::vector<uint32_t> full(kStartBuckets, 90), empty(kStartBuckets, 0), half(kStartBuckets, 50);
    const SpaceId small{1, 0}, busy{1, 1};
    EXPECT_EQ(pool_park(pool.data(), 3, small, 100, 1, full.data()), Parked::kept);
    EXPECT_EQ(pool_park(pool.data(), 3, busy, 100, 2, half.data()), Parked::kept);
    EXPECT_EQ(pool_park(pool.data(), 3, busy, 100, 3, empty.data()), Parked::kept);
    // Busy has two (three with the incoming): its fullest goes, though small's is fuller.
    EXPECT_EQ(pool_park(pool.data(), 3, busy, 100, 4, empty.data()), Parked::replaced_fuller);
    EXPECT_EQ(pool_park(pool.data(), 3, busy, 100, 5, half.data()), Parked::dropped);
    EXPECT_EQ(pool_count(pool.data(), 3, small), 1u);
    // Small's second namespace ties with busy's two: small gives up its fuller one.
    EXPECT_EQ(pool_park(pool.data(), 3, small, 100, 6, empty.data()), Parked::replaced_fuller);
    uint64_t ns = 0;
    ASSERT_TRUE(pool_adopt(pool.data(), 3, small, 100, &ns, full.data()));
    EXPECT_EQ(ns, 6u);
    // A third space takes one of busy's.
    EXPECT_EQ(pool_park(pool.data(), 3, small, 100, 7, empty.data()), Parked::kept);
    EXPECT_EQ(pool_park(pool.data(), 3, SpaceId{1, 2}, 100, 8, full.data()), Parked::evicted_other);
    EXPECT_EQ(pool_count(pool.data(), 3, busy), 1u);
}

TEST(BackfillPool, ThousandsOfSessionsOnThreadsNeverRepeatAnId) {
    // 8 threads x 600 sessions, 10 ids per namespace and key (a given UUID node), tables of
    // 8 keys (forgetting often), a pool of 16 slots.
    Server server(16, 16383);
    const Outcome o = run_sessions(&server, 8, 600, 12, 8, 10, 1);
    std::printf("pooled: %zu ids from 4,800 sessions, %llu namespaces leased, %zu repeats\n", o.ids,
                static_cast<unsigned long long>(o.leases), o.repeats);
    EXPECT_EQ(o.failures, 0u);
    EXPECT_EQ(o.repeats, 0u);
    EXPECT_GT(o.ids, 20000u);
    EXPECT_LT(o.leases, 4800u / 4);  // without the pool: at least one per session
}

TEST(BackfillPool, EachMutationFindsARepeat) {
    struct Case {
        const char *name;
        Parking parking;
        bool starts;
    } cases[] = {
        {"parking without the floor", Parking::without_floor, true},
        {"parking without the table", Parking::without_table, true},
        {"adopting without the starts", Parking::exact, false},
    };
    for (const Case &c : cases) {
        Server server(16, 16383);
        server.parking = c.parking;
        server.adopt_starts = c.starts;
        const Outcome o = run_sessions(&server, 8, 600, 12, 8, 10, 1);
        std::printf("mutation, %s: %zu repeats in %zu ids\n", c.name, o.repeats, o.ids);
        EXPECT_GT(o.repeats, 0u) << c.name;
    }
}

TEST(BackfillPool, HundredThousandShortSessionsFitOneNamespace) {
    // A sequencer of 8192 nodes with one reserved (512 ids per millisecond, one namespace for
    // good) and a given UUID node (10 per microsecond, 16,383 namespaces): 100,000 sessions of
    // 1..9 rows each at random times over a year (a third of a session's rows repeat the time
    // before), one after another.
    for (const uint64_t per_namespace : {uint64_t{512}, uint64_t{10}}) {
        Server server(8, per_namespace == 512 ? 1 : 16383);
        const Outcome o = run_sessions(&server, 1, 100000, 9, 1024, per_namespace, 2, false);
        std::printf("100,000 sessions, %llu ids per namespace: %zu ids, %llu namespaces leased\n",
                    static_cast<unsigned long long>(per_namespace), o.ids,
                    static_cast<unsigned long long>(o.leases));
        EXPECT_EQ(o.failures, 0u);
        EXPECT_EQ(o.repeats, 0u);
    }
}
