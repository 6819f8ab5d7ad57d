// Folder src/core/generators: the clock of one generator each (live version-1 and version-7
// UUIDs, locality UUIDs) over the shared LogicalClock.
//
// Live version-1 UUIDs: a LogicalClock counting 100 ns ticks since 1582-10-15, so the 60-bit
// time of every UUID a server hands out is unique and strictly increasing, whatever the
// wall clock does (within the lead it may run ahead), with a fixed clock sequence and node.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/clocks/logical_clock.hpp"
#include "core/clocks/session_run.hpp"
#include "core/layouts/uuid_v1.hpp"

namespace idgen::uuid_v1 {

// An issued UUID (logical_clock.hpp's Drawn): its end_unix_us is the end of its tick, rounded up
// to a microsecond.
using Next = Drawn<UuidFields>;

// A server's random identity for live UUIDs (RFC 4122 section 4.5): from 8 random bytes, a node
// of 47 random bits with the multicast bit set (no network card has such an address) and a
// 14-bit clock sequence.
struct RandomIdentity {
    uint64_t node;
    int32_t clock_seq;
};
RandomIdentity random_identity(const uint8_t random[8]) noexcept;

// The first tick a clock may issue without meeting a UUID that ended by the horizon.
uint64_t position_after(int64_t horizon_unix_us) noexcept;

// The Unix time at which tick `position` starts (microseconds, rounded down).
int64_t unix_us_of(uint64_t position) noexcept;

// Draws the next UUID; with `run`, from this session's run of ticks (session_run.hpp).
Next next(LogicalClock *clock, int64_t now_unix_ns, int64_t max_lead_ms, int32_t clock_seq, uint64_t node,
          Status *error, PositionRun *run = nullptr) noexcept;

}  // namespace idgen::uuid_v1
