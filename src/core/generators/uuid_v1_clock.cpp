// The draw of live version-1 UUIDs.
#include "core/generators/uuid_v1_clock.hpp"

namespace idgen::uuid_v1 {

static int64_t ticks_to_unix_us_ceil(uint64_t ticks) noexcept {
    const int64_t since_epoch = static_cast<int64_t>(ticks) - kUnixEpochTicks;
    return since_epoch >= 0 ? (since_epoch + 9) / 10 : since_epoch / 10;
}

RandomIdentity random_identity(const uint8_t random[8]) noexcept {
    constexpr uint64_t kMulticastBit = uint64_t{1} << 40;
    uint64_t node = 0;
    for (int i = 0; i < 6; i++) node = node << 8 | random[i];
    return RandomIdentity{node | kMulticastBit, (random[6] << 8 | random[7]) & 0x3FFF};
}

uint64_t position_after(int64_t horizon_unix_us) noexcept {
    const int64_t ticks = horizon_unix_us * 10 + kUnixEpochTicks;
    return ticks <= 0 ? 0 : static_cast<uint64_t>(ticks);
}

int64_t unix_us_of(uint64_t position) noexcept {
    const int64_t since_epoch = static_cast<int64_t>(position) - kUnixEpochTicks;
    return since_epoch >= 0 ? since_epoch / 10 : -((-since_epoch + 9) / 10);
}

static constexpr uint64_t kTicksPerMs = 10000;

Next next(LogicalClock *clock, int64_t now_unix_ns, int64_t max_lead_ms, int32_t clock_seq, uint64_t node,
          Status *error, PositionRun *run) noexcept {
    const uint64_t floor = static_cast<uint64_t>(now_unix_ns / 100 + kUnixEpochTicks);
    const uint64_t limit = floor + static_cast<uint64_t>(max_lead_ms) * kTicksPerMs;
    const Draw d = draw_ordered(clock, run, floor, limit, kMaxTicks, kTicksPerMs);
    if (d.outcome == Draw::Outcome::exhausted)
        return Next::failed_with(
            error, Status::error(Errc::exhausted, "the 60-bit time of version-1 UUIDs is used up"));
    if (d.outcome == Draw::Outcome::ahead)
        return Next::waiting(static_cast<int64_t>((d.position - floor + kTicksPerMs - 1) / kTicksPerMs));
    UuidFields f;
    const Status s = encode(Fields{d.position, clock_seq, node}, &f.uuid);
    if (!s.ok()) return Next::failed_with(error, s);
    return Next::issued_with(f, ticks_to_unix_us_ceil(d.position + 1));
}

}  // namespace idgen::uuid_v1
