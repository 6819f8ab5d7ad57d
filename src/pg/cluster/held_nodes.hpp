// The node ids the registry worker holds for this server (the server's own, and one per
// Snowflake sequencer in use): claiming them in etcd, keeping each one's horizon there ahead of
// the ids, publishing them to the generators and withdrawing them. The order of the steps is
// the argument (registry_lease.hpp, registry_horizon.hpp):
// - a node id is published to the generators only after the generators were raised above its
//   stored horizon and the registry horizon was stored for it;
// - the registry horizon is published only after etcd stored it for every node id we hold,
//   each write conditional on the node id's key still holding our identity;
// - a node id is withdrawn from the generators (its word changes) before its key is deleted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/registry_connection.hpp"

namespace idgen::pg {

// One node id this server holds (held), or none.
struct Held {
    bool held = false;
    int32_t node = -1;
    std::string node_key, horizon_key;
    // Published to the generators: ids may have been issued under it. A node id claimed but
    // never published (its claim failed half-way) had none, and its stored horizon, the last
    // holder's, must stay as it is: it is never written on give-back.
    bool published = false;
};

// Pool i: the server's own node id for i < 0, claim i's (its sequencer's) otherwise.
struct HeldNodes {
    RegistryConnection &r;
    Held server;
    std::vector<Held> claims;
    std::vector<std::string> undeleted;  // node id keys given back whose delete failed: again each round

    explicit HeldNodes(RegistryConnection &conn);

    std::string pool_of(int i) const;
    uint64_t *word_of(int i);
    Held &held_of(int i);

    void publish(int i, ClaimState state, int32_t node);
    void release(int i, ClaimState state);
    bool store_last_horizon(const Held &h);
    void retry_deletes();
    int64_t reserve_us() const;
    bool advance(int64_t at_least);
    bool claim_node(int i, int32_t live);

    // Withdraws every node id held from the generators (its word changes); with `forget`, they
    // are no longer held here either (the lease, and the keys with it, are gone).
    void withdraw_all(bool forget);
    // Stores the last horizon of every node id published (store_last_horizon), all of them
    // withdrawn before; false at the first write etcd did not answer.
    bool store_last_horizons();

private:
    bool used_node_ids(const std::string &pool, int32_t live, std::vector<bool> *used);
    bool store_each(const std::vector<int> &pools, const std::string &value);
    bool store_first_horizon(const Held &h, int64_t last);
    void take_over(int64_t horizon_unix_us);
};

}  // namespace idgen::pg
