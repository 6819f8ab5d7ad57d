// The registry's generation kept by the registry worker: see generation_keeper.hpp.
#include "pg/cluster/generation_keeper.hpp"

#include <cstdio>
#include <vector>

#include "core/registry/key_value.hpp"
#include "core/registry/registry_generation.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/cluster/generation_record.hpp"

extern "C" {
#include "access/xlog.h"
#include "postmaster/postmaster.h"
}

namespace idgen::pg {
namespace {

constexpr int64_t kLookEveryNs = 1000000000;

std::string random_token() {
    unsigned char bytes[16];
    if (!pg_strong_random(bytes, sizeof bytes)) elog(ERROR, "idgen: could not generate random bytes");
    char hex[sizeof bytes * 2 + 1];
    for (size_t i = 0; i < sizeof bytes; i++) snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    return hex;
}

std::string server_name() {
    char host[256] = "";
    if (gethostname(host, sizeof host) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    return registry::server_name(GetSystemIdentifier(), host, PostPortNumber, DataDir);
}

}  // namespace

void GenerationKeeper::look(int64_t now, bool due) {
    // A revision that went back is looked at at once while the server serves from the registry:
    // until the look, it may serve from one that forgot. (Once it stopped, the revisions stay
    // below the highest until the rebuild: it looks once a second then, as it waits.)
    if (!(usable && r.etcd.went_back()) && (now < next_look_ns || !(due || !usable))) return;
    next_look_ns = now + kLookEveryNs;
    bool found = false;
    std::string value;
    if (!r.etcd.get(key(), &found, &value)) {
        r.note_error("reading the registry's generation");
        return;  // unanswered: the lease's deadline keeps what is held safe meanwhile
    }
    // The highest revision seen counts even if no write of ours was at it: etcd showed it.
    registry::Remembered mine = r.remembered;
    if (!mine.token.empty() && r.etcd.highest_revision() > mine.revision)
        mine.revision = r.etcd.highest_revision();
    const registry::Judgement j =
        registry::judge_generation(mine, found, value, r.etcd.take_revision_for_look());
    switch (j.verdict) {
        case registry::Verdict::create:
            create();
            break;
        case registry::Verdict::join:
            join(value);
            break;
        case registry::Verdict::same:
            usable = true;
            break;
        case registry::Verdict::noticed:
            ereport(
                LOG,
                (errmsg("idgen registry worker: etcd forgot what the registry held: %s", j.reason.c_str()),
                 errdetail("This server issues no id that depends on the registry until it is rebuilt.")));
            stop("etcd forgot what the registry held: " + j.reason);
            mark(found, value);
            break;
        case registry::Verdict::forgotten:
            seed(j.episode);
            break;
    }
}

// The first server of a registry (or the first since an upgrade from a version without
// generations) makes one; a server that loses the race joins the winner's at its next look.
void GenerationKeeper::create() {
    const std::string token = random_token();
    bool created = false;
    if (!r.etcd.create(key(), token, 0, &created)) {
        r.note_error("making the registry's generation");
        return;
    }
    if (created)
        join(token);
    else
        next_look_ns = 0;
}

// Above the floor every seeded server raised before anything is claimed under the generation:
// a node id whose horizon etcd lost is then taken over above every id any server issued.
void GenerationKeeper::join(const std::string &token) {
    bool found = false;
    std::string value;
    int64_t floor = 0;
    if (!r.etcd.get(floor_key(), &found, &value)) {
        r.note_error("reading the registry's floor");
        return;
    }
    if (found && (!registry::parse_int64(value, &floor) || floor < 0)) {
        r.note_error("the registry's floor is unreadable (\"" + value + "\")");
        return;
    }
    if (floor > 0) held.take_over(floor);
    r.remembered = registry::Remembered{token, "", r.etcd.last_revision()};
    r.etcd.start_revisions(r.remembered.revision);
    store_generation(r.prefix, r.remembered);
    LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
    const bool was_forgotten = r.c->forgotten;
    r.c->forgotten = false;
    r.c->last_error[0] = '\0';
    LWLockRelease(r.c->lock);
    if (was_forgotten)
        ereport(
            LOG,
            (errmsg("idgen registry worker: the registry was rebuilt; this server works under it again")));
    usable = true;
}

// Nothing issued under what etcd lost: the lease revoked (its keys go; a snapshot may have
// brought them back) and every node id withdrawn, and the batches' unused rest dropped.
void GenerationKeeper::stop(const std::string &why) {
    if (usable) {
        if (r.lease_id != 0) r.etcd.revoke(r.lease_id);
        keeper.lease_gone();
        batches.drop_unused();
        usable = false;
    }
    LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
    r.c->forgotten = true;
    strlcpy(r.c->last_error, why.c_str(), sizeof r.c->last_error);
    LWLockRelease(r.c->lock);
}

// So that every server notices at its next look, also those that lost nothing of their own.
void GenerationKeeper::mark(bool found, const std::string &value) {
    bool done = false;
    std::string current;
    if (!r.etcd.swap(key(), value, !found, registry::forgotten_value(random_token()), &done, &current))
        r.note_error("marking the registry forgotten");
    next_look_ns = 0;
}

// Once per episode, a look after the mark (so that a backend that took a namespace from a batch
// just before the drop has counted it): the counters raised to this server's, the floor to the
// end of every id it issued, then the server marked seeded. The operator counts the seeded.
void GenerationKeeper::seed(const std::string &episode) {
    if (r.remembered.episode != episode) {
        stop("etcd forgot what the registry held (episode " + episode + ")");
        if (!batches.seed_again()) return;
        const int64_t issued = held.issued_bound_us();
        bool created = false;
        if (!batches.raise_counter(floor_key(), static_cast<uint64_t>(issued)) ||
            !r.etcd.create(r.prefix + "seeded/" + episode + "/" + server_name(), std::to_string(issued), 0,
                           &created)) {
            r.note_error("seeding the forgotten registry");
            return;
        }
        r.remembered.episode = episode;
        store_generation(r.prefix, r.remembered);
        ereport(LOG, (errmsg("idgen registry worker: seeded the forgotten registry (episode %s)",
                             episode.c_str())));
    }
    size_t servers = 0;
    if (!seeded_count(episode, &servers)) return;
    stop("etcd forgot what the registry held (episode " + episode + "); " + std::to_string(servers) +
         " server(s) seeded it, this one among them: once every server of the cluster has, run SELECT "
         "idgen_registry_rebuild(); on one of them");
}

bool GenerationKeeper::seeded_count(const std::string &episode, size_t *servers) {
    std::vector<registry::KeyValue> keys;
    if (!r.etcd.range(r.prefix + "seeded/" + episode + "/", &keys)) {
        r.note_error("counting the servers that seeded the registry");
        return false;
    }
    *servers = keys.size();
    return true;
}

void GenerationKeeper::answer_rebuild(uint64_t asked, bool ok, const std::string &detail) {
    LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
    r.c->rebuild_answered = asked;
    r.c->rebuild_ok = ok;
    strlcpy(r.c->rebuild_detail, detail.c_str(), sizeof r.c->rebuild_detail);
    LWLockRelease(r.c->lock);
    answer_backends(r.c);
}

// The forgotten episode this server seeded becomes the registry's generation: every server that
// seeded it joins at its next look.
void GenerationKeeper::serve_rebuild() {
    LWLockAcquire(r.c->lock, LW_SHARED);
    const uint64_t asked = r.c->rebuild_asked, answered = r.c->rebuild_answered;
    LWLockRelease(r.c->lock);
    if (asked <= answered) return;
    bool found = false, done = false;
    std::string value, episode, current;
    size_t servers = 0;
    if (!r.etcd.get(key(), &found, &value))
        return answer_rebuild(asked, false, "etcd did not answer: " + r.etcd.error());
    if (!found || !registry::forgotten_episode(value, &episode))
        return answer_rebuild(
            asked, false,
            usable ? "The registry is whole: there is nothing to rebuild."
                   : "etcd holds no forgotten episode yet: the servers mark it within a second.");
    if (r.remembered.episode != episode)
        return answer_rebuild(asked, false, "This server has not seeded episode " + episode + " yet.");
    if (!seeded_count(episode, &servers) || !r.etcd.swap(key(), value, false, episode, &done, &current))
        return answer_rebuild(asked, false, "etcd did not answer: " + r.etcd.error());
    if (!done)
        return answer_rebuild(asked, false,
                              "The registry's generation changed meanwhile; look at idgen_registry.");
    next_look_ns = 0;
    answer_rebuild(asked, true,
                   "rebuilt: " + std::to_string(servers) + " server(s) had seeded episode " + episode +
                       "; each works under it again at its next look");
}

}  // namespace idgen::pg
