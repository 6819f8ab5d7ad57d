// The guard of a subscription (move_guard.hpp): what waits while the publisher's state has not
// been taken over, and when the guard is done.
#include <gtest/gtest.h>

#include "move_guard.hpp"

using namespace idgen::backfill;

namespace {

const LeaseKind kAll[] = {LeaseKind::uuid_auto, LeaseKind::uuid_given, LeaseKind::snowflake, LeaseKind::uuid_v7};

TEST(MoveGuard, AwaitingBlocksEverySpaceWhenThePublishersNodeIsUnknownOrTheSame) {
    for (LeaseKind k : kAll) {
        EXPECT_TRUE(guard_blocks(Guard{GuardState::awaiting, -1, true}, k, 1));
        EXPECT_TRUE(guard_blocks(Guard{GuardState::awaiting, 1, true}, k, 1));
        EXPECT_TRUE(guard_blocks(Guard{GuardState::awaiting, 2, false}, k, -1));  // no own node id
    }
}

TEST(MoveGuard, ADistinctPublisherNodeFreesOnlyTheSpacesThatCarryTheNodeId) {
    const Guard g{GuardState::awaiting, 2, true};
    EXPECT_FALSE(guard_blocks(g, LeaseKind::uuid_auto, 1));
    EXPECT_FALSE(guard_blocks(g, LeaseKind::uuid_v7, 1));
    EXPECT_TRUE(guard_blocks(g, LeaseKind::uuid_given, 1));
    EXPECT_TRUE(guard_blocks(g, LeaseKind::snowflake, 1));
}

TEST(MoveGuard, CarriedCountsOnlyOnceTheSubscriptionIsGone) {
    for (LeaseKind k : kAll) {
        EXPECT_TRUE(guard_blocks(Guard{GuardState::carried, -1, true}, k, 1));
        EXPECT_FALSE(guard_blocks(Guard{GuardState::carried, -1, false}, k, 1));
        EXPECT_FALSE(guard_blocks(Guard{GuardState::forgotten, -1, true}, k, 1));
    }
    EXPECT_FALSE(guard_spent(Guard{GuardState::carried, -1, true}));
    EXPECT_TRUE(guard_spent(Guard{GuardState::carried, -1, false}));
    EXPECT_TRUE(guard_spent(Guard{GuardState::forgotten, -1, false}));
    EXPECT_FALSE(guard_spent(Guard{GuardState::awaiting, -1, false}));  // dropped, never carried
}

}  // namespace
