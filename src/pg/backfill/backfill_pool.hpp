// The server's pool of parked namespaces of retrospective ids (issue 13), in shared memory:
// what sessions hand back when they end (backfill_sessions.cpp parks them from a
// before_shmem_exit callback), for the next session of the same id space to adopt instead of
// leasing. The logic and the safety argument are in src/core/backfill/backfill_pool.hpp; this is the
// shared memory, its lock and the per-space counts the view idgen_backfill_spaces shows.
//
// Locking: pool_lock (SharedState) protects every field of BackfillPool. It is held only to
// copy a parked namespace in or out (16 KiB) and to count; never across I/O, never with
// another idgen lock. Shared memory is emptied by a crash: parked namespaces are then spent,
// never reused, as the durable lease counter never goes back. A standby's pool is empty and
// stays so (it generates nothing); a promoted standby starts with an empty pool and lease
// counters from WAL, so namespaces parked on the old primary are never leased again.
#pragma once

#include <cstdint>

#include "core/backfill/backfill_pool.hpp"
#include "pg/backfill/backfill_leases.hpp"

namespace idgen::pg {

struct SharedState;

// Parked namespaces at once, over all id spaces (about 16 KiB each, 1 MiB in all). As many as
// the lease table has spaces (each space parked here has a lease cell), so a full pool never
// takes a space's last parked namespace for another space's (core's pool_park): a sequencer
// with one reserved node keeps it however many namespaces a busy space hands back.
constexpr uint32_t kPoolSlots = kLeaseSpaces;

struct BackfillPool {
    backfill::PoolSlot slots[kPoolSlots];  // pool_lock
    struct Use {
        LeaseSpace space;  // kind free: unused cell
        uint64_t limit;    // the space's namespaces (as its last caller said)
        uint64_t in_use;   // namespaces held by running sessions
    } uses[kLeaseSpaces];  // pool_lock; as many as lease cells, so a space that could lease has one
};

// Takes a parked namespace of `space` (laid out with `per_namespace` ids per key) out of the
// pool: true with *ns and its starts, false when none is parked.
bool adopt_parked(SharedState *state, const LeaseSpace &space, uint64_t per_namespace, uint64_t *ns,
                  uint32_t *starts);

// Parks namespace `ns` of `space` with its starts (or lets it go when the pool keeps fuller
// ones), and counts it no longer in use.
void park_namespace(SharedState *state, const LeaseSpace &space, uint64_t per_namespace, uint64_t ns,
                    const uint32_t *starts);

// Counts namespaces of `space` a session starts (delta > 0) or stops (delta < 0) holding.
void count_in_use(SharedState *state, const LeaseSpace &space, uint64_t limit, int64_t delta);

struct SpaceCounts {
    uint64_t limit, pooled, in_use;
};

// The pool's counts of `space`, for the view.
SpaceCounts space_counts(SharedState *state, const LeaseSpace &space);

}  // namespace idgen::pg
