// The adoption at the end of archive recovery (adoption.hpp).
#include "pg/moves/adoption.hpp"

#include "pg/boundary/settings.hpp"
#include "pg/boundary/wall_clock.hpp"
#include "pg/leases/backfill_leases.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// Under horizon_lock, so that a backend that reads archive_recovery_pending false (without the
// lock) finds everything raised: the flag is cleared last. The file first: a crash right after
// promotion must not forget the margin. The lease skip takes lease_lock under horizon_lock, the
// order both slices allow.
void adopt_after_archive_recovery() {
    SharedState *s = shared_state_or_null();
    if (s == nullptr || !s->archive_recovery_pending) return;
    LWLockAcquire(s->horizon_lock, LW_EXCLUSIVE);
    if (!s->archive_recovery_pending) {
        LWLockRelease(s->horizon_lock);
        return;
    }
    const int64_t floor = s->horizon_written_us + int64_t{failover_margin_ms} * 1000;
    write_horizon_locked(s, floor);
    raise_generators(s, floor, true);
    if (failover_margin_ms > 0) skip_lost_leases(backfill_shared());
    s->adopted_from = AdoptedFrom::archive_recovery;
    s->adopted_horizon_us = floor;
    s->adopted_at_us = now_unix_us();
    s->archive_recovery_pending = false;
    LWLockRelease(s->horizon_lock);
}

}  // namespace idgen::pg
