// The rows of the state a database carries with it when it moves without its data directory (a
// dump restored elsewhere, pg_upgrade into a new cluster): their layout, and the rules by which
// a row is raised, merged, adopted and claimed. The server reads and writes the rows in place
// (the table, its locks and its WAL are its business); what a row may become is decided here,
// so that every rule can be tested without a server.
//
// Every rule only ever moves a row up: a horizon row's time, each field of a lease row's state.
// A row is never lowered, so however the rows of several servers and several dumps meet, the
// result covers every one of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backfill/lease_spaces.hpp"

namespace idgen::records {

// One row, as it lies in the tuple: every column NOT NULL and fixed-width, so that the server
// can read and overwrite it in place.
struct CarriedRow {
    int32_t slot;    // 0: the horizon; 1..kLeaseSpaces: a lease space or a subscription guard
    int32_t kind;    // LeaseKind of a lease row (0: free), kGuardKind; 0 in the horizon row
    int64_t key;     // the lease space's key; a guard's subscription oid
    int64_t value;   // the horizon (Unix microseconds), the space's next namespace; a guard's
                     // publisher node id (-1: unknown)
    int64_t writer;  // the system identifier of the cluster that wrote the row (0: never)
    int32_t bound;   // a lease row: the space's offset bound (LeaseState, as uint32 bits);
                     // a guard's GuardState
    int32_t step;    // a lease row: how far the bound moves at a time; a guard's flags
                     // (kGuardBroughtRows)
};
static_assert(sizeof(CarriedRow) == 40 && offsetof(CarriedRow, key) == 8 && offsetof(CarriedRow, bound) == 32,
              "CarriedRow lies as the table's tuple does");

constexpr int32_t kHorizonSlot = 0;

// How far ahead of an id's time the horizon row is moved: it is written about once a minute of
// id time per database, not once per id.
constexpr int64_t kCarriedReserveUs = 60 * 1000000LL;

// A row that is no lease: what the server knows of a subscription of this database. Never
// adopted, never carried elsewhere.
constexpr int32_t kGuardKind = -1;
// A guard's flag: the subscription had synchronised a table before a table left it, so it
// brought rows even when none of its tables says so now.
constexpr int32_t kGuardBroughtRows = 1;

bool is_lease_row(const CarriedRow &row) noexcept;
bool is_free_row(const CarriedRow &row) noexcept;
bool is_guard_row(const CarriedRow &row, int64_t subid) noexcept;

// The space and state of a lease row as this version counts them; `database` is the one the
// table lies in (a Snowflake space is per database). A row written under the skipping mapping
// (0.6.0 and before) reads as the same space under the fixed one, its state raised to cover it.
struct RowLease {
    backfill::LeaseSpace space;
    backfill::LeaseState state;
};
RowLease lease_of(const CarriedRow &row, uint32_t database) noexcept;

// Whether the row is the lease row of `space`.
bool holds_space(const CarriedRow &row, const backfill::LeaseSpace &space, uint32_t database) noexcept;

// The horizon row raised, as `writer`'s, to cover an id ending at end_unix_us, a reserve
// beyond it; left alone when `writer` already made it cover the id (another session did).
// *covered: what the row covers now. True when the row changed.
bool cover_horizon_row(CarriedRow *row, int64_t end_unix_us, int64_t writer, int64_t *covered) noexcept;

// `state` of `space` merged into `row` (the space's own row, or a free one it takes), each
// field the larger, as `writer`'s. *merged: the row's state now. True when the row changed.
bool merge_lease_row(CarriedRow *row, const backfill::LeaseSpace &space, const backfill::LeaseState &state,
                     uint32_t database, int64_t writer, backfill::LeaseState *merged) noexcept;

// Whether another cluster wrote the row.
bool written_elsewhere(const CarriedRow &row, int64_t writer) noexcept;

// Whether the server `writer` takes the row into its own state: every lease row, whoever wrote
// it (raising a counter to what it already is costs nothing, and a data-only restore into
// another database of the same cluster brings that cluster's rows of other databases); the
// horizon row only when another cluster wrote it (a cluster's own horizon is covered by its
// file and WAL, and taking it again would start ids up to the reserve ahead at every start).
bool to_adopt(const CarriedRow &row, int64_t writer) noexcept;

// A row another cluster wrote made `writer`'s, once its content was adopted. True when it changed.
bool claim_row(CarriedRow *row, int64_t writer) noexcept;

// The guard of subscription `subid` written into `row` (its own guard or a free row), keeping
// the flags its guard had and adding `flags`. True when the row changed.
bool put_guard_row(CarriedRow *row, int64_t subid, int64_t publisher_node, int32_t state, int32_t flags,
                   int64_t writer) noexcept;

// The guard row of `subid` freed. True when the row changed.
bool free_guard_row(CarriedRow *row, int64_t subid) noexcept;

}  // namespace idgen::records
