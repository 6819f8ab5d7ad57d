// When a database takes rows from another server by logical replication, the other server's
// retrospective ids arrive with them, but the counters that kept those ids apart stay on the
// other server (a publication may not even include idgen's table, and the changes idgen makes
// to its rows in place are never decoded). Until this server has taken the publisher's counters
// over, its own retrospective ids could repeat the publisher's. A guard stands for each
// subscription while it exists; this is the rule, the server keeps the guards.
//
// - Awaiting (the default, also for a subscription idgen knows nothing more of): only the
//   spaces whose ids carry the server's own node id (automatic uuid_v1_at nodes, uuid_v7_at)
//   may be used, and only when the publisher's node id is known and differs: then no id of the
//   publisher's can equal one of this server's, whatever its counters. Every other space waits.
// - Carried (the publisher's state was taken over while the subscription was disabled; enabling
//   it makes the guard awaiting again): nothing waits.
// - Forgotten (an administrator declared there is nothing to take over): nothing waits.
// A guard whose subscription is gone is spent: DROP SUBSCRIPTION takes the publisher's state
// over before it completes (or fails), so a dropped subscription never leaves ids to wait for.
#pragma once

#include <cstdint>

#include "core/backfill/lease_spaces.hpp"

namespace idgen::backfill {

enum class GuardState : int32_t { awaiting = 0, carried = 1, forgotten = 2 };

struct Guard {
    GuardState state;
    int64_t publisher_node;  // the publisher's idgen.node_id; -1: unknown or none
};

// Whether `guard` keeps this server (node id `own_node`, -1: none) from handing out ids of
// spaces of `kind`.
bool guard_blocks(const Guard &guard, LeaseKind kind, int32_t own_node) noexcept;

// Whether the counters of spaces of `kind` are the server's, shared by all its databases (so
// that a subscription of any database guards them), rather than one database's.
bool server_wide(LeaseKind kind) noexcept;

}  // namespace idgen::backfill
