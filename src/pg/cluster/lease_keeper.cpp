// The registry worker's lease, granted and kept alive: see lease_keeper.hpp.
#include "pg/cluster/lease_keeper.hpp"

#include <string>

#include "core/base/atomic_word.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"

extern "C" {
#include "access/xlog.h"
#include "postmaster/postmaster.h"
}

namespace idgen::pg {

void LeaseKeeper::lease_gone() {
    atomic_store(&r.c->deadline_ns, uint64_t{0});
    held.withdraw_all(/*forget=*/true);
    r.lease.lost();
    r.lease_id = 0;
    LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
    r.c->lease_id = 0;
    LWLockRelease(r.c->lock);
}

void LeaseKeeper::keep_lease(int64_t now) {
    if (r.lease_id == 0) {
        int64_t id = 0, ttl = 0;
        if (!r.etcd.grant(registry_lease_s, &id, &ttl)) {
            r.note_error("granting a lease");
            return;
        }
        r.lease_id = id;
        r.lease.answered(now, ttl * 1000);
        char buf[128];
        snprintf(buf, sizeof buf, "system %llu port %d pid %d lease %lld",
                 static_cast<unsigned long long>(GetSystemIdentifier()), PostPortNumber, MyProcPid,
                 static_cast<long long>(r.lease_id));
        r.identity = buf;
        LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
        r.c->lease_id = r.lease_id;
        LWLockRelease(r.c->lock);
    } else if (now >= r.lease.renew_at_ns()) {
        int64_t ttl = 0;
        if (!r.etcd.keep_alive(r.lease_id, &ttl)) {
            r.note_error("keeping the lease alive");
        } else if (ttl <= 0) {
            r.note_error("the lease expired in etcd");
            lease_gone();
        } else {
            r.lease.answered(now, ttl * 1000);
        }
    }
    atomic_store(&r.c->deadline_ns, static_cast<uint64_t>(published_deadline_ns(r.lease.deadline_ns())));
}

}  // namespace idgen::pg
