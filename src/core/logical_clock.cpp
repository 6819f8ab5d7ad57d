// The compare-and-swap loop of the logical clock.
#include "logical_clock.hpp"

#include "atomic_word.hpp"

namespace idgen {

Draw draw(LogicalClock *clock, uint64_t floor, uint64_t limit, uint64_t max_position) noexcept {
    uint64_t next_free = atomic_load(&clock->next_free);
    for (;;) {
        const uint64_t candidate = next_free > floor ? next_free : floor;
        if (candidate > max_position) return {Draw::Outcome::exhausted, candidate};
        if (candidate > limit) return {Draw::Outcome::ahead, candidate};
        if (atomic_compare_exchange(&clock->next_free, &next_free, candidate + 1))
            return {Draw::Outcome::issued, candidate};
    }
}

void raise_to(LogicalClock *clock, uint64_t position) noexcept {
    atomic_raise(&clock->next_free, position);
}

}  // namespace idgen
