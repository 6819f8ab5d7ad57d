// The guards of subscriptions (subscription_guard.hpp): the generation that tells backends to
// look again, this database's guard rows, and the check every retrospective draw makes.
#include "pg/moves/subscription_guard.hpp"

#include "core/base/atomic_word.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/moves/carried_state.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_subscription.h"
#include "catalog/pg_subscription_rel.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "commands/seclabel.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace idgen::pg {

using backfill::Guard;
using backfill::GuardState;
using backfill::LeaseKind;

constexpr LeaseKind kGuardedKinds[] = {LeaseKind::uuid_auto, LeaseKind::uuid_given, LeaseKind::snowflake,
                                       LeaseKind::uuid_v7};

static uint32_t bit(LeaseKind kind) {
    return uint32_t{1} << static_cast<uint32_t>(kind);
}

bool idgen_installed() {
    return OidIsValid(get_extension_oid("idgen", true));
}

// guards_changed moves the shared generation now and again when the transaction commits.
static bool changed_in_transaction = false;

static void bump_generation() {
    if (SharedState *s = shared_state_or_null()) idgen::atomic_fetch_add(&s->guard_generation, 1);
}

static void at_transaction_end(XactEvent event, void *) {
    if (!changed_in_transaction) return;
    if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PREPARE)
        bump_generation();
    if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PARALLEL_PRE_COMMIT &&
        event != XACT_EVENT_PRE_PREPARE)
        changed_in_transaction = false;
}

void guards_changed() {
    static bool registered = false;
    if (!registered) {
        RegisterXactCallback(at_transaction_end, nullptr);
        registered = true;
    }
    changed_in_transaction = true;
    bump_generation();
}

// What this database's rows say of subscription `subid` (of this database or another): false
// when they say nothing; `flags` the row's flags (0 when none).
static bool find_stored_guard(Oid subid, const CarriedRow *rows, int n, Guard *g, int32_t *flags) {
    for (int i = 0; i < n; i++)
        if (rows[i].key == static_cast<int64_t>(subid)) {
            if (flags != nullptr) *flags = rows[i].step;
            *g = Guard{static_cast<GuardState>(rows[i].bound), rows[i].value};
            return true;
        }
    if (flags != nullptr) *flags = 0;
    return false;
}

// The same, with the default (awaiting, publisher unknown) when they say nothing.
static Guard stored_guard(Oid subid, const CarriedRow *rows, int n, int32_t *flags = nullptr) {
    Guard g{GuardState::awaiting, -1};
    (void)find_stored_guard(subid, rows, n, &g, flags);
    return g;
}

// ---- The guard every database reads ------------------------------------------------------------
// A database's guard rows are in its own reserved_state, which the other databases of the server
// cannot read; yet their server-wide generators wait for every subscription. So the subscribing
// database also writes its guard as the subscription's security label under the provider
// "idgen": pg_shseclabel is a shared catalog (in WAL, so on standbys, through restarts and
// promotions; dropped with the subscription), which every database reads for a subscription of
// another database that its own rows say nothing of. What the subscribing database learnt (a
// publisher without idgen, a publisher's node id, the state taken over or declared not needed)
// is a fact about the publisher and the server's counters, not about one database. idgen writes
// the label itself (SetSecurityLabel and GetSecurityLabel need no provider registered); SECURITY
// LABEL FOR idgen is for superusers only, with a label idgen could have written (pg_dump copies
// the labels of subscriptions, and a restore gives them back). The provider is registered only in
// a backend that runs such a statement: registered in every backend, it would change everyone
// else's SECURITY LABEL statements (one without FOR would go to idgen, and beside another
// provider, such as sepgsql, would have to name its own).
static const char kLabelProvider[] = "idgen";

static void check_guard_label(const ObjectAddress *object, const char *label) {
    if (object->classId != SubscriptionRelationId)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("idgen labels subscriptions only")));
    if (!superuser())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("only superusers may set idgen's label of a subscription"),
                        errhint("idgen writes it itself, at CREATE and ALTER SUBSCRIPTION and in "
                                "idgen_carry_state and idgen_forget_subscription.")));
    Guard g{};
    if (label != nullptr && !backfill::parse_guard_text(label, &g))
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("\"%s\" is not an idgen guard", label),
                 errdetail("idgen's label of a subscription reads \"<state> <publisher node id>\", the state "
                           "one of awaiting, carried, forgotten and publisher-without-idgen.")));
}

void admit_guard_label_statement(const SecLabelStmt *stmt) {
    static bool registered = false;  // this backend's provider list, kept in TopMemoryContext
    if (registered || stmt->provider == nullptr || strcmp(stmt->provider, kLabelProvider) != 0) return;
    register_label_provider(kLabelProvider, check_guard_label);
    registered = true;
}

void publish_guard(Oid subid, const Guard &g) {
    HeapTuple t = SearchSysCache1(SUBSCRIPTIONOID, ObjectIdGetDatum(subid));
    if (!HeapTupleIsValid(t)) return;
    const bool here = reinterpret_cast<Form_pg_subscription>(GETSTRUCT(t))->subdbid == MyDatabaseId;
    ReleaseSysCache(t);
    if (!here) return;  // another database's subscription: its own database speaks for it
    ObjectAddress address;
    ObjectAddressSet(address, SubscriptionRelationId, subid);
    // A copy in palloc'd memory: no C++ object may be alive when SetSecurityLabel raises an error.
    const char *label = pstrdup(backfill::guard_text(g).c_str());
    SetSecurityLabel(&address, kLabelProvider, label);
}

