// Folder src/pg/leases: the durable lease store of retrospective ids and its shared memory.
//
// The slice of shared memory that retrospective ids own: the durable lease table with what each
// space keeps in memory only, and the pool of parked namespaces: its layout and what protects
// each field. The caller that lists every slice (module.cpp) requests it and hands it its locks;
// it is started in backfill_leases.cpp (starting it is mostly reading the lease file).
//
// What protects each field:
// - lease_lock: leases, lease_runtime (leasing a namespace, once per session and timestamp-table
//   turnover; raising a space's bound). Held across the lease file's fsync and the WAL flush;
//   released before the wait for synchronous standbys. May be taken under horizon_lock (the
//   skip at the end of archive recovery), never the other way round; never with slot_lock.
// - pool_lock: pool (taken when a session adopts a parked namespace, leases one to count it, and
//   parks its namespaces at its end). Held to copy one parked namespace (16 KiB) or to count;
//   never across I/O, never with another idgen lock.
// - parked: a condition variable (its own spinlock), broadcast after a namespace was parked or
//   a session stopped counting one, for the sessions that wait for a namespace to come back.
// Redo (the startup process) takes the same locks as the backends it stands in for.
#pragma once

#include <cstdint>

#include "core/backfill/backfill_pool.hpp"
#include "core/backfill/lease_spaces.hpp"

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/xlogdefs.h"
#include "storage/condition_variable.h"
#include "storage/lwlock.h"
}

namespace idgen::pg {

// The spaces, their durable state and the table of it: src/core/backfill/lease_spaces.hpp.
using backfill::kBoundUnknown;
using backfill::kLeaseSpaces;
using backfill::LeaseKind;
using backfill::LeaseSpace;
using backfill::LeaseState;
using backfill::LeaseTable;
static_assert(sizeof(Oid) == sizeof(LeaseSpace::database) && InvalidOid == 0,
              "a lease space's database is an Oid, 0 where the space has none");

// What a space has in memory only, indexed like LeaseTable.cells, under lease_lock:
// - the namespaces leased before this server began generating (at startup, or replayed before a
//   promotion), which it may hand out again above the bound: [next, end), made at startup and
//   by redo;
// - the end of the space's last WAL record, which a session that relies on the space's state
//   waits for (synchronous standbys), also when another session wrote it.
struct LeaseRuntime {
    uint64_t next;
    uint64_t end;
    XLogRecPtr record_end;
};

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

struct BackfillShared {
    // Never change after startup.
    LWLock *lease_lock;
    LWLock *pool_lock;
    bool leases_unreadable;  // the lease file exists but cannot be trusted
    // Namespaces of retrospective ids handed out so far and their offset bounds
    // (backfill_leases.hpp), and the namespaces this server may recycle; under lease_lock.
    LeaseTable leases;
    LeaseRuntime lease_runtime[kLeaseSpaces];
    // Namespaces handed back by ended sessions, and namespaces in use per space, under
    // pool_lock. Emptied by a crash (shared memory is made afresh).
    BackfillPool pool;
    ConditionVariable parked;  // see the notes at the top
};

Size backfill_shared_size();

// Finds or makes the slice (from the shared-memory startup hook, under AddinShmemInitLock); the
// first time since the postmaster started, or after a crash, the lease table is read from its file.
void start_backfill_shared(LWLock *lease_lock, LWLock *pool_lock);

// The slice, or nullptr when idgen was not preloaded.
BackfillShared *backfill_shared();

}  // namespace idgen::pg
