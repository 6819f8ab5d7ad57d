// The shared logical clock: monotonic under a wall clock that stands still or goes back,
// bounded lead, and unique positions across real threads.
#include <algorithm>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

#include "core/clocks/logical_clock.hpp"

#include "test_support.hpp"

using namespace idgen;

TEST(LogicalClock, FollowsTheWallClockWhenItMovesAhead) {
    LogicalClock c{0};
    EXPECT_EQ(draw(&c, 100, 200, 1000).position, 100u);
    EXPECT_EQ(draw(&c, 150, 250, 1000).position, 150u);
}

TEST(LogicalClock, KeepsGoingWhenTheWallClockStandsStillOrGoesBack) {
    LogicalClock c{0};
    EXPECT_EQ(draw(&c, 100, 110, 1000).position, 100u);
    EXPECT_EQ(draw(&c, 100, 110, 1000).position, 101u);
    const Draw back = draw(&c, 50, 60, 1000);  // the wall clock stepped back by 50
    EXPECT_EQ(back.outcome, Draw::Outcome::ahead);
    EXPECT_EQ(back.position, 102u);              // what would have been needed
    const Draw after = draw(&c, 95, 105, 1000);  // within the lead again
    EXPECT_EQ(after.outcome, Draw::Outcome::issued);
    EXPECT_EQ(after.position, 102u);
}

TEST(LogicalClock, NeverPassesItsMaximum) {
    LogicalClock c{0};
    EXPECT_EQ(draw(&c, 9, 100, 9).outcome, Draw::Outcome::issued);
    EXPECT_EQ(draw(&c, 9, 100, 9).outcome, Draw::Outcome::exhausted);
    EXPECT_EQ(draw(&c, 9, 100, 9).outcome, Draw::Outcome::exhausted);
}

TEST(LogicalClock, RaiseToResumesAboveAMark) {
    LogicalClock c{0};
    raise_to(&c, 500);
    EXPECT_EQ(draw(&c, 10, 1000, 10000).position, 500u);
    raise_to(&c, 100);  // never lowers
    EXPECT_EQ(draw(&c, 10, 1000, 10000).position, 501u);
}

TEST(LogicalClock, ThreadsNeverShareAPosition) {
    LogicalClock c{0};
    constexpr int kThreads = 8, kPerThread = 200000;
    const std::vector<uint64_t> all =
        test::run_threads<uint64_t>(kThreads, [&](int t, std::vector<uint64_t> &got) {
            for (int i = 0; i < kPerThread; i++) {
                // A wall clock that jumps around: forwards, standing, backwards.
                const uint64_t wall = static_cast<uint64_t>((i * 7 + t * 13) % 5000);
                const Draw d = draw(&c, wall, wall + 10000000, UINT64_MAX);
                ASSERT_EQ(d.outcome, Draw::Outcome::issued);
                if (!got.empty()) {
                    ASSERT_GT(d.position, got.back());  // increasing per thread
                }
                got.push_back(d.position);
            }
        });
    EXPECT_TRUE(test::all_distinct(all)) << "a position was issued twice";
    EXPECT_EQ(all.size(), size_t{kThreads} * kPerThread);
}
