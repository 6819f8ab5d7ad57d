// The guards of subscriptions and the state taken over from their publishers
// (subscription_guard.hpp): the ProcessUtility hook, idgen_carry_state,
// idgen_forget_subscription, and the check every retrospective draw makes.
#include "pg/moves/subscription_guard.hpp"

#include <cstdlib>
#include <cstring>

#include "core/base/atomic_word.hpp"
#include "core/backfill/move_guard.hpp"
#include "pg/moves/carried_state.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/genam.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_subscription.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "libpq-fe.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
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

static bool idgen_installed() {
    return OidIsValid(get_extension_oid("idgen", true));
}

// Moves the shared generation now and again when the transaction commits: a backend that looked
// in between saw the catalog without this statement's change, and must look again once it is
// visible.
static bool changed_in_transaction = false;

static void bump_generation() {
    if (SharedState *s = shared_state_or_null()) idgen::atomic_fetch_add(&s->guard_generation, 1);
}

static void at_transaction_end(XactEvent event, void *) {
    if (!changed_in_transaction) return;
    if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PREPARE)
        bump_generation();
    if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PARALLEL_PRE_COMMIT && event != XACT_EVENT_PRE_PREPARE)
        changed_in_transaction = false;
}

static void guards_changed() {
    static bool registered = false;
    if (!registered) {
        RegisterXactCallback(at_transaction_end, nullptr);
        registered = true;
    }
    changed_in_transaction = true;
    bump_generation();
}

static bool find_guard_of(Oid subid, CarriedRow *out) {
    if (!idgen_installed()) return false;
    CarriedRow rows[kLeaseSpaces];
    const int n = read_guard_rows(rows, kLeaseSpaces);
    for (int i = 0; i < n; i++)
        if (rows[i].key == static_cast<int64_t>(subid)) {
            *out = rows[i];
            return true;
        }
    return false;
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
        Guard g{GuardState::awaiting, -1};  // what idgen knows of a subscription without a row
        for (int i = 0; here && i < n; i++)
            if (rows[i].key == static_cast<int64_t>(sub->oid)) g = Guard{static_cast<GuardState>(rows[i].bound), rows[i].value};
        for (LeaseKind k : kGuardedKinds)
            if ((here || backfill::server_wide(k)) && backfill::guard_blocks(g, k, node_id)) {
                waiting |= bit(k);
                if (k == kind && !OidIsValid(blocker.subid)) blocker = Blocker{sub->oid, sub->subdbid, g.publisher_node};
            }
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    seen_generation = generation;
    waiting_kinds = waiting;
    if (!OidIsValid(blocker.subid)) return;
    const char *name = get_subscription_name(blocker.subid, true);
    if (blocker.dbid != MyDatabaseId) {
        const char *db = get_database_name(blocker.dbid);
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: database \"%s\" takes rows from subscription \"%s\", whose publisher's "
                               "retrospective ids idgen has not taken into account",
                               what, db != nullptr ? db : "?", name != nullptr ? name : "?"),
                        errdetail("These ids share the server's counters across all its databases."),
                        errhint("Backfill when the subscription is dropped: DROP SUBSCRIPTION takes the "
                                "publisher's state over. See the README, Logical replication.")));
    }
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("%s: this database takes rows from subscription \"%s\", whose publisher's "
                           "retrospective ids idgen has not taken into account",
                           what, name != nullptr ? name : "?"),
                    errdetail("%s", blocker.publisher_node >= 0
                                        ? "The publisher's ids of this kind may equal this server's until its state is taken over."
                                        : "The publisher's idgen.node_id is unknown, so its retrospective ids may equal this server's."),
                    errhint("Backfill on the publisher, or drop the subscription when the move is done: DROP "
                            "SUBSCRIPTION takes the publisher's state over. See the README, Logical replication.")));
}

// ---- Reading the publisher ---------------------------------------------------------------------

struct PublisherState {
    char error[256];
    int64_t node_id;  // -1: none
    int rows;
    CarriedRow row[kLeaseSpaces + 1];
};

