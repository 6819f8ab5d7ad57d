// The registry worker (cluster mode, idgen.registry set): the one process of a server that
// talks to etcd. It holds one lease for the server, keeps it alive every third of its ttl,
// claims node ids under it (the server's own, and one per Snowflake sequencer in use), keeps
// each node id's horizon in etcd ahead of the ids, registers and destroys sequencer
// definitions, and publishes all of it to the generators through cluster_shared.hpp.
//
// etcd's layout, under /<idgen.registry_cluster>/:
//   node/<pool>/<n>      this server's identity, under its lease: node id n of the pool is ours
//   horizon/<pool>/<n>   no lease: every id issued under node id n ends at or before it (Unix us)
//   sequencer/<name>     {"definition": {...}, "state": "active" | "destroyed"}
// where <pool> is "server" or "sequencer/<name>" (the name with '%' and '/' escaped).
//
// The order of every step is the argument (registry_lease.hpp, registry_horizon.hpp):
// - a node id is published to the generators only after the generators were raised above its
//   stored horizon and the registry horizon was stored for it;
// - the registry horizon is published only after etcd stored it for every node id we hold,
//   each write conditional on the node id's key still holding our identity;
// - a node id is withdrawn from the generators (its word changes) before its key is deleted;
// - the deadline is published from the lease's own state after every answer, and withdrawn
//   (0) before the lease is revoked at shutdown.
// Nothing here holds an LWLock across a call to etcd.
//
// C++ objects (strings, JSON) live across calls that may raise a PostgreSQL error (LWLocks,
// raise_generators): such an error longjmps to StartBackgroundWorker's handler, which reports it
// and ends the process, so the objects the longjmp skips die with it (nothing is resumed over
// them); the postmaster starts a new worker, which withdraws what this one published
// (idgen_cluster_worker_main).
#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/atomic_word.hpp"
#include "core/backfill/lease_spaces.hpp"
#include "core/registry/registry_batch.hpp"
#include "core/registry/registry_horizon.hpp"
#include "core/registry/registry_lease.hpp"
#include "core/layouts/snowflake.hpp"
#include "pg/leases/backfill_leases.hpp"
#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/etcd_client.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/shared_memory/shared_state.hpp"
#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/xlog.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

PGDLLEXPORT void idgen_cluster_worker_main(Datum);
}

namespace idgen::pg {
namespace {

using nlohmann::json;

struct Held {
    bool held = false;
    int32_t node = -1;
    std::string node_key, horizon_key;
    // Published to the generators: ids may have been issued under it. A node id claimed but
    // never published (its claim failed half-way) had none, and its stored horizon, the last
    // holder's, must stay as it is: it is never written on give-back.
    bool published = false;
};

struct Worker {
    ClusterShared *c;
    SharedState *s;
    etcd::Client etcd;
    std::string prefix;
    registry::Lease lease;
    int64_t lease_id = 0;
    std::string identity;
    Held server;
    std::vector<Held> claims;
    std::vector<bool> registered;
    std::vector<int64_t> retry_at_ns;  // per claim: when to look for a free node id again unasked
    std::vector<std::string> undeleted;  // node id keys given back whose delete failed: again each round
    int64_t next_refresh_ns = 0;
    bool usable = false;  // as last published to the view's counters

    Worker(ClusterShared *cs, SharedState *ss)
        : c(cs), s(ss), etcd(registry, std::max<long>(200, registry_lease_s * 1000L / 6)),
          prefix(std::string("/") + registry_cluster + "/"), lease(int64_t{registry_margin_ms} * 1000000),
          claims(max_sequencers), registered(max_sequencers, false), retry_at_ns(max_sequencers, 0) {}

    void note_error(const std::string &what) {
        LWLockAcquire(c->lock, LW_EXCLUSIVE);
        strlcpy(c->last_error, (what + ": " + etcd.error()).c_str(), sizeof c->last_error);
        LWLockRelease(c->lock);
    }

    static std::string escape(const char *name) {
        std::string out;
        for (const char *p = name; *p; p++) {
            if (*p == '%' || *p == '/') {
                char buf[4];
                snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(*p));
                out += buf;
            } else {
                out += *p;
            }
        }
        return out;
    }
    std::string pool_of(int i) const { return i < 0 ? "server" : "sequencer/" + escape(c->claims[i].name); }
    uint64_t *word_of(int i) { return i < 0 ? &c->server_word : &c->claims[i].word; }
    Held &held_of(int i) { return i < 0 ? server : claims[i]; }

