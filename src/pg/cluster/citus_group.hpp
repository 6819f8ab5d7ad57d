// The node id of a Citus node (idgen.node_id_source = 'citus'): its Citus group, which Citus
// gives each node of a cluster (the coordinator 0, each worker its own from a sequence that never
// hands one out twice) and which a worker's standby shares with its primary, as a promoted
// standby of a plain server continues its node id. A node reads it from the database that calls
// the generator (Citus lives in a database), once per backend until Citus changes its metadata.
//
// A node counts only once its cluster knows it: a server where Citus was just created also reads
// group 0, the coordinator's, until citus_add_node makes it a worker; so the group must be one of
// the cluster's active primary nodes (pg_dist_node) or the generators refuse (55000); a worker
// also asks its coordinator, which alone knows that it disabled the worker. What this
// cannot see: a group handed by an administrator to a server that is not a physical standby of
// its holder (citus_update_node to a fresh server, citus_add_node with a group id given), which
// would start that group's ids afresh; the docs say a group moves only to its holder's standby.
#pragma once

#include <cstdint>

namespace idgen::pg {

// This node's Citus group as a node id; raises 55000 where it has none (no Citus in this
// database, a node not yet added) and 22023 when it is past the largest node id.
int32_t citus_group_node(const char *what);

// The same, or -1 where citus_group_node would raise an error (for views).
int32_t citus_group_node_if_any();

// Called once at load: keeps each backend's reading fresh (relcache invalidations of Citus's
// metadata).
void register_citus_group_callback();

}  // namespace idgen::pg