static bool fail(PublisherState *p, const char *what, PGconn *conn) {
    snprintf(p->error, sizeof p->error, "%s: %s", what, conn != nullptr ? PQerrorMessage(conn) : "out of memory");
    char *nl = strchr(p->error, '\n');
    if (nl != nullptr) *nl = '\0';
    if (conn != nullptr) PQfinish(conn);
    return false;
}

// Connects to the publisher with `conninfo` (10 s to connect, 10 s per query) and reads its
// idgen.node_id and, when `with_rows`, its reserved_state. `password_required`: for a
// subscription whose owner is no superuser, the server's own credentials (a .pgpass, peer
// authentication) must not be what let the connection in, as PostgreSQL requires of the
// subscription itself. libpq's objects are gone before anything can raise an ERROR here: the
// caller acts on the copy.
static bool read_publisher(const char *conninfo, bool with_rows, bool password_required, PublisherState *p) {
    *p = PublisherState{};
    p->node_id = -1;
    const char *keys[] = {"dbname", "connect_timeout", "application_name", "options", nullptr};
    const char *values[] = {conninfo, "10", "idgen", "-c statement_timeout=10s", nullptr};
    PGconn *conn = PQconnectdbParams(keys, values, 1);
    if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) return fail(p, "could not connect to the publisher", conn);
    if (password_required && !PQconnectionUsedPassword(conn)) {
        PQfinish(conn);
        snprintf(p->error, sizeof p->error, "the publisher let the connection in without a password (required "
                                            "for subscriptions not owned by a superuser)");
        return false;
    }
    PGresult *r = PQexec(conn,
                         "SELECT pg_catalog.current_setting('idgen.node_id', true), "
                         "pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
                         "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'idgen'");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        PQclear(r);
        return fail(p, "could not read the publisher's idgen", conn);
    }
    if (PQntuples(r) != 1) {  // no idgen there: it made no retrospective ids
        PQclear(r);
        PQfinish(conn);
        return true;
    }
    if (!PQgetisnull(r, 0, 0) && *PQgetvalue(r, 0, 0) != '\0') p->node_id = strtoll(PQgetvalue(r, 0, 0), nullptr, 10);
    char query[NAMEDATALEN * 2 + 128];
    snprintf(query, sizeof query, "SELECT slot, kind, key, value, writer, bound, step FROM %s.reserved_state",
             PQgetvalue(r, 0, 1));
    PQclear(r);
    if (with_rows) {
        r = PQexec(conn, query);
        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 7) {
            PQclear(r);
            return fail(p, "could not read the publisher's reserved_state", conn);
        }
        for (int i = 0; i < PQntuples(r) && p->rows < kLeaseSpaces + 1; i++) {
            auto v = [&](int c) { return strtoll(PQgetvalue(r, i, c), nullptr, 10); };
            p->row[p->rows++] = CarriedRow{static_cast<int32_t>(v(0)), static_cast<int32_t>(v(1)), v(2), v(3), v(4),
                                           static_cast<int32_t>(v(5)), static_cast<int32_t>(v(6))};
        }
        PQclear(r);
    }
    PQfinish(conn);
    return true;
}

// Takes the publisher's rows over: every generator raised above its horizon, every lease
// counter above its own (as a restore of its dump would); into this database's rows too when it
// has idgen.
static void take_over(const PublisherState &p) {
    // The gate alone: taking rows over only raises state, so the adoptions still pending (the
    // end of an archive recovery, this database's carried rows) may follow at the first
    // generator call; the rows of this database are adopted before they are overwritten
    // (carry_lease, ensure_carried_horizon).
    SharedState *s = require_shared_state("taking over the publisher's idgen state");
    const bool into_rows = idgen_installed();
    for (int i = 0; i < p.rows; i++) take_over_row(s, p.row[i], into_rows, "taking over the publisher's idgen state");
}

// ---- The statements ----------------------------------------------------------------------------

static bool password_required(Oid owner) {
    return !superuser_arg(owner);
}

static bool connects(const CreateSubscriptionStmt *stmt) {
    ListCell *lc;
    foreach (lc, stmt->options) {
        DefElem *opt = lfirst_node(DefElem, lc);
        if (strcmp(opt->defname, "connect") == 0) return defGetBoolean(opt);
    }
    return true;
}

