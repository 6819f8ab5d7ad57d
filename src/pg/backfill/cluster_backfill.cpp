// The backends' side of retrospective ids in cluster mode (cluster_backfill.hpp): taking a
// namespace from the server's batch, asking the registry worker for the next batch.
#include "pg/backfill/cluster_backfill.hpp"

#include <algorithm>

#include "pg/boundary/settings.hpp"
#include "pg/cluster/node_source.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
}

namespace idgen::pg {

RetrospectiveNode retrospective_node(const char *what, const char *hint) {
    const int32_t node = require_server_node(what, hint);
    // In cluster mode the node id's own space; otherwise the server's one space.
    return RetrospectiveNode{node, cluster_shared() != nullptr ? static_cast<uint64_t>(node) : 0};
}

// The space's cell, claimed when it has none (a free one, else an idle one: no batch left, no
// request open, so the worker will not touch it); under c->lock. ERROR 53400 (lock released)
// when every cell is busy with another space.
static BatchCell *cell_locked(ClusterShared *c, const LeaseSpace &space, uint64_t limit, uint64_t per_local,
                              const char *what) {
    BatchCell *free_cell = nullptr, *idle_cell = nullptr;
    for (BatchCell &b : c->batches) {
        if (b.kind == static_cast<uint32_t>(space.kind) && b.key == space.key) return &b;
        if (free_cell == nullptr && b.kind == 0) free_cell = &b;
        if (idle_cell == nullptr && b.next >= b.end && b.answered >= b.asked) idle_cell = &b;
    }
    BatchCell *cell = free_cell != nullptr ? free_cell : idle_cell;
    if (cell == nullptr) {
        LWLockRelease(c->lock);
        ereport(ERROR,
                (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                 errmsg("%s: idgen leases namespaces of at most %d id spaces from the registry at once", what,
                        kBatchSpaces)));
    }
    *cell =
        BatchCell{static_cast<uint32_t>(space.kind), space.key, limit, per_local, 0, 0, 0, 0, false, 0, 0};
    return cell;
}

bool server_space_of(const LeaseSpace &space, LeaseSpace *out) {
    if (!backfill::carries_server_node(space.kind)) return false;
    *out = LeaseSpace{space.kind, InvalidOid, 0};
    return true;
}

// What the server counts of `space` itself, in its own table's namespaces: its own takes, and
// what it took over (a dump restored here, a publisher's state). Outside cluster mode the ids
// that carry the node id were counted in one space (key 0) whatever the node id.
static uint64_t own_count(BackfillShared *s, const LeaseSpace &space) {
    uint64_t own = lease_state(s, space).next;
    LeaseSpace server_space;
    if (server_space_of(space, &server_space)) own = std::max(own, lease_state(s, server_space).next);
    return own;
}

bool cluster_lease_namespace(BackfillShared *s, ClusterShared *c, const LeaseSpace &space, uint64_t limit,
                             uint64_t per_local, const char *what, uint64_t *ns) {
    int64_t give_up_ns = 0;
    for (;;) {
        const uint64_t own = own_count(s, space);  // lease_lock: never under c->lock
        LWLockAcquire(c->lock, LW_EXCLUSIVE);
        BatchCell *b = cell_locked(c, space, limit, per_local, what);
        // A count beyond the batches this cell was given (rounded up to whole namespaces of the
        // server's table) is another server's, taken over: nothing at or below it is used, also
        // not the rest of a batch in hand.
        if (own > (b->taken_end + per_local - 1) / per_local) b->floor = std::max(b->floor, own * per_local);
        if (b->next < b->floor) b->next = std::min(b->floor, b->end);
        if (b->next < b->end) {
            *ns = b->next++;
            LWLockRelease(c->lock);
            // Counted in the server's own table too (file, WAL: a standby, a dump carry it),
            // before it is used; for the ids that carry the node id also in the space of key 0,
            // which the server goes on with if it leaves cluster mode. The bound made unknown:
            // the namespaces below the count are other servers' too, so the space must never be
            // recycled, even after cluster mode (lease_spaces.hpp, kBoundUnknown).
            const LeaseState counted{*ns / per_local + 1, backfill::kBoundUnknown, 0};
            raise_lease(s, space, counted);
            LeaseSpace server_space;
            if (server_space_of(space, &server_space)) raise_lease(s, server_space, counted);
            return true;
        }
        if (b->used_up) {
            LWLockRelease(c->lock);
            return false;
        }
        const uint64_t asked = ++b->asked;
        Latch *worker = c->worker_latch;
        LWLockRelease(c->lock);
        if (worker != nullptr) SetLatch(worker);
        // Until the worker answered this request (or a later one), or the cell was filled.
        const bool answered = await_worker(c, &give_up_ns, [&] {
            LWLockAcquire(c->lock, LW_SHARED);
            const bool go_on = b->answered >= asked || b->next < b->end || b->used_up;
            LWLockRelease(c->lock);
            return go_on;
        });
        if (!answered) {
            LWLockAcquire(c->lock, LW_SHARED);
            char error[kErrorText];
            strlcpy(error, c->last_error, sizeof error);
            LWLockRelease(c->lock);
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("%s: no namespace could be leased from the registry within idgen.max_wait", what),
                     errdetail("The registry worker's last error: %s", error[0] ? error : "none")));
        }
    }
}

}  // namespace idgen::pg
