// Retiring a Snowflake clock while real threads draw from it: what
// snowflake_drop's release and a re-created sequencer on the same node do to a shared-memory
// slot. Drawers bind to a generation and draw with next_in_generation; one thread retires the
// clock, takes the bound, and gives the slot to the "re-created" sequencer, whose clock starts
// afresh above that bound (as a new slot starts above released_bound_us). The wall clock moves a
// millisecond at every draw, the worst case for the bound: every draw raises the clock into a
// new millisecond, past the one the bound was taken in. The same with idgen.ordering =
// 'session' (session_run.hpp): each drawer hands out ids from runs it took earlier, and empties
// its run when it binds again, as snowflake_next does.
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <map>
#include <thread>
#include <vector>

#include "core/base/atomic_word.hpp"
#include "core/layouts/snowflake.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::snowflake;

namespace {

struct Issued {
    uint64_t generation;
    int64_t id;
    int64_t end_unix_us;
};

}  // namespace

static void retire_while_drawing(bool with_runs) {
    constexpr int kDrawers = 2;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    const Layout layout{1577836800000, 13};  // 2020 epoch, 9 counter bits
    LogicalClock clock{0};
    uint64_t generation = 2;  // even: live; odd: retired, not yet given to a new sequencer
    const int64_t start_us = (layout.epoch_unix_ms + 1000) * 1000;
    std::atomic<int64_t> draws{0};  // the wall clock: start_us plus a millisecond per draw
    std::atomic<bool> stop{false};
    std::map<uint64_t, int64_t> bound_of;  // retired generation -> bound retire() returned

    std::thread retirer([&] {
        while (std::chrono::steady_clock::now() < deadline) {
            const uint64_t retired = atomic_load(&generation);
            const int64_t bound = retire(&clock, &generation, layout);
            bound_of[retired] = bound;
            // The re-created sequencer gets the slot, its clock started afresh above the bound
            // (as bind_sequencer_slot does), bound to a generation of its own.
            atomic_store(&clock.next_free, 0);
            raise_to(&clock, position_after(layout, bound));
            atomic_fetch_add(&generation, 1);
        }
        stop = true;
    });
    const std::vector<Issued> issued =
        test::run_threads<Issued>(kDrawers, [&](int, std::vector<Issued> &out) {
            PositionRun run;
            uint64_t run_generation = 0;
            // With runs, a millisecond per 64 draws, so that runs are used before they go stale.
            const int64_t draws_per_ms = with_runs ? 64 : 2;
            while (!stop.load()) {
                const uint64_t bound_generation = atomic_load(&generation);
                if (bound_generation % 2 != 0) continue;   // between retirement and re-creation
                if (bound_generation != run_generation) {  // bound again: the old run is emptied
                    drop_if_raised(&run, bound_generation);
                    run_generation = bound_generation;
                }
                Status error;
                const Next n = next_in_generation(&clock, &generation, bound_generation, layout, 5,
                                                  start_us + draws.fetch_add(1) / draws_per_ms * 1000,
                                                  int64_t{1} << 40, &error, with_runs ? &run : nullptr);
                ASSERT_NE(n.kind, Next::Kind::failed) << error.message;
                if (n.kind == Next::Kind::issued) out.push_back({bound_generation, n.id, n.end_unix_us});
            }
        });
    retirer.join();

    ASSERT_GT(bound_of.size(), 1000u);
    ASSERT_GT(issued.size(), 10000u);
    int past_bound = 0;
    std::vector<int64_t> ids;
    for (const Issued &i : issued) {
        ids.push_back(i.id);
        const auto b = bound_of.find(i.generation);
        if (b != bound_of.end() && i.end_unix_us > b->second) past_bound++;
    }
    EXPECT_EQ(past_bound, 0) << "ids issued after their clock's retirement bound was taken";
    EXPECT_TRUE(test::all_distinct(ids)) << "a re-created sequencer repeated an id";
}

TEST(SnowflakeRetire, NoIdIssuedPastTheBoundOfItsRetiredGeneration) {
    retire_while_drawing(false);
}

TEST(SnowflakeRetire, NoIdFromARunIssuedPastTheBoundOfItsRetiredGeneration) {
    retire_while_drawing(true);
}
