// The property that lets retrospective version-1 UUIDs survive every move of a database: two
// servers that share a space's durable counters (one took them over from the other by a dump,
// an upgrade, a replica) never make the same UUID, however they differ in what a move does not
// carry (live clock sequence, live node). Thousands of random histories drive the real mapping
// (uuid_v1_backfill.hpp) and the real counter rules (lease_spaces.hpp): fresh namespaces,
// recycled ones starting at the bound, the bound raised before an offset passes it, live UUIDs
// of both servers at the same microseconds. The mapping of 0.6.0 and before, which skipped each
// server's live clock sequence, is written out here as the mutation: it must repeat, and so must
// the fixed mapping when it continues old counters without from_skipping_mapping.
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <string>

#include "core/backfill/lease_spaces.hpp"
#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/generators/uuid_v1_clock.hpp"
#include "core/layouts/uuid_v1.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::backfill;
namespace bf = idgen::uuid_v1::backfill;

namespace {

enum class Mapping { fixed, skipping_live };

constexpr int64_t kT0 = 1700000000000000;  // the backfilled microseconds: kT0 .. kT0 + 2
constexpr uint64_t kGivenNode = 0x0a0000000007;
constexpr int32_t kNodeId = 5;

// The mapping of 0.6.0 and before: clock sequence `index` counted past the live one.
int32_t skipping(uint64_t index, int32_t live_cs) {
    return static_cast<int32_t>(index) < live_cs ? static_cast<int32_t>(index)
                                                 : static_cast<int32_t>(index) + 1;
}

Uuid make(Mapping m, bool given, int64_t us, uint64_t ns, uint64_t offset, int32_t live_cs) {
    Uuid u{};
    if (m == Mapping::fixed) {
        const Status s = given ? bf::make_given(us, kGivenNode, ns, offset, &u)
                               : bf::make_auto(us, kNodeId, ns, offset, &u);
        EXPECT_TRUE(s.ok());
        return u;
    }
    uint64_t ticks = 0;
    EXPECT_TRUE(uuid_v1::ticks_from_unix_micros(us, &ticks).ok());
    const uint64_t auto_node = bf::kNodePrefix << 40 | uint64_t{kNodeId} << bf::kLeaseBits | ns;
    const uuid_v1::Fields f = given ? uuid_v1::Fields{ticks + offset, skipping(ns, live_cs), kGivenNode}
                                    : uuid_v1::Fields{ticks + offset / bf::kClockSeqs,
                                                      skipping(offset % bf::kClockSeqs, live_cs), auto_node};
    EXPECT_TRUE(uuid_v1::encode(f, &u).ok());
    return u;
}

// One server: what it does not carry (live clock sequence and node, its mapping, its recyclable
// range) and what it does (the two spaces' states).
struct Server {
    Mapping mapping;
    int32_t live_cs;
    uint64_t live_node;
    uint32_t step;  // how far this server's sessions move a bound at a time
    LeaseState given, automatic;
    uint64_t recycle_given = 0, end_given = 0, recycle_auto = 0, end_auto = 0;

    // As the server does at start: everything leased so far may be recycled once a bound is known.
    void start() {
        recycle_given = 0;
        end_given = recyclable(given) ? given.next : 0;
        recycle_auto = 0;
        end_auto = recyclable(automatic) ? automatic.next : 0;
    }
};

struct History {
    std::set<std::string> seen;
    int repeats = 0;
    void add(const Uuid &u) { repeats += !seen.insert(test::uuid_text(u)).second; }
};

// One session of `s` in one space: a recycled namespace (offsets from the bound) or a fresh one,
// then up to `ids` ids at random microseconds, the bound raised before each offset passes it.
void session(Server &s, bool given, int ids, std::mt19937_64 &rng, History &h) {
    LeaseState &st = given ? s.given : s.automatic;
    uint64_t &recycle = given ? s.recycle_given : s.recycle_auto;
    const uint64_t end = given ? s.end_given : s.end_auto;
    const uint64_t per = given ? bf::kGivenPerNamespace : bf::kAutoPerNamespace;
    const uint64_t limit = given ? bf::kGivenNamespaces : bf::kAutoNamespaces;
    uint64_t ns = 0, start = 0;
    if (recycle < end && rng() % 2 == 0) {
        ns = recycle++;
        start = st.bound;
    } else {
        if (st.next >= limit) return;
        ns = st.next++;
    }
    uint64_t count[3] = {start, start, start};
    for (int i = 0; i < ids; i++) {
        const int k = static_cast<int>(rng() % 3);
        const uint64_t offset = count[k]++;
        if (offset >= per) return;
        if (bound_needed(st, offset)) raise_bound(&st, offset, s.step);
        h.add(make(s.mapping, given, kT0 + k, ns, offset, s.live_cs));
    }
}

// Live uuid_v1() UUIDs of `s` at every tick of the backfilled microseconds.
void live_ids(const Server &s, History &h) {
    uint64_t ticks = 0;
    ASSERT_TRUE(uuid_v1::ticks_from_unix_micros(kT0, &ticks).ok());
    for (uint64_t t = ticks; t < ticks + 30; t++) {
        Uuid u;
        ASSERT_TRUE(uuid_v1::encode(uuid_v1::Fields{t, s.live_cs, s.live_node}, &u).ok());
        h.add(u);
    }
}

void work(Server &s, std::mt19937_64 &rng, History &h) {
    s.start();
    live_ids(s, h);
    const int sessions = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < sessions; i++) session(s, rng() % 2 == 0, 1 + static_cast<int>(rng() % 40), rng, h);
}

