// Live version-7 UUIDs: a LogicalClock whose positions are steps of 1/4096 ms since 1970, 16
// positions (the 4-bit counter) per step, so the 64 bits of time, fraction and counter of every
// UUID a server hands out are unique and strictly increasing across all its sessions, whatever
// the wall clock does (within the lead it may run ahead). One server makes 65,536 UUIDs per
// millisecond before its clock runs ahead of the wall clock. The node id and random bits
// follow (uuid_v7.hpp).
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/base/uuid.hpp"
#include "core/clocks/logical_clock.hpp"
#include "core/clocks/session_run.hpp"

namespace idgen::uuid_v7 {

// An issued UUID (logical_clock.hpp's Drawn): its end_unix_us is the end of its step, rounded
// up to a microsecond.
using Next = Drawn<UuidFields>;

// The first position whose step starts at or after the horizon, so that no UUID drawn from it
// can be <= any UUID that ended by the horizon.
uint64_t position_after(int64_t horizon_unix_us) noexcept;

// The Unix time at which position `position`'s step starts (microseconds, rounded down).
int64_t unix_us_of(uint64_t position) noexcept;

// Draws the next UUID at wall-clock time `now_unix_ns` (before 1970 counts as 1970), running
// at most `max_lead_ms` (>= 0) ahead of it, with `node_id` (negative: none, random bits instead)
// and the random bits of `random`. Fails (kind failed, reason in *error) with Errc::exhausted
// when the 48-bit millisecond is used up (year 10889). With `run`, from this session's run of
// positions (session_run.hpp).
Next next(LogicalClock *clock, int64_t now_unix_ns, int64_t max_lead_ms, int32_t node_id, uint64_t random,
          Status *error, PositionRun *run = nullptr) noexcept;

}  // namespace idgen::uuid_v7
