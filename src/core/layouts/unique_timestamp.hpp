// Chronicle-style unique timestamps: an int64 count of nanoseconds since the Unix
// epoch whose last `host_digits` decimal digits are the host (node) id, so that a value reads
// as a time and names its host, and hosts never collide. The generator is a LogicalClock
// whose positions are units of 10^host_digits ns since the Unix epoch:
// value = position * 10^host_digits + host.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/clocks/logical_clock.hpp"
#include "core/clocks/session_run.hpp"

namespace idgen::unique_ts {

struct Layout {
    int host_digits;  // 2: 100 hosts, 100 ns resolution; 3: 1,000 hosts, microsecond resolution
};

// The nanoseconds of one clock position: 10^host_digits (100 or 1000).
int64_t unit_ns(const Layout &l) noexcept;

// The largest host id the layout holds: 10^host_digits - 1.
int32_t max_host(const Layout &l) noexcept;

// Errc::not_attached unless 0 <= host <= max_host(l).
Status check_host(const Layout &l, int32_t host) noexcept;

// An issued value (logical_clock.hpp's Drawn): its end_unix_us is the end of its unit, rounded
// up to whole microseconds; ahead_ms is rounded up.
struct ValueFields {
    int64_t value;
};
using Next = Drawn<ValueFields>;

// Draws the next value for `host` at wall-clock time `now_unix_ns` (a time before 1970
// counts as 1970), running at most `max_lead_ms` (>= 0) ahead of it. Failures (kind failed,
// reason in *error): the host does not fit (not_attached), int64 nanoseconds are used up
// (exhausted, in 2262). With `run`, from this session's run of positions (session_run.hpp).
Next next(LogicalClock *clock, const Layout &l, int32_t host, int64_t now_unix_ns, int64_t max_lead_ms,
          Status *error, PositionRun *run = nullptr) noexcept;

// The first position whose unit starts at or after the horizon, so that no value drawn from
// it can be <= any value that ended by the horizon.
uint64_t position_after(const Layout &l, int64_t horizon_unix_us) noexcept;

// The Unix time at which position `position` starts (microseconds, rounded down).
int64_t unix_us_of(const Layout &l, uint64_t position) noexcept;

// The host of a value (value >= 0): its last host_digits decimal digits.
int32_t host_of(const Layout &l, int64_t value) noexcept;

// The value as Chronicle prints it, UTC with nine fractional digits:
// "2021-12-28T14:07:02.954100128" for 1640700422954100128. Errc::value_out_of_range for a
// negative value. buf must hold 30 bytes.
Status format(int64_t value, char buf[30]) noexcept;

}  // namespace idgen::unique_ts
