// The registry's node-choice rule (node_choice.hpp) on the keys a range read returns, and the
// claim word (claim_word.hpp). The races these rules are for run through the holder in
// node_holder_test.cpp.
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "core/registry/claim_word.hpp"
#include "core/registry/node_choice.hpp"

using namespace idgen::registry;

namespace {

const std::string kPool = "/c/node/sequencer/orders/";

TEST(NodeChoice, OtherServersKeysTakeTheirNodeIdsWithinTheLiveRange) {
    const std::vector<KeyValue> keys = {{kPool + "0", "b", 1}, {kPool + "2", "c", 1}, {kPool + "9", "d", 1}};
    EXPECT_EQ(taken_node_ids(keys, "a", {}, 4), (std::vector<bool>{true, false, true, false}));
    EXPECT_EQ(taken_node_ids(keys, "a", {}, 0), std::vector<bool>{});
    EXPECT_EQ(taken_node_ids({{kPool + "x", "b", 1}}, "a", {}, 2), (std::vector<bool>{true, false}))
        << "a key whose node id cannot be read is taken, not guessed free";
}

TEST(NodeChoice, OurOwnKeyIsFreeToUsUnlessWeGaveItBack) {
    const std::vector<KeyValue> keys = {{kPool + "0", "a", 1}, {kPool + "1", "a", 1}};
    EXPECT_EQ(taken_node_ids(keys, "a", {}, 2), (std::vector<bool>{false, false}))
        << "claims whose answers were lost";
    EXPECT_EQ(taken_node_ids(keys, "a", {kPool + "1"}, 2), (std::vector<bool>{false, true}))
        << "a key given back whose delete failed";
    EXPECT_EQ(taken_node_ids(keys, "b", {}, 2), (std::vector<bool>{true, true}));
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
