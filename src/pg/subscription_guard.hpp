// Moves by logical replication. A subscription brings another server's rows, and with them its
// retrospective ids, but not the counters that kept those ids apart: idgen writes its rows in
// place, which logical decoding never sees, and a publication may not include them at all. So:
// - CREATE SUBSCRIPTION (an event trigger) writes a guard row for the subscription, with the
//   publisher's idgen.node_id when the publisher answers; while it stands, retrospective ids
//   that could meet the publisher's are refused (55000; the rule is move_guard.hpp's).
// - DROP SUBSCRIPTION takes the publisher's state over once its workers have stopped and its
//   slot is gone (nothing more can arrive): it connects with the subscription's conninfo, reads
//   the publisher's reserved_state and takes every row over as a restore would. If the publisher
//   does not answer, the guard stays, with a WARNING, until idgen_carry_state(name, conninfo)
//   or idgen_forget_subscription(name).
// - The initial copy of a publication that includes reserved_state runs the table's ALWAYS
//   trigger, which takes the copied rows over at once (carried_state.hpp).
#pragma once

#include "../core/lease_spaces.hpp"
#include "shared_state.hpp"

namespace idgen::pg {

// ERROR 55000 when a guard of this database keeps spaces of `kind` from handing out ids.
// Cheap while nothing changed: one atomic read.
void refuse_while_guarded(SharedState *state, backfill::LeaseKind kind, const char *what);

}  // namespace idgen::pg
