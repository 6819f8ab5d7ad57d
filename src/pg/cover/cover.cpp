// The door of cover.hpp: the server's own state first, then every registered copy.
#include "pg/cover/cover.hpp"

#include "pg/boundary/errors.hpp"
#include "pg/leases/backfill_shared.hpp"

namespace idgen::pg {

// Written only by _PG_init (the postmaster's, inherited by every backend it forks; each
// backend's own where backends are not forked from it), read by every generator after.
static StateCopy copies[2];
static int copy_count = 0;

void register_state_copy(StateCopy copy) {
    if (copy_count == static_cast<int>(sizeof copies / sizeof copies[0]))
        elog(ERROR, "idgen: more copies of the state than the door keeps");
    copies[copy_count++] = copy;
}

// The order matters only as far as the rule goes: the server's own state is durable before any
// copy is written, so a copy never claims more than the server can stand behind after a crash.
void cover_ids(SharedState *state, int64_t end_unix_us, int64_t now_unix_us, const char *what) {
    ensure_horizon(state, end_unix_us, now_unix_us, what);
    for (int i = 0; i < copy_count; i++) copies[i].cover_horizon(state, end_unix_us, what);
}

void cover_namespace(SharedState *state, const LeaseSpace &space, const char *what) {
    const LeaseState lease = lease_state(backfill_shared(), space);
    for (int i = 0; i < copy_count; i++) copies[i].cover_lease(state, space, lease, what);
}

uint32_t cover_offset(SharedState *state, const LeaseSpace &space, uint64_t offset, uint32_t step,
                      const char *what) {
    const uint32_t bound = ensure_lease_bound(backfill_shared(), space, offset, step, what);
    cover_namespace(state, space, what);
    return bound;
}

}  // namespace idgen::pg
