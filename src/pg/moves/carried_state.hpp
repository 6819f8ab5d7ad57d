// Folder src/pg/moves: what a server takes over when a database or a role moves to it - the
// carried state of dumps and upgrades, the subscriptions of logical replication, and the
// adoption after an archive recovery.
//
// The state that travels with a database when it moves without its data directory
// (pg_dump/pg_restore into another server, pg_upgrade into a new cluster): a copy of what
// protects uniqueness, kept in the extension's configuration table `reserved_state`, which
// pg_dump includes and pg_upgrade carries.
//
// The table has a fixed set of rows, made by CREATE EXTENSION: row 0 holds a horizon reserved
// ahead (idgen's server horizon only covers ids of the data directory it lives in), rows 1..64
// the lease counters of the id spaces this database's sessions used, and the guards of its
// subscriptions (subscription_guard.hpp), which never travel. Before an id is handed out
// in this database, its row already covers it:
// - the horizon row is moved kCarriedReserveUs beyond the id's time, so it is written about once
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

#include "core/records/carried_rows.hpp"

#include "pg/leases/backfill_leases.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// The two calls of this copy that the cover makes (cover.hpp; module.cpp registers them):
// generators never call them directly.
//
// Makes sure this database's horizon row covers an id ending at end_unix_us (cheap when it
// does: a backend-local comparison).
void ensure_carried_horizon(SharedState *state, int64_t end_unix_us, const char *what);

// Records in this database's rows that `space` has leased every namespace below state.next and
// handed out no offset at or above state.bound.
void carry_lease(SharedState *state, const LeaseSpace &space, const LeaseState &lease, const char *what);

// Once per session and database: adopts rows written by another cluster.
void adopt_carried_state_once(SharedState *state);

// The table's rows, as pg_dump writes them or another server's table holds them, and the rules
// of what a row may become.
using records::CarriedRow;
using records::kGuardBroughtRows;
using records::kGuardKind;

// Takes a row of another server's table over (the restore trigger, and the state read from a
// publisher): adopted into the server's state and, with `into_rows`, merged into this
// database's rows. Guard rows are skipped.
void take_over_row(SharedState *state, const CarriedRow &row, bool into_rows, const char *what);

// The guard rows of this database (at most `max`); their count.
int read_guard_rows(CarriedRow *out, int max);

// Writes the guard of subscription `subid` (a free row when it has none), keeping the flags it
// had and adding `flags`; false when no row is free, even after freeing the rows of
// subscriptions that are gone (a CREATE SUBSCRIPTION rolled back after its guard was written,
// a subscription of another database dropped there).
bool write_guard_row(int64_t subid, int64_t publisher_node, int32_t state, int32_t flags, const char *what);

// Frees the guard row of subscription `subid`.
void free_guard_row(int64_t subid);

}  // namespace idgen::pg
