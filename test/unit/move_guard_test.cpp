// The guard of a subscription (move_guard.hpp): what waits while the publisher's state has not
// been taken over.
#include <gtest/gtest.h>

#include "core/backfill/move_guard.hpp"

using namespace idgen::backfill;

namespace {

const LeaseKind kAll[] = {LeaseKind::uuid_auto, LeaseKind::uuid_given, LeaseKind::snowflake,
                          LeaseKind::uuid_v7};

TEST(MoveGuard, AwaitingBlocksEverySpaceWhenThePublishersNodeIsUnknownOrTheSame) {
    for (LeaseKind k : kAll) {
        EXPECT_TRUE(guard_blocks(Guard{GuardState::awaiting, -1}, k, 1));
        EXPECT_TRUE(guard_blocks(Guard{GuardState::awaiting, 1}, k, 1));
        EXPECT_TRUE(guard_blocks(Guard{GuardState::awaiting, 2}, k, -1));  // no own node id
    }
}

TEST(MoveGuard, ADistinctPublisherNodeFreesOnlyTheSpacesThatCarryTheNodeId) {
    const Guard g{GuardState::awaiting, 2};
    EXPECT_FALSE(guard_blocks(g, LeaseKind::uuid_auto, 1));
    EXPECT_FALSE(guard_blocks(g, LeaseKind::uuid_v7, 1));
    EXPECT_TRUE(guard_blocks(g, LeaseKind::uuid_given, 1));
    EXPECT_TRUE(guard_blocks(g, LeaseKind::snowflake, 1));
}

TEST(MoveGuard, CarriedOrForgottenBlocksNothing) {
    for (LeaseKind k : kAll) {
        EXPECT_FALSE(guard_blocks(Guard{GuardState::carried, -1}, k, 1));
        EXPECT_FALSE(guard_blocks(Guard{GuardState::forgotten, -1}, k, 1));
    }
}

TEST(MoveGuard, APublisherWithoutIdgenBlocksNothingButItsDropStillLooks) {
    const Guard g{GuardState::publisher_without_idgen, -1};
    for (LeaseKind k : kAll) EXPECT_FALSE(guard_blocks(g, k, 1));
    EXPECT_TRUE(drop_takes_over(g, true));
}

TEST(MoveGuard, ACarriedStateCoversASubscriptionOnlyWhileItIsDisabled) {
    const Guard carried{GuardState::carried, 2};
    EXPECT_EQ(current_guard(carried, false).state, GuardState::carried);
    const Guard enabled = current_guard(carried, true);
    EXPECT_EQ(enabled.state, GuardState::awaiting);
    EXPECT_EQ(enabled.publisher_node, 2);
    EXPECT_TRUE(guard_blocks(enabled, LeaseKind::snowflake, 1));
    EXPECT_EQ(current_guard(Guard{GuardState::forgotten, -1}, true).state, GuardState::forgotten);
}

TEST(MoveGuard, ADropTakesOverOnlyWhatASubscriptionBroughtAndNothingSettled) {
    EXPECT_TRUE(drop_takes_over(Guard{GuardState::awaiting, 1}, true));
    EXPECT_FALSE(drop_takes_over(Guard{GuardState::awaiting, 1}, false));  // never brought a row
    EXPECT_FALSE(drop_takes_over(Guard{GuardState::carried, 1}, true));
    EXPECT_FALSE(drop_takes_over(Guard{GuardState::forgotten, -1}, true));
}

TEST(MoveGuard, APublisherWithThisServersNodeIdIsTheSameNode) {
    EXPECT_TRUE(same_node(1, 1));
    EXPECT_TRUE(same_node(0, 0));
    EXPECT_FALSE(same_node(2, 1));
    EXPECT_FALSE(same_node(-1, 1));   // no idgen there, or no node id
    EXPECT_FALSE(same_node(-1, -1));  // neither has a node id: the generators that need one refuse
    EXPECT_FALSE(same_node(1, -1));
}

TEST(MoveGuard, OnlySnowflakeSpacesBelongToOneDatabase) {
    EXPECT_TRUE(server_wide(LeaseKind::uuid_auto));
    EXPECT_TRUE(server_wide(LeaseKind::uuid_given));
    EXPECT_TRUE(server_wide(LeaseKind::uuid_v7));
    EXPECT_FALSE(server_wide(LeaseKind::snowflake));
}

}  // namespace

// The text every database reads reads back as the same guard; nothing else parses.
TEST(MoveGuard, AGuardsTextReadsBackAndNothingElseDoes) {
    for (GuardState s : {GuardState::awaiting, GuardState::carried, GuardState::forgotten,
                         GuardState::publisher_without_idgen})
        for (int64_t node : {int64_t{-1}, int64_t{0}, int64_t{8191}}) {
            Guard back{GuardState::awaiting, 42};
            ASSERT_TRUE(parse_guard_text(guard_text(Guard{s, node}), &back)) << guard_text(Guard{s, node});
            EXPECT_EQ(back.state, s);
            EXPECT_EQ(back.publisher_node, node);
        }
    EXPECT_EQ(guard_text(Guard{GuardState::publisher_without_idgen, -1}), "publisher-without-idgen -1");
    Guard g{};
    for (const char *bad : {"", "forgotten", "forgotten ", "forgotten x", "forgotten -2", "forgotten 1 ",
                            "forgotten 01", "gone 1", "forgotten 99999999999", "Forgotten 1"})
        EXPECT_FALSE(parse_guard_text(bad, &g)) << bad;
}
