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

// The new horizon to make durable before handing out an id ending at end_unix_us.
inline int64_t horizon_target(int64_t end_unix_us, int64_t now_unix_us) noexcept {
    return (end_unix_us > now_unix_us ? end_unix_us : now_unix_us) + kReserveAheadUs;
}

}  // namespace idgen
