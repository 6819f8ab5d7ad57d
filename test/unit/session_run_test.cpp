// Runs of clock positions (idgen.ordering = 'session', session_run.hpp): unique and strictly
// increasing per session under real threads, ordered across sessions to the millisecond with a
// fake wall clock, the run's size adapting, the bounds respected, and a raised clock obeyed.
#include <algorithm>
#include <atomic>
#include <functional>
#include <gtest/gtest.h>
#include <queue>
#include <vector>

#include "core/clocks/session_run.hpp"
#include "core/generators/locality_clock.hpp"
#include "core/generators/uuid_v7_clock.hpp"

#include "test_support.hpp"

using namespace idgen;

namespace {

constexpr uint64_t kTick = 1000;       // positions per millisecond in these tests
constexpr uint64_t kLead = 5 * kTick;  // how far ahead of the floor positions may run
constexpr uint64_t kMax = UINT64_MAX / 2;

Draw draw_at(LogicalClock *clock, PositionRun *run, uint64_t floor) {
    return draw_in_run(clock, run, floor, floor + kLead, kMax, kTick).draw;
}

struct Taken {
    uint64_t position;
    uint64_t asked_at;  // the fake wall clock's position when the draw was asked for
};

}  // namespace

TEST(SessionRun, UniqueAndIncreasingPerSessionUnderThreads) {
    LogicalClock clock{0};
    std::atomic<uint64_t> wall{0};  // advanced by the drawers: a position every 3 draws
    constexpr int kThreads = 8;
    constexpr int kDraws = 200000;
    const auto all = test::run_threads<uint64_t>(kThreads, [&](int, std::vector<uint64_t> &out) {
        PositionRun run;
        for (int i = 0; i < kDraws; i++) {
            const uint64_t floor = wall.fetch_add(1) / 3;
            const Draw d = draw_in_run(&clock, &run, floor, UINT64_MAX - 1, kMax, kTick).draw;
            ASSERT_EQ(d.outcome, Draw::Outcome::issued);
            if (!out.empty()) {
                ASSERT_GT(d.position, out.back()) << "a session's ids went back";
            }
            out.push_back(d.position);
        }
        EXPECT_EQ(run.size, kMaxRun) << "runs did not grow while the wall clock stood in one millisecond";
    });
    ASSERT_EQ(all.size(), size_t{kThreads} * kDraws);
    EXPECT_TRUE(test::all_distinct(all)) << "two sessions got the same position";
}

// Every id is greater than every id whose millisecond ended before it was asked for. Sessions
// draw in bursts and pause while the fake wall clock moves on, so leftover runs of earlier
// milliseconds meet the later ones.
TEST(SessionRun, OrderedAcrossSessionsToTheMillisecond) {
    LogicalClock clock{0};
    constexpr int kSessions = 4;
    PositionRun runs[kSessions];
    std::vector<Taken> drawn;
    uint64_t wall = 10 * kTick;
    for (int round = 0; round < 2000; round++) {
        const int s = round % kSessions;
        const int burst = 1 + (round * 7919) % 90;  // 1..90 ids
        for (int i = 0; i < burst; i++) {
            const Draw d = draw_at(&clock, &runs[s], wall);
            ASSERT_EQ(d.outcome, Draw::Outcome::issued);
            drawn.push_back({d.position, wall});
            wall += 1;  // a position of wall clock per id: 1,000 ids per millisecond
        }
        if (round % 7 == 0) wall += kTick;  // now and then a pause of a millisecond
    }
    // In issue order: every id whose millisecond ended before the current one was asked for
    // (by the fake wall clock) must lie below it.
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> pending;  // positions
    uint64_t ended_max = 0;  // the largest position of an id whose millisecond has ended
    bool any_ended = false;
    int violations = 0;
    for (const Taken &t : drawn) {
        while (!pending.empty() && pending.top() / kTick < t.asked_at / kTick) {
            ended_max = std::max(ended_max, pending.top());
            any_ended = true;
            pending.pop();
        }
        if (any_ended && t.position < ended_max) violations++;
        pending.push(t.position);
    }
    EXPECT_TRUE(any_ended);
    EXPECT_EQ(violations, 0) << "an id sorted below an id whose millisecond ended before it was asked for";
    // And ids of different sessions did interleave within milliseconds (the test can see order).
    int out_of_issue_order = 0;
    for (size_t i = 1; i < drawn.size(); i++) out_of_issue_order += drawn[i].position < drawn[i - 1].position;
    EXPECT_GT(out_of_issue_order, 0) << "no run was ever used across another session's draw";
}