// The publisher's node id into the guard row (none when unknown: a subscription without a row
// is guarded as one whose publisher's node id is unknown, and a full table is no reason to fail
// a statement that has already made the publisher's slot).
static void learn_publisher(Oid subid, const char *conninfo, bool password_needed, const char *what) {
    PublisherState p;
    if (!read_publisher(conninfo, false, password_needed, &p))
        ereport(NOTICE, (errmsg("idgen: %s", p.error),
                         errdetail("The publisher's idgen.node_id is unknown: retrospective ids wait while the "
                                   "subscription exists.")));
    if (p.node_id >= 0) {
        write_guard_row(subid, p.node_id, static_cast<int32_t>(GuardState::awaiting), what);
    } else {
        free_guard_row(subid);
    }
}

static void subscription_created(const CreateSubscriptionStmt *stmt) {
    if (idgen_installed() && connects(stmt)) {
        const Oid subid = get_subscription_oid(stmt->subname, false);
        learn_publisher(subid, stmt->conninfo, password_required(GetUserId()), "CREATE SUBSCRIPTION");
    }
    guards_changed();
}

// A new connection is a new publisher; an enabled subscription brings rows again, so state
// taken over while it was disabled no longer covers it.
static void subscription_altered(const AlterSubscriptionStmt *stmt) {
    const Oid subid = get_subscription_oid(stmt->subname, true);
    CarriedRow g;
    if (OidIsValid(subid) && idgen_installed()) {
        const Subscription *sub = GetSubscription(subid, false);
        if (stmt->kind == ALTER_SUBSCRIPTION_CONNECTION)
            learn_publisher(subid, sub->conninfo, password_required(sub->owner), "ALTER SUBSCRIPTION");
        else if (find_guard_of(subid, &g) && static_cast<GuardState>(g.bound) == GuardState::carried && sub->enabled)
            write_guard_row(subid, g.value, static_cast<int32_t>(GuardState::awaiting), "ALTER SUBSCRIPTION");
    }
    guards_changed();
}

// DROP SUBSCRIPTION: the conninfo is read before it runs (the subscription is still in the
// catalog) and used after (its workers have stopped and its slot is dropped, so no more rows
// can arrive after the state is read).
struct Dropping {
    Oid subid;
    char *conninfo;
    char *name;
    bool password_required;
};
static Dropping dropping{InvalidOid, nullptr, nullptr, false};

static void forget_dropping() {
    if (dropping.conninfo != nullptr) pfree(dropping.conninfo);
    if (dropping.name != nullptr) pfree(dropping.name);
    dropping = Dropping{InvalidOid, nullptr, nullptr, false};
}

static void subscription_dropping(const DropSubscriptionStmt *stmt) {
    forget_dropping();  // left by a DROP SUBSCRIPTION that failed
    const Oid subid = get_subscription_oid(stmt->subname, true);
    if (!OidIsValid(subid)) return;
    const Subscription *sub = GetSubscription(subid, false);
    dropping = Dropping{subid, MemoryContextStrdup(TopMemoryContext, sub->conninfo),
                        MemoryContextStrdup(TopMemoryContext, stmt->subname), password_required(sub->owner)};
}

static void subscription_dropped() {
    if (!OidIsValid(dropping.subid)) return;
    CarriedRow g;
    const bool settled = find_guard_of(dropping.subid, &g) && static_cast<GuardState>(g.bound) != GuardState::awaiting;
    if (!settled) {  // not taken over by hand while disabled, nor declared not needed
        PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
        if (read_publisher(dropping.conninfo, true, dropping.password_required, p)) {
            take_over(*p);
        } else if (idgen_installed()) {
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("DROP SUBSCRIPTION: idgen could not take over the publisher's state: %s", p->error),
                            errdetail("Without it, retrospective ids made here could equal the publisher's."),
                            errhint("Disable the subscription, then take the state over from wherever the publisher's "
                                    "database is now (SELECT idgen_carry_state('%s', 'conninfo');) or declare that it "
                                    "made no retrospective ids (SELECT idgen_forget_subscription('%s');), and drop "
                                    "again (with ALTER SUBSCRIPTION ... SET (slot_name = NONE) if its slot is gone).",
                                    dropping.name, dropping.name)));
        } else {
            ereport(WARNING, (errmsg("idgen: could not take over the publisher's state: %s", p->error),
                              errdetail("This database has no idgen; ids made by other databases of this server with "
                                        "retrospective generators could equal the publisher's.")));
        }
    }
    if (idgen_installed()) free_guard_row(dropping.subid);
    forget_dropping();
    guards_changed();
}

