// Snowflake sequencers' definitions in etcd, registered, destroyed and watched: see
// sequencer_definitions.hpp.
#include "pg/cluster/sequencer_definitions.hpp"

#include "core/base/atomic_word.hpp"
#include "core/registry/sequencer_definition.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"

namespace idgen::pg {

SequencerDefinitions::SequencerDefinitions(RegistryConnection &conn, HeldNodes &nodes)
    : r(conn), held(nodes), registered(max_sequencers, false) {}

// kRegister: the cluster has this definition, or gets it (core/registry/sequencer_definition.hpp).
ClaimAnswer SequencerDefinitions::register_definition(int i, const std::string &definition_text, bool create,
                                                      std::string *detail) {
    const registry::RegisterResult result =
        registry::register_definition(r.etcd, r.definition_key(i), definition_text, create);
    *detail = result.outcome == registry::Registered::failed && result.detail.empty() ? r.etcd.error()
                                                                                      : result.detail;
    switch (result.outcome) {
        case registry::Registered::ok:
            return ClaimAnswer::ok;
        case registry::Registered::conflict:
            return ClaimAnswer::conflict;
        case registry::Registered::destroyed:
            return ClaimAnswer::destroyed;
        case registry::Registered::failed:
            break;
    }
    return ClaimAnswer::failed;
}

// kDestroy: marks the definition destroyed in the cluster, if it is the one dropped (`dropped`,
// "" for any), and gives the node id back.
bool SequencerDefinitions::destroy(int i, const std::string &dropped) {
    if (!registry::destroy_definition(r.etcd, r.definition_key(i), dropped)) return false;
    held.release(i, ClaimState::destroyed);
    registered[static_cast<size_t>(i)] = false;
    return true;
}

// What backends asked of claim i, done and answered.
void SequencerDefinitions::serve(int i, bool look) {
    Claim *claim = &r.c->claims[i];
    LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
    const uint32_t requests = claim->requests;
    const uint64_t asked = claim->asked;
    const bool wanted = claim->wanted;
    const std::string definition = claim->definition;
    const std::string dropped = claim->dropped;
    const int32_t live = claim->live_nodes;
    claim->requests = 0;
    claim->destroying = (requests & kDestroy) != 0;  // a create meanwhile replaces the definition
    LWLockRelease(r.c->lock);

    ClaimAnswer answer = ClaimAnswer::ok;
    std::string detail;
    // A destroy first: a drop committed before a create of the same name was asked.
    if (requests & kDestroy) answer = destroy_first(i, dropped, &detail);
    // (after a destroy alone nothing below applies: not wanted)
    if (answer == ClaimAnswer::ok)
        answer = register_and_attach(i, requests, definition, wanted, live, look, &detail);
    if (requests != 0) {
        LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
        claim->answered = asked;
        claim->answer = answer;
        strlcpy(claim->detail, detail.c_str(), sizeof claim->detail);
        LWLockRelease(r.c->lock);
        answer_backends(r.c);
    }
}

// serve's kDestroy: done, and `destroying` cleared; one that could not be done is kept for the
// next round and answered failed.
ClaimAnswer SequencerDefinitions::destroy_first(int i, const std::string &dropped, std::string *detail) {
    Claim *claim = &r.c->claims[i];
    const bool destroyed = destroy(i, dropped);
    LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
    if (!destroyed) claim->requests |= kDestroy;  // etcd unreachable: kept for the next round
    claim->destroying = false;
    LWLockRelease(r.c->lock);
    if (!destroyed) {
        r.note_error("destroying a sequencer");
        *detail = "destroying the dropped sequencer first: " + r.etcd.error();
        return ClaimAnswer::failed;
    }
    return ClaimAnswer::ok;
}

// serve's kRegister and kDetach, then a node id for a wanted claim (asked, or unasked at a look).
ClaimAnswer SequencerDefinitions::register_and_attach(int i, uint32_t requests, const std::string &definition,
                                                      bool wanted, int32_t live, bool look,
                                                      std::string *detail) {
    Claim *claim = &r.c->claims[i];
    ClaimAnswer answer = ClaimAnswer::ok;
    if ((requests & kRegister) && !definition.empty()) {
        const bool was_registered = registered[static_cast<size_t>(i)];
        answer = register_definition(i, definition, (requests & kCreate) != 0, detail);
        // Destroyed in the cluster, or (for a definition registered before) destroyed and
        // defined otherwise, which refresh would find at the next look: as refresh does,
        // the node id goes back and the claim is destroyed. A failure (etcd unreachable)
        // changes nothing: refresh keeps watching a registered definition.
        if (answer == ClaimAnswer::destroyed || (answer == ClaimAnswer::conflict && was_registered)) {
            held.release(i, ClaimState::destroyed);
            registered[static_cast<size_t>(i)] = false;
        } else if (answer == ClaimAnswer::ok) {
            registered[static_cast<size_t>(i)] = true;
            if (ClaimWord{atomic_load(&claim->word)}.state() != ClaimState::attached)
                held.publish(i, ClaimState::detached, -1);
        }
    }
    if ((requests & kDetach) && held.claims[i].held) held.release(i, ClaimState::detached);
    // Asked (or unasked at a look: a node id freed elsewhere is a change the watch reports).
    if (answer == ClaimAnswer::ok && wanted && registered[static_cast<size_t>(i)] && !held.claims[i].held &&
        r.lease_id != 0 && (requests != 0 || look)) {
        if (!held.claim_node(i, live, node_id)) answer = ClaimAnswer::no_free_node;
    }
    return answer;
}

// Definitions destroyed, or destroyed and defined otherwise, elsewhere: read at each look.
bool SequencerDefinitions::refresh() {
    std::vector<etcd::KeyValue> defs;
    if (!r.etcd.range(r.prefix + "sequencer/", &defs)) {
        r.note_error("reading sequencer definitions");
        return false;
    }
    LWLockAcquire(r.c->lock, LW_SHARED);
    const int count = r.c->claim_count;
    LWLockRelease(r.c->lock);
    for (const etcd::KeyValue &kv : defs) {
        for (int i = 0; i < count; i++) {
            if (!registered[static_cast<size_t>(i)] || kv.key != r.definition_key(i)) continue;
            LWLockAcquire(r.c->lock, LW_SHARED);
            const std::string ours = r.c->claims[i].definition;
            LWLockRelease(r.c->lock);
            if (registry::definition_gone(kv.value, ours)) {
                held.release(i, ClaimState::destroyed);
                registered[static_cast<size_t>(i)] = false;
            }
        }
    }
    return true;
}

}  // namespace idgen::pg
