// The rules by which a server holds node ids in the registry (node_holder.hpp), driven through a
// model of the registry (fake_registry.hpp) and of each server's generators (a wall clock set by
// hand, the floor a take-over raises them to, the ids they issue under the published horizon).
// The races: a node id handed over to a server whose clock is behind, two holders after a revoke,
// an answer lost after the registry applied a claim, a give-back whose delete failed, a give-back
// after a failed read of the last holder's horizon. Each test checks the promise itself: no id
// time a server issued under a node id is reached again by the next holder's generators, and
// no node id is held by two servers at once.
#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

#include "core/registry/node_holder.hpp"

#include "fake_registry.hpp"

using namespace idgen::registry;
using idgen::registry::fakes::FakeRegistry;

namespace {

constexpr int64_t kSec = 1000000;  // us

// One server: its generators, the words it publishes, its registration and its holder.
class FakeServer : public ServerSide {
public:
    FakeServer(FakeRegistry &reg, const std::string &name, int64_t lease, int64_t wall_us, int pools = 2)
        : registration{"/c/", name, lease}, wall(wall_us), holder(reg, *this, registration, pools) {}

    Registration registration;
    int64_t wall;         // the wall clock
    int64_t floor = 0;    // raised above a horizon by take_over (with no lead in this model)
    int64_t issued = 0;   // the end of the last id issued
    int64_t horizon = 0;  // published registry horizon
    std::map<int, ClaimWord> words;
    std::vector<std::string> errors;
    NodeHolder holder;

    bool attached(int pool) const {
        auto it = words.find(pool);
        return it != words.end() && it->second.state() == ClaimState::attached;
    }
    // The generator of pool's node id issues one id now, if the rules allow: attached, and the id
    // within the published horizon. Returns its time, or -1.
    int64_t issue(int pool) {
        const int64_t t = std::max(generator_now_us(), issued + 1);
        if (!attached(pool) || t > horizon) return -1;
        issued = t;
        return t;
    }
    // n ids of the pool; the time of the last one issued (-1: none).
    int64_t issue_n(int pool, int n) {
        int64_t last = -1;
        for (int i = 0; i < n; i++) last = std::max(last, issue(pool));
        return last;
    }

