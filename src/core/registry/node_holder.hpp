// The node ids a server holds in the registry (its own, and one per Snowflake sequencer in use):
// claimed, kept ahead and given back, in an order that is the argument (registry_lease.hpp,
// registry_horizon.hpp):
// - a node id is published to the generators only after the generators were raised above its
//   stored horizon and the registry horizon was stored for it;
// - the registry horizon is published only after the registry stored it for every node id held,
//   each write conditional on the node id's key still holding our identity;
// - a node id is withdrawn from the generators (its word changes) before its key is deleted.
// The rules are here; what they do to the server (its generators' shared memory, the view's
// error) goes through ServerSide, and the registry through RegistryStore, so that the unit tests
// drive the races with a model of each (test/unit/node_holder_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/registry/claim_word.hpp"
#include "core/registry/registry_store.hpp"

namespace idgen::registry {

// Where this server's keys lie and whose they are. The registry's layout, under the prefix:
//   node/<pool>/<n>      the holder's identity, under its lease: node id n of the pool is held
//   horizon/<pool>/<n>   no lease: every id issued under node id n ends at or before it (Unix us)
//   sequencer/<name>     {"definition": {...}, "state": "active" | "destroyed"}
// where <pool> is "server" or "sequencer/<name>" (the name with '%' and '/' escaped).
struct Registration {
    std::string prefix;    // "/<cluster name>/"
    std::string identity;  // the value of our node id keys, set when the lease is granted
    int64_t lease_id = 0;  // 0: none granted (or it is gone)
};

// What the rules do to the server, and read from it. Pool i: the server's own node id for i < 0,
// sequencer i's otherwise.
class ServerSide {
public:
    virtual ~ServerSide() = default;
    // The pool's segment of a key: "server", or "sequencer/<name escaped>".
    virtual std::string pool_name(int pool) = 0;
    // Tells the generators what is held for the pool (a new claim word).
    virtual void publish(int pool, ClaimState state, int32_t node) = 0;
    // Raises every generator above horizon_us (with a lead), whatever the clock says.
    virtual void take_over(int64_t horizon_us) = 0;
    // The generators' time: the later of the wall clock and the lead floor.
    virtual int64_t generator_now_us() = 0;
    // How far ahead of the generators' time the registry horizon is kept (its settings may
    // change while the server runs).
    virtual int64_t reserve_us() = 0;
    // A bound on the end of every id issued so far, read after a full fence (the caller has just
    // withdrawn a node id: a draw either sees the withdrawal or is counted here).
    virtual int64_t issued_bound_us() = 0;
    // The registry horizon as published to the generators, and raising it.
    virtual int64_t published_horizon_us() = 0;
    virtual void publish_horizon(int64_t us) = 0;
    // What failed, for the view (with the registry's own error).
    virtual void note_error(const std::string &what) = 0;
};

// One node id held (held), or none.
struct Held {
    bool held = false;
    int32_t node = -1;
    std::string node_key, horizon_key;
    // Published to the generators: ids may have been issued under it. A node id claimed but
    // never published (its claim failed half-way) had none, and its stored horizon, the last
    // holder's, must stay as it is: it is never written on give-back.
    bool published = false;
};

class NodeHolder {
public:
    NodeHolder(RegistryStore &store, ServerSide &server_side, const Registration &registration, int pools);
    NodeHolder(const NodeHolder &) = delete;
    NodeHolder &operator=(const NodeHolder &) = delete;

    Held server;                         // pool -1
    std::vector<Held> claims;            // pools 0 .. pools - 1
    std::vector<std::string> undeleted;  // node id keys given back whose delete failed: again each round

    Held &held_of(int i) { return i < 0 ? server : claims[static_cast<size_t>(i)]; }

    // Claims the lowest free node id 0 .. live - 1 of pool i, or only node id `only` when one is
    // given (>= 0): a server with a node id of its own holds it in the registry too, so that no
    // server choosing the lowest free one takes it, and it issues nothing while another holds
    // it. False when none was claimed.
    bool claim_node(int i, int32_t live, int32_t only = -1);
    // Gives pool i's node id back (a detach, a destroy): withdrawn from the generators with
    // `state` first, then its last horizon stored, then its key deleted.
    void release(int i, ClaimState state);
    // Stores the registry horizon (the reserve above the generators' time, at least at_least)
    // for every node id held, then publishes it. False when it was not stored.
    bool advance(int64_t at_least);
    // Deletes again the keys whose delete failed.
    void retry_deletes();
    // Withdraws every node id held from the generators (its word changes); with `forget`, they
    // are no longer held here either (the lease, and the keys with it, are gone).
    void withdraw_all(bool forget);
    // Stores the last horizon of every node id published, all of them withdrawn before; false
    // at the first write the registry did not answer.
    bool store_last_horizons();

private:
    bool store_last_horizon(const Held &h);
    bool store_each(const std::vector<int> &pools, const std::string &value);
    bool store_first_horizon(const Held &h, int64_t last);

    RegistryStore &store_;
    ServerSide &side_;
    const Registration &reg_;
};

}  // namespace idgen::registry
