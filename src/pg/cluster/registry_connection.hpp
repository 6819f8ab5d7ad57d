// What every part of the registry worker (cluster_worker.cpp) shares: cluster mode's and the
// generators' shared memory, the one etcd client, the lease the server holds its node ids under
// with the identity its keys carry, and where the keys lie in etcd.
//
// etcd's layout, under /<idgen.registry_cluster>/:
//   node/<pool>/<n>      this server's identity, under its lease: node id n of the pool is ours
//   horizon/<pool>/<n>   no lease: every id issued under node id n ends at or before it (Unix us)
//   sequencer/<name>     {"definition": {...}, "state": "active" | "destroyed"}
// where <pool> is "server" or "sequencer/<name>" (the name with '%' and '/' escaped).
#pragma once

#include <cstdint>
#include <string>

#include "core/registry/registry_lease.hpp"
#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/etcd_client.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

struct RegistryConnection {
    ClusterShared *c;
    SharedState *s;
    etcd::Client etcd;
    std::string prefix;  // "/<idgen.registry_cluster>/"
    registry::Lease lease;
    int64_t lease_id = 0;  // 0: none granted (or it is gone)
    std::string identity;  // the value of our node id keys, set when the lease is granted

    RegistryConnection(ClusterShared *cs, SharedState *ss);

    // The view's last error: `what`, and the etcd client's error.
    void note_error(const std::string &what);

    // A sequencer's name as one segment of a key ('%' and '/' escaped).
    static std::string escape(const char *name);

    // The key of claim i's sequencer definition.
    std::string definition_key(int i) const;
};

}  // namespace idgen::pg
