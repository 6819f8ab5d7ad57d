// The node ids the registry worker holds, claimed, kept ahead and given back in the order that
// held_nodes.hpp argues.
#include "pg/cluster/held_nodes.hpp"

#include <algorithm>

#include "core/base/atomic_word.hpp"
#include "core/registry/node_choice.hpp"
#include "core/registry/registry_horizon.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/shared_memory/shared_state.hpp"
#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

HeldNodes::HeldNodes(RegistryConnection &conn) : r(conn), claims(max_sequencers) {}

std::string HeldNodes::pool_of(int i) const {
    return i < 0 ? "server" : "sequencer/" + RegistryConnection::escape(r.c->claims[i].name);
}
uint64_t *HeldNodes::word_of(int i) { return i < 0 ? &r.c->server_word : &r.c->claims[i].word; }
Held &HeldNodes::held_of(int i) { return i < 0 ? server : claims[i]; }

void HeldNodes::publish(int i, ClaimState state, int32_t node) {
    uint64_t *w = word_of(i);
    atomic_store(w, ClaimWord::next(ClaimWord{atomic_load(w)}, state, node).raw);
}

// Gives node id of pool i back (snowflake_detach, a destroy): withdrawn from the generators
// first; then its horizon lowered to what was really issued under it (the next holder starts
// there instead of a reserve ahead), and the key deleted.
void HeldNodes::release(int i, ClaimState state) {
    Held &h = held_of(i);
    publish(i, state, -1);
    if (h.held && r.lease_id != 0) {
        if (h.published) store_last_horizon(h);
        if (!r.etcd.remove_if(h.node_key, r.identity)) {
            r.note_error("giving a node id back");
            undeleted.push_back(h.node_key);
        }
    }
    h = Held{};
}

// Once published node id h is withdrawn from the generators (its word changed, or the
// deadline is 0): every id issued under it was drawn from a position already taken, so the
// server's issued bound covers them, and so does the published horizon; the lower of the two
// is stored. It is at least the last holder's horizon: the clocks were raised above it, and
// the horizon published at or above it, before h was published (claim_node). If the write
// fails, the stored value stays the published horizon, which is higher: safe. False when
// etcd did not answer.
//
// The fence: a backend draws (a sequentially consistent read-modify-write of a clock) and
// then loads the word and the deadline (cluster_admit); we store the word or the deadline
// and then load the clocks. Without a full fence between our store and our loads, both
// sides could read the other's old value (store buffering: x86 lets a load pass an earlier
// store), and an id above the bound we read would be handed out under the old node id. With
// it, either the backend's load sees the withdrawal (it draws again) or our loads see its
// draw.
bool HeldNodes::store_last_horizon(const Held &h) {
    atomic_fence();
    const int64_t mark = std::min(issued_bound_unix_us(r.s), static_cast<int64_t>(atomic_load(&r.c->horizon_us)));
    bool done = false;
    if (r.etcd.put_if(h.node_key, r.identity, h.horizon_key, std::to_string(mark), &done)) return true;
    r.note_error("storing a node id's last horizon");
    return false;
}

void HeldNodes::retry_deletes() {
    std::vector<std::string> failed;
    for (const std::string &key : undeleted)
        if (r.lease_id != 0 && !r.etcd.remove_if(key, r.identity)) failed.push_back(key);
    undeleted.swap(failed);
}

int64_t HeldNodes::reserve_us() const {
    return (int64_t{max_lead_ms} * 2 + int64_t{registry_lease_s} * 1000) * 1000;
}

// Stores the registry horizon for every node id held, then publishes it. One transaction for up
// to kMaxTxnKeys node ids: each horizon is written only if its node id's key still holds our
// identity, as one write each would, but all in one request. When one key is no longer ours the
// transaction writes nothing, and each is written on its own (store_each) to find which: the
// horizon is published only once stored for every node id still held.
bool HeldNodes::advance(int64_t at_least) {
    const int64_t target = registry::advance_target(generator_now_unix_ns(r.s) / 1000, reserve_us(), at_least);
    const std::string value = std::to_string(target);
    std::vector<int> held_pools;
    for (int i = -1; i < max_sequencers; i++)
        if (held_of(i).held) held_pools.push_back(i);
    for (size_t start = 0; start < held_pools.size(); start += etcd::kMaxTxnKeys) {
        const std::vector<int> chunk(held_pools.begin() + start,
                                     held_pools.begin() + std::min(held_pools.size(), start + etcd::kMaxTxnKeys));
        std::vector<std::string> guards, keys;
        for (int i : chunk) {
            guards.push_back(held_of(i).node_key);
            keys.push_back(held_of(i).horizon_key);
        }
        bool all = false;
        if (!r.etcd.put_all_if(guards, r.identity, keys, value, &all)) {
            r.note_error("storing the registry horizon");
            return false;
        }
        if (!all && !store_each(chunk, value)) return false;
    }
    atomic_raise(&r.c->horizon_us, static_cast<uint64_t>(target));
    return true;
}

