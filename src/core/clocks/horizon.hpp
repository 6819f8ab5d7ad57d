// The durable high-water mark that makes every time-ordered generator safe across a crash
// (RFC 4122 section 4.2.1.3, RFC 9562 section 6.3): a Unix time, kept in stable storage,
// that no id handed out so far reaches past. Before an id whose time runs past the horizon
// is handed out, the horizon is moved ahead by kReserveAheadUs and made durable; after a
// restart every generator resumes above the stored horizon. So the stored value is
// rewritten at most about once per kReserveAheadUs of id time, never once per id.
#pragma once

#include <cstdint>

#include "core/base/atomic_word.hpp"

namespace idgen {

struct Horizon {
    uint64_t durable_unix_us;  // every id handed out ends at or before this time
};

constexpr int64_t kReserveAheadUs = 1000000;

// True when an id ending at end_unix_us may be handed out without moving the horizon.
inline bool horizon_covers(const Horizon *h, int64_t end_unix_us) noexcept {
    return end_unix_us <= 0 || static_cast<uint64_t>(end_unix_us) <= atomic_load(&h->durable_unix_us);
}

// a + b, held at the bounds of int64_t instead of overflowing (a horizon read from elsewhere
// may be any value).
inline int64_t saturating_add(int64_t a, int64_t b) noexcept {
    int64_t sum = 0;
    if (!__builtin_add_overflow(a, b, &sum)) return sum;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

// The new horizon to make durable before handing out an id ending at end_unix_us.
inline int64_t horizon_target(int64_t end_unix_us, int64_t now_unix_us) noexcept {
    return saturating_add(end_unix_us > now_unix_us ? end_unix_us : now_unix_us, kReserveAheadUs);
}

// Whether a horizon another server wrote (a moved database's, a publisher's) may be adopted:
// every generator of this server moves above it, so one far ahead of this server's clock (a
// clock that jumped ahead on the server that wrote it, or a damaged value) would date every
// id that far ahead, or use a layout's time up for good. A real one lies a reserve ahead of
// the writer's ids, which run at most a lead ahead of its clock.
inline bool adoptable_horizon(int64_t horizon_unix_us, int64_t now_unix_us, int64_t max_ahead_us) noexcept {
    return horizon_unix_us <= saturating_add(now_unix_us, max_ahead_us);
}

}  // namespace idgen
