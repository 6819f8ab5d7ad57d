// The durable horizon's arithmetic with values read from elsewhere: the target never overflows
// near the ends of int64_t, and a horizon far ahead of the clock is not adoptable.
#include <cstdint>
#include <gtest/gtest.h>

#include "core/clocks/horizon.hpp"

using namespace idgen;

TEST(Horizon, SaturatingAddHoldsAtTheBounds) {
    EXPECT_EQ(saturating_add(1, 2), 3);
    EXPECT_EQ(saturating_add(INT64_MAX - 1, 5), INT64_MAX);
    EXPECT_EQ(saturating_add(INT64_MIN + 1, -5), INT64_MIN);
    EXPECT_EQ(saturating_add(INT64_MAX, -1), INT64_MAX - 1);
}

TEST(Horizon, TargetNearTheEndOfTimeStaysThere) {
    EXPECT_EQ(horizon_target(INT64_MAX - 10, 0), INT64_MAX);
    EXPECT_EQ(horizon_target(100, 200), 200 + kReserveAheadUs);
}

TEST(Horizon, AdoptableOnlyWithinTheLimitAhead) {
    const int64_t now = int64_t{1763787600} * 1000000, ten_minutes = int64_t{600} * 1000000;
    EXPECT_TRUE(adoptable_horizon(now - 1, now, ten_minutes));
    EXPECT_TRUE(adoptable_horizon(now + ten_minutes, now, ten_minutes));
    EXPECT_FALSE(adoptable_horizon(now + ten_minutes + 1, now, ten_minutes));
    EXPECT_FALSE(adoptable_horizon(INT64_MAX, now, ten_minutes));
    EXPECT_TRUE(adoptable_horizon(INT64_MAX, now, INT64_MAX));  // the limit itself saturates
}
