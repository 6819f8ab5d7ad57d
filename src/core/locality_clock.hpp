// What makes locality UUIDs (seed 001) unique on a server, in two shared 64-bit words:
// - a LogicalClock whose positions are (unix_ms << 16 | k): the time field never goes back
//   and at most 65,536 ids share a millisecond (more carry into the next one, ahead of the
//   wall clock within the lead);
// - one server-wide sequence, taken with an atomic add, from which the 32-bit counter is
//   made: sequence * prime (variable mode) or start + sequence (sequential mode).
// Two ids of one millisecond are fewer than 2^16 + (concurrent callers) draws apart, far
// fewer than 2^32, so their counters differ: unique by construction, whatever the clock does.
#pragma once

#include <cstdint>

#include "logical_clock.hpp"
#include "status.hpp"

namespace idgen::locality {

struct State {
    LogicalClock clock;
    uint64_t sequence;
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

Tick next(State *state, int64_t now_unix_ms, int64_t max_lead_ms, Status *error) noexcept;

// The variable mode's counter: the sequence times Groupon's prime, modulo 2^32.
uint32_t variable_counter(uint64_t sequence) noexcept;

}  // namespace idgen::locality
