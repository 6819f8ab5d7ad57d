// The registry lease state machine (registry_lease.hpp) and the handover of a node id above the
// stored horizon (registry_horizon.hpp), on fake clocks: the server's monotonic clock, its wall
// clock, and the registry's clock, each moved by hand; and the namespace batches
// (registry_batch.hpp). A small model of the registry (a key that
// expires with its lease, a horizon per node id written only by the key's holder) lets two
// servers hand one node id over while one of them is frozen and the other's clock is behind.
#include <gtest/gtest.h>
#include <set>
#include <vector>

#include "core/clocks/logical_clock.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/registry/registry_batch.hpp"
#include "core/registry/registry_horizon.hpp"
#include "core/registry/registry_lease.hpp"

using namespace idgen;
using namespace idgen::registry;

namespace {

constexpr int64_t kMs = 1000000;  // ns
constexpr int64_t kSec = 1000 * kMs;

TEST(RegistryLease, DeadlineIsTheTtlFromTheSendTimeLessDriftAndMargin) {
    // 3 s ttl: less 2 * 0.1% (6 ms) and the 1 s margin.
    EXPECT_EQ(lease_deadline_ns(10 * kSec, 3000, 1 * kSec), 10 * kSec + 3 * kSec - 6 * kMs - 1 * kSec);
    EXPECT_EQ(lease_deadline_ns(0, 0, 0), 0);
    EXPECT_EQ(lease_deadline_ns(5 * kSec, 1000, 1 * kSec), 0) << "a margin as long as the ttl leaves nothing";
}

TEST(RegistryLease, ClaimRenewDeadlineDetachReattach) {
    Lease lease(1 * kSec);
    EXPECT_FALSE(lease.held(0)) << "no lease before the first grant";
    EXPECT_EQ(lease.renew_at_ns(), 0);

    lease.answered(1 * kSec, 3000);  // granted: request sent at 1 s
    EXPECT_TRUE(lease.held(1 * kSec));
    EXPECT_TRUE(lease.held(lease.deadline_ns() - 1));
    EXPECT_FALSE(lease.held(lease.deadline_ns())) << "the deadline itself is past";
    EXPECT_EQ(lease.renew_at_ns(), 2 * kSec) << "keep-alive a third of the ttl after the send";

    lease.answered(2 * kSec, 3000);  // renewed
    EXPECT_EQ(lease.deadline_ns(), lease_deadline_ns(2 * kSec, 3000, 1 * kSec));
    EXPECT_EQ(lease.renew_at_ns(), 3 * kSec);

    // The registry is unreachable: no answers. The deadline passes: detached.
    EXPECT_FALSE(lease.held(4 * kSec + 1));
    // The registry answers a keep-alive again, and still has the lease: it never expired there
    // (ttl > 0 means it was alive after the send), so the node ids are still ours.
    lease.answered(4 * kSec, 3000);
    EXPECT_TRUE(lease.held(4 * kSec + 1));
    // The registry says the lease is gone: detached until a new lease is granted.
    lease.answered(5 * kSec, 0);
    EXPECT_FALSE(lease.held(5 * kSec));
    EXPECT_EQ(lease.renew_at_ns(), 0);
    lease.answered(6 * kSec, 3000);  // a new grant: attached again (the worker claims anew)
    EXPECT_TRUE(lease.held(6 * kSec));
}

TEST(RegistryLease, AnEarlierAnswerArrivingLateNeverMovesTheDeadlineBack) {
    Lease lease(500 * kMs);
    lease.answered(10 * kSec, 3000);
    const int64_t deadline = lease.deadline_ns();
    lease.answered(9 * kSec, 3000);
    EXPECT_EQ(lease.deadline_ns(), deadline);
    EXPECT_EQ(lease.renew_at_ns(), 11 * kSec);
}

TEST(RegistryLease, AProcessFrozenPastItsDeadlineWakesUpDetached) {
    Lease lease(1 * kSec);
    lease.answered(0, 3000);
    ASSERT_TRUE(lease.held(1 * kSec));
    // Frozen at 1 s (SIGSTOP) until 30 s: whatever it computed before, the check reads the clock
    // now. A keep-alive it had sent at 1 s, answered late, does not revive it either.
    EXPECT_FALSE(lease.held(30 * kSec));
    lease.answered(1 * kSec, 3000);
    EXPECT_FALSE(lease.held(30 * kSec));
}

// ---- Two servers and one node id --------------------------------------------------------------

// The registry: one node id's key (its holder and when its lease expires on the registry's
// clock) and the horizon stored for it.
struct FakeRegistry {
    int64_t now_ns = 0;
    int holder = -1;
    int64_t expires_ns = 0;
    int64_t stored_horizon_us = 0;