// A server that differs from every other in what a move leaves behind. Live clock sequences
// are drawn near the namespaces in use, where the skipping mapping's repeats lie.
Server fresh_server(Mapping m, std::mt19937_64 &rng) {
    Server s{};
    s.mapping = m;
    s.live_cs = static_cast<int32_t>(rng() % 64);
    s.step = rng() % 2 == 0 ? 1 : 16;
    uint8_t random[8];
    for (uint8_t &b : random) b = static_cast<uint8_t>(rng());
    s.live_node = bf::live_random_node(uuid_v1::random_identity(random).node);
    return s;
}

// The old server's counters as kinds 1 and 2 of its lease file or rows, taken over.
void take_over_old_counters(Server *to, const Server &from) {
    LeaseSpace given{LeaseKind::uuid_given_skipping_live, 0, kGivenNode};
    LeaseSpace automatic{LeaseKind::uuid_auto_skipping_live, 0, 0};
    to->given = from.given;
    to->automatic = from.automatic;
    from_skipping_mapping(&given, &to->given);
    from_skipping_mapping(&automatic, &to->automatic);
    EXPECT_EQ(given.kind, LeaseKind::uuid_given);
    EXPECT_EQ(automatic.kind, LeaseKind::uuid_auto);
}

enum class Carry { counters, converted_counters };

// Repeats over `histories` random histories of servers[0] → servers[1] → servers[2], each
// taking the counters of the one before.
int repeats(Mapping first, Mapping later, Carry carry, int histories) {
    std::mt19937_64 rng(20261126);
    int total = 0;
    for (int n = 0; n < histories; n++) {
        History h;
        Server a = fresh_server(first, rng);
        work(a, rng, h);
        Server b = fresh_server(later, rng);
        if (carry == Carry::converted_counters) {
            take_over_old_counters(&b, a);
        } else {
            b.given = a.given;
            b.automatic = a.automatic;
        }
        work(b, rng, h);
        Server c = fresh_server(later, rng);
        c.given = b.given;
        c.automatic = b.automatic;
        work(c, rng, h);
        total += h.repeats;
    }
    return total;
}

TEST(RetrospectiveMoves, TheFixedMappingNeverRepeatsAcrossServers) {
    EXPECT_EQ(repeats(Mapping::fixed, Mapping::fixed, Carry::counters, 3000), 0);
}

TEST(RetrospectiveMoves, OldCountersTakenOverNeverRepeat) {
    EXPECT_EQ(repeats(Mapping::skipping_live, Mapping::fixed, Carry::converted_counters, 3000), 0);
}

// Mutations: each rule above is needed.
TEST(RetrospectiveMoves, TheSkippingMappingRepeats) {
    EXPECT_GT(repeats(Mapping::skipping_live, Mapping::skipping_live, Carry::counters, 3000), 0);
}

TEST(RetrospectiveMoves, OldCountersTakenOverUnchangedRepeat) {
    EXPECT_GT(repeats(Mapping::skipping_live, Mapping::fixed, Carry::counters, 3000), 0);
}

}  // namespace
