// What every part of the registry worker (cluster_worker.cpp) shares: cluster mode's and the
// generators' shared memory, the one etcd client, the lease the server holds its node ids under
// with the identity its keys carry, and where the keys lie in etcd (under
// /<idgen.registry_cluster>/, laid out as core/registry/node_holder.hpp's Registration says).
#pragma once

#include <cstdint>
#include <string>

#include "core/registry/node_holder.hpp"
#include "core/registry/registry_generation.hpp"
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
    // The registry's generation as this server remembers it (generation_record.hpp), loaded at
    // start and kept by generation_keeper.hpp.
    registry::Remembered remembered;

    RegistryConnection(ClusterShared *cs, SharedState *ss);

    // The view's last error: `what`, and the etcd client's error.
    void note_error(const std::string &what);

    // Called before the worker uses what its writes to etcd made (a node id published, a horizon,
    // a batch of namespaces): the record raised to the highest revision etcd showed, so that a
    // restore that loses those writes shows this server a lower one, also after a restart.
    void remember_writes();

    // The key of claim i's sequencer definition.
    std::string definition_key(int i) const;
};

}  // namespace idgen::pg
