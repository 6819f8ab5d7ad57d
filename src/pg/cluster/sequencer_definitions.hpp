// Snowflake sequencers' definitions in the cluster, for the registry worker: what backends ask
// of each claim (register a definition, attach, detach, destroy) done in etcd and answered, and
// definitions destroyed, or destroyed and defined otherwise, elsewhere found and their claims
// destroyed here. A claim's node id itself is held_nodes.hpp's (its rules core/registry/node_holder.hpp's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/held_nodes.hpp"
#include "pg/cluster/registry_connection.hpp"

namespace idgen::pg {

struct SequencerDefinitions {
    RegistryConnection &r;
    HeldNodes &held;
    std::vector<bool> registered;  // per claim: its definition is the cluster's (refresh watches it)

    SequencerDefinitions(RegistryConnection &conn, HeldNodes &nodes);

    // look: the worker looks at the cluster this round (look_schedule.hpp): a wanted claim
    // without a node id tries for one unasked.
    void serve(int i, bool look);
    // At a look: false when etcd did not answer.
    bool refresh();

private:
    ClaimAnswer register_definition(int i, const std::string &definition_text, bool create,
                                    std::string *detail);
    bool destroy(int i, const std::string &dropped);
    ClaimAnswer destroy_first(int i, const std::string &dropped, std::string *detail);
    ClaimAnswer register_and_attach(int i, uint32_t requests, const std::string &definition, bool wanted,
                                    int32_t live, bool look, std::string *detail);
};

}  // namespace idgen::pg
