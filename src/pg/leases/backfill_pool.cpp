// The shared pool of parked namespaces under pool_lock (backfill_pool.hpp).
#include "pg/leases/backfill_pool.hpp"

#include "pg/leases/backfill_shared.hpp"

namespace idgen::pg {

bool adopt_parked(BackfillShared *s, const LeaseSpace &space, uint64_t per_namespace, uint64_t *ns,
                  uint32_t *starts) {
    LWLockAcquire(s->pool_lock, LW_EXCLUSIVE);
    const bool got =
        backfill::pool_adopt(s->pool.slots, kPoolSlots, backfill::space_id(space), per_namespace, ns, starts);
    LWLockRelease(s->pool_lock);
    return got;
}

void park_namespace(BackfillShared *s, const LeaseSpace &space, uint64_t per_namespace, uint64_t ns,
                    const uint32_t *starts) {
    LWLockAcquire(s->pool_lock, LW_EXCLUSIVE);
    backfill::pool_park(s->pool.slots, kPoolSlots, backfill::space_id(space), per_namespace, ns, starts);
    LWLockRelease(s->pool_lock);
    ConditionVariableBroadcast(&s->parked);
}

void count_in_use(BackfillShared *s, const LeaseSpace &space, uint64_t limit, int64_t delta) {
    LWLockAcquire(s->pool_lock, LW_EXCLUSIVE);
    BackfillPool::Use *u = backfill::cell_of(s->pool.uses, space);  // nullptr: see BackfillPool::uses
    if (u != nullptr) {
        if (limit != 0) u->limit = limit;
        if (delta < 0 && u->in_use < static_cast<uint64_t>(-delta))
            u->in_use = 0;
        else
            u->in_use += delta;
    }
    LWLockRelease(s->pool_lock);
    if (delta < 0) ConditionVariableBroadcast(&s->parked);  // one fewer that could come back
}

SpaceCounts space_counts(BackfillShared *s, const LeaseSpace &space) {
    SpaceCounts c{0, 0, 0};
    LWLockAcquire(s->pool_lock, LW_SHARED);
    if (const BackfillPool::Use *u = backfill::find_cell(s->pool.uses, space))
        c = SpaceCounts{u->limit, 0, u->in_use};
    c.pooled = backfill::pool_count(s->pool.slots, kPoolSlots, backfill::space_id(space));
    LWLockRelease(s->pool_lock);
    return c;
}

}  // namespace idgen::pg
