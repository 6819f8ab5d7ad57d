// The server's pool of parked namespaces of retrospective ids, in shared memory:
// what sessions hand back when they end (backfill_sessions.cpp parks them from a
// before_shmem_exit callback), for the next session of the same id space to adopt instead of
// leasing. The logic and the safety argument are in src/core/backfill/backfill_pool.hpp; this is the
// shared memory, its lock and the per-space counts the view idgen_backfill_spaces shows.
//
// Locking: pool_lock (BackfillShared) protects every field of BackfillPool. It is held only to
// copy a parked namespace in or out (16 KiB) and to count; never across I/O, never with
// another idgen lock. Shared memory is emptied by a crash: parked namespaces are then spent,
// never reused, as the durable lease counter never goes back. A standby's pool is empty and
// stays so (it generates nothing); a promoted standby starts with an empty pool and lease
// counters from WAL, so namespaces parked on the old primary are never leased again.
#pragma once

#include <cstdint>

#include "core/backfill/backfill_pool.hpp"

#include "pg/leases/backfill_shared.hpp"

namespace idgen::pg {

// Takes a parked namespace of `space` (laid out with `per_namespace` ids per key) out of the
// pool: true with *ns and its starts, false when none is parked.
bool adopt_parked(BackfillShared *state, const LeaseSpace &space, uint64_t per_namespace, uint64_t *ns,
                  uint32_t *starts);

// Parks namespace `ns` of `space` with its starts (or lets it go when the pool keeps fuller
// ones), and counts it no longer in use.
void park_namespace(BackfillShared *state, const LeaseSpace &space, uint64_t per_namespace, uint64_t ns,
                    const uint32_t *starts);

// Counts namespaces of `space` a session starts (delta > 0) or stops (delta < 0) holding.
void count_in_use(BackfillShared *state, const LeaseSpace &space, uint64_t limit, int64_t delta);

struct SpaceCounts {
    uint64_t limit, pooled, in_use;
};

// The pool's counts of `space`, for the view.
SpaceCounts space_counts(BackfillShared *state, const LeaseSpace &space);

}  // namespace idgen::pg