    void expire() {
        if (holder >= 0 && now_ns >= expires_ns) holder = -1;
    }
    // A grant or keep-alive: ttl from now on the registry's clock; the answer's ttl.
    int64_t keep_alive(int server, int64_t ttl_ms) {
        expire();
        if (holder != server) return 0;
        expires_ns = now_ns + ttl_ms * kMs;
        return ttl_ms;
    }
    bool claim(int server, int64_t ttl_ms) {
        expire();
        if (holder >= 0) return false;
        holder = server;
        expires_ns = now_ns + ttl_ms * kMs;
        return true;
    }
    // The conditional horizon write: only the key's holder may move it.
    bool store_horizon(int server, int64_t unix_us) {
        expire();
        if (holder != server) return false;
        if (unix_us > stored_horizon_us) stored_horizon_us = unix_us;
        return true;
    }
};

constexpr int64_t kTtlMs = 3000;
constexpr int64_t kReserveUs =
    4 * kTtlMs * 1000;  // A's ids after the freeze are under it: only the deadline stops them
const snowflake::Layout kLayout{1577836800000, 10};  // 2020 epoch, 1,024 nodes, 4,096 ids per ms
constexpr int32_t kNode = 7;

// One server as the registry worker and the generators see it: its monotonic clock, its wall
// clock, the lease, the published horizon, the lead floor, and the sequencer's clock.
struct Server {
    int id;
    int64_t mono_ns;
    int64_t wall_us;
    bool take_over_horizon = true;  // mutation switch: false ignores the stored horizon
    Lease lease{1 * kSec};
    int64_t published_us = 0;
    int64_t lead_floor_us = 0;
    LogicalClock clock{0};

    int64_t generator_now_us() const { return wall_us > lead_floor_us ? wall_us : lead_floor_us; }