// The guard subscription `subid`'s database published; false where it published none.
static bool published_guard(Oid subid, Guard *g) {
    ObjectAddress address;
    ObjectAddressSet(address, SubscriptionRelationId, subid);
    const char *label = GetSecurityLabel(&address, kLabelProvider);
    return label != nullptr && backfill::parse_guard_text(label, g);
}

Guard stored_guard_of(Oid subid, int32_t *flags) {
    CarriedRow rows[kLeaseSpaces];
    const int n = idgen_installed() ? read_guard_rows(rows, kLeaseSpaces) : 0;
    return stored_guard(subid, rows, n, flags);
}

bool has_synchronised_a_table(Oid subid) {
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_subscription_rel_srsubid, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(subid));
    Relation rel = table_open(SubscriptionRelRelationId, AccessShareLock);
    SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 1, &key);
    bool synchronised = false;
    for (HeapTuple t; !synchronised && HeapTupleIsValid(t = systable_getnext(scan));)
        synchronised =
            reinterpret_cast<Form_pg_subscription_rel>(GETSTRUCT(t))->srsubstate != SUBREL_STATE_INIT;
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return synchronised;
}

void guard_row_or_refuse(Oid subid, const Guard &g, int32_t flags, const char *what) {
    if (!write_guard_row(subid, g.publisher_node, static_cast<int32_t>(g.state), flags, what))
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("%s: idgen's table \"reserved_state\" has no free row", what)));
    publish_guard(subid, g);
}

// ---- The check ---------------------------------------------------------------------------------
// A backend looks at the subscriptions again whenever the shared generation moved (every
// subscription statement of every database moves it, after it ran), and on every draw of a kind
// that waited last time: a wait ends as soon as its cause does.

static uint64_t seen_generation = UINT64_MAX;
static uint32_t waiting_kinds = 0;  // bit(kind) for each kind refused at the last look

struct Blocker {
    Oid subid;
    Oid dbid;
    int64_t publisher_node;
};

// The guard of a subscription (of this database or another) as this database sees it. This
// database's rows speak for subscriptions of other databases too: the state taken over from here
// (idgen_carry_state(..., database => ...)) is the server's. Where they say nothing of another
// database's subscription, what its database published speaks.
static Guard guard_as_seen(const Form_pg_subscription sub, const CarriedRow *rows, int n) {
    Guard stored{GuardState::awaiting, -1};
    if (!find_stored_guard(sub->oid, rows, n, &stored, nullptr) && sub->subdbid != MyDatabaseId)
        (void)published_guard(sub->oid, &stored);
    return backfill::current_guard(stored, sub->subenabled);
}

void refuse_while_guarded(SharedState *s, LeaseKind kind, const char *what) {
    const uint64_t generation = idgen::atomic_load(&s->guard_generation);
    if (generation == seen_generation && (waiting_kinds & bit(kind)) == 0) return;
    CarriedRow rows[kLeaseSpaces];
    const int n = idgen_installed() ? read_guard_rows(rows, kLeaseSpaces) : 0;
    uint32_t waiting = 0;
    Blocker blocker{InvalidOid, InvalidOid, -1};
    Relation rel = table_open(SubscriptionRelationId, AccessShareLock);
    SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 0, nullptr);
    for (HeapTuple t; HeapTupleIsValid(t = systable_getnext(scan));) {
        const Form_pg_subscription sub = reinterpret_cast<Form_pg_subscription>(GETSTRUCT(t));
        const bool here = sub->subdbid == MyDatabaseId;
        const Guard g = guard_as_seen(sub, rows, n);
        for (LeaseKind k : kGuardedKinds)
            if ((here || backfill::server_wide(k)) && backfill::guard_blocks(g, k, node_id)) {
                waiting |= bit(k);
                if (k == kind && !OidIsValid(blocker.subid))
                    blocker = Blocker{sub->oid, sub->subdbid, g.publisher_node};
            }
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    seen_generation = generation;
    waiting_kinds = waiting;
    if (!OidIsValid(blocker.subid)) return;
    const char *name = get_subscription_name(blocker.subid, true);
    const char *quoted = quote_literal_cstr(name != nullptr ? name : "?");
    if (blocker.dbid != MyDatabaseId) {
        const char *db = get_database_name(blocker.dbid);
        const char *db_quoted = quote_literal_cstr(db != nullptr ? db : "?");
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s: database \"%s\" takes rows from subscription \"%s\", whose publisher's "
                        "retrospective ids idgen has not taken into account",
                        what, db != nullptr ? db : "?", name != nullptr ? name : "?"),
                 errdetail("These ids share the server's counters across all its databases."),
                 errhint("From here: SELECT idgen_forget_subscription(%s, database => %s); if its publisher "
                         "made no retrospective ids, or disable it and SELECT idgen_carry_state(%s, database "
                         "=> %s); to take its publisher's state over. Dropping it takes the state over too.",
                         quoted, db_quoted, quoted, db_quoted)));
    }
    ereport(
        ERROR,
        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
         errmsg("%s: this database takes rows from subscription \"%s\", whose publisher's "
                "retrospective ids idgen has not taken into account",
                what, name != nullptr ? name : "?"),
         errdetail(
             "%s",
             blocker.publisher_node >= 0
                 ? "The publisher's ids of this kind may equal this server's until its state is taken over."
                 : "The publisher's idgen.node_id is unknown, so its retrospective ids may equal this "
                   "server's."),
         errhint("Drop the subscription when the move is done (DROP SUBSCRIPTION takes the publisher's "
                 "state over), or disable it and SELECT idgen_carry_state(%s); or, if its publisher "
                 "made no retrospective ids, SELECT idgen_forget_subscription(%s);",
                 quoted, quoted)));
}

}  // namespace idgen::pg
