// The registry's node-choice rule (node_choice.hpp) and the claim word (claim_word.hpp). The
// races go through a small model of the registry's keys whose create, like etcd's in cluster
// mode, also accepts a key that already holds the creator's identity: two servers claim, give
// back and claim again while an answer is lost after the registry applied it and a delete fails.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/registry/claim_word.hpp"
#include "core/registry/node_choice.hpp"

using namespace idgen::registry;

namespace {

const std::string kPool = "idgen/node/sequencer/orders/";

// The registry's keys of one pool.
struct FakeRegistry {
    std::map<std::string, std::string> keys;
    std::vector<KeyValue> range() const {
        std::vector<KeyValue> out;
        for (const auto &[k, v] : keys) out.push_back(KeyValue{k, v, 1});
        return out;
    }
    // True when the key is the creator's: created now, or already holding its identity.
    bool create(const std::string &key, const std::string &identity) {
        auto [it, inserted] = keys.emplace(key, identity);
        return inserted || it->second == identity;
    }
};

// A server of the model: the node id it holds (-1: none) and the keys it gave back whose delete failed.
struct Server {
    explicit Server(std::string id) : identity(std::move(id)) {}
    std::string identity;
    int32_t held = -1;
    std::vector<std::string> undeleted;

    // One claim round: the lowest node id the rule calls free whose create succeeds.
    void claim(FakeRegistry &reg, int32_t live) {
        const std::vector<bool> taken = taken_node_ids(reg.range(), identity, undeleted, live);
        for (int32_t n = 0; n < live; n++)
            if (!taken[static_cast<size_t>(n)] && reg.create(kPool + std::to_string(n), identity)) {
                held = n;
                return;
            }
    }
    // Gives the node id back; the delete may fail, and is then tried again each round.
    void give_back(FakeRegistry &reg, bool delete_fails) {
        const std::string key = kPool + std::to_string(held);
        held = -1;
        if (delete_fails) undeleted.push_back(key);
        else reg.keys.erase(key);
    }
    void retry_deletes(FakeRegistry &reg) {
        for (const std::string &key : undeleted)
            if (reg.keys.count(key) && reg.keys[key] == identity) reg.keys.erase(key);
        undeleted.clear();
    }
};

TEST(NodeChoice, OtherServersKeysTakeTheirNodeIdsWithinTheLiveRange) {
    const std::vector<KeyValue> keys = {{kPool + "0", "b", 1}, {kPool + "2", "c", 1}, {kPool + "9", "d", 1}};
    EXPECT_EQ(taken_node_ids(keys, "a", {}, 4), (std::vector<bool>{true, false, true, false}));
    EXPECT_EQ(taken_node_ids(keys, "a", {}, 0), std::vector<bool>{});
    EXPECT_EQ(taken_node_ids({{kPool + "x", "b", 1}}, "a", {}, 2), (std::vector<bool>{true, false}))
        << "a key whose node id cannot be read is taken, not guessed free";
}

TEST(NodeChoice, AClaimWhoseAnswerWasLostIsClaimedAgainNotLeaked) {
    FakeRegistry reg;
    Server a("a"), b("b");
    ASSERT_TRUE(reg.create(kPool + "0", "a"));  // a's claim of 0: applied, its answer lost
    EXPECT_EQ(a.held, -1);
    b.claim(reg, 2);
    EXPECT_EQ(b.held, 1) << "0 is a's in the registry";
    a.claim(reg, 2);
    EXPECT_EQ(a.held, 0) << "a finds its own key and holds it: the node id is not left taken by nobody";
}

TEST(NodeChoice, ANodeIdGivenBackWhoseDeleteFailedIsNotClaimedAgain) {
    FakeRegistry reg;
    Server a("a"), b("b");
    a.claim(reg, 2);
    ASSERT_EQ(a.held, 0);
    a.give_back(reg, /*delete_fails=*/true);
    a.claim(reg, 2);
    EXPECT_EQ(a.held, 1) << "a's key for 0 is on its way out";
    a.retry_deletes(reg);
    b.claim(reg, 2);
    EXPECT_EQ(b.held, 0);
    EXPECT_NE(a.held, b.held) << "never one node id held by two servers";
}

TEST(ClaimWord, EveryChangeMovesTheCountEvenBackToTheSameNodeId) {
    ClaimWord w{0};
    EXPECT_EQ(w.state(), ClaimState::pending);
    const ClaimWord attached = ClaimWord::next(w, ClaimState::attached, 7);
    EXPECT_EQ(attached.state(), ClaimState::attached);
    EXPECT_EQ(attached.node(), 7);
    const ClaimWord detached = ClaimWord::next(attached, ClaimState::detached, -1);
    EXPECT_EQ(detached.state(), ClaimState::detached);
    EXPECT_EQ(detached.node(), -1);
    const ClaimWord again = ClaimWord::next(detached, ClaimState::attached, 7);
    EXPECT_EQ(again.state(), ClaimState::attached);
    EXPECT_EQ(again.node(), 7);
    EXPECT_NE(again.raw, attached.raw) << "a generator that read the first word sees that it changed";
}

}  // namespace
