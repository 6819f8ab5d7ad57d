// The node id a generator's ids carry, read in one place: idgen.node_id, a Citus node's group
// (idgen.node_id_source = 'citus'), or in cluster mode the node id the registry worker holds for
// the server or for a sequencer. Every generator and view
// that needs the node id its ids carry asks here, so that none reads the setting beside the
// registry. (The subscription guards, moves/subscription_guard.cpp and
// subscription_statements.cpp, compare the setting itself with the publisher's setting: what two
// servers were configured with, not what a registry lends.)
#pragma once

#include <cstdint>

#include "pg/boundary/settings.hpp"
#include "pg/cluster/citus_group.hpp"
#include "pg/cluster/cluster_shared.hpp"

namespace idgen::pg {

// The node id a generator's ids carry: idgen.node_id, or in cluster mode one the registry
// worker holds (the server's own, or a sequencer's `claim`), read with the word it came from.
struct NodeSource {
    ClusterShared *cluster = nullptr;  // nullptr: idgen.node_id
    Claim *claim = nullptr;            // nullptr: the server's node id
    ClaimWord seen{};
    int32_t node = -1;
    int64_t give_up_ns = 0;  // cluster mode: gave_up's, for this call's waits for the registry

    void read(const char *what) {
        if (cluster == nullptr)
            node = node_id_source == kNodeIdFromCitus ? citus_group_node(what) : node_id;
        else if (claim == nullptr)
            node = cluster_server_node(cluster, what, &seen);
        else
            node = cluster_claim_node(cluster, claim, what, &seen, &give_up_ns);
    }
    const uint64_t *word() const { return claim ? &claim->word : &cluster->server_word; }
    // What the node id is, for messages.
    const char *origin() const {
        return cluster != nullptr                   ? "the registry's node id"
               : node_id_source == kNodeIdFromCitus ? "this node's Citus group"
                                                    : "idgen.node_id";
    }
};

// The server's node id for `what` (idgen.node_id, or the registry's in cluster mode).
inline NodeSource server_node(const char *what) {
    NodeSource n;
    n.cluster = cluster_shared();
    n.read(what);
    return n;
}

// The server's node id for `what`, or 55000 when it has none (idgen.node_id unset; in cluster
// mode, detached), with `hint`.
int32_t require_server_node(const char *what, const char *hint);

}  // namespace idgen::pg
