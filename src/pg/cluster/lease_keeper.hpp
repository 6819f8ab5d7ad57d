// The registry worker's lease, the one under which this server holds its node ids: granted,
// kept alive every third of its ttl, and the deadline the generators check published from the
// lease's own state after every answer (registry_lease.hpp). A lease that etcd no longer knows
// takes every node id with it.
#pragma once

#include <cstdint>

#include "pg/cluster/held_nodes.hpp"
#include "pg/cluster/registry_connection.hpp"

namespace idgen::pg {

struct LeaseKeeper {
    RegistryConnection &r;
    HeldNodes &held;

    // Grants a lease when there is none, or keeps it alive when that is due (now: monotonic_ns());
    // then publishes the lease's deadline (unless a grant failed: there is no lease).
    void keep_lease(int64_t now);
    // etcd lost the lease: the deadline withdrawn (0), every node id with it, and a new lease
    // granted next time.
    void lease_gone();
};

}  // namespace idgen::pg
