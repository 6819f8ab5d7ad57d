// Position arithmetic, the draw and the text form of unique timestamps.
#include "core/layouts/unique_timestamp.hpp"

#include <cstdio>

#include "core/base/civil_time.hpp"

namespace idgen::unique_ts {

static constexpr int64_t kNanosPerSecond = 1000000000;
static constexpr int64_t kNanosPerMilli = 1000000;

int64_t unit_ns(const Layout &l) noexcept {
    int64_t unit = 1;
    for (int i = 0; i < l.host_digits; i++) unit *= 10;
    return unit;
}

int32_t max_host(const Layout &l) noexcept {
    return static_cast<int32_t>(unit_ns(l) - 1);
}

Status check_host(const Layout &l, int32_t host) noexcept {
    if (host < 0 || host >= unit_ns(l))
        return Status::error(Errc::not_attached,
                             "host id %d does not fit in the %d decimal digits of a unique timestamp", host,
                             l.host_digits);
    return Status::success();
}

// Positions the clock may run ahead of the wall clock; a lead past int64 nanoseconds is as
// good as unlimited.
static uint64_t lead_positions(int64_t max_lead_ms, int64_t unit) noexcept {
    if (max_lead_ms <= 0) return 0;
    if (max_lead_ms > INT64_MAX / kNanosPerMilli) return static_cast<uint64_t>(INT64_MAX / unit);
    return static_cast<uint64_t>(max_lead_ms * kNanosPerMilli / unit);
}

Next next(LogicalClock *clock, const Layout &l, int32_t host, int64_t now_unix_ns, int64_t max_lead_ms,
          Status *error, PositionRun *run) noexcept {
    const Status fits = check_host(l, host);
    if (!fits.ok()) return Next::failed_with(error, fits);
    const int64_t unit = unit_ns(l);
    const int64_t now_ns = now_unix_ns < 0 ? 0 : now_unix_ns;
    const uint64_t floor = static_cast<uint64_t>(now_ns / unit);
    const uint64_t max_position = static_cast<uint64_t>((INT64_MAX - host) / unit);

    const uint64_t per_ms = static_cast<uint64_t>(kNanosPerMilli / unit);
    const Draw d =
        draw_ordered(clock, run, floor, floor + lead_positions(max_lead_ms, unit), max_position, per_ms);
    if (d.outcome == Draw::Outcome::exhausted)
        return Next::failed_with(error, Status::error(Errc::exhausted,
                                                      "unique timestamps are used up (int64 nanoseconds "
                                                      "end at 2262-04-11 23:47:16 UTC)"));
    if (d.outcome == Draw::Outcome::ahead) {
        // d.position <= max_position, so its start fits in int64 and lies after now_ns.
        const int64_t ahead_ns = static_cast<int64_t>(d.position) * unit - now_ns;
        return Next::waiting((ahead_ns + kNanosPerMilli - 1) / kNanosPerMilli);
    }
    // The end of the last unit may pass INT64_MAX ns, but not UINT64_MAX.
    const uint64_t end_ns = (d.position + 1) * static_cast<uint64_t>(unit);
    return Next::issued_with(ValueFields{static_cast<int64_t>(d.position) * unit + host},
                             static_cast<int64_t>((end_ns + 999) / 1000));
}

int64_t unix_us_of(const Layout &l, uint64_t position) noexcept {
    return static_cast<int64_t>(position) * (unit_ns(l) / 10) / 100;
}

uint64_t position_after(const Layout &l, int64_t horizon_unix_us) noexcept {
    const int64_t unit = unit_ns(l);
    if (horizon_unix_us <= 0) return 0;
    // A horizon past the last nanosecond: a position past every host's last one.
    if (horizon_unix_us > INT64_MAX / 1000) return static_cast<uint64_t>(INT64_MAX / unit) + 1;
    const int64_t horizon_ns = horizon_unix_us * 1000;
    return static_cast<uint64_t>(horizon_ns / unit + (horizon_ns % unit != 0));
}

int32_t host_of(const Layout &l, int64_t value) noexcept {
    return static_cast<int32_t>(value % unit_ns(l));
}

Status format(int64_t value, char buf[30]) noexcept {
    if (value < 0) return Status::error(Errc::value_out_of_range, "a unique timestamp is never negative");
    const CivilTime t = civil_from_unix_seconds(value / kNanosPerSecond);
    std::snprintf(buf, 30, "%04d-%02d-%02dT%02d:%02d:%02d.%09d", static_cast<int>(t.year), t.month, t.day,
                  t.hour, t.minute, t.second, static_cast<int>(value % kNanosPerSecond));
    return Status::success();
}

}  // namespace idgen::unique_ts
