// The registry worker's connection to etcd and its key layout: see registry_connection.hpp.
#include "pg/cluster/registry_connection.hpp"

#include <algorithm>

#include "core/registry/key_value.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/generation_record.hpp"
#include "pg/cluster/registry_password.hpp"

namespace idgen::pg {

static std::string password_problem;  // why idgen.registry_password_file could not be read
static std::string record_problem;    // why the generation record could not be read

// A record that cannot be read is not taken for none: the server would join whatever generation
// etcd holds, where its record might have told it that etcd forgot. The worker stops (FATAL: the
// postmaster starts it again after bgw_restart_time, and it stops again) until an operator
// restores or removes the file; nothing depends on the registry meanwhile.
[[noreturn]] static void refuse_unreadable_record(ClusterShared *c) {
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    strlcpy(c->last_error, record_problem.c_str(), sizeof c->last_error);
    LWLockRelease(c->lock);
    ereport(
        FATAL,
        (errcode(ERRCODE_DATA_CORRUPTED), errmsg("idgen registry worker: %s", record_problem.c_str()),
         errdetail("It records the registry generation this server works under; without it the server "
                   "could not notice that etcd forgot what it held."),
         errhint("Restore it from a backup of this data directory. Or remove it, only if etcd has not been "
                 "restored or rebuilt since this server last ran: the server then joins the registry as "
                 "one new to it.")));
    pg_unreachable();
}

RegistryConnection::RegistryConnection(ClusterShared *cs, SharedState *ss)
    : registry::Registration{std::string("/") + registry_cluster + "/", "", 0},
      c(cs),
      s(ss),
      etcd(registry,
           etcd::Credentials{registry_cacert, registry_cert, registry_key, registry_user,
                             registry_password_now(&password_problem)},
           std::max<long>(200, registry_lease_s * 1000L / 6)),
      lease(int64_t{registry_margin_ms} * 1000000),
      remembered(load_generation(prefix, &record_problem)) {
    if (!record_problem.empty()) refuse_unreadable_record(c);
    etcd.start_revisions(remembered.revision);
    if (!password_problem.empty()) {
        LWLockAcquire(c->lock, LW_EXCLUSIVE);
        strlcpy(c->last_error, password_problem.c_str(), sizeof c->last_error);
        LWLockRelease(c->lock);
    }
}

void RegistryConnection::note_error(const std::string &what) {
    LWLockAcquire(c->lock, LW_EXCLUSIVE);
    strlcpy(c->last_error, (what + ": " + etcd.error()).c_str(), sizeof c->last_error);
    LWLockRelease(c->lock);
}

void RegistryConnection::remember_writes() {
    if (remembered.token.empty() || etcd.highest_revision() <= remembered.revision) return;
    remembered.revision = etcd.highest_revision();
    store_generation(prefix, remembered);
}

std::string RegistryConnection::definition_key(int i) const {
    return prefix + "sequencer/" + registry::key_segment(c->claims[i].name);
}

}  // namespace idgen::pg
