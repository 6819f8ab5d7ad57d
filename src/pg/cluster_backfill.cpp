// The backends' side of retrospective ids in cluster mode (cluster_backfill.hpp): taking a
// namespace from the server's batch, asking the registry worker for the next batch.
#include "cluster_backfill.hpp"

#include <algorithm>

#include "settings.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
}

namespace idgen::pg {

RetrospectiveNode retrospective_node(const char *what, const char *hint) {
    if (ClusterShared *c = cluster_shared()) {
        ClaimWord seen;
        const int32_t node = cluster_server_node(c, what, &seen);
        return RetrospectiveNode{node, static_cast<uint64_t>(node)};
    }
    return RetrospectiveNode{require_node_id(what, hint), 0};
}

// The space's cell, claimed when it has none; under c->lock. ERROR 53400 (lock released) when
// every cell holds another space.
static BatchCell *cell_locked(ClusterShared *c, const LeaseSpace &space, uint64_t limit, const char *what) {
    BatchCell *free_cell = nullptr;
    for (BatchCell &b : c->batches) {
        if (b.kind == static_cast<uint32_t>(space.kind) && b.key == space.key) return &b;
        if (free_cell == nullptr && b.kind == 0) free_cell = &b;
    }
    if (free_cell == nullptr) {
        LWLockRelease(c->lock);
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("%s: idgen leases namespaces of at most %d id spaces from the registry at once", what,
                               kBatchSpaces)));
    }
    *free_cell = BatchCell{static_cast<uint32_t>(space.kind), space.key, limit, 0, 0, 0, false, 0, 0};
    return free_cell;
}

bool cluster_lease_namespace(SharedState *s, ClusterShared *c, const LeaseSpace &space, uint64_t limit,
                             uint64_t per_local, const char *what, uint64_t *ns) {
    int64_t give_up_ns = 0;
    for (;;) {
        LWLockAcquire(c->lock, LW_EXCLUSIVE);
        BatchCell *b = cell_locked(c, space, limit, what);
        if (b->next < b->end) {
            *ns = b->next++;
            LWLockRelease(c->lock);
            // Counted in the server's own table too (file, WAL: a standby, a dump carry it),
            // before it is used. Its bound made unknown: the namespaces below the count are
            // other servers' too, so the space must never be recycled, even if the server leaves
            // cluster mode (lease_spaces.hpp, kBoundUnknown).
            raise_lease(s, space, LeaseState{*ns / per_local + 1, backfill::kBoundUnknown, 0});
            return true;
        }
        if (b->used_up) {
            LWLockRelease(c->lock);
            return false;
        }
        // Namespaces the server counts that the registry may not (a dump restored here, a
        // publisher's state taken over): the batch starts above them. Outside cluster mode the
        // ids that carry the node id were counted in one space (key 0) whatever the node id.
        uint64_t own = lease_state(s, space).next;
        if (space.kind == backfill::LeaseKind::uuid_auto || space.kind == backfill::LeaseKind::uuid_v7)
            own = std::max(own, lease_state(s, LeaseSpace{space.kind, InvalidOid, 0}).next);
        if (own * per_local > b->floor) b->floor = own * per_local;
        const uint64_t asked = ++b->asked;
        Latch *worker = c->worker_latch;
        LWLockRelease(c->lock);
        if (worker != nullptr) SetLatch(worker);
        for (;;) {  // until the worker answered this request (or a later one)
            if (gave_up(&give_up_ns)) {
                LWLockAcquire(c->lock, LW_SHARED);
                char error[kErrorText];
                strlcpy(error, c->last_error, sizeof error);
                LWLockRelease(c->lock);
                ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                                errmsg("%s: no namespace could be leased from the registry within idgen.max_wait", what),
                                errdetail("The registry worker's last error: %s", error[0] ? error : "none")));
            }
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1, PG_WAIT_EXTENSION);
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
            LWLockAcquire(c->lock, LW_SHARED);
            const bool answered = b->answered >= asked;
            LWLockRelease(c->lock);
            if (answered) break;
        }
    }
}

}  // namespace idgen::pg
