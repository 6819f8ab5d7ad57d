// Folder src/core/registry: cluster mode's rules, argued without a server or etcd - the
// lease's deadline, the per-node-id horizon, namespace batches.
//
// The lease under which a server holds node ids in a registry (etcd in cluster mode), as the
// server itself must judge it: on its own monotonic clock, with no word from the registry.
//
// Why a deadline of our own. The registry gives a node id to another server once our lease
// has expired on the registry's clock. We must stop handing out ids under it before that,
// without asking (the registry may be unreachable, or we may have been frozen). A lease that
// the registry granted or renewed for `ttl` in answer to a request we *sent* at `sent` cannot
// expire there before sent + ttl as the registry measures it (it renewed at or after `sent`).
// Two clocks count that ttl: the registry's may run fast and ours slow, each by at most
// kDriftPpm (NTP's bound is 500 ppm; a clock off by more is broken), so ours still reads less
// than sent + ttl * (1 - 2 * drift) when the registry's reads sent + ttl. From that we take
// off a safety margin (idgen.registry_margin): the time between a generator's check and the
// id reaching the client, scheduling delays, a clock read that is a little late. Past the
// deadline the server is detached: its generators raise an error.
//
// A process frozen past its deadline (SIGSTOP, a VM paused, a long stall) wakes up detached:
// the check compares the monotonic clock *now* with the deadline, so nothing it computed
// before the freeze lets it issue. The monotonic clock keeps counting through a freeze
// (CLOCK_MONOTONIC; it does not count a suspended machine, whose late ids the horizon covers).
//
// The deadline is not the only defence: a new holder of a node id also starts above the
// horizon the old holder stored for it (registry_horizon.hpp), which holds even if a late id
// slips past the deadline.
#pragma once

#include <cstdint>

namespace idgen::registry {

constexpr int64_t kDriftPpm = 1000;  // 0.1%: twice NTP's worst, per clock

class Lease {
public:
    explicit Lease(int64_t margin_ns) noexcept : margin_ns_(margin_ns) {}

    // The registry granted or renewed the lease for ttl_ms in answer to a request sent at
    // sent_ns (monotonic). ttl_ms <= 0 says the lease is gone there: detached, for good.
    void answered(int64_t sent_ns, int64_t ttl_ms) noexcept;

    // The lease is gone (revoked, or the registry no longer knows it): detached for good; the
    // node ids must be claimed again under a new lease.
    void lost() noexcept {
        deadline_ns_ = 0;
        ttl_ms_ = 0;
    }

    // Whether ids may be handed out under the lease at monotonic time now_ns.
    bool held(int64_t now_ns) const noexcept { return now_ns < deadline_ns_; }

    // The last monotonic instant ids may be handed out at (0: no lease). Published to the
    // generators, which compare it with their own clock read.
    int64_t deadline_ns() const noexcept { return deadline_ns_; }

    // When to send the next keep-alive: a third of the ttl after the last answered request, so
    // that two keep-alives may be lost before the deadline. 0 when there is no lease.
    int64_t renew_at_ns() const noexcept;

    // The ttl of the last answer, 0 when there is no lease.
    int64_t ttl_ms() const noexcept { return ttl_ms_; }

private:
    int64_t margin_ns_;
    int64_t deadline_ns_ = 0;
    int64_t last_sent_ns_ = 0;
    int64_t ttl_ms_ = 0;
};

// The deadline of a lease renewed for ttl_ms in answer to a request sent at sent_ns.
int64_t lease_deadline_ns(int64_t sent_ns, int64_t ttl_ms, int64_t margin_ns) noexcept;

// Whether an id may be handed out at monotonic time now_ns under a published deadline.
inline bool within_deadline(int64_t deadline_ns, int64_t now_ns) noexcept {
    return now_ns < deadline_ns;
}

}  // namespace idgen::registry
