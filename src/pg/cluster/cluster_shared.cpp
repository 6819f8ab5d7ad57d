// Cluster mode's shared memory and the backend side of it: the checks every generator makes
// (no lock, no network) and the requests backends leave for the registry worker. The argument
// for each rule is in cluster_shared.hpp and src/core/registry_*.hpp.
#include "pg/cluster/cluster_shared.hpp"

#include <cstring>

#include "core/base/atomic_word.hpp"
#include "core/registry/registry_horizon.hpp"
#include "core/registry/registry_lease.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"

extern "C" {
#include "storage/shmem.h"
}

namespace idgen::pg {

static ClusterShared *cluster = nullptr;

Size cluster_shared_size() {
    return add_size(offsetof(ClusterShared, claims), mul_size(max_sequencers, sizeof(Claim)));
}

void start_cluster_shared(LWLock *lock) {
    if (!registry_configured()) return;  // none requested: cluster stays nullptr
    bool found = false;
    ClusterShared *c =
        static_cast<ClusterShared *>(ShmemInitStruct("idgen cluster", cluster_shared_size(), &found));
    if (!found) {
        memset(static_cast<void *>(c), 0, cluster_shared_size());
        c->lock = lock;
        ConditionVariableInit(&c->answered);
        c->servers = -1;
    }
    cluster = c;
}

ClusterShared *cluster_shared() {
    return cluster;
}

ClusterShared *require_cluster(const char *what) {
    if (cluster == nullptr)
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("%s needs cluster mode", what),
             errdetail("Without idgen.registry a server's node id is idgen.node_id, fixed at start."),
             errhint("Set idgen.registry to the etcd endpoints (and remove idgen.node_id), then restart.")));
    return cluster;
}

int64_t published_deadline_ns(int64_t deadline_ns) {
    const int64_t lag = coarse_monotonic_lag_ns();
    return deadline_ns > lag ? deadline_ns - lag : 0;
}

// Whether the registry forgot (the worker claims nothing until it is rebuilt: no use waiting).
static bool registry_forgotten(ClusterShared *c) {
    LWLockAcquire(c->lock, LW_SHARED);
    const bool forgotten = c->forgotten;
    LWLockRelease(c->lock);
    return forgotten;
}

[[noreturn]] static void raise_detached(ClusterShared *c, const char *what, const char *why) {
    char last_error[kErrorText];
    LWLockAcquire(c->lock, LW_SHARED);
    strlcpy(last_error, c->last_error, sizeof last_error);
    LWLockRelease(c->lock);
    if (registry_forgotten(c))
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("idgen's registry forgot what it held: %s cannot issue ids", what),
                 errdetail("%s", last_error),
                 errhint("Once every server of the cluster shows state 'forgotten' in idgen_registry, run "
                         "SELECT idgen_registry_rebuild(); on one of them (docs/cluster-mode.md).")));
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("idgen is detached from the registry: %s cannot issue ids", what),
                    errdetail("%s%s%s", why, last_error[0] ? " Last registry error: " : "", last_error),
                    errhint("Check that etcd (idgen.registry) is reachable; the view idgen_registry shows "
                            "this server's lease. The server attaches again by itself.")));
}

bool gave_up(int64_t *give_up_ns) {
    const int64_t now = monotonic_ns();
    if (*give_up_ns == 0) *give_up_ns = now + int64_t{max_wait_ms} * 1000000;
    return now > *give_up_ns;
}

int32_t cluster_server_node(ClusterShared *c, const char *what, ClaimWord *seen) {
    *seen = ClaimWord{atomic_load(&c->server_word)};
    if (seen->state() != ClaimState::attached)
        raise_detached(c, what, "This server holds no node id in the registry.");
    return seen->node();
}

bool cluster_admit(ClusterShared *c, const uint64_t *word, ClaimWord seen, int64_t end_unix_us,
                   const char *what, int64_t *give_up_ns) {
    // One look reads the deadline, then the horizon: an id is handed out only by a look that
    // found the lease within its deadline and the horizon above the id.
    bool lapsed = false;
    auto decided = [&] {
        lapsed = !registry::within_deadline(static_cast<int64_t>(atomic_load(&c->deadline_ns)),
                                            coarse_monotonic_ns());
        return lapsed || registry::issuable(end_unix_us, static_cast<int64_t>(atomic_load(&c->horizon_us)));
    };
    if (!decided() && !await_worker(c, give_up_ns, decided))
        raise_detached(c, what, "The registry horizon did not move ahead of the ids in time.");
    if (lapsed) raise_detached(c, what, "This server's lease was not renewed in time.");
    return atomic_load(word) == seen.raw;
}

void answer_backends(ClusterShared *c) {
    ConditionVariableBroadcast(&c->answered);
}

// Under lock: the claim of `name`, or nullptr.
static Claim *find_locked(ClusterShared *c, const char *name) {
    for (int i = 0; i < c->claim_count; i++)
        if (strcmp(c->claims[i].name, name) == 0) return &c->claims[i];
    return nullptr;
}

