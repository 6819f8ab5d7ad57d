// Moves by logical replication. A subscription brings another server's rows, and with them its
// retrospective ids, but not the counters that kept those ids apart: idgen writes its rows in
// place, which logical decoding never sees, and a publication may not include them at all. So
// idgen watches CREATE, ALTER and DROP SUBSCRIPTION in every database (a ProcessUtility hook:
// unlike an event trigger it runs whatever session_replication_role or event_triggers say, and
// in databases without the extension):
// - While a subscription exists, retrospective ids that could meet its publisher's are refused
//   (55000; the rule is move_guard.hpp's). The subscriptions are read from the catalog, so a
//   subscription idgen saw no statement for (made before idgen was installed) is guarded too;
//   a guard row in reserved_state only adds what idgen learnt: the publisher's idgen.node_id,
//   read at CREATE SUBSCRIPTION, or that the state was taken over or is not needed.
// - CREATE SUBSCRIPTION (and ALTER SUBSCRIPTION ... CONNECTION) reads the publisher first: one
//   whose idgen.node_id is this server's own is refused before anything is made, since no state
//   taken over can keep apart the live ids both sides go on making.
// - DROP SUBSCRIPTION takes the publisher's state over once its workers have stopped and its
//   slot is gone (nothing more can arrive): it connects with the subscription's conninfo, reads
//   the publisher's reserved_state and takes every row over as a restore would. If the
//   publisher does not answer, the DROP fails (in a database with idgen) until the state is
//   taken over by hand (idgen_carry_state, the subscription disabled) or declared not needed
//   (idgen_forget_subscription): a dropped subscription never leaves ids unaccounted for. A
//   subscription that never brought a row drops without connecting.
// - A database's rows speak for the subscriptions of other databases too, so that a database
//   kept waiting by a subscription elsewhere has its way out where the error is raised.
// - The initial copy of a publication that includes reserved_state runs the table's ALWAYS
//   trigger, which takes the copied rows over at once (carried_state.hpp).
#pragma once

#include "core/backfill/lease_spaces.hpp"

#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// ERROR 55000 when a subscription keeps spaces of `kind` from handing out ids. Cheap while
// nothing changed and nothing of the kind waits: one atomic read.
void refuse_while_guarded(SharedState *state, backfill::LeaseKind kind, const char *what);

// At preload: watches the subscription statements of every database.
void install_subscription_hook();

}  // namespace idgen::pg
