// The durable lease store of retrospective ids: for each id space ("lease space": automatic
// UUID nodes, one given UUID node, one Snowflake sequencer name of one database), the next
// namespace number not yet handed out. A namespace is handed out only after the store holding
// the number past it is written and fsynced to $PGDATA/idgen.leases, so no namespace is ever
// handed out twice, not across a crash either (RFC 4122 section 4.2.1.3's stable-storage rule,
// applied to namespaces instead of time).
//
// The lease is also WAL-logged (state_wal.hpp), so standbys and recovery replay it.
//
// Locking: leasing takes SharedState.lease_lock exclusively (rare: once per namespace, so once
// per session and per timestamp table turnover, not per id), held across the file's fsync and
// the WAL flush, not across the wait for synchronous standbys.
#pragma once

#include <cstdint>

#include "postgres_api.hpp"

namespace idgen::pg {

struct SharedState;

enum class LeaseKind : uint32_t { free = 0, uuid_auto = 1, uuid_given = 2, snowflake = 3 };

struct LeaseSpace {
    LeaseKind kind;
    Oid database;  // Snowflake: the sequencer's database; otherwise InvalidOid
    uint64_t key;  // given UUID node, or a hash of the sequencer name; otherwise 0

    bool operator==(const LeaseSpace &o) const {
        return kind == o.kind && database == o.database && key == o.key;
    }
};

constexpr int kLeaseSpaces = 64;

struct LeaseTable {
    struct Cell {
        LeaseSpace space;
        uint64_t next;  // the next namespace number of the space
    } cells[kLeaseSpaces];
};

// Reads idgen.leases into the shared table at server start; false when the file exists but
// cannot be trusted (then leasing refuses, XX001).
bool load_leases(LeaseTable *table);

// A namespace number of `space` never handed out before. Errors: the space has `limit`
// namespaces and all are used (54000), the table has no room for another space (53400), the
// file is unreadable (XX001) or cannot be written.
uint64_t lease_namespace(SharedState *state, const LeaseSpace &space, uint64_t limit, const char *what);

// Whether `space` has a namespace never leased (below `limit`).
bool lease_left(SharedState *state, const LeaseSpace &space, uint64_t limit);

// Redo of a lease record: the space's next number (file and memory) is raised to `next`.
void apply_lease(SharedState *state, const LeaseSpace &space, uint64_t next);

// Raises the space's counter to at least `next` (a moved database's state), durably and
// WAL-logged.
void raise_lease(SharedState *state, const LeaseSpace &space, uint64_t next);

// At the end of archive recovery with a failover margin: every space skips one namespace, the
// one the old primary may have leased in WAL that never reached this server.
void skip_lost_leases(SharedState *state);

}  // namespace idgen::pg
