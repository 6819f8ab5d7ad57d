// The node ids the registry worker holds for this server (the server's own, and one per
// Snowflake sequencer in use). The rules - which node id to claim, the order of claiming,
// keeping each one's horizon ahead in etcd, withdrawing and giving back - are the core's
// (core/registry/node_holder.hpp, where the order is argued); this is what they do to the
// server: the claim words and the registry horizon the generators read, raising the generators
// above a last holder's horizon, the issued bound read after a fence, the view's error.
#pragma once

#include <cstdint>
#include <string>

#include "core/registry/node_holder.hpp"

#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/registry_connection.hpp"

namespace idgen::pg {

using registry::Held;

// Pool i: the server's own node id for i < 0, claim i's (its sequencer's) otherwise.
struct HeldNodes : registry::ServerSide, registry::NodeHolder {
    RegistryConnection &r;

    explicit HeldNodes(RegistryConnection &conn);

    std::string pool_name(int pool) override;
    void publish(int pool, ClaimState state, int32_t node) override;
    void take_over(int64_t horizon_us) override;
    int64_t generator_now_us() override;
    int64_t reserve_us() override;
    int64_t issued_bound_us() override;
    int64_t published_horizon_us() override;
    void publish_horizon(int64_t us) override;
    void note_error(const std::string &what) override;

private:
    uint64_t *word_of(int pool);
};

}  // namespace idgen::pg