static ProcessUtility_hook_type previous_utility_hook = nullptr;

static void watch_subscriptions(PlannedStmt *pstmt, const char *query, bool read_only_tree, ProcessUtilityContext context,
                                ParamListInfo params, QueryEnvironment *env, DestReceiver *dest, QueryCompletion *qc) {
    Node *stmt = pstmt->utilityStmt;
    if (IsA(stmt, DropSubscriptionStmt)) subscription_dropping(castNode(DropSubscriptionStmt, stmt));
    if (previous_utility_hook != nullptr)
        previous_utility_hook(pstmt, query, read_only_tree, context, params, env, dest, qc);
    else
        standard_ProcessUtility(pstmt, query, read_only_tree, context, params, env, dest, qc);
    if (IsA(stmt, CreateSubscriptionStmt))
        subscription_created(castNode(CreateSubscriptionStmt, stmt));
    else if (IsA(stmt, AlterSubscriptionStmt))
        subscription_altered(castNode(AlterSubscriptionStmt, stmt));
    else if (IsA(stmt, DropSubscriptionStmt))
        subscription_dropped();
}

void install_subscription_hook() {
    previous_utility_hook = ProcessUtility_hook;
    ProcessUtility_hook = watch_subscriptions;
}

}  // namespace idgen::pg

using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_carry_state);
PG_FUNCTION_INFO_V1(idgen_forget_subscription);
}

// (subscription name, conninfo text DEFAULT NULL) -> void: takes a publisher's state over by
// hand: the subscription's (disabled, so that no more rows arrive) from `conninfo` or its own;
// with no such subscription, from `conninfo` alone.
Datum idgen_carry_state(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("idgen_carry_state: subscription must not be NULL")));
    const char *name = NameStr(*PG_GETARG_NAME(0));
    const Oid subid = get_subscription_oid(name, true);
    const Subscription *sub = OidIsValid(subid) ? GetSubscription(subid, false) : nullptr;
    if (sub == nullptr && PG_ARGISNULL(1))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("idgen_carry_state: subscription \"%s\" does not exist", name),
                        errhint("Give the publisher's conninfo as the second argument.")));
    if (sub != nullptr && sub->enabled)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("idgen_carry_state: subscription \"%s\" is enabled", name),
                        errdetail("Rows taken after the state is read would not be covered."),
                        errhint("ALTER SUBSCRIPTION %s DISABLE; first.", quote_identifier(name))));
    const char *conninfo = !PG_ARGISNULL(1) ? text_to_cstring(PG_GETARG_TEXT_PP(1)) : sub->conninfo;
    PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
    if (!read_publisher(conninfo, true, false, p))
        ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE), errmsg("idgen_carry_state: %s", p->error)));
    take_over(*p);
    if (sub != nullptr) {
        if (!write_guard_row(subid, p->node_id, static_cast<int32_t>(GuardState::carried), "idgen_carry_state()"))
            ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                            errmsg("idgen_carry_state: idgen's table \"reserved_state\" has no free row")));
        guards_changed();
    }
    PG_RETURN_VOID();
}

// (subscription name) -> void: declares that the subscription's publisher made no retrospective
// ids to take into account.
Datum idgen_forget_subscription(PG_FUNCTION_ARGS) {
    const char *name = NameStr(*PG_GETARG_NAME(0));
    const Oid subid = get_subscription_oid(name, true);
    if (!OidIsValid(subid))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("idgen_forget_subscription: subscription \"%s\" does not exist", name)));
    if (!write_guard_row(subid, -1, static_cast<int32_t>(GuardState::forgotten), "idgen_forget_subscription()"))
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("idgen_forget_subscription: idgen's table \"reserved_state\" has no free row")));
    guards_changed();
    PG_RETURN_VOID();
}