    void publish(int i, ClaimState state, int32_t node) {
        uint64_t *w = word_of(i);
        atomic_store(w, ClaimWord::next(ClaimWord{atomic_load(w)}, state, node).raw);
    }

    // Gives node id of pool i back (snowflake_detach, a destroy): withdrawn from the generators
    // first; then its horizon lowered to what was really issued under it (the next holder starts
    // there instead of a reserve ahead), and the key deleted.
    void release(int i, ClaimState state) {
        Held &h = held_of(i);
        publish(i, state, -1);
        if (h.held && lease_id != 0) {
            if (h.published) store_last_horizon(h);
            if (!etcd.remove_if(h.node_key, identity)) {
                note_error("giving a node id back");
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
    bool store_last_horizon(const Held &h) {
        atomic_fence();
        const int64_t mark = std::min(issued_bound_unix_us(s), static_cast<int64_t>(atomic_load(&c->horizon_us)));
        bool done = false;
        if (etcd.put_if(h.node_key, identity, h.horizon_key, std::to_string(mark), &done)) return true;
        note_error("storing a node id's last horizon");
        return false;
    }

    void retry_deletes() {
        std::vector<std::string> failed;
        for (const std::string &key : undeleted)
            if (lease_id != 0 && !etcd.remove_if(key, identity)) failed.push_back(key);
        undeleted.swap(failed);
    }

    int64_t reserve_us() const { return (int64_t{max_lead_ms} * 2 + int64_t{registry_lease_s} * 1000) * 1000; }

    // Stores the registry horizon for every node id held, then publishes it.
    bool advance(int64_t at_least) {
        const int64_t target = registry::advance_target(generator_now_unix_ns(s) / 1000, reserve_us(), at_least);
        const std::string value = std::to_string(target);
        for (int i = -1; i < max_sequencers; i++) {
            Held &h = held_of(i);
            if (!h.held) continue;
            bool done = false;
            if (!etcd.put_if(h.node_key, identity, h.horizon_key, value, &done)) {
                note_error("storing the registry horizon");
                return false;
            }
            if (!done) {  // the key is no longer ours (the lease expired): stop using it
                publish(i, ClaimState::detached, -1);
                h = Held{};
            }
        }
        atomic_raise(&c->horizon_us, static_cast<uint64_t>(target));
        return true;
    }

    // Claims the lowest free node id of pool i (0 .. live - 1).
    bool claim_node(int i, int32_t live) {
        const std::string pool = pool_of(i);
        std::vector<etcd::KeyValue> taken;
        if (!etcd.range(prefix + "node/" + pool + "/", &taken)) {
            note_error("reading node ids");
            return false;
        }
        // A key of ours in a pool we hold nothing of is a claim whose answer was lost (create
        // recognises it as ours): free to us. One given back whose delete failed is not: it
        // goes (retry_deletes).
        std::vector<bool> used(static_cast<size_t>(live), false);
        for (const etcd::KeyValue &kv : taken) {
            const long n = strtol(kv.key.c_str() + kv.key.rfind('/') + 1, nullptr, 10);
            const bool leftover = kv.value == identity &&
                                  std::find(undeleted.begin(), undeleted.end(), kv.key) == undeleted.end();
            if (n >= 0 && n < live && !leftover) used[static_cast<size_t>(n)] = true;
        }
        for (int32_t n = 0; n < live; n++) {
            if (used[static_cast<size_t>(n)]) continue;
            const std::string suffix = pool + "/" + std::to_string(n);
            bool created = false;
            if (!etcd.create(prefix + "node/" + suffix, identity, lease_id, &created)) {
                note_error("claiming a node id");
                return false;
            }
            if (!created) continue;  // taken since we looked
            Held &h = held_of(i);
            h = Held{true, n, prefix + "node/" + suffix, prefix + "horizon/" + suffix};
            bool found = false;
            std::string stored;
            if (!etcd.get(h.horizon_key, &found, &stored)) {
                note_error("reading a node id's horizon");
                release(i, ClaimState::detached);
                return false;
            }
            int64_t last = 0;
            if (found && (!etcd::parse_int64(stored, &last) || last < 0)) {  // never guess below a horizon we cannot read
                note_error("node id " + h.node_key + " has an unreadable horizon \"" + stored + "\"");
                release(i, ClaimState::detached);
                continue;
            }
            if (last > 0) take_over(last);
            // The new node id's horizon must be at least the published one before it is used.
            // Usually that is all: only its key is written. A last holder's horizon that runs past
            // the reserve (we resume above it) moves the horizon of every node id held.
            const int64_t published = static_cast<int64_t>(atomic_load(&c->horizon_us));
            bool stored_ok = false;
            if (registry::needs_advance(published, generator_now_unix_ns(s) / 1000, reserve_us())) {
                stored_ok = advance(std::max(last, published));
            } else if (!etcd.put_if(h.node_key, identity, h.horizon_key, std::to_string(published), &stored_ok)) {
                note_error("storing the registry horizon");
                stored_ok = false;
            }
            if (!stored_ok || !h.held) {
                release(i, ClaimState::detached);
                return false;
            }
            h.published = true;
            publish(i, ClaimState::attached, n);
            return true;
        }
        return false;
    }

    // Every generator resumes above the last holder's horizon, whatever our clock says.
    void take_over(int64_t horizon_unix_us) {
        LWLockAcquire(s->horizon_lock, LW_EXCLUSIVE);
        raise_generators(s, horizon_unix_us, true);
        LWLockRelease(s->horizon_lock);
    }

    void lease_gone() {
        atomic_store(&c->deadline_ns, uint64_t{0});
        for (int i = -1; i < max_sequencers; i++)
            if (held_of(i).held) {
                publish(i, ClaimState::detached, -1);
                held_of(i) = Held{};
            }
        lease.lost();
        lease_id = 0;
        LWLockAcquire(c->lock, LW_EXCLUSIVE);
        c->lease_id = 0;
        LWLockRelease(c->lock);
    }

    void keep_lease(int64_t now) {
        if (lease_id == 0) {
            int64_t id = 0, ttl = 0;
            if (!etcd.grant(registry_lease_s, &id, &ttl)) {
                note_error("granting a lease");
                return;
            }
            lease_id = id;
            lease.answered(now, ttl * 1000);
            char buf[128];
            snprintf(buf, sizeof buf, "system %llu port %d pid %d lease %lld",
                     static_cast<unsigned long long>(GetSystemIdentifier()), PostPortNumber, MyProcPid,
                     static_cast<long long>(lease_id));
            identity = buf;
            LWLockAcquire(c->lock, LW_EXCLUSIVE);
            c->lease_id = lease_id;
            LWLockRelease(c->lock);
        } else if (now >= lease.renew_at_ns()) {
            int64_t ttl = 0;
            if (!etcd.keep_alive(lease_id, &ttl)) {
                note_error("keeping the lease alive");
            } else if (ttl <= 0) {
                note_error("the lease expired in etcd");
                lease_gone();
            } else {
                lease.answered(now, ttl * 1000);
            }
        }
        atomic_store(&c->deadline_ns, static_cast<uint64_t>(published_deadline_ns(lease.deadline_ns())));
    }

    // The view's counters: an attach when the server's node id becomes usable, a detach when
    // it stops being usable.
    void count_transitions(int64_t now) {
        const bool now_usable = server.held && lease.held(now);
        if (now_usable == usable) return;
        usable = now_usable;
        LWLockAcquire(c->lock, LW_EXCLUSIVE);
        if (usable) {
            c->attaches++;
            c->last_error[0] = '\0';
        } else {
            c->detaches++;
        }
        LWLockRelease(c->lock);
    }

    static json definition_value(const json &definition, const char *state) {
        return json{{"definition", definition}, {"state", state}};
    }
    static bool destroyed_value(const json &value) {
        if (!value.is_object()) return false;
        const auto state = value.find("state");
        return state != value.end() && state->is_string() && *state == "destroyed";
    }

    // kRegister: the cluster has this definition, or gets it.
    ClaimAnswer register_definition(int i, const std::string &definition_text, bool create, std::string *detail) {
        const json definition = json::parse(definition_text, nullptr, false);
        if (definition.is_discarded()) {
            *detail = "bad definition " + definition_text;
            return ClaimAnswer::failed;
        }
        const std::string key = prefix + "sequencer/" + escape(c->claims[i].name);
        const std::string active = definition_value(definition, "active").dump();
        for (int attempt = 0; attempt < 3; attempt++) {
            bool found = false;
            std::string current;
            if (!etcd.get(key, &found, &current)) {
                *detail = etcd.error();
                return ClaimAnswer::failed;
            }
            if (found) {
                const json cur = json::parse(current, nullptr, false);
                const bool destroyed = destroyed_value(cur);
                if (!destroyed) {
                    if (cur.is_object() && cur.contains("definition") && cur["definition"] == definition)
                        return ClaimAnswer::ok;
                    *detail = cur.is_object() && cur.contains("definition") ? cur["definition"].dump() : current;
                    return ClaimAnswer::conflict;
                }
                if (!create) return ClaimAnswer::destroyed;
            }
            bool done = false;
            std::string seen;
            if (!etcd.swap(key, current, !found, active, &done, &seen)) {
                *detail = etcd.error();
                return ClaimAnswer::failed;
            }
            if (done) return ClaimAnswer::ok;
        }
        *detail = "the definition kept changing in etcd";
        return ClaimAnswer::failed;
    }

    // kDestroy: marks the definition destroyed in etcd, if it is the one dropped (`dropped`, ""
    // for any), and gives the node id back.
    bool destroy(int i, const std::string &dropped) {
        const std::string key = prefix + "sequencer/" + escape(c->claims[i].name);
        bool found = false;
        std::string current;
        if (!etcd.get(key, &found, &current)) return false;
        const json cur = json::parse(current, nullptr, false);
        const bool ours = dropped.empty() || (cur.is_object() && cur.contains("definition") &&
                                              cur["definition"] == json::parse(dropped, nullptr, false));
        if (found && ours && cur.is_object() && cur.contains("definition") && !destroyed_value(cur)) {
            bool done = false;
            std::string seen;
            if (!etcd.swap(key, current, false, definition_value(cur["definition"], "destroyed").dump(), &done, &seen))
                return false;
            if (!done) return false;  // changed meanwhile: again next round
        }
        release(i, ClaimState::destroyed);
        registered[static_cast<size_t>(i)] = false;
        return true;
    }

    // What backends asked of claim i, done and answered.
    void serve(int i) {
        Claim *claim = &c->claims[i];
        LWLockAcquire(c->lock, LW_EXCLUSIVE);
        const uint32_t requests = claim->requests;
        const uint64_t asked = claim->asked;
        const bool wanted = claim->wanted;
        const std::string definition = claim->definition;
        const std::string dropped = claim->dropped;
        const int32_t live = claim->live_nodes;
        claim->requests = 0;
        claim->destroying = (requests & kDestroy) != 0;  // a create meanwhile replaces the definition
        LWLockRelease(c->lock);

        ClaimAnswer answer = ClaimAnswer::ok;
        std::string detail;
        // A destroy first: a drop committed before a create of the same name was asked.
        if (requests & kDestroy) {
            const bool destroyed = destroy(i, dropped);
            LWLockAcquire(c->lock, LW_EXCLUSIVE);
            if (!destroyed) claim->requests |= kDestroy;  // etcd unreachable: kept for the next round
            claim->destroying = false;
            LWLockRelease(c->lock);
            if (!destroyed) {
                note_error("destroying a sequencer");
                answer = ClaimAnswer::failed;
                detail = "destroying the dropped sequencer first: " + etcd.error();
            }
        }
        if (answer == ClaimAnswer::ok) {  // (after a destroy alone nothing below applies: not wanted)
            if ((requests & kRegister) && !definition.empty()) {
                const bool was_registered = registered[static_cast<size_t>(i)];
                answer = register_definition(i, definition, (requests & kCreate) != 0, &detail);
                // Destroyed in the cluster, or (for a definition registered before) destroyed and
                // defined otherwise, which refresh would find within a second: as refresh does,
                // the node id goes back and the claim is destroyed. A failure (etcd unreachable)
                // changes nothing: refresh keeps watching a registered definition.
                if (answer == ClaimAnswer::destroyed || (answer == ClaimAnswer::conflict && was_registered)) {
                    release(i, ClaimState::destroyed);
                    registered[static_cast<size_t>(i)] = false;
                } else if (answer == ClaimAnswer::ok) {
                    registered[static_cast<size_t>(i)] = true;
                    if (ClaimWord{atomic_load(&claim->word)}.state() != ClaimState::attached)
                        publish(i, ClaimState::detached, -1);
                }
            }
            if ((requests & kDetach) && claims[i].held) release(i, ClaimState::detached);
            // Asked (or once a second unasked, so that a node id that frees up is taken).
            const int64_t now = monotonic_ns();
            if (answer == ClaimAnswer::ok && wanted && registered[static_cast<size_t>(i)] && !claims[i].held &&
                lease_id != 0 && (requests != 0 || now >= retry_at_ns[static_cast<size_t>(i)])) {
                retry_at_ns[static_cast<size_t>(i)] = now + 1000000000;
                if (!claim_node(i, live)) answer = ClaimAnswer::no_free_node;
            }
        }
        if (requests != 0) {
            LWLockAcquire(c->lock, LW_EXCLUSIVE);
            claim->answered = asked;
            claim->answer = answer;
            strlcpy(claim->detail, detail.c_str(), sizeof claim->detail);
            LWLockRelease(c->lock);
        }
    }

    // Definitions destroyed, or destroyed and defined otherwise, elsewhere: read every second.
    void refresh(int64_t now) {
        if (now < next_refresh_ns) return;
        next_refresh_ns = now + 1000000000;
        std::vector<etcd::KeyValue> defs;
        if (!etcd.range(prefix + "sequencer/", &defs)) {
            note_error("reading sequencer definitions");
            return;
        }
        LWLockAcquire(c->lock, LW_SHARED);
        const int count = c->claim_count;
        LWLockRelease(c->lock);
        for (const etcd::KeyValue &kv : defs) {
            const json cur = json::parse(kv.value, nullptr, false);
            for (int i = 0; i < count; i++) {
                if (!registered[static_cast<size_t>(i)] || kv.key != prefix + "sequencer/" + escape(c->claims[i].name))
                    continue;
                LWLockAcquire(c->lock, LW_SHARED);
                const json ours = json::parse(c->claims[i].definition, nullptr, false);
                LWLockRelease(c->lock);
                const bool same = cur.is_object() && cur.contains("definition") && cur["definition"] == ours;
                if (destroyed_value(cur) || !same) {
                    release(i, ClaimState::destroyed);
                    registered[static_cast<size_t>(i)] = false;
                }
            }
        }
    }

    // Namespace batches that backends asked for (cluster_backfill.hpp): the space's counter in
    // the registry swapped up by a batch (registry_batch.hpp), the batch published only once the
    // swap is stored. Not tied to the lease: a swapped batch is this server's for good.
    static const char *kind_name(uint32_t kind) {
        switch (static_cast<backfill::LeaseKind>(kind)) {
            case backfill::LeaseKind::uuid_auto: return "uuid_auto";
            case backfill::LeaseKind::uuid_given: return "uuid_given";
            case backfill::LeaseKind::uuid_v7: return "uuid_v7";
            case backfill::LeaseKind::snowflake: return "snowflake";
            default: return "other";
        }
    }
    std::string counter_key(uint32_t kind, uint64_t key) const {
        return prefix + "backfill/" + kind_name(kind) + "/" + std::to_string(key);
    }
    // Counted before this server ran in cluster mode, per kind (the ids that carry the node id
    // were not counted per node id then) or per space in reserved node ids (snowflake_at).
    std::string floor_key(uint32_t kind, uint64_t key) const {
        return static_cast<backfill::LeaseKind>(kind) == backfill::LeaseKind::snowflake
                   ? counter_key(kind, key) + "/nodes"
                   : prefix + "backfill/" + kind_name(kind) + "/floor";
    }

    bool read_counter(const std::string &key, bool *found, std::string *value, uint64_t *n) {
        int64_t v = 0;
        if (!etcd.get(key, found, value)) return false;
        if (*found && (!etcd::parse_int64(*value, &v) || v < 0)) return false;
        *n = *found ? static_cast<uint64_t>(v) : 0;
        return true;
    }

    // Raises a counter of the registry to at least `to` (compare-and-swap; never lowers it).
    bool raise_counter(const std::string &key, uint64_t to) {
        for (int attempt = 0; attempt < 8; attempt++) {
            bool found = false, done = false;
            std::string value, seen;
            uint64_t current = 0;
            if (!read_counter(key, &found, &value, &current)) return false;
            if (current >= to) return true;
            if (!etcd.swap(key, value, !found, std::to_string(to), &done, &seen)) return false;
            if (done) return true;
        }
        return false;
    }

    // Once per worker, before any batch: what the server counted before (outside cluster mode,
    // or before a restart) raised into the registry, so that no server's batch starts below
    // namespaces this one used. A server that backfilled before cluster mode was turned on is
    // covered once its worker has run this; batches other servers took before then are not.
    bool seeded = false;
    void seed_counters() {
        const backfill::LeaseTable table = lease_table(backfill_shared());
        for (const LeaseTable::Cell &cell : table.cells) {
            const auto kind = static_cast<uint32_t>(cell.space.kind);
            if (cell.space.kind == backfill::LeaseKind::free || cell.state.next == 0) continue;
            const bool pooled = cell.space.kind == backfill::LeaseKind::snowflake ||
                                ((cell.space.kind == backfill::LeaseKind::uuid_auto ||
                                  cell.space.kind == backfill::LeaseKind::uuid_v7) && cell.space.key == 0);
            if (!raise_counter(pooled ? floor_key(kind, cell.space.key) : counter_key(kind, cell.space.key),
                               cell.state.next)) {
                note_error("raising the registry's namespace counters to this server's");
                return;
            }
        }
        seeded = true;
    }

    // The next batch for `cell` (a copy): above the registry's counter, the floor the backend
    // saw, and the counts servers brought from before cluster mode.
    bool lease_batch(const BatchCell &cell, registry::Batch *batch) {
        const std::string key = counter_key(cell.kind, cell.key);
        bool found = false;
        std::string value;
        uint64_t before = 0;
        if (!read_counter(floor_key(cell.kind, cell.key), &found, &value, &before)) return false;
        const uint64_t floor = std::max(cell.floor, before * (static_cast<backfill::LeaseKind>(cell.kind) ==
                                                                       backfill::LeaseKind::snowflake
                                                                   ? cell.per_local
                                                                   : 1));
        const uint64_t want = std::max<uint64_t>(1, std::min<uint64_t>(16, cell.limit / 64));
        for (int attempt = 0; attempt < 8; attempt++) {  // another server's swap came first: again
            bool done = false;
            std::string seen;
            uint64_t current = 0;
            if (!read_counter(key, &found, &value, &current)) return false;
            *batch = registry::take_batch(std::max(current, floor), want, cell.limit);
            if (batch->first == batch->end) return true;  // used up: nothing to take
            if (!etcd.swap(key, value, !found, std::to_string(batch->end), &done, &seen)) return false;
            if (done) return true;
        }
        return false;
    }

    void serve_batches() {
        if (!seeded) seed_counters();
        if (!seeded) return;
        for (int i = 0; i < kBatchSpaces; i++) {
            keep_lease(monotonic_ns());  // many batches in one round must not starve the lease
            LWLockAcquire(c->lock, LW_EXCLUSIVE);
            BatchCell asked = c->batches[i];
            const bool open = asked.kind != 0 && asked.answered < asked.asked;
            if (open && asked.next < asked.end) c->batches[i].answered = asked.asked;  // filled meanwhile
            LWLockRelease(c->lock);
            if (!open || asked.next < asked.end) continue;
            registry::Batch batch;
            if (!lease_batch(asked, &batch)) {
                note_error("leasing namespaces (etcd did not answer, or other servers' swaps kept coming first)");
                continue;
            }
            LWLockAcquire(c->lock, LW_EXCLUSIVE);
            BatchCell &cell = c->batches[i];
            if (cell.kind == asked.kind && cell.key == asked.key) {  // backends only take from it meanwhile
                if (batch.first == batch.end) {
                    cell.used_up = true;
                } else {
                    cell.next = batch.first;
                    cell.end = batch.end;
                    cell.taken_end = batch.end;
                }
                cell.answered = asked.asked;
            }
            LWLockRelease(c->lock);
        }
    }

    void round() {
        const int64_t now = monotonic_ns();
        keep_lease(now);
        if (lease_id != 0 && lease.held(now)) {
            if (!server.held) claim_node(-1, snowflake::kMaxNodes);
            LWLockAcquire(c->lock, LW_SHARED);
            const int count = c->claim_count;
            LWLockRelease(c->lock);
            for (int i = 0; i < count; i++) {
                keep_lease(monotonic_ns());  // many claims in one round must not starve the lease
                if (lease_id == 0) break;
                serve(i);
            }
            retry_deletes();
            refresh(now);
            if (registry::needs_advance(static_cast<int64_t>(atomic_load(&c->horizon_us)),
                                        generator_now_unix_ns(s) / 1000, reserve_us()))
                advance(static_cast<int64_t>(atomic_load(&c->horizon_us)));
        }
        serve_batches();  // after the lease's own business, which must not wait behind it
        count_transitions(monotonic_ns());
    }

    // At shutdown: every node id withdrawn (the deadline first), their last horizons stored,
    // then the lease revoked (the keys go with it; the horizons stay). A fast shutdown waits for
    // this worker, and with etcd unreachable each call costs a timeout per endpoint: so nothing is
    // written once the lease is past its deadline, and nothing more after the first call etcd
    // does not answer. What is left undone is safe: a stored horizon not lowered stays the
    // published one (higher), and the keys expire with the lease.
    void shutdown() {
        if (lease_id == 0) return;
        atomic_store(&c->deadline_ns, uint64_t{0});
        for (int i = -1; i < max_sequencers; i++)
            if (held_of(i).held) publish(i, ClaimState::detached, -1);
        if (!lease.held(monotonic_ns())) return;
        for (int i = -1; i < max_sequencers; i++)
            if (held_of(i).published && !store_last_horizon(held_of(i))) return;
        etcd.revoke(lease_id);
    }
};

}  // namespace
}  // namespace idgen::pg

using namespace idgen;
using namespace idgen::pg;

void idgen_cluster_worker_main(Datum) {
    pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    BackgroundWorkerUnblockSignals();
    ClusterShared *c = cluster_shared();
    SharedState *s = shared_state_or_null();
    if (c == nullptr || s == nullptr) proc_exit(0);  // not in cluster mode: never again
    static Worker *worker = new Worker(c, s);  // lives as long as the process
    // A worker restarted after a failure knows nothing of its predecessor's lease, which etcd
    // may expire any moment: nothing it published may stay in use. Every node id is withdrawn
    // (claims go back to pending, so their next use asks to register and attach again), and
    // the deadline cleared, before this worker publishes anything of its own.
    atomic_store(&c->deadline_ns, uint64_t{0});
    worker->publish(-1, ClaimState::detached, -1);
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    c->worker_latch = MyLatch;
    for (int i = 0; i < c->claim_count; i++) {
        if (c->claims[i].destroying) {  // its predecessor died destroying it: done again
            c->claims[i].destroying = false;
            c->claims[i].requests |= kDestroy;
        }
        if (ClaimWord{atomic_load(&c->claims[i].word)}.state() != ClaimState::destroyed)
            worker->publish(i, c->claims[i].wanted ? ClaimState::pending : ClaimState::detached, -1);
    }
    LWLockRelease(c->lock);
    while (!ShutdownRequestPending) {
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        worker->round();
        const int64_t now = monotonic_ns();
        const int64_t renew = worker->lease.renew_at_ns();
        long wait_ms = 100;
        if (renew > now && (renew - now) / 1000000 < wait_ms) wait_ms = static_cast<long>((renew - now) / 1000000) + 1;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
    }
    worker->shutdown();
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    c->worker_latch = nullptr;
    LWLockRelease(c->lock);
    proc_exit(1);  // not 0, which would unregister it: terminated alone, it starts again after 1 s
}

namespace idgen::pg {

void register_cluster_worker() {
    BackgroundWorker w;
    memset(&w, 0, sizeof w);
    w.bgw_flags = BGWORKER_SHMEM_ACCESS;
    w.bgw_start_time = BgWorkerStart_RecoveryFinished;  // a standby holds no node ids
    w.bgw_restart_time = 1;
    strlcpy(w.bgw_library_name, "idgen", sizeof w.bgw_library_name);
    strlcpy(w.bgw_function_name, "idgen_cluster_worker_main", sizeof w.bgw_function_name);
    strlcpy(w.bgw_name, "idgen registry worker", sizeof w.bgw_name);
    strlcpy(w.bgw_type, "idgen registry worker", sizeof w.bgw_type);
    RegisterBackgroundWorker(&w);
}

}  // namespace idgen::pg
