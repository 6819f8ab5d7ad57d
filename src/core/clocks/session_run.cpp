// Drawing from a session's run of clock positions (session_run.hpp has the argument).
#include "core/clocks/session_run.hpp"

namespace idgen {

// The first position of the tick after `position`'s; UINT64_MAX if that is past the word.
static uint64_t end_of_tick(uint64_t position, uint64_t tick) noexcept {
    const uint64_t start = position - position % tick;
    return start > UINT64_MAX - tick ? UINT64_MAX : start + tick;
}

void drop_run(PositionRun *run) noexcept {
    const uint64_t epoch = run->epoch;
    *run = PositionRun{};
    run->epoch = epoch;
}

void drop_if_raised(PositionRun *run, uint64_t epoch) noexcept {
    if (run->epoch == epoch) return;
    drop_run(run);
    run->epoch = epoch;
}

RunDraw draw_in_run(LogicalClock *clock, PositionRun *run, uint64_t floor, uint64_t limit,
                    uint64_t max_position, uint64_t tick) noexcept {
    if (run->next < run->end) {
        // Past the limit (the wall clock went back): so is everything a new run would take.
        if (run->next > limit) return {{Draw::Outcome::ahead, run->next}, false};
        // next's tick is not before floor's exactly when floor lies before the end of next's tick.
        if (run->next >= run->tick_end) run->tick_end = end_of_tick(run->next, tick);  // a later tick
        if (floor < run->tick_end) return {{Draw::Outcome::issued, run->next++}, false};
    }
    // A run used up within its millisecond earns a longer one, one used up after it the same,
    // one dropped with positions left a shorter one. A session's first run (end 0) is one
    // position.
    if (run->end == 0) {
    } else if (run->next == run->end) {
        if ((run->end - 1) / tick >= floor / tick)
            run->size = run->size * 2 > kMaxRun ? kMaxRun : run->size * 2;
    } else {
        run->size = run->size / 2 < 1 ? 1 : run->size / 2;
        run->next = run->end;
    }
    const Draw d = draw(clock, floor, limit, max_position, run->size);
    if (d.outcome != Draw::Outcome::issued) return {d, false};
    // d.position <= limit and <= max_position; no layout's last position is UINT64_MAX, the
    // cap only keeps end = last + 1 from wrapping whatever a caller passes.
    uint64_t bound = limit < max_position ? limit : max_position;
    if (bound == UINT64_MAX) bound = UINT64_MAX - 1;
    if (d.position > bound) return {{Draw::Outcome::exhausted, d.position}, false};
    const uint64_t last = bound - d.position < run->size - 1 ? bound : d.position + (run->size - 1);
    run->start = d.position;
    run->next = d.position + 1;
    run->end = last + 1;
    run->tick_end = end_of_tick(d.position, tick);
    return {d, true};
}

Draw draw_ordered(LogicalClock *clock, PositionRun *run, uint64_t floor, uint64_t limit,
                  uint64_t max_position, uint64_t tick) noexcept {
    if (run == nullptr) return draw(clock, floor, limit, max_position);
    return draw_in_run(clock, run, floor, limit, max_position, tick).draw;
}

}  // namespace idgen