TEST(SessionRun, SizeDoublesWhenUsedUpAndHalvesWhenDropped) {
    LogicalClock clock{0};
    PositionRun run;
    uint64_t floor = 0;
    EXPECT_EQ(draw_at(&clock, &run, floor).position, 0u);
    EXPECT_EQ(run.end - run.start, 1u) << "a session's first run is one position";
    for (int i = 0; i < 200; i++) draw_at(&clock, &run, floor);
    EXPECT_EQ(run.size, kMaxRun);
    EXPECT_EQ(run.end - run.start, kMaxRun);
    // A session that draws once per millisecond drops what is left each time: back to one, and
    // there it stays (a run of one used up after its millisecond does not grow).
    for (int i = 0; i < 10; i++) {
        floor += kTick;
        draw_at(&clock, &run, floor);
    }
    EXPECT_EQ(run.size, 1u);
    for (int i = 0; i < 10; i++) {
        floor += kTick;
        draw_at(&clock, &run, floor);
        EXPECT_EQ(run.size, 1u);
        EXPECT_EQ(run.end - run.start, 1u)
            << "a session drawing once per millisecond took positions it does not use";
    }
}

TEST(SessionRun, RunsStayWithinTheLimitAndTheLastPosition) {
    LogicalClock clock{0};
    PositionRun run;
    run.size = kMaxRun;
    const uint64_t limit = 100;
    std::vector<uint64_t> got;
    for (;;) {
        const Draw d = draw_in_run(&clock, &run, 0, limit, kMax, kTick).draw;
        if (d.outcome != Draw::Outcome::issued) {
            EXPECT_EQ(d.outcome, Draw::Outcome::ahead);
            break;
        }
        got.push_back(d.position);
    }
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.back(), limit) << "the run was not used up to the limit";
    PositionRun other;
    other.size = kMaxRun;
    LogicalClock near_end{kMax - 3};
    std::vector<uint64_t> last;
    for (int i = 0; i < 10; i++) {
        const Draw d = draw_in_run(&near_end, &other, 0, UINT64_MAX - 1, kMax, kTick).draw;
        if (d.outcome == Draw::Outcome::issued)
            last.push_back(d.position);
        else
            EXPECT_EQ(d.outcome, Draw::Outcome::exhausted);
    }
    EXPECT_EQ(last, (std::vector<uint64_t>{kMax - 3, kMax - 2, kMax - 1, kMax}));
}

// A raised clock (a moved database's state adopted) empties runs taken before the caller's
// epoch changed: no id below the raised position is handed out after that.
TEST(SessionRun, ARaisedClockEmptiesRunsOfAnOlderEpoch) {
    LogicalClock clock{0};
    PositionRun run;
    uint64_t epoch = 7;
    drop_if_raised(&run, epoch);
    run.size = kMaxRun;
    draw_at(&clock, &run, 0);  // a session's first run: kMaxRun positions from 0 (the size was set)
    ASSERT_LT(run.next, run.end);
    raise_to(&clock, 50000);
    epoch++;
    drop_if_raised(&run, epoch);
    EXPECT_GE(draw_at(&clock, &run, 0).position, 50000u);
}

// A locality run takes as many sequence values as positions: every id of the server has its own
// counter source, in both orderings.
TEST(SessionRun, LocalitySequencesStayDistinct) {
    locality::State state{};
    constexpr int kThreads = 4;
    const auto all = test::run_threads<uint64_t>(kThreads, [&](int t, std::vector<uint64_t> &out) {
        locality::SessionRun session;
        for (int i = 0; i < 50000; i++) {
            Status error;
            const locality::Tick tick = locality::next(&state, 1700000000000 + i / 100, 5000, &error,
                                                       t % 2 == 0 ? &session : nullptr);
            ASSERT_EQ(tick.kind, locality::Tick::Kind::issued) << error.message;
            out.push_back(tick.sequence);
        }
    });
    EXPECT_TRUE(test::all_distinct(all));
}

// A generator's draw through a run: version-7 UUIDs of one session strictly increase and the
// other generators' runs are exercised by their own tests through the same draw_ordered.
TEST(SessionRun, UuidV7FromARunIncreases) {
    LogicalClock clock{0};
    PositionRun run;
    Uuid previous{};
    for (int i = 0; i < 10000; i++) {
        Status error;
        const uuid_v7::Next n =
            uuid_v7::next(&clock, int64_t{1700000000000} * 1000000 + i * 50, 5000, 1, 42, &error, &run);
        ASSERT_EQ(n.kind, uuid_v7::Next::Kind::issued);
        ASSERT_GT(test::uuid_text(n.uuid), test::uuid_text(previous));
        previous = n.uuid;
    }
    EXPECT_GT(run.size, 1u);
}
