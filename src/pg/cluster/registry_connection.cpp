// The registry worker's connection to etcd and its key layout: see registry_connection.hpp.
#include "pg/cluster/registry_connection.hpp"

#include <algorithm>

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/generation_record.hpp"
#include "pg/cluster/registry_password.hpp"

namespace idgen::pg {

static std::string password_problem;  // why idgen.registry_password_file could not be read

RegistryConnection::RegistryConnection(ClusterShared *cs, SharedState *ss)
    : registry::Registration{std::string("/") + registry_cluster + "/", "", 0},
      c(cs),
      s(ss),
      etcd(registry,
           etcd::Credentials{registry_cacert, registry_cert, registry_key, registry_user,
                             registry_password_now(&password_problem)},
           std::max<long>(200, registry_lease_s * 1000L / 6)),
      lease(int64_t{registry_margin_ms} * 1000000),
      remembered(load_generation(prefix)) {
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

std::string RegistryConnection::escape(const char *name) {
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

std::string RegistryConnection::definition_key(int i) const {
    return prefix + "sequencer/" + escape(c->claims[i].name);
}

}  // namespace idgen::pg
