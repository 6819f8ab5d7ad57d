// The deadline arithmetic of a registry lease: the argument is in registry_lease.hpp.
#include "core/registry/registry_lease.hpp"

namespace idgen::registry {

int64_t lease_deadline_ns(int64_t sent_ns, int64_t ttl_ms, int64_t margin_ns) noexcept {
    if (ttl_ms <= 0) return 0;
    const int64_t ttl_ns = ttl_ms * 1000000;
    // ttl * (1 - 2 * drift), computed without overflow for any ttl etcd can grant (int64 s).
    const int64_t trusted_ns = ttl_ns - ttl_ns / 1000000 * (2 * kDriftPpm);
    const int64_t deadline = sent_ns + trusted_ns - margin_ns;
    return deadline > sent_ns ? deadline : 0;  // a margin as long as the ttl leaves nothing
}

void Lease::answered(int64_t sent_ns, int64_t ttl_ms) noexcept {
    if (ttl_ms <= 0) {
        lost();
        return;
    }
    const int64_t deadline = lease_deadline_ns(sent_ns, ttl_ms, margin_ns_);
    // Answers may arrive out of order; a later answer to an earlier request never moves the
    // deadline back.
    if (deadline > deadline_ns_) deadline_ns_ = deadline;
    if (sent_ns > last_sent_ns_) last_sent_ns_ = sent_ns;
    ttl_ms_ = ttl_ms;
}

int64_t Lease::renew_at_ns() const noexcept {
    if (ttl_ms_ <= 0) return 0;
    return last_sent_ns_ + ttl_ms_ * 1000000 / 3;
}

}  // namespace idgen::registry
