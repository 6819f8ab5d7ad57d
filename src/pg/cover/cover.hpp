// Folder src/pg/cover: the one door through which everything that protects an id becomes
// durable before the id leaves.
//
// THE RULE. An id leaves a generator only once every copy of the state that protects it covers
// it: the server's own (the horizon file and its WAL record, flushed, confirmed by the
// synchronous standbys; the lease store, likewise) and every copy outside the data directory (a
// database's carried rows, which dumps, pg_upgrade and logical moves take along). A copy that
// lagged would let the database, moved without the data directory, hand out the id again.
//
// So every generator reads draw -> cover -> admit (cluster mode) -> hand out, and the cover is
// these functions alone: a generator's author calls cover_ids for a live id and
// cover_namespace / cover_offset for a retrospective one, and cannot forget a copy. The copies
// live in higher floors (the carried rows are part of src/pg/moves): each registers itself here
// once at load, as a WAL resource manager hands its records to their owner, so that this floor
// never calls up.
#pragma once

#include <cstdint>

#include "pg/leases/backfill_leases.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// A copy of the state outside the data directory. Both calls return only once the copy is
// durable (or raise an error, and then the id is not handed out).
struct StateCopy {
    // The copy covers every id ending at or before end_unix_us.
    void (*cover_horizon)(SharedState *state, int64_t end_unix_us, const char *what);
    // The copy holds `lease`: every namespace of `space` below lease.next is spent and no offset
    // at or above lease.bound was handed out.
    void (*cover_lease)(SharedState *state, const LeaseSpace &space, const LeaseState &lease,
                        const char *what);
};

// Adds a copy to those the door keeps (at _PG_init: in every process before any generator runs).
void register_state_copy(StateCopy copy);

// Before a live id ending at end_unix_us leaves (wall clock now_unix_us): the horizon, then every
// copy.
void cover_ids(SharedState *state, int64_t end_unix_us, int64_t now_unix_us, const char *what);

// Once a session holds a namespace of `space`, however it had it (leased, parked by another
// session, recycled), and before it hands out an id in it: the space's durable state (every
// write of the lease store is durable before it returns) in every copy. A namespace parked or
// recycled may have been leased by a session of another database, whose copy did not count it.
void cover_namespace(SharedState *state, const LeaseSpace &space, const char *what);

// Before a retrospective id at `offset` of its namespace leaves: the space's offset bound moved
// past it (by `step`, lease store first), then every copy. Returns the bound now durable.
uint32_t cover_offset(SharedState *state, const LeaseSpace &space, uint64_t offset, uint32_t step,
                      const char *what);

}  // namespace idgen::pg
