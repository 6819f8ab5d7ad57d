// The loop every time-ordered generator runs for one id: read the wall clock (or the lead floor
// after adopted state, generator_now_unix_ns), draw from the
// core, and then hand the id out once the durable horizon covers it, or wait for the clock,
// or raise the core's error. `draw(now_unix_ns, &error)` returns a core Next-like struct with
// `kind` (issued / wait / failed), `end_unix_us` and `ahead_ms`. Everything alive across the
// ereport longjmps in here is trivially destructible.
#pragma once

#include <cstdint>

#include "../core/status.hpp"
#include "carried_state.hpp"
#include "errors.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "wall_clock.hpp"

namespace idgen::pg {

template <typename DrawFn>
auto draw_until_issued(SharedState *shared, Generator g, const char *what, DrawFn draw) {
    ClockWait wait;
    for (;;) {
        const int64_t now_ns = generator_now_unix_ns(shared);
        Status error;
        const auto n = draw(now_ns, &error);
        using Kind = decltype(n.kind);
        if (n.kind == Kind::issued) {
            ensure_horizon(shared, n.end_unix_us, now_ns / 1000, what);
            ensure_carried_horizon(shared, n.end_unix_us, what);
            return n;
        }
        if (n.kind == Kind::failed) raise_error(error);
        if (wait.started_monotonic_us < 0) count_wait(shared, g);
        if (!wait_for_clock(&wait, n.ahead_ms)) {
            count_clock_error(shared, g);
            raise_clock_behind(wait, n.ahead_ms, what);
        }
    }
}

}  // namespace idgen::pg
