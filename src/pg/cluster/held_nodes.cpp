// What the core's rules for the node ids held do to this server: see held_nodes.hpp.
#include "pg/cluster/held_nodes.hpp"

#include "core/base/atomic_word.hpp"
#include "core/registry/key_value.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

HeldNodes::HeldNodes(RegistryConnection &conn)
    : registry::NodeHolder(conn.etcd, *this, conn, max_sequencers), r(conn) {}

std::string HeldNodes::pool_name(int pool) {
    return pool < 0 ? "server" : "sequencer/" + registry::key_segment(r.c->claims[pool].name);
}

uint64_t *HeldNodes::word_of(int pool) {
    return pool < 0 ? &r.c->server_word : &r.c->claims[pool].word;
}

void HeldNodes::publish(int pool, ClaimState state, int32_t node) {
    if (state == ClaimState::attached) r.remember_writes();
    uint64_t *w = word_of(pool);
    atomic_store(w, ClaimWord::next(ClaimWord{atomic_load(w)}, state, node).raw);
}

void HeldNodes::take_over(int64_t horizon_us) {
    LWLockAcquire(r.s->horizon_lock, LW_EXCLUSIVE);
    raise_generators(r.s, horizon_us, true);
    LWLockRelease(r.s->horizon_lock);
}

int64_t HeldNodes::generator_now_us() {
    return generator_now_unix_ns(r.s) / 1000;
}

// Twice the lead ids may run ahead of the clock, and one lease ttl.
int64_t HeldNodes::reserve_us() {
    return (int64_t{max_lead_ms} * 2 + int64_t{registry_lease_s} * 1000) * 1000;
}

// The fence: a backend draws (a sequentially consistent read-modify-write of a clock) and then
// loads the word and the deadline (cluster_admit); we have stored the word or the deadline and
// now load the clocks. Without a full fence between our store and our loads, both sides could
// read the other's old value (store buffering: x86 lets a load pass an earlier store), and an id
// above the bound we read would be handed out under the old node id. With it, either the
// backend's load sees the withdrawal (it draws again) or our loads see its draw.
int64_t HeldNodes::issued_bound_us() {
    atomic_fence();
    return issued_bound_unix_us(r.s);
}

int64_t HeldNodes::published_horizon_us() {
    return static_cast<int64_t>(atomic_load(&r.c->horizon_us));
}

void HeldNodes::publish_horizon(int64_t us) {
    r.remember_writes();
    atomic_raise(&r.c->horizon_us, static_cast<uint64_t>(us));
    answer_backends(r.c);
}

void HeldNodes::note_error(const std::string &what) {
    r.note_error(what);
}

}  // namespace idgen::pg
