// When a database takes rows from another server by logical replication, the other server's
// retrospective ids arrive with them, but the counters that kept those ids apart stay on the
// other server (a publication may not even include idgen's table, and the changes idgen makes
// to its rows in place are never decoded). Until this server has taken the publisher's counters
// over, its own retrospective ids could repeat the publisher's. The guard of one subscription
// says which spaces may still be used; this is the rule, the server keeps the guards.
//
// - Awaiting (the subscription exists, or was dropped before the state was taken over): only
//   the spaces whose ids carry the server's own node id (automatic uuid_v1_at nodes, uuid_v7_at)
//   may be used, and only when the publisher's node id is known and differs: then no id of the
//   publisher's can equal one of this server's, whatever its counters. Every other space waits.
// - Carried (the publisher's state was taken over when the subscription was dropped, or by
//   hand): nothing waits once the subscription is gone. While it still exists rows may keep
//   coming, so it counts as awaiting.
// - Forgotten (an administrator declared there is nothing to take over): nothing waits.
#pragma once

#include <cstdint>

#include "lease_spaces.hpp"

namespace idgen::backfill {

enum class GuardState : int32_t { awaiting = 0, carried = 1, forgotten = 2 };

struct Guard {
    GuardState state;
    int64_t publisher_node;    // the publisher's idgen.node_id; -1: unknown or none
    bool subscription_exists;  // the subscription is still in the catalog
};

// Whether `guard` keeps this server (node id `own_node`, -1: none) from handing out ids of
// spaces of `kind`.
bool guard_blocks(const Guard &guard, LeaseKind kind, int32_t own_node) noexcept;

// Whether the guard has done its work and its row may be freed.
bool guard_spent(const Guard &guard) noexcept;

}  // namespace idgen::backfill