// Under lock (exclusive): the claim of `name`, made if there is none; nullptr when the table is full.
static Claim *find_or_add_locked(ClusterShared *c, const char *name) {
    Claim *claim = find_locked(c, name);
    if (claim == nullptr && c->claim_count < max_sequencers) {
        claim = &c->claims[c->claim_count++];
        strlcpy(claim->name, name, sizeof claim->name);
    }
    return claim;
}

static Claim *find_or_add(ClusterShared *c, const char *name, const char *definition, int32_t live_nodes) {
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    Claim *claim = find_or_add_locked(c, name);
    if (claim != nullptr && definition != nullptr && claim->definition[0] == '\0') {
        strlcpy(claim->definition, definition, sizeof claim->definition);
        claim->live_nodes = live_nodes;
    }
    LWLockRelease(c->lock);
    if (claim == nullptr)
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("too many Snowflake sequencers in cluster mode on this server"),
                        errdetail("This server tracks at most idgen.max_sequencers = %d sequencers.",
                                  max_sequencers),
                        errhint("Raise idgen.max_sequencers (needs a restart).")));
    return claim;
}

// Leaves `requests` for the worker and waits for its answer (gave_up); ClaimAnswer::none when it
// did not answer in time.
static ClaimAnswer ask(ClusterShared *c, Claim *claim, uint32_t requests, char *detail, int64_t *give_up_ns) {
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    claim->requests |= requests;
    if (requests & kAttach) claim->wanted = true;
    if (requests & kDetach) claim->wanted = false;
    const uint64_t asked = ++claim->asked;
    Latch *worker = c->worker_latch;
    LWLockRelease(c->lock);
    if (worker != nullptr) SetLatch(worker);
    ClaimAnswer answer = ClaimAnswer::none;
    await_worker(c, give_up_ns, [&] {
        LWLockAcquire(c->lock, LW_SHARED);
        const bool done = claim->answered >= asked;
        if (done) answer = claim->answer;
        strlcpy(detail, claim->detail, kErrorText);
        LWLockRelease(c->lock);
        return done;
    });
    return answer;
}

// The error of an answer that is not ok (none: the worker did not answer in time).
static void raise_answer(ClusterShared *c, ClaimAnswer answer, const char *name, const char *definition,
                         const char *detail) {
    switch (answer) {
        case ClaimAnswer::ok:
        case ClaimAnswer::no_free_node:
            return;
        case ClaimAnswer::conflict:
            ereport(ERROR, (errcode(ERRCODE_DUPLICATE_OBJECT),
                            errmsg("Snowflake sequencer \"%s\" is defined otherwise in the cluster", name),
                            errdetail("The cluster has %s; this server has %s.", detail, definition),
                            errhint("Use the cluster's definition, or another name.")));
            break;
        case ClaimAnswer::destroyed:
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("Snowflake sequencer \"%s\" was destroyed in the cluster", name),
                            errhint("snowflake_drop('%s') here too, or snowflake_create it again.", name)));
            break;
        case ClaimAnswer::none:
            raise_detached(c, "the Snowflake sequencer's registration",
                           "The registry worker did not answer within idgen.max_wait.");
        case ClaimAnswer::failed:
            raise_detached(c, "the Snowflake sequencer's registration", detail);
    }
}

// The claim of `name` for this server's `definition`: 42710 if this server tracks it with another
// definition (one that is not being destroyed).
Claim *cluster_claim(ClusterShared *c, const char *name, const char *definition, int32_t live_nodes) {
    Claim *claim = find_or_add(c, name, definition, live_nodes);
    LWLockAcquire(c->lock, LW_SHARED);
    const bool same = strcmp(claim->definition, definition) == 0;
    char held[kDefinitionText];
    strlcpy(held, claim->definition, sizeof held);
    LWLockRelease(c->lock);
    if (!same) raise_answer(c, ClaimAnswer::conflict, name, definition, held);
    return claim;
}

int32_t cluster_claim_node(ClusterShared *c, Claim *claim, const char *what, ClaimWord *seen,
                           int64_t *give_up_ns) {
    *seen = ClaimWord{atomic_load(&claim->word)};
    if (seen->state() != ClaimState::attached && registry_forgotten(c))
        raise_detached(c, what, "The registry forgot what it held.");
    if (seen->state() == ClaimState::pending) {  // first use, or first since the worker restarted
        char definition[kDefinitionText];
        LWLockAcquire(c->lock, LW_SHARED);
        strlcpy(definition, claim->definition, sizeof definition);
        LWLockRelease(c->lock);
        char detail[kErrorText];
        raise_answer(c, ask(c, claim, kRegister | kAttach, detail, give_up_ns), claim->name, definition,
                     detail);
        *seen = ClaimWord{atomic_load(&claim->word)};
    }
    switch (seen->state()) {
        case ClaimState::attached:
            return seen->node();
        case ClaimState::destroyed:
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("Snowflake sequencer \"%s\" was destroyed in the cluster", claim->name),
                     errhint("snowflake_drop('%s') here too, or snowflake_create it again.", claim->name)));
            break;
        case ClaimState::pending:
        case ClaimState::detached:
            break;
    }
    LWLockAcquire(c->lock, LW_SHARED);
    const int32_t live_nodes = claim->live_nodes;
    LWLockRelease(c->lock);
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("Snowflake sequencer \"%s\" is detached on this server", claim->name),
             errdetail("This server holds none of its %d live node ids: other servers hold them all, "
                       "it gave its node id back (snowflake_detach), or its lease was lost.",
                       live_nodes),
             errhint("It attaches when a node id frees up; snowflake_attach('%s') asks now.", claim->name)));
}

