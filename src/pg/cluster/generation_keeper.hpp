// The registry's generation kept by the registry worker: it reads the key `generation` (look())
// and acts on the core's judgement (core/registry/registry_generation.hpp, where the
// rules are argued) - makes or joins a generation, notices that etcd forgot and marks it, seeds
// what this server knows back into the registry while the cluster waits, and ends the wait when
// idgen_registry_rebuild() asks. While it is not usable, the worker claims no node id, moves no
// horizon and serves no batch.
#pragma once

#include <cstdint>
#include <string>

#include "pg/cluster/held_nodes.hpp"
#include "pg/cluster/lease_keeper.hpp"
#include "pg/cluster/namespace_batches.hpp"
#include "pg/cluster/registry_connection.hpp"

namespace idgen::pg {

struct GenerationKeeper {
    RegistryConnection &r;
    HeldNodes &held;
    LeaseKeeper &keeper;
    NamespaceBatches &batches;
    bool usable = false;  // this server works under the generation etcd holds
    int64_t next_look_ns = 0;

    // Reads the generation key and acts on it: when the worker looks at the cluster anyway
    // (`due`: the watch ended or reported a change, or its safety look), when etcd answered at a
    // revision below one it showed before, and once a second while not usable; at most once a
    // second (now: monotonic_ns()). A server at rest with a watch up reads it every 10 s.
    void look(int64_t now, bool due);
    // Answers idgen_registry_rebuild() when one is asked.
    void serve_rebuild();

private:
    std::string key() const { return r.prefix + "generation"; }
    std::string floor_key() const { return r.prefix + "floor"; }
    void create();
    void join(const std::string &token);
    void stop(const std::string &why);
    void mark(bool found, const std::string &value);
    void seed(const std::string &episode);
    bool seeded_count(const std::string &episode, size_t *servers);
    void answer_rebuild(uint64_t asked, bool ok, const std::string &detail);
};

}  // namespace idgen::pg
