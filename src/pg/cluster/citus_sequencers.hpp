// Sequencers on Citus (idgen.node_id_source = 'citus'): snowflake_create and snowflake_drop on the
// coordinator reach the workers there are then (the SQL functions call Citus for it), and a worker
// takes a sequencer's definition from the coordinator the first time it needs one it lacks, so
// that a sequencer reaches a worker added later too, and every node defines it alike.
#pragma once

#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

// Where this node is a Citus worker whose node id is its group: asks the coordinator for the
// definition of `name` and creates it here, in the calling transaction, whatever role is calling.
// True when it did; false where this node is no such worker, in parallel mode (no write may
// start), or where the coordinator has no such sequencer. Raises 55000 when the coordinator
// cannot be asked.
bool fetch_citus_sequencer(const text *name);

}  // namespace idgen::pg
