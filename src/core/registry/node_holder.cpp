// The node ids a server holds, claimed, kept ahead and given back in the order that
// node_holder.hpp argues.
#include "core/registry/node_holder.hpp"

#include <algorithm>

#include "core/registry/node_choice.hpp"
#include "core/registry/registry_horizon.hpp"

namespace idgen::registry {

NodeHolder::NodeHolder(RegistryStore &store, ServerSide &server_side, const Registration &registration,
                       int pools)
    : claims(static_cast<size_t>(pools)), store_(store), side_(server_side), reg_(registration) {}

// Withdrawn from the generators first; then the horizon lowered to what was really issued under
// the node id (the next holder starts there instead of a reserve ahead), and the key deleted.
void NodeHolder::release(int i, ClaimState state) {
    Held &h = held_of(i);
    side_.publish(i, state, -1);
    if (h.held && reg_.lease_id != 0) {
        if (h.published) store_last_horizon(h);
        if (!store_.remove_if(h.node_key, reg_.identity)) {
            side_.note_error("giving a node id back");
            undeleted.push_back(h.node_key);
        }
    }
    h = Held{};
}

// Once published node id h is withdrawn from the generators: every id issued under it was drawn
// from a position already taken, so the server's issued bound covers them, and so does the
// published horizon; the lower of the two is stored. It is at least the last holder's horizon:
// the clocks were raised above it, and the horizon published at or above it, before h was
// published (claim_node). If the write fails, the stored value stays the published horizon,
// which is higher: safe. False when the registry did not answer.
bool NodeHolder::store_last_horizon(const Held &h) {
    const int64_t mark = std::min(side_.issued_bound_us(), side_.published_horizon_us());
    bool done = false;
    if (store_.put_if(h.node_key, reg_.identity, h.horizon_key, std::to_string(mark), &done)) return true;
    side_.note_error("storing a node id's last horizon");
    return false;
}

void NodeHolder::retry_deletes() {
    std::vector<std::string> failed;
    for (const std::string &key : undeleted)
        if (reg_.lease_id != 0 && !store_.remove_if(key, reg_.identity)) failed.push_back(key);
    undeleted.swap(failed);
}

// One transaction for up to kMaxTxnKeys node ids: each horizon is written only if its node id's
// key still holds our identity, as one write each would, but all in one request. When one key is
// no longer ours the transaction writes nothing, and each is written on its own (store_each) to
// find which: the horizon is published only once stored for every node id still held.
bool NodeHolder::advance(int64_t at_least) {
    const int64_t target = advance_target(side_.generator_now_us(), side_.reserve_us(), at_least);
    const std::string value = std::to_string(target);
    std::vector<int> held_pools;
    for (int i = -1; i < static_cast<int>(claims.size()); i++)
        if (held_of(i).held) held_pools.push_back(i);
    for (size_t start = 0; start < held_pools.size(); start += kMaxTxnKeys) {
        const std::vector<int> chunk(
            held_pools.begin() + static_cast<long>(start),
            held_pools.begin() + static_cast<long>(std::min(held_pools.size(), start + kMaxTxnKeys)));
        std::vector<std::string> guards, keys;
        for (int i : chunk) {
            guards.push_back(held_of(i).node_key);
            keys.push_back(held_of(i).horizon_key);
        }
        bool all = false;
        if (!store_.put_all_if(guards, reg_.identity, keys, value, &all)) {
            side_.note_error("storing the registry horizon");
            return false;
        }
        if (!all && !store_each(chunk, value)) return false;
    }
    side_.publish_horizon(target);
    return true;
}

// The horizon written for each pool of `pools` on its own; a node id whose key is no longer ours
// (the lease expired, or was revoked, and another server may hold it now) is withdrawn. False
// when the registry did not answer.
bool NodeHolder::store_each(const std::vector<int> &pools, const std::string &value) {
    for (int i : pools) {
        Held &h = held_of(i);
        bool done = false;
        if (!store_.put_if(h.node_key, reg_.identity, h.horizon_key, value, &done)) {
            side_.note_error("storing the registry horizon");
            return false;
        }
        if (!done) {  // the key is no longer ours: stop using it
            side_.publish(i, ClaimState::detached, -1);
            h = Held{};
        }
    }
    return true;
}

bool NodeHolder::claim_node(int i, int32_t live, int32_t only) {
    const std::string pool = side_.pool_name(i);
    if (only >= live) {
        side_.note_error("node id " + std::to_string(only) + " is not among the " + std::to_string(live) +
                         " node ids of " + pool);
        return false;
    }
    std::vector<KeyValue> keys;
    if (!store_.range(reg_.prefix + "node/" + pool + "/", &keys)) {
        side_.note_error("reading node ids");
        return false;
    }
    const std::vector<bool> taken = taken_node_ids(keys, reg_.identity, undeleted, live);
    if (only >= 0 && taken[static_cast<size_t>(only)])
        side_.note_error("node id " + std::to_string(only) + " of " + pool + " is held by another server");
    const int32_t first = only >= 0 ? only : 0, end = only >= 0 ? only + 1 : live;
    for (int32_t n = first; n < end; n++) {
        if (taken[static_cast<size_t>(n)]) continue;
        const std::string suffix = pool + "/" + std::to_string(n);
        bool created = false;
        if (!store_.create(reg_.prefix + "node/" + suffix, reg_.identity, reg_.lease_id, &created)) {
            side_.note_error("claiming a node id");
            return false;
        }
        if (!created) continue;  // taken since we looked
        Held &h = held_of(i);
        h = Held{true, n, reg_.prefix + "node/" + suffix, reg_.prefix + "horizon/" + suffix, false};
        bool found = false;
        std::string stored;
        if (!store_.get(h.horizon_key, &found, &stored)) {
            side_.note_error("reading a node id's horizon");
            release(i, ClaimState::detached);
            return false;
        }
        int64_t last = 0;
        if (found &&
            (!parse_int64(stored, &last) || last < 0)) {  // never guess below a horizon we cannot read
            side_.note_error("node id " + h.node_key + " has an unreadable horizon \"" + stored + "\"");
            release(i, ClaimState::detached);
            continue;
        }
        if (last > 0) side_.take_over(last);
        if (!store_first_horizon(h, last) || !h.held) {
            release(i, ClaimState::detached);
            return false;
        }
        h.published = true;
        side_.publish(i, ClaimState::attached, n);
        return true;
    }
    return false;
}

// The new node id's horizon must be at least the published one before it is used. Usually that
// is all: only its key is written. A last holder's horizon that runs past the reserve (we resume
// above it) moves the horizon of every node id held (and may find h's key no longer ours: then h
// is no longer held). False when it was not stored.
bool NodeHolder::store_first_horizon(const Held &h, int64_t last) {
    const int64_t published = side_.published_horizon_us();
    bool stored_ok = false;
    if (needs_advance(published, side_.generator_now_us(), side_.reserve_us())) {
        stored_ok = advance(std::max(last, published));
    } else if (!store_.put_if(h.node_key, reg_.identity, h.horizon_key, std::to_string(published),
                              &stored_ok)) {
        side_.note_error("storing the registry horizon");
        stored_ok = false;
    }
    return stored_ok;
}

void NodeHolder::withdraw_all(bool forget) {
    for (int i = -1; i < static_cast<int>(claims.size()); i++)
        if (held_of(i).held) {
            side_.publish(i, ClaimState::detached, -1);
            if (forget) held_of(i) = Held{};
        }
}

bool NodeHolder::store_last_horizons() {
    for (int i = -1; i < static_cast<int>(claims.size()); i++)
        if (held_of(i).published && !store_last_horizon(held_of(i))) return false;
    return true;
}

}  // namespace idgen::registry
