// The guard of a subscription (move_guard.hpp): what waits while the publisher's state has not
// been taken over.
#include <gtest/gtest.h>

#include "core/backfill/move_guard.hpp"

using namespace idgen::backfill;

namespace {

const LeaseKind kAll[] = {LeaseKind::uuid_auto, LeaseKind::uuid_given, LeaseKind::snowflake, LeaseKind::uuid_v7};

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

TEST(MoveGuard, OnlySnowflakeSpacesBelongToOneDatabase) {
    EXPECT_TRUE(server_wide(LeaseKind::uuid_auto));
    EXPECT_TRUE(server_wide(LeaseKind::uuid_given));
    EXPECT_TRUE(server_wide(LeaseKind::uuid_v7));
    EXPECT_FALSE(server_wide(LeaseKind::snowflake));
}

}  // namespace
