// When the registry worker looks at the cluster (look_schedule.hpp), on a fake monotonic clock:
// every second without a watch; with one, at its confirmation, at each change it reports, at
// its loss, and every ten seconds besides; a failed look a second later; and a change reported
// after a look (the worker reads news only before its look) never lost to that look.
#include <gtest/gtest.h>

#include "core/registry/look_schedule.hpp"

using idgen::registry::LookSchedule;

namespace {

constexpr int64_t kMs = 1000000;
constexpr int64_t kSec = 1000 * kMs;

TEST(LookSchedule, WithoutAWatchEverySecond) {
    LookSchedule s;
    EXPECT_TRUE(s.due(0)) << "the first look at once";
    s.looked(0, true);
    EXPECT_FALSE(s.due(999 * kMs));
    EXPECT_TRUE(s.due(1 * kSec));
    s.changed(1500 * kMs);  // (no watch reports changes, but a report still means look)
    EXPECT_TRUE(s.due(1500 * kMs));
}

TEST(LookSchedule, AConfirmedWatchLooksAtOnceThenOnlyAtChangesAndEveryTenSeconds) {
    LookSchedule s;
    s.looked(0, true);
    s.watch_up(300 * kMs);
    EXPECT_TRUE(s.watching());
    EXPECT_TRUE(s.due(300 * kMs)) << "what changed before the watch was created is seen by the look after it";
    s.looked(300 * kMs, true);
    EXPECT_FALSE(s.due(300 * kMs + 9 * kSec)) << "no polling while the watch is up";
    EXPECT_TRUE(s.due(300 * kMs + LookSchedule::kSafetyNs));
    s.changed(2 * kSec);
    EXPECT_TRUE(s.due(2 * kSec)) << "a change reported: look now";
}

TEST(LookSchedule, AChangeReportedAfterALookBringsTheNextOneForward) {
    // The round: news read (nothing), look at t=5 s, looked; the change happened during the look's
    // reads, after them, and its report is read at the next round.
    LookSchedule s;
    s.watch_up(0);
    s.looked(5 * kSec, true);
    s.changed(5100 * kMs);
    EXPECT_TRUE(s.due(5100 * kMs));
    s.looked(5100 * kMs, true);
    EXPECT_FALSE(s.due(5200 * kMs));
}

TEST(LookSchedule, ALostWatchLooksAtOnceThenEverySecond) {
    LookSchedule s;
    s.watch_up(0);
    s.looked(0, true);
    s.watch_down(4 * kSec);
    EXPECT_FALSE(s.watching());
    EXPECT_TRUE(s.due(4 * kSec)) << "what the dead stream may have missed";
    s.looked(4 * kSec, true);
    EXPECT_TRUE(s.due(5 * kSec)) << "polling again";
    s.looked(5 * kSec, true);
    s.watch_down(5500 * kMs);  // a watch that cannot start, again: nothing changes
    EXPECT_FALSE(s.due(5500 * kMs));
}

TEST(LookSchedule, AFailedLookIsTriedAgainASecondLaterEvenWithAWatch) {
    LookSchedule s;
    s.watch_up(0);
    s.looked(0, false);
    EXPECT_TRUE(s.due(1 * kSec));
}

}  // namespace
