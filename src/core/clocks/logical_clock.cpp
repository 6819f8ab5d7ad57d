// The compare-and-swap loop of the logical clock.
#include "core/clocks/logical_clock.hpp"

#include "core/base/atomic_word.hpp"

namespace idgen {

Draw draw(LogicalClock *clock, uint64_t floor, uint64_t limit, uint64_t max_position,
          uint64_t count) noexcept {
    // Catch up with the wall clock first: a compare-and-swap, but only when the clock's
    // position has moved past the next free one (once per clock unit, not once per draw).
    uint64_t next_free = atomic_load(&clock->next_free);
    if (next_free < floor) next_free = atomic_raise(&clock->next_free, floor);
    // Refuse before taking anything, so that waiting callers do not use up positions.
    if (next_free > max_position) return {Draw::Outcome::exhausted, next_free};
    if (next_free > limit) return {Draw::Outcome::ahead, next_free};
    // Then one atomic add, which never has to retry: under contention each draw moves the
    // cache line once. Positions come out unique and in the order the adds happen.
    const uint64_t taken = atomic_fetch_add(&clock->next_free, count);
    if (taken > max_position) return {Draw::Outcome::exhausted, taken};
    if (taken > limit) return {Draw::Outcome::ahead, taken};  // raced past the limit: unused
    return {Draw::Outcome::issued, taken};
}

void raise_to(LogicalClock *clock, uint64_t position) noexcept {
    atomic_raise(&clock->next_free, position);
}

}  // namespace idgen