    std::string pool_name(int pool) override {
        return pool < 0 ? "server" : "sequencer/s" + std::to_string(pool);
    }
    void publish(int pool, ClaimState state, int32_t node) override {
        words[pool] = ClaimWord::next(words.count(pool) ? words[pool] : ClaimWord{0}, state, node);
    }
    void take_over(int64_t horizon_us) override { floor = std::max(floor, horizon_us + 1); }
    int64_t generator_now_us() override { return std::max(wall, floor); }
    int64_t reserve_us() override { return 10 * kSec; }
    int64_t issued_bound_us() override { return std::max(issued, generator_now_us()); }
    int64_t published_horizon_us() override { return horizon; }
    void publish_horizon(int64_t us) override { horizon = std::max(horizon, us); }
    void note_error(const std::string &what) override { errors.push_back(what); }
};

const std::string kServerNode0 = "/c/node/server/0";
const std::string kServerHorizon0 = "/c/horizon/server/0";

TEST(NodeHolder, ANodeIdHandedToAServerWhoseClockIsBehindStartsAboveTheIdsIssuedUnderIt) {
    FakeRegistry reg;
    FakeServer a(reg, "a", 1, 1000 * kSec);
    ASSERT_TRUE(a.holder.claim_node(-1, 4));
    ASSERT_EQ(a.holder.server.node, 0);
    const int64_t last = a.issue_n(-1, 100);
    ASSERT_GT(last, 0);
    int deletes = 0;
    reg.on_remove = [&] {
        deletes++;
        EXPECT_FALSE(a.attached(-1)) << "withdrawn from the generators before its key goes";
    };
    a.holder.release(-1, ClaimState::detached);
    EXPECT_EQ(deletes, 1);
    EXPECT_EQ(a.issue(-1), -1);
    EXPECT_FALSE(reg.keys.count(kServerNode0));

    FakeServer b(reg, "b", 2, 990 * kSec);  // 10 s behind
    ASSERT_TRUE(b.holder.claim_node(-1, 4));
    ASSERT_EQ(b.holder.server.node, 0);
    EXPECT_GT(b.issue(-1), last) << "b's first id under node id 0 is after a's last";
}

TEST(NodeHolder, AfterARevokeTheOldHolderStopsAtItsNextAdvanceAndTheNewOneStartsAboveIt) {
    FakeRegistry reg;
    FakeServer a(reg, "a", 1, 1000 * kSec);
    ASSERT_TRUE(a.holder.claim_node(-1, 4));
    int64_t a_last = a.issue_n(-1, 10);
    reg.revoke(1);  // by hand, or expired while a was frozen: a does not know yet

    FakeServer b(reg, "b", 2, 995 * kSec);
    ASSERT_TRUE(b.holder.claim_node(-1, 4));
    ASSERT_EQ(b.holder.server.node, 0) << "node id 0 is free in the registry: two holders for now";
    // a issues on until its published horizon at most; b starts above what a stored, which is that horizon.
    a.wall = 1001 * kSec;
    a_last = std::max(a_last, a.issue_n(-1, 10));
    EXPECT_GT(b.issue(-1), a_last);
    EXPECT_GE(b.floor, a.horizon);

    a.wall = a.horizon;  // time to move the horizon: a finds its key gone
    EXPECT_TRUE(a.holder.advance(a.horizon));
    EXPECT_FALSE(a.holder.server.held);
    EXPECT_FALSE(a.attached(-1)) << "the old holder withdraws its node id";
    EXPECT_EQ(a.issue(-1), -1);
    EXPECT_EQ(reg.value_of(kServerNode0), "b");
}

TEST(NodeHolder, AClaimWhoseAnswerWasLostAfterTheRegistryAppliedItIsClaimedAgain) {
    FakeRegistry reg;
    FakeServer a(reg, "a", 1, 1000 * kSec), b(reg, "b", 2, 1000 * kSec);
    reg.lose_answer_after(1);  // the range read answers; the create is applied, its answer lost
    EXPECT_FALSE(a.holder.claim_node(-1, 4));
    EXPECT_FALSE(a.holder.server.held);
    EXPECT_FALSE(a.attached(-1));
    EXPECT_EQ(reg.value_of(kServerNode0), "a");
    ASSERT_TRUE(b.holder.claim_node(-1, 4));
    EXPECT_EQ(b.holder.server.node, 1);
    ASSERT_TRUE(a.holder.claim_node(-1, 4));
    EXPECT_EQ(a.holder.server.node, 0) << "a recognises its own key: node id 0 is not left taken by nobody";
}

TEST(NodeHolder, ANodeIdGivenBackWhoseDeleteFailedIsNotClaimedAgainUntilDeleted) {
    FakeRegistry reg;
    FakeServer a(reg, "a", 1, 1000 * kSec), b(reg, "b", 2, 1000 * kSec);
    const std::string key = "/c/node/sequencer/s0/0";
    ASSERT_TRUE(a.holder.claim_node(0, 4));
    ASSERT_EQ(a.holder.claims[0].node, 0);
    a.issue(0);
    reg.fail_after(1);  // the last horizon is stored; the delete fails
    a.holder.release(0, ClaimState::detached);
    EXPECT_FALSE(a.attached(0));
    ASSERT_EQ(reg.value_of(key), "a");
    ASSERT_EQ(a.holder.undeleted, std::vector<std::string>{key});

    ASSERT_TRUE(a.holder.claim_node(0, 4));
    EXPECT_EQ(a.holder.claims[0].node, 1) << "the key on its way out is not a's to hold again";
    a.holder.retry_deletes();
    EXPECT_TRUE(a.holder.undeleted.empty());
    EXPECT_FALSE(reg.keys.count(key));
    ASSERT_TRUE(b.holder.claim_node(0, 4));
    EXPECT_EQ(b.holder.claims[0].node, 0);
    EXPECT_NE(a.holder.claims[0].node, b.holder.claims[0].node) << "never one node id held by two servers";
}

TEST(NodeHolder, AServerWithANodeIdOfItsOwnHoldsItAndTheOthersChooseAround) {
    FakeRegistry reg;
    FakeServer given(reg, "given", 1, 1000 * kSec), chooser(reg, "chooser", 2, 1000 * kSec);
    ASSERT_TRUE(given.holder.claim_node(-1, 4, 0));
    EXPECT_EQ(given.holder.server.node, 0);
    ASSERT_TRUE(chooser.holder.claim_node(-1, 4));
    EXPECT_EQ(chooser.holder.server.node, 1) << "the lowest free node id skips one a server holds as its own";
}

TEST(NodeHolder, ANodeIdOfItsOwnHeldByAnotherIsWaitedForThenTakenOverAboveItsIds) {
    FakeRegistry reg;
    FakeServer chooser(reg, "chooser", 1, 1000 * kSec), given(reg, "given", 2, 995 * kSec);  // 5 s behind
    ASSERT_TRUE(chooser.holder.claim_node(-1, 4));
    ASSERT_EQ(chooser.holder.server.node, 0);
    const int64_t last = chooser.issue_n(-1, 50);
    EXPECT_FALSE(given.holder.claim_node(-1, 4, 0))
        << "held by another: nothing claimed, no other node id either";
    EXPECT_FALSE(given.holder.server.held);
    EXPECT_FALSE(given.attached(-1));
    EXPECT_EQ(given.issue(-1), -1);
    ASSERT_FALSE(given.errors.empty());
    EXPECT_NE(given.errors.back().find("held by another server"), std::string::npos) << given.errors.back();
    chooser.holder.release(-1, ClaimState::detached);
    ASSERT_TRUE(given.holder.claim_node(-1, 4, 0));
    EXPECT_EQ(given.holder.server.node, 0);
    EXPECT_GT(given.issue(-1), last) << "its first id is after the last holder's last";
}

TEST(NodeHolder, ANodeIdOfItsOwnBeyondAPoolsNodeIdsIsNotClaimed) {
    FakeRegistry reg;
    FakeServer given(reg, "given", 1, 1000 * kSec);
    EXPECT_FALSE(given.holder.claim_node(0, 4, 4));
    EXPECT_FALSE(given.holder.claims[0].held);
    ASSERT_FALSE(given.errors.empty());
    EXPECT_NE(given.errors.back().find("is not among the 4 node ids"), std::string::npos)
        << given.errors.back();
}

TEST(NodeHolder, AGiveBackAfterAFailedReadOfTheLastHorizonLeavesThatHorizonAsItWas) {
    FakeRegistry reg;
    FakeServer a(reg, "a", 1, 1000 * kSec);
    ASSERT_TRUE(a.holder.claim_node(-1, 4));
    const int64_t a_last = a.issue_n(-1, 10);
    reg.revoke(1);  // a's key goes; the horizon it stored stays
    const std::string stored = reg.value_of(kServerHorizon0);
    ASSERT_FALSE(stored.empty());

    FakeServer b(reg, "b", 2, 900 * kSec);  // far behind
    reg.fail_after(2);  // the range read and the create answer; the read of the horizon fails
    EXPECT_FALSE(b.holder.claim_node(-1, 4));
    EXPECT_FALSE(b.holder.server.held);
    EXPECT_FALSE(b.attached(-1));
    EXPECT_EQ(reg.value_of(kServerHorizon0), stored) << "b never published node id 0: the horizon stays a's";
    EXPECT_FALSE(reg.keys.count(kServerNode0)) << "b's key is deleted";

    FakeServer c(reg, "c", 3, 900 * kSec);
    ASSERT_TRUE(c.holder.claim_node(-1, 4));
    ASSERT_EQ(c.holder.server.node, 0);
    EXPECT_GT(c.issue(-1), a_last);
}

TEST(NodeHolder, AHorizonTheRegistryDidNotStoreIsNotPublished) {
    FakeRegistry reg;
    FakeServer a(reg, "a", 1, 1000 * kSec);
    ASSERT_TRUE(a.holder.claim_node(-1, 4));
    const int64_t published = a.horizon;
    a.wall = published + 1;
    reg.fail_after(0);
    EXPECT_FALSE(a.holder.advance(published));
    EXPECT_EQ(a.horizon, published) << "ids stay within what the registry holds";
    EXPECT_EQ(a.issue_n(-1, 1), -1) << "the clock is past the horizon: no id until it moves";
    EXPECT_EQ(a.errors, std::vector<std::string>{"storing the registry horizon"});
    ASSERT_TRUE(a.holder.advance(published));
    EXPECT_GT(a.horizon, published);
    EXPECT_EQ(reg.value_of(kServerHorizon0), std::to_string(a.horizon));
}

TEST(NodeHolder, ANodeIdWhoseStoredHorizonCannotBeReadIsNotClaimed) {
    FakeRegistry reg;
    reg.keys[kServerHorizon0] = FakeRegistry::Entry{"12abc", 0};
    FakeServer a(reg, "a", 1, 1000 * kSec);
    ASSERT_TRUE(a.holder.claim_node(-1, 4));
    EXPECT_EQ(a.holder.server.node, 1) << "never a guess below a horizon we cannot read";
    EXPECT_FALSE(reg.keys.count(kServerNode0));
    ASSERT_EQ(a.errors.size(), 1u);
    EXPECT_NE(a.errors[0].find("unreadable horizon"), std::string::npos);
}

TEST(NodeHolder, OneAdvanceIsOneRequestPer128NodeIds) {
    FakeRegistry reg;
    FakeServer a(reg, "a", 1, 1000 * kSec, 200);
    for (int i = -1; i < 200; i++) ASSERT_TRUE(a.holder.claim_node(i, 4));
    a.wall = a.horizon;
    const int before = reg.requests;
    ASSERT_TRUE(a.holder.advance(a.horizon));
    EXPECT_EQ(reg.requests - before, 2) << "201 node ids: 128 and 73";
    for (int i = -1; i < 200; i++)
        EXPECT_EQ(reg.value_of("/c/horizon/" + a.pool_name(i) + "/0"), std::to_string(a.horizon));
}

}  // namespace
