// When the registry worker looks at the cluster (look_schedule.hpp), on a fake monotonic clock:
// every second without a watch; with one, at its confirmation, at each change it reports (at most
// every 250 ms), at its loss, and every ten seconds besides; a watch refused in its confirming
// message never up; a failed look a second later; and a change reported after a look (the worker
// reads news only before its look) never lost to that look.
#include <gtest/gtest.h>

#include "core/registry/look_schedule.hpp"

using idgen::registry::LookSchedule;
using idgen::registry::WatchNews;

namespace {

constexpr int64_t kMs = 1000000;
constexpr int64_t kSec = 1000 * kMs;

WatchNews created() {
    WatchNews n;
    n.created = true;
    return n;
}
WatchNews changed() {
    WatchNews n;
    n.changed = true;
    return n;
}
WatchNews ended() {
    WatchNews n;
    n.ended = true;
    n.error = "watch: the stream closed";
    return n;
}

TEST(LookSchedule, WithoutAWatchEverySecond) {
    LookSchedule s;
    EXPECT_TRUE(s.due(0)) << "the first look at once";
    s.looked(0, true);
    EXPECT_FALSE(s.due(999 * kMs));
    EXPECT_TRUE(s.due(1 * kSec));
    EXPECT_FALSE(s.heard(WatchNews{}, 500 * kMs));
    EXPECT_FALSE(s.due(500 * kMs)) << "no news, no look";
}

TEST(LookSchedule, AConfirmedWatchLooksAtOnceThenOnlyAtChangesAndEveryTenSeconds) {
    LookSchedule s;
    s.looked(0, true);
    EXPECT_FALSE(s.heard(created(), 300 * kMs));
    EXPECT_TRUE(s.watching());
    EXPECT_TRUE(s.due(300 * kMs)) << "what changed before the watch was created is seen by the look after it";
    s.looked(300 * kMs, true);
    EXPECT_FALSE(s.due(300 * kMs + 9 * kSec)) << "no polling while the watch is up";
    EXPECT_TRUE(s.due(300 * kMs + LookSchedule::kSafetyNs));
    s.heard(changed(), 2 * kSec);
    EXPECT_TRUE(s.due(2 * kSec)) << "a change reported: look now";
}

TEST(LookSchedule, AChangeReportedAfterALookBringsTheNextOneForward) {
    // The round: news read (nothing), look at t=5 s, looked; the change happened during the look's
    // reads, after them, and its report is read at the next round.
    LookSchedule s;
    s.heard(created(), 0);
    s.looked(5 * kSec, true);
    s.heard(changed(), 5100 * kMs);
    EXPECT_FALSE(s.due(5100 * kMs)) << "not before the minimum gap";
    EXPECT_TRUE(s.due(5 * kSec + LookSchedule::kMinGapNs)) << "but at its end, not ten seconds later";
    s.looked(5300 * kMs, true);
    EXPECT_FALSE(s.due(5400 * kMs));
}

TEST(LookSchedule, ABurstOfChangesCostsALookPerGap) {
    LookSchedule s;
    s.heard(created(), 0);
    int looks = 0;
    for (int64_t t = 0; t < 2 * kSec; t += 10 * kMs) {  // rounds every 10 ms, a change in each
        s.heard(changed(), t);
        if (s.due(t)) {
            looks++;
            s.looked(t, true);
        }
    }
    EXPECT_LE(looks, 2 * kSec / LookSchedule::kMinGapNs + 1);
    EXPECT_GE(looks, 2 * kSec / LookSchedule::kMinGapNs - 1);
}

TEST(LookSchedule, ALostWatchLooksAtOnceThenEverySecond) {
    LookSchedule s;
    s.heard(created(), 0);
    s.looked(0, true);
    EXPECT_TRUE(s.heard(ended(), 4 * kSec)) << "a watch that was up ended: worth a log line";
    EXPECT_FALSE(s.watching());
    EXPECT_TRUE(s.due(4 * kSec)) << "what the dead stream may have missed";
    s.looked(4 * kSec, true);
    EXPECT_TRUE(s.due(5 * kSec)) << "polling again";
    s.looked(5 * kSec, true);
    EXPECT_FALSE(s.heard(ended(), 5500 * kMs)) << "a watch that cannot start, again: no log line";
    EXPECT_FALSE(s.due(5500 * kMs));
}

TEST(LookSchedule, AWatchRefusedInItsConfirmationIsNeverUp) {
    // etcd answers a watch it refuses (permissions) with created and canceled in one message.
    LookSchedule s;
    s.looked(0, true);
    WatchNews refused = created();
    refused.ended = true;
    refused.error = "watch canceled by etcd: permission denied";
    for (int64_t t = 100 * kMs; t < 5 * kSec; t += kSec)
        EXPECT_FALSE(s.heard(refused, t)) << "no log line each time";
    EXPECT_FALSE(s.watching());
    s.looked(5 * kSec, true);
    EXPECT_TRUE(s.due(6 * kSec)) << "still polling";
}

TEST(LookSchedule, AFailedLookIsTriedAgainASecondLaterEvenWithAWatch) {
    LookSchedule s;
    s.heard(created(), 0);
    s.looked(0, false);
    EXPECT_TRUE(s.due(1 * kSec));
}

}  // namespace
