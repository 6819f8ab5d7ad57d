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
//   kept waiting by a subscription elsewhere has its way out where the error is raised; and the
//   subscribing database publishes its guard as the subscription's security label, which every
//   database reads where its own rows say nothing.
// - The initial copy of a publication that includes reserved_state runs the table's ALWAYS
//   trigger, which takes the copied rows over at once (carried_state.hpp).
//
// The mechanism lives in four places: this file (the guard rows and the check), the statements'
// hook (subscription_statements.hpp), the publisher's state (publisher_state.hpp), and the SQL
// functions idgen_carry_state and idgen_forget_subscription (pg/functions/carry_state.cpp).
#pragma once

#include <cstdint>

#include "core/backfill/lease_spaces.hpp"
#include "core/backfill/move_guard.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/shared_memory/shared_state.hpp"

struct SecLabelStmt;  // nodes/parsenodes.h

namespace idgen::pg {

// ERROR 55000 when a subscription keeps spaces of `kind` from handing out ids. Cheap while
// nothing changed and nothing of the kind waits: one atomic read.
void refuse_while_guarded(SharedState *state, backfill::LeaseKind kind, const char *what);

// Whether this database has idgen (its guard rows are in its reserved_state).
bool idgen_installed();

// After a statement changed a guard: backends look at the guards again now and once more when
// the transaction commits (a backend that looked in between saw the catalog without the change).
void guards_changed();

// What this database's rows say of subscription `subid`: the default (awaiting, publisher
// unknown) when nothing; `flags` (when given) the row's flags.
backfill::Guard stored_guard_of(Oid subid, int32_t *flags = nullptr);

// Writes subscription `subid`'s guard row (53400 when reserved_state has no free row), and
// publishes it to the other databases (publish_guard).
void guard_row_or_refuse(Oid subid, const backfill::Guard &g, int32_t flags, const char *what);

// Where `subid` is this database's subscription: its guard written where every database of the
// server reads it, the subscription's security label of provider "idgen".
void publish_guard(Oid subid, const backfill::Guard &g);

// Before a SECURITY LABEL statement runs: where it names the provider "idgen", the provider is
// registered in this backend (superusers only, guards only); nowhere else.
void admit_guard_label_statement(const SecLabelStmt *stmt);

// Whether a table of subscription `subid` (of this database) left its initial state: only then
// can rows have arrived (the apply worker applies changes to a table only once it is
// synchronised). A subscription made with connect = false and never refreshed has no table.
bool has_synchronised_a_table(Oid subid);

}  // namespace idgen::pg
