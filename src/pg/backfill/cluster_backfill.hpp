// Retrospective ids in cluster mode (idgen.registry): namespaces leased in batches from the
// registry's counters (registry_batch.hpp says why no two servers can use one) instead of the
// server's own, through the registry worker, which alone talks to etcd. The namespaces are also
// counted in the server's own lease table, so that a dump or a standby carries them as ever;
// none is recycled (the lease table's counts below include other servers' namespaces), in
// cluster mode or after it.
#pragma once

#include <cstdint>

#include "pg/cluster/cluster_shared.hpp"
#include "pg/leases/backfill_leases.hpp"

namespace idgen::pg {

// The node id retrospective ids of `what` carry, and the key of the space they are counted in:
// in cluster mode the node id this server holds (55000 when detached), its space the node id's
// own (a node id that changes hands goes on with its counter); otherwise idgen.node_id (55000
// without, with `hint`) and the server's one space (key 0).
struct RetrospectiveNode {
    int32_t node_id;
    uint64_t space_key;
};
RetrospectiveNode retrospective_node(const char *what, const char *hint);

// The server's one space of `space`'s kind (key 0), in which cluster mode also counts the ids that
// carry the node id: a server that leaves cluster mode goes on there, and a database dumped from
// it carries it (a standalone server with the same node id counts there). False for the kinds
// whose spaces do not depend on the node id.
bool server_space_of(const LeaseSpace &space, LeaseSpace *out);

// A namespace of `space` (of `limit`) from this server's batch, leasing the next batch through
// the worker when it is used up (at most idgen.max_wait; 55000 then). False when the registry's
// counter has reached the limit: the space is used up in the whole cluster. `per_local`: how
// many of these namespaces one namespace of the server's own table spans (snowflake_at's
// windows of a reserved node id; 1 otherwise).
bool cluster_lease_namespace(BackfillShared *state, ClusterShared *c, const LeaseSpace &space, uint64_t limit,
                             uint64_t per_local, const char *what, uint64_t *ns);

}  // namespace idgen::pg
