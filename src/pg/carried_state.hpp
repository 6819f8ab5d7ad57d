// The state that travels with a database when it moves without its data directory
// (pg_dump/pg_restore into another server, pg_upgrade into a new cluster): a copy of what
// protects uniqueness, kept in the extension's configuration table `reserved_state`, which
// pg_dump includes and pg_upgrade carries.
//
// The table has a fixed set of rows, made by CREATE EXTENSION: row 0 holds a horizon reserved
// ahead (idgen's server horizon only covers ids of the data directory it lives in), rows 1..64
// the lease counters of the id spaces this database's sessions used. Before an id is handed out
// in this database, its row already covers it:
// - the horizon row is moved kReserveAheadUs beyond the id's time, so it is written about once
//   a minute per database, not per id;
// - a lease row is written when a namespace is leased (rare).
// The rows are written in place, non-transactionally (as a sequence is), with generic WAL:
// a rolled-back transaction cannot take back a reservation that other sessions already rely
// on, and read-only transactions can still generate. Each row names the cluster that wrote it
// (its system identifier).
//
// Adoption: rows written by another cluster (after pg_upgrade; after pg_restore with
// --disable-triggers) are taken over the first time a session of this server uses a generator
// in the database: every generator is raised above them and may run idgen.max_lead ahead of
// them, the lease counters are raised, and the rows are rewritten as this cluster's. A
// pg_restore loads the rows through a trigger that adopts them at once (the rows are merged
// into the existing ones, none is added).
#pragma once

#include <cstdint>

#include "backfill_leases.hpp"
#include "shared_state.hpp"

namespace idgen::pg {

// Makes sure this database's horizon row covers an id ending at end_unix_us (cheap when it
// does: a backend-local comparison).
void ensure_carried_horizon(SharedState *state, int64_t end_unix_us, const char *what);

// Records in this database's rows that `space` has leased every namespace below state.next and
// handed out no offset at or above state.bound.
void carry_lease(SharedState *state, const LeaseSpace &space, const LeaseState &lease, const char *what);

// Once per session and database: adopts rows written by another cluster.
void adopt_carried_state_once(SharedState *state);

}  // namespace idgen::pg
