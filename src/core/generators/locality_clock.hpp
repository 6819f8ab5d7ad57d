// What makes Groupon's locality UUIDs unique on a server, in two shared 64-bit words:
// - a LogicalClock whose positions are (unix_ms << 16 | k): the time field never goes back
//   and at most 65,536 ids share a millisecond (more carry into the next one, ahead of the
//   wall clock within the lead);
// - one server-wide sequence, taken with an atomic add, from which the 32-bit counter is
//   made: sequence * prime (variable mode) or start + sequence (sequential mode).
// Two ids of one millisecond are fewer than 2^16 + (concurrent callers) draws apart, far
// fewer than 2^32, so their counters differ: unique by construction, whatever the clock does.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/clocks/logical_clock.hpp"
#include "core/clocks/session_run.hpp"

namespace idgen::locality {

// Both words are written by every draw (every run's draw with runs): each has a cache line of
// its own, so that the two do not contend with each other.
struct State {
    alignas(kCacheLine) LogicalClock clock;
    alignas(kCacheLine) uint64_t sequence;
};

// An issued time field and counter source (logical_clock.hpp's Drawn): its end_unix_us is the
// end of that millisecond.
struct TickFields {
    int64_t unix_ms;    // the time field
    uint64_t sequence;  // the counter's source
};
using Tick = Drawn<TickFields>;

uint64_t position_after(int64_t horizon_unix_us) noexcept;

// The Unix time at which position `position` starts (the start of its millisecond).
int64_t unix_us_of(uint64_t position) noexcept;

// A session's run of positions (session_run.hpp) and the run of sequence values taken for it:
// position p of the run has sequence sequence_start + (p - run.start).
struct SessionRun {
    PositionRun run;
    uint64_t sequence_start = 0;
};

// Draws the next time field and counter source; with `session`, from its runs. A run of n
// positions takes n sequence values with one atomic add, right after the positions, so two ids
// of one millisecond are still fewer than 2^16 + (runs in flight) x kMaxRun sequence values
// apart, far fewer than 2^32: their counters differ.
Tick next(State *state, int64_t now_unix_ms, int64_t max_lead_ms, Status *error,
          SessionRun *session = nullptr) noexcept;

// The variable mode's counter: the sequence times Groupon's prime, modulo 2^32.
uint32_t variable_counter(uint64_t sequence) noexcept;

}  // namespace idgen::locality
