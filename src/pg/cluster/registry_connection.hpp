// What every part of the registry worker (cluster_worker.cpp) shares: cluster mode's and the
// generators' shared memory, the one etcd client, the lease the server holds its node ids under
// with the identity its keys carry, and where the keys lie in etcd (under
// /<idgen.registry_cluster>/, laid out as core/registry/node_holder.hpp's Registration says).
#pragma once

#include <cstdint>
#include <string>

#include "core/registry/node_holder.hpp"
#include "core/registry/registry_lease.hpp"
#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/etcd_client.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// prefix "/<idgen.registry_cluster>/", identity and lease_id: registry::Registration's.
struct RegistryConnection : registry::Registration {
    ClusterShared *c;
    SharedState *s;
    etcd::Client etcd;
    registry::Lease lease;

    RegistryConnection(ClusterShared *cs, SharedState *ss);

    // The view's last error: `what`, and the etcd client's error.
    void note_error(const std::string &what);

    // A sequencer's name as one segment of a key ('%' and '/' escaped).
    static std::string escape(const char *name);

    // The key of claim i's sequencer definition.
    std::string definition_key(int i) const;
};

}  // namespace idgen::pg
