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
// - Carried (the publisher's state was taken over while the subscription was disabled): nothing
//   waits while it stays disabled; enabled, it brings rows the carried state does not cover, and
//   the guard is awaiting again.
// - Forgotten (an administrator declared there is nothing to take over): nothing waits.
// - Publisher without idgen (it had no idgen when the subscription was made or pointed at it):
//   it made no retrospective ids, nothing waits; DROP SUBSCRIPTION still looks again.
// A guard whose subscription is gone is spent: DROP SUBSCRIPTION takes the publisher's state
// over before it completes (or fails), so a dropped subscription never leaves ids to wait for.
// A subscription that never brought a row has nothing to take over, and drops as PostgreSQL
// drops it.
//
// The live generators are another matter: no state taken over at the DROP can cover the ids
// the publisher goes on making after it (a blue/green move's old side drains, or both sides
// write for a while). Only distinct node ids keep those apart, so a subscription to a publisher
// with this server's own node id is refused before it is made.
#pragma once

#include <cstdint>
#include <string>

#include "core/backfill/lease_spaces.hpp"

namespace idgen::backfill {

enum class GuardState : int32_t { awaiting = 0, carried = 1, forgotten = 2, publisher_without_idgen = 3 };

struct Guard {
    GuardState state;
    int64_t publisher_node;  // the publisher's idgen.node_id; -1: unknown or none
};

// The guard as it stands for a subscription that is enabled or not, from what was stored of it.
Guard current_guard(const Guard &stored, bool subscription_enabled) noexcept;

// Whether `guard` keeps this server (node id `own_node`, -1: none) from handing out ids of
// spaces of `kind`.
bool guard_blocks(const Guard &guard, LeaseKind kind, int32_t own_node) noexcept;

// Whether DROP SUBSCRIPTION must take the publisher's state over before it completes: not when
// the state was taken over or declared not needed, nor when the subscription never brought a row.
bool drop_takes_over(const Guard &guard, bool brought_rows) noexcept;

// Whether a publisher of node id `publisher_node` (-1: none or unknown) issues live ids under
// this server's own node id `own_node` (-1: none), which nothing taken over can keep apart.
bool same_node(int64_t publisher_node, int32_t own_node) noexcept;

// A guard as text, for the record that every database of the server reads (a database's own
// records are its own): "<state> <publisher node>", the state one of awaiting, carried,
// forgotten and publisher-without-idgen. parse_guard_text takes exactly what guard_text makes.
std::string guard_text(const Guard &guard);
bool parse_guard_text(const std::string &text, Guard *guard);

// Whether the counters of spaces of `kind` are the server's, shared by all its databases (so
// that a subscription of any database guards them), rather than one database's.
bool server_wide(LeaseKind kind) noexcept;

}  // namespace idgen::backfill