void cluster_register(ClusterShared *c, const char *name, const char *definition, int32_t live_nodes) {
    Claim *claim = find_or_add(c, name, definition, live_nodes);
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    // Defined again after a destroy, or after a drop whose destroy the worker has not carried
    // out yet (it does the destroy before this registration): this definition replaces the old.
    const bool redefine = ClaimWord{atomic_load(&claim->word)}.state() == ClaimState::destroyed ||
                          (claim->requests & kDestroy) != 0 || claim->destroying ||
                          claim->definition[0] == '\0';
    if (redefine) {
        strlcpy(claim->definition, definition, sizeof claim->definition);
        claim->live_nodes = live_nodes;
    }
    char held[kDefinitionText];
    strlcpy(held, claim->definition, sizeof held);
    LWLockRelease(c->lock);
    if (strcmp(held, definition) != 0) raise_answer(c, ClaimAnswer::conflict, name, definition, held);
    char detail[kErrorText];
    int64_t give_up_ns = 0;
    raise_answer(c, ask(c, claim, kRegister | kCreate | kAttach, detail, &give_up_ns), name, definition,
                 detail);
}

int32_t cluster_attach(ClusterShared *c, const char *name, const char *definition, int32_t live_nodes) {
    Claim *claim = cluster_claim(c, name, definition, live_nodes);
    char detail[kErrorText];
    int64_t give_up_ns = 0;
    raise_answer(c, ask(c, claim, kRegister | kAttach, detail, &give_up_ns), name, definition, detail);
    ClaimWord seen;
    return cluster_claim_node(c, claim, "snowflake_attach()", &seen, &give_up_ns);
}

void cluster_detach(ClusterShared *c, const char *name) {
    Claim *claim = find_or_add(c, name, nullptr, 0);
    char detail[kErrorText];
    int64_t give_up_ns = 0;
    raise_answer(c, ask(c, claim, kDetach, detail, &give_up_ns), name, "", detail);
}

// Runs after the commit: it must not fail, so a full table only warns.
void cluster_destroy_at_commit(const char *name) {
    ClusterShared *c = cluster;
    if (c == nullptr) return;
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    Claim *claim = find_or_add_locked(c, name);
    if (claim == nullptr) {
        LWLockRelease(c->lock);
        ereport(WARNING,
                (errmsg("Snowflake sequencer \"%s\" was not destroyed in the cluster: too many sequencers "
                        "on this server (idgen.max_sequencers)",
                        name)));
        return;
    }
    // The definition this server used is the one dropped: a definition the cluster has since
    // taken from elsewhere (this server found its own destroyed) is not this drop's to destroy.
    // Never used here since the server started: the cluster's, whichever it is.
    strlcpy(claim->dropped, claim->definition, sizeof claim->dropped);
    claim->requests |= kDestroy;
    claim->wanted = false;
    ++claim->asked;
    Latch *worker = c->worker_latch;
    LWLockRelease(c->lock);
    if (worker != nullptr) SetLatch(worker);
}

ClaimWord cluster_claim_word(ClusterShared *c, const char *name, bool *found) {
    LWLockAcquire(c->lock, LW_SHARED);
    const Claim *claim = find_locked(c, name);
    LWLockRelease(c->lock);
    *found = claim != nullptr;
    return ClaimWord{claim ? atomic_load(&claim->word) : 0};
}

// The worker answers at its next round (it waits for no one); idgen.max_wait bounds the wait.
void cluster_rebuild(ClusterShared *c, char *answer) {
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    const uint64_t asked = ++c->rebuild_asked;
    Latch *worker = c->worker_latch;
    LWLockRelease(c->lock);
    if (worker != nullptr) SetLatch(worker);
    int64_t give_up_ns = 0;
    bool ok = false;
    char detail[kErrorText];
    const bool done = await_worker(c, &give_up_ns, [&] {
        LWLockAcquire(c->lock, LW_SHARED);
        const bool answered = c->rebuild_answered >= asked;
        ok = c->rebuild_ok;
        strlcpy(detail, c->rebuild_detail, sizeof detail);
        LWLockRelease(c->lock);
        return answered;
    });
    if (!done)
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("the registry worker did not answer within idgen.max_wait"),
             errhint("Check that etcd (idgen.registry) is reachable; the view idgen_registry shows why.")));
    if (!ok)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the registry cannot be rebuilt now"), errdetail("%s", detail)));
    strlcpy(answer, detail, kErrorText);
}

}  // namespace idgen::pg