    bool claim(FakeRegistry *r) {
        const int64_t sent = mono_ns;
        if (!r->claim(id, kTtlMs)) return false;
        lease.answered(sent, kTtlMs);
        if (take_over_horizon) {  // start above the last holder, whatever our clock says
            raise_to(&clock, snowflake::position_after(kLayout, r->stored_horizon_us));
            if (r->stored_horizon_us > lead_floor_us) lead_floor_us = r->stored_horizon_us;
        }
        return advance(r, take_over_horizon ? r->stored_horizon_us : 0);
    }
    // A worker round: keep-alive, then move the horizon if it runs short.
    void round(FakeRegistry *r) {
        const int64_t sent = mono_ns;
        lease.answered(sent, r->keep_alive(id, kTtlMs));
        if (needs_advance(published_us, generator_now_us(), kReserveUs)) advance(r, published_us);
    }
    bool advance(FakeRegistry *r, int64_t at_least) {
        const int64_t target = advance_target(generator_now_us(), kReserveUs, at_least);
        if (!r->store_horizon(id, target)) return false;
        published_us = target;  // published only after the registry stored it
        return true;
    }
    // A generator call: an id, or none when detached or past the published horizon.
    bool draw(std::vector<int64_t> *ids) {
        Status error;
        const snowflake::Next n = snowflake::next(&clock, kLayout, kNode, generator_now_us(), 10000, &error);
        if (n.kind != snowflake::Next::Kind::issued) return false;
        if (!within_deadline(lease.deadline_ns(), mono_ns) || !issuable(n.end_unix_us, published_us))
            return false;
        ids->push_back(n.id);
        return true;
    }
    void pass(FakeRegistry *r, int64_t ns) {
        mono_ns += ns;
        wall_us += ns / 1000;
        r->now_ns += ns;
    }
};

struct Handover {
    std::vector<int64_t> a_ids, b_ids;
    int a_after_resume = 0;
};

// Server A holds the node id and issues for 2 s; it is frozen for 4 s, past its 3 s lease on the
// registry; B, whose wall clock is 5 s behind A's (so still in A's last second), claims the node
// id and issues for 2 s; A resumes and tries to issue before its worker has run again.
Handover hand_over(bool b_takes_over_horizon) {
    FakeRegistry registry;
    const int64_t wall = (kLayout.epoch_unix_ms + 86400000) * 1000;
    Server a{0, 0, wall};
    Server b{1, 0, wall - 5 * 1000000};
    b.take_over_horizon = b_takes_over_horizon;
    Handover h;
    EXPECT_TRUE(a.claim(&registry));
    for (int ms = 0; ms < 2000; ms++) {
        for (int i = 0; i < 50; i++) EXPECT_TRUE(a.draw(&h.a_ids));
        a.pass(&registry, kMs);
        b.mono_ns += kMs;
        b.wall_us += 1000;
        if (ms % 1000 == 999) a.round(&registry);
    }
    // A freezes: nothing of A runs; the registry's and B's clocks go on.
    for (int ms = 0; ms < 4000; ms++) {
        registry.now_ns += kMs;
        b.mono_ns += kMs;
        b.wall_us += 1000;
    }
    EXPECT_EQ(registry.holder, 0) << "the registry has not looked at the key yet";
    registry.expire();
    EXPECT_EQ(registry.holder, -1) << "A's lease expired on the registry's clock";
    EXPECT_TRUE(b.claim(&registry));
    for (int ms = 0; ms < 2000; ms++) {
        for (int i = 0; i < 50; i++) b.draw(&h.b_ids);
        b.pass(&registry, kMs);
        if (ms % 1000 == 999) b.round(&registry);
    }
    // A resumes: its monotonic clock moved on with the freeze; its worker has not run yet.
    a.mono_ns += 6 * kSec;
    a.wall_us += 6 * 1000000;
    for (int i = 0; i < 100; i++) h.a_after_resume += a.draw(&h.a_ids);
    // Its worker's next keep-alive finds the lease gone.
    a.round(&registry);
    EXPECT_FALSE(a.lease.held(a.mono_ns));
    return h;
}

TEST(RegistryHandover, TheNewHolderResumesAboveEveryIdOfTheOldOneWhateverItsClock) {
    const Handover h = hand_over(true);
    ASSERT_EQ(h.a_ids.size(), 100000u);
    ASSERT_GT(h.b_ids.size(), 50000u) << "B issues (it may wait for the lead at first)";
    EXPECT_EQ(h.a_after_resume, 0) << "a server frozen past its deadline issues nothing when it wakes";
    int64_t a_max = 0;
    for (int64_t id : h.a_ids) a_max = id > a_max ? id : a_max;
    for (int64_t id : h.b_ids) ASSERT_GT(id, a_max);
    std::set<int64_t> all(h.a_ids.begin(), h.a_ids.end());
    all.insert(h.b_ids.begin(), h.b_ids.end());
    EXPECT_EQ(all.size(), h.a_ids.size() + h.b_ids.size());
}

// The mutation check of the stored horizon: a new holder that starts from its own clock (5 s
// behind) issues ids the old holder already issued.
TEST(RegistryHandover, WithoutTheStoredHorizonTheNewHolderRepeatsIds) {
    const Handover h = hand_over(false);
    std::set<int64_t> all(h.a_ids.begin(), h.a_ids.end());
    size_t repeats = 0;
    for (int64_t id : h.b_ids) repeats += all.count(id);
    EXPECT_GT(repeats, 0u);
}

}  // namespace

// The registry's namespace batches (registry_batch.hpp).

TEST(RegistryBatch, ABatchStartsAtTheCounterAndStopsAtTheLimit) {
    using idgen::registry::take_batch;
    EXPECT_EQ(take_batch(0, 16, 1000).first, 0u);
    EXPECT_EQ(take_batch(0, 16, 1000).end, 16u);
    EXPECT_EQ(take_batch(990, 16, 1000).end, 1000u);                              // clipped at the limit
    EXPECT_EQ(take_batch(1000, 16, 1000).first, take_batch(1000, 16, 1000).end);  // none left
    EXPECT_EQ(take_batch(5000, 16, 1000).end, 1000u);
}
