// The durable lease store of retrospective ids: for each id space ("lease space": automatic
// UUID nodes, one given UUID node, one Snowflake sequencer name of one database), the next
// namespace number not yet handed out. A namespace is handed out only after the store holding
// the number past it is written and fsynced to $PGDATA/idgen.leases, so no namespace is ever
// handed out twice, not across a crash either (RFC 4122 section 4.2.1.3's stable-storage rule,
// applied to namespaces instead of time).
//
// The lease is also WAL-logged (state_wal.hpp), so standbys and recovery replay it.
//
// Beside the counter, each space keeps a durable *offset bound*: every offset handed out in any
// namespace of the space is below it, and it is raised (file, WAL, synchronous standbys) before
// an offset at or past it is handed out, by `step` at a time, so rarely. It is what lets a
// namespace leased before a crash be used again after it (recycled): the pool of parked
// namespaces (backfill_pool.hpp) is lost with shared memory, but a recycled namespace starts
// every timestamp at the bound, above everything handed out in it before. So a crash costs at
// most `bound` offsets per namespace, not the namespaces themselves.
//
// Locking: leasing takes BackfillShared.lease_lock exclusively (rare: once per namespace, so once
// per session and per timestamp table turnover, not per id), held across the file's fsync and
// the WAL flush, not across the wait for synchronous standbys.
#pragma once

#include <cstdint>

#include "pg/leases/backfill_shared.hpp"

namespace idgen::pg {

// Reads idgen.leases into the shared table at server start (format 1 of 0.4.0 too), and makes
// every leased namespace recyclable; false when the file exists but cannot be trusted (then
// leasing refuses, XX001).
bool load_leases(LeaseTable *table, LeaseRuntime *runtime);

// A namespace number of `space` never handed out before, in *ns; false when the space has
// `limit` namespaces and all are leased. Errors: the table has no room for another space
// (53400), the file is unreadable (XX001) or cannot be written.
bool lease_namespace(BackfillShared *state, const LeaseSpace &space, uint64_t limit, const char *what,
                     uint64_t *ns);

// The error (54000) of a space whose namespaces are all leased and none can be had otherwise.
[[noreturn]] void raise_space_used_up(uint64_t limit, const char *what);

// A namespace of `space` leased before this server began generating, in *ns, with the offset
// every timestamp must start at in it (*start, the durable bound); false when there is none.
bool recycle_namespace(BackfillShared *state, const LeaseSpace &space, uint64_t *ns, uint32_t *start);

// Makes the space's offset bound durably above `offset` (raised by `step`, file, WAL,
// synchronous standbys) and returns it. Generators do not call it: cover_offset
// (src/pg/cover/cover.hpp) does, and adds the copies outside the data directory.
uint32_t ensure_lease_bound(BackfillShared *state, const LeaseSpace &space, uint64_t offset, uint32_t step,
                            const char *what);

// A copy of the whole table, taken under lease_lock (for views and for carrying it elsewhere).
LeaseTable lease_table(BackfillShared *state);

// The durable state of `space` (zeros when it has none).
LeaseState lease_state(BackfillShared *state, const LeaseSpace &space);

// Redo of a lease record: the space's state (file and memory) is raised to `to`; namespaces
// leased on the primary become recyclable here (this server generates only once promoted).
void apply_lease(BackfillShared *state, const LeaseSpace &space, const LeaseState &to);

// Raises the space's counter to at least `next` (a moved database's state), durably and
// WAL-logged.
void raise_lease(BackfillShared *state, const LeaseSpace &space, const LeaseState &to);

// At the end of archive recovery with a failover margin: every space skips one namespace, the
// one the old primary may have leased in WAL that never reached this server, and its offset
// bound moves one step, the one the old primary may have taken.
void skip_lost_leases(BackfillShared *state);

}  // namespace idgen::pg