// The horizon written for each pool of `pools` on its own; a node id whose key is no longer ours
// (the lease expired) is withdrawn. False when etcd did not answer.
bool HeldNodes::store_each(const std::vector<int> &pools, const std::string &value) {
    for (int i : pools) {
        Held &h = held_of(i);
        bool done = false;
        if (!r.etcd.put_if(h.node_key, r.identity, h.horizon_key, value, &done)) {
            r.note_error("storing the registry horizon");
            return false;
        }
        if (!done) {  // the key is no longer ours: stop using it
            publish(i, ClaimState::detached, -1);
            h = Held{};
        }
    }
    return true;
}

// Which node ids 0 .. live - 1 of `pool` are taken in etcd (*used); false when etcd did not
// answer.
bool HeldNodes::used_node_ids(const std::string &pool, int32_t live, std::vector<bool> *used) {
    std::vector<etcd::KeyValue> taken;
    if (!r.etcd.range(r.prefix + "node/" + pool + "/", &taken)) {
        r.note_error("reading node ids");
        return false;
    }
    *used = registry::taken_node_ids(taken, r.identity, undeleted, live);
    return true;
}

// Claims the lowest free node id of pool i (0 .. live - 1).
bool HeldNodes::claim_node(int i, int32_t live) {
    const std::string pool = pool_of(i);
    std::vector<bool> used;
    if (!used_node_ids(pool, live, &used)) return false;
    for (int32_t n = 0; n < live; n++) {
        if (used[static_cast<size_t>(n)]) continue;
        const std::string suffix = pool + "/" + std::to_string(n);
        bool created = false;
        if (!r.etcd.create(r.prefix + "node/" + suffix, r.identity, r.lease_id, &created)) {
            r.note_error("claiming a node id");
            return false;
        }
        if (!created) continue;  // taken since we looked
        Held &h = held_of(i);
        h = Held{true, n, r.prefix + "node/" + suffix, r.prefix + "horizon/" + suffix};
        bool found = false;
        std::string stored;
        if (!r.etcd.get(h.horizon_key, &found, &stored)) {
            r.note_error("reading a node id's horizon");
            release(i, ClaimState::detached);
            return false;
        }
        int64_t last = 0;
        if (found && (!etcd::parse_int64(stored, &last) || last < 0)) {  // never guess below a horizon we cannot read
            r.note_error("node id " + h.node_key + " has an unreadable horizon \"" + stored + "\"");
            release(i, ClaimState::detached);
            continue;
        }
        if (last > 0) take_over(last);
        if (!store_first_horizon(h, last) || !h.held) {
            release(i, ClaimState::detached);
            return false;
        }
        h.published = true;
        publish(i, ClaimState::attached, n);
        return true;
    }
    return false;
}

// The new node id's horizon must be at least the published one before it is used.
// Usually that is all: only its key is written. A last holder's horizon that runs past
// the reserve (we resume above it) moves the horizon of every node id held (and may find h's
// key no longer ours: then h is no longer held). False when it was not stored.
bool HeldNodes::store_first_horizon(const Held &h, int64_t last) {
    const int64_t published = static_cast<int64_t>(atomic_load(&r.c->horizon_us));
    bool stored_ok = false;
    if (registry::needs_advance(published, generator_now_unix_ns(r.s) / 1000, reserve_us())) {
        stored_ok = advance(std::max(last, published));
    } else if (!r.etcd.put_if(h.node_key, r.identity, h.horizon_key, std::to_string(published), &stored_ok)) {
        r.note_error("storing the registry horizon");
        stored_ok = false;
    }
    return stored_ok;
}

// Every generator resumes above the last holder's horizon, whatever our clock says.
void HeldNodes::take_over(int64_t horizon_unix_us) {
    LWLockAcquire(r.s->horizon_lock, LW_EXCLUSIVE);
    raise_generators(r.s, horizon_unix_us, true);
    LWLockRelease(r.s->horizon_lock);
}

void HeldNodes::withdraw_all(bool forget) {
    for (int i = -1; i < max_sequencers; i++)
        if (held_of(i).held) {
            publish(i, ClaimState::detached, -1);
            if (forget) held_of(i) = Held{};
        }
}

bool HeldNodes::store_last_horizons() {
    for (int i = -1; i < max_sequencers; i++)
        if (held_of(i).published && !store_last_horizon(held_of(i))) return false;
    return true;
}

}  // namespace idgen::pg
