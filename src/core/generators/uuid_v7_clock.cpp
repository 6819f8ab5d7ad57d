// The draw of live version-7 UUIDs: position = ((unix_ms * 4096 + fraction) << 4) | counter.
#include "core/generators/uuid_v7_clock.hpp"

#include "core/layouts/uuid_v7.hpp"

namespace idgen::uuid_v7 {

static constexpr int kStepShift = kCounterBits;
static constexpr int kMsShift = kStepShift + 12;  // 4096 steps
static constexpr uint64_t kPositionsPerMs = uint64_t{1} << kMsShift;
// The last position handed out is 65,536 ms before the end of the layout, so that draws racing
// past it (one atomic add each, logical_clock.cpp) can never wrap the 64-bit word.
static constexpr uint64_t kMaxPosition =
    static_cast<uint64_t>(kMaxUnixMs - 65536) << kMsShift | (kPositionsPerMs - 1);

static_assert(kMsShift + 48 == 64, "time, fraction and counter fill the 64-bit clock word");

// The step (ms * 4096 + fraction) of a Unix time in nanoseconds, rounded down.
static uint64_t step_of_ns(int64_t unix_ns) noexcept {
    const uint64_t ns = unix_ns < 0 ? 0 : static_cast<uint64_t>(unix_ns);
    return (ns / 1000000) * kFractionSteps + (ns % 1000000) * kFractionSteps / 1000000;
}

static Time time_of_step(uint64_t step) noexcept {
    return Time{static_cast<int64_t>(step / kFractionSteps), static_cast<uint32_t>(step % kFractionSteps)};
}

// The Unix time at which step `step` starts, rounded up to a microsecond.
static int64_t step_start_us_ceil(uint64_t step) noexcept {
    const int64_t floor_us = unix_micros_of(time_of_step(step));
    return floor_us + ((step % kFractionSteps) * 1000 % kFractionSteps != 0);
}

uint64_t position_after(int64_t horizon_unix_us) noexcept {
    if (horizon_unix_us <= 0) return 0;
    if (horizon_unix_us > kMaxUnixMicros) return kMaxPosition + 1;
    // The first step starting at or after H: ceil(H * 4096 / 1000), split to stay in 64 bits.
    const uint64_t h = static_cast<uint64_t>(horizon_unix_us);
    const uint64_t step = (h / 125) * 512 + ((h % 125) * 512 + 124) / 125;
    return step << kStepShift;
}

int64_t unix_us_of(uint64_t position) noexcept {
    return unix_micros_of(time_of_step(position >> kStepShift));
}

Next next(LogicalClock *clock, int64_t now_unix_ns, int64_t max_lead_ms, int32_t node_id, uint64_t random,
          Status *error, PositionRun *run) noexcept {
    const uint64_t floor = step_of_ns(now_unix_ns) << kStepShift;
    const uint64_t lead = max_lead_ms <= 0 ? 0 : static_cast<uint64_t>(max_lead_ms) * kPositionsPerMs;
    const uint64_t limit = floor + lead < floor ? UINT64_MAX : floor + lead;
    const Draw d = draw_ordered(clock, run, floor, limit, kMaxPosition, kPositionsPerMs);
    if (d.outcome == Draw::Outcome::exhausted)
        return Next::failed_with(
            error, Status::error(Errc::exhausted, "the 48-bit millisecond of version-7 UUIDs is used up"));
    if (d.outcome == Draw::Outcome::ahead)
        return Next::waiting(
            static_cast<int64_t>((d.position - floor + kPositionsPerMs - 1) / kPositionsPerMs));
    const uint64_t step = d.position >> kStepShift;
    UuidFields f;
    encode(time_of_step(step), live_rand_b(static_cast<uint32_t>(d.position), node_id, random), &f.uuid);
    return Next::issued_with(f, step_start_us_ceil(step + 1));
}

}  // namespace idgen::uuid_v7
