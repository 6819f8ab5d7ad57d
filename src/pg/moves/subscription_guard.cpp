// The guards of subscriptions and the state taken over from their publishers
// (subscription_guard.hpp): the ProcessUtility hook, idgen_carry_state,
// idgen_forget_subscription, and the check every retrospective draw makes.
#include "pg/moves/subscription_guard.hpp"

#include <cstdlib>
#include <cstring>

#include "core/backfill/move_guard.hpp"
#include "core/base/atomic_word.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/moves/carried_state.hpp"
#include "pg/moves/publisher_connection.hpp"

extern "C" {
#include "access/genam.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_subscription.h"
#include "catalog/pg_subscription_rel.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/latch.h"
#include "tcop/utility.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/wait_event.h"
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
    if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PARALLEL_PRE_COMMIT &&
        event != XACT_EVENT_PRE_PREPARE)
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

// What this database's rows say of subscription `subid` (of this database or another); the
// default (awaiting, publisher unknown) when nothing; `flags` the row's flags.
static Guard stored_guard(Oid subid, const CarriedRow *rows, int n, int32_t *flags = nullptr) {
    for (int i = 0; i < n; i++)
        if (rows[i].key == static_cast<int64_t>(subid)) {
            if (flags != nullptr) *flags = rows[i].step;
            return Guard{static_cast<GuardState>(rows[i].bound), rows[i].value};
        }
    if (flags != nullptr) *flags = 0;
    return Guard{GuardState::awaiting, -1};
}

static Guard stored_guard_of(Oid subid, int32_t *flags = nullptr) {
    CarriedRow rows[kLeaseSpaces];
    const int n = idgen_installed() ? read_guard_rows(rows, kLeaseSpaces) : 0;
    return stored_guard(subid, rows, n, flags);
}

// Whether a table of subscription `subid` (of this database) left its initial state: only then
// can rows have arrived (the apply worker applies changes to a table only once it is
// synchronised). A subscription made with connect = false and never refreshed has no table.
static bool has_synchronised_a_table(Oid subid) {
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

static void guard_row_or_refuse(Oid subid, const Guard &g, int32_t flags, const char *what) {
    if (!write_guard_row(subid, g.publisher_node, static_cast<int32_t>(g.state), flags, what))
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("%s: idgen's table \"reserved_state\" has no free row", what)));
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
        // This database's rows speak for subscriptions of other databases too: the state taken
        // over from here (idgen_carry_state(..., database => ...)) is the server's.
        const Guard g = backfill::current_guard(stored_guard(sub->oid, rows, n), sub->subenabled);
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

// ---- Reading the publisher ---------------------------------------------------------------------

struct PublisherState {
    char error[256];
    int64_t node_id;  // -1: none
    bool has_idgen;
    int rows;
    CarriedRow row[kLeaseSpaces + 1];
};

static bool fail(PublisherState *p, const char *what, const char *why, PGconn *conn) {
    snprintf(p->error, sizeof p->error, "%s: %s", what, why);
    char *nl = strchr(p->error, '\n');
    if (nl != nullptr) *nl = '\0';
    finish_connection(conn);
    return false;
}

// Connects to the publisher with `conninfo` (10 s to connect, 10 s per query, each wait
// cancellable: publisher_connection.hpp) and reads its idgen.node_id and, when `with_rows`, its
// reserved_state. `password_required`: for a subscription whose owner is no superuser, the
// server's own credentials (a .pgpass, peer authentication) must not be what let the connection
// in, as PostgreSQL requires of the subscription itself. libpq's objects are gone before anything
// can raise an ERROR here (a cancel closes the connection before it raises): the caller acts on
// the copy.
static bool read_publisher(const char *conninfo, bool with_rows, bool password_required, PublisherState *p) {
    *p = PublisherState{};
    p->node_id = -1;
    const char *keys[] = {"dbname", "application_name", "options", nullptr};
    const char *values[] = {conninfo, "idgen", "-c statement_timeout=10s", nullptr};
    char why[256];
    PGconn *conn = connect_interruptibly(keys, values, 10000, why, sizeof why);
    if (conn == nullptr) return fail(p, "could not connect to the publisher", why, nullptr);
    if (password_required && !PQconnectionUsedPassword(conn)) {
        finish_connection(conn);
        snprintf(p->error, sizeof p->error,
                 "the publisher let the connection in without a password (required "
                 "for subscriptions not owned by a superuser)");
        return false;
    }
    PGresult *r = exec_interruptibly(
        conn,
        "SELECT pg_catalog.current_setting('idgen.node_id', true), "
        "pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
        "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'idgen'",
        10000);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        PQclear(r);
        return fail(p, "could not read the publisher's idgen", PQerrorMessage(conn), conn);
    }
    if (PQntuples(r) != 1) {  // no idgen there: it made no retrospective ids
        PQclear(r);
        finish_connection(conn);
        return true;
    }
    p->has_idgen = true;
    if (!PQgetisnull(r, 0, 0) && *PQgetvalue(r, 0, 0) != '\0')
        p->node_id = strtoll(PQgetvalue(r, 0, 0), nullptr, 10);
    char query[NAMEDATALEN * 2 + 128];
    snprintf(query, sizeof query, "SELECT slot, kind, key, value, writer, bound, step FROM %s.reserved_state",
             PQgetvalue(r, 0, 1));
    PQclear(r);
    if (with_rows) {
        r = exec_interruptibly(conn, query, 10000);
        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 7) {
            PQclear(r);
            return fail(p, "could not read the publisher's reserved_state", PQerrorMessage(conn), conn);
        }
        for (int i = 0; i < PQntuples(r) && p->rows < kLeaseSpaces + 1; i++) {
            auto v = [&](int c) { return strtoll(PQgetvalue(r, i, c), nullptr, 10); };
            p->row[p->rows++] =
                CarriedRow{static_cast<int32_t>(v(0)), static_cast<int32_t>(v(1)), v(2), v(3), v(4),
                           static_cast<int32_t>(v(5)), static_cast<int32_t>(v(6))};
        }
        PQclear(r);
    }
    finish_connection(conn);
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
    for (int i = 0; i < p.rows; i++)
        take_over_row(s, p.row[i], into_rows, "taking over the publisher's idgen state");
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

// A publisher that issues live ids under this server's own node id: refused before the
// subscription is made (nothing of it exists yet, on either side) or its connection changed.
static void refuse_same_node(const PublisherState &p, const char *what) {
    if (!backfill::same_node(p.node_id, node_id)) return;
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("%s: the publisher has this server's idgen.node_id (%d)", what, node_id),
             errdetail("Both servers would issue Snowflake ids, unique timestamps and other ids under one "
                       "node id for as long as both write (a blue/green move's old side until it drains), "
                       "and no state taken over when the subscription is dropped can keep those apart."),
             errhint("Give this server a node id of its own (ALTER SYSTEM SET idgen.node_id = ...; and a "
                     "restart), then subscribe again.")));
}

// The guard as the publisher is now: its node id (none when unknown: a subscription without a
// known node id is guarded as one whose publisher's node id is unknown), whether it has idgen.
static Guard guard_of_publisher(const PublisherState &p, bool read) {
    if (!read) return Guard{GuardState::awaiting, -1};
    return Guard{p.has_idgen ? GuardState::awaiting : GuardState::publisher_without_idgen, p.node_id};
}

// A publisher that could not be read is not reason enough to fail the statement (PostgreSQL
// reports an unreachable publisher itself where it matters): the guard then knows no node id,
// the safe side, and says so once the statement has succeeded.
static void notice_unknown_publisher(const PublisherState &p) {
    ereport(NOTICE, (errmsg("idgen: %s", p.error),
                     errdetail("The publisher's idgen.node_id is unknown: retrospective ids wait while the "
                               "subscription exists.")));
}

// CREATE SUBSCRIPTION: the publisher is read before the statement runs (so that a refusal leaves
// no slot behind on the publisher) and its guard written after (the subscription's oid).
static struct {
    bool read;
    PublisherState p;
} creating;

static void subscription_creating(const CreateSubscriptionStmt *stmt) {
    creating.read = false;
    if (!idgen_installed() || !connects(stmt)) return;
    creating.read = read_publisher(stmt->conninfo, false, password_required(GetUserId()), &creating.p);
    if (creating.read) refuse_same_node(creating.p, "CREATE SUBSCRIPTION");
}

static void subscription_created(const CreateSubscriptionStmt *stmt) {
    if (idgen_installed() && connects(stmt)) {
        const Oid subid = get_subscription_oid(stmt->subname, false);
        if (!creating.read) notice_unknown_publisher(creating.p);
        const Guard g = guard_of_publisher(creating.p, creating.read);
        // A full table is no reason to fail a statement that has made the publisher's slot:
        // without a row the subscription is guarded as one whose publisher is unknown.
        (void)write_guard_row(subid, g.publisher_node, static_cast<int32_t>(g.state), 0,
                              "CREATE SUBSCRIPTION");
    }
    guards_changed();
}

// Before ALTER SUBSCRIPTION runs: a refresh forgets the tables that left the publication, so
// whether the subscription ever brought rows is written down first.
static void subscription_altering(const AlterSubscriptionStmt *stmt) {
    const Oid subid = get_subscription_oid(stmt->subname, true);
    if (!OidIsValid(subid) || !idgen_installed() || !has_synchronised_a_table(subid)) return;
    int32_t flags = 0;
    const Guard g = stored_guard_of(subid, &flags);
    if ((flags & kGuardBroughtRows) == 0)
        guard_row_or_refuse(subid, g, kGuardBroughtRows, "ALTER SUBSCRIPTION");
}

// A new connection is a new publisher; an enabled subscription brings rows again, so state
// taken over while it was disabled no longer covers it.
static void subscription_altered(const AlterSubscriptionStmt *stmt) {
    const Oid subid = get_subscription_oid(stmt->subname, true);
    if (OidIsValid(subid) && idgen_installed()) {
        const Subscription *sub = GetSubscription(subid, false);
        int32_t flags = 0;
        const Guard stored = stored_guard_of(subid, &flags);
        if (stmt->kind == ALTER_SUBSCRIPTION_CONNECTION) {
            PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
            const bool read = read_publisher(sub->conninfo, false, password_required(sub->owner), p);
            if (read) refuse_same_node(*p, "ALTER SUBSCRIPTION");
            // Said only where PostgreSQL itself is about to connect (an enabled subscription), as
            // at CREATE SUBSCRIPTION: a disabled one changes its conninfo without a message.
            if (!read && sub->enabled) notice_unknown_publisher(*p);
            // Rows that came from the former publisher are covered by nothing the new one says.
            const bool former_rows = (flags & kGuardBroughtRows) != 0 && stored.state == GuardState::awaiting;
            guard_row_or_refuse(subid,
                                former_rows ? Guard{GuardState::awaiting, -1} : guard_of_publisher(*p, read),
                                0, "ALTER SUBSCRIPTION");
        } else if (stored.state == GuardState::carried && sub->enabled) {
            guard_row_or_refuse(subid, Guard{GuardState::awaiting, stored.publisher_node}, 0,
                                "ALTER SUBSCRIPTION");
        }
    }
    guards_changed();
}

// DROP SUBSCRIPTION: the conninfo, the guard and whether rows came are read before it runs (the
// subscription and its tables are still in the catalog) and used after (its workers have
// stopped and its slot is dropped, so no more rows can arrive after the state is read).
struct Dropping {
    Oid subid;
    char *conninfo;
    char *name;
    bool password_required;
    bool takes_over;
};
static Dropping dropping{InvalidOid, nullptr, nullptr, false, false};

static void forget_dropping() {
    if (dropping.conninfo != nullptr) pfree(dropping.conninfo);
    if (dropping.name != nullptr) pfree(dropping.name);
    dropping = Dropping{InvalidOid, nullptr, nullptr, false, false};
}

static void subscription_dropping(const DropSubscriptionStmt *stmt) {
    forget_dropping();  // left by a DROP SUBSCRIPTION that failed
    const Oid subid = get_subscription_oid(stmt->subname, true);
    if (!OidIsValid(subid)) return;
    const Subscription *sub = GetSubscription(subid, false);
    int32_t flags = 0;
    const Guard g = backfill::current_guard(stored_guard_of(subid, &flags), sub->enabled);
    const bool brought_rows = (flags & kGuardBroughtRows) != 0 || has_synchronised_a_table(subid);
    dropping = Dropping{subid, MemoryContextStrdup(TopMemoryContext, sub->conninfo),
                        MemoryContextStrdup(TopMemoryContext, stmt->subname), password_required(sub->owner),
                        backfill::drop_takes_over(g, brought_rows)};
}

static void subscription_dropped() {
    if (!OidIsValid(dropping.subid)) return;
    if (dropping.takes_over) {
        PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
        if (read_publisher(dropping.conninfo, true, dropping.password_required, p)) {
            take_over(*p);
        } else if (idgen_installed()) {
            const char *quoted = quote_literal_cstr(dropping.name);
            ereport(
                ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("DROP SUBSCRIPTION: idgen could not take over the publisher's state: %s", p->error),
                 errdetail("Without it, retrospective ids made here could equal the publisher's."),
                 errhint("Disable the subscription, then take the state over from wherever the publisher's "
                         "database is now (SELECT idgen_carry_state(%s, 'conninfo');) or declare that it "
                         "made no retrospective ids (SELECT idgen_forget_subscription(%s);), and drop "
                         "again (with ALTER SUBSCRIPTION ... SET (slot_name = NONE) if its slot is gone).",
                         quoted, quoted)));
        } else {
            ereport(WARNING,
                    (errmsg("idgen: could not take over the publisher's state: %s", p->error),
                     errdetail("This database has no idgen; ids made by other databases of this server with "
                               "retrospective generators could equal the publisher's.")));
        }
    }
    if (idgen_installed()) free_guard_row(dropping.subid);
    forget_dropping();
    guards_changed();
}

static ProcessUtility_hook_type previous_utility_hook = nullptr;

static void watch_subscriptions(PlannedStmt *pstmt, const char *query, bool read_only_tree,
                                ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *env,
                                DestReceiver *dest, QueryCompletion *qc) {
    Node *stmt = pstmt->utilityStmt;
    if (IsA(stmt, CreateSubscriptionStmt))
        subscription_creating(castNode(CreateSubscriptionStmt, stmt));
    else if (IsA(stmt, AlterSubscriptionStmt))
        subscription_altering(castNode(AlterSubscriptionStmt, stmt));
    else if (IsA(stmt, DropSubscriptionStmt))
        subscription_dropping(castNode(DropSubscriptionStmt, stmt));
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

namespace {

// The subscription named by a function's arguments: `name` in database `db` (an argument, NULL:
// this database).
struct NamedSubscription {
    Oid subid;
    const Subscription *sub;
};

static NamedSubscription find_subscription(const char *function, FunctionCallInfo fcinfo, int name_arg,
                                           int db_arg) {
    if (PG_ARGISNULL(name_arg))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("%s: subscription must not be NULL", function)));
    const char *name = NameStr(*PG_GETARG_NAME(name_arg));
    const Oid dbid =
        PG_ARGISNULL(db_arg) ? MyDatabaseId : get_database_oid(NameStr(*PG_GETARG_NAME(db_arg)), false);
    const Oid subid = GetSysCacheOid2(SUBSCRIPTIONNAME, Anum_pg_subscription_oid, ObjectIdGetDatum(dbid),
                                      CStringGetDatum(name));
    return NamedSubscription{subid, OidIsValid(subid) ? GetSubscription(subid, false) : nullptr};
}

// The processes applying the subscription's changes now: its leader, table syncs, and (16 on)
// parallel apply workers.
static int64 running_workers(Oid subid) {
    Oid types[1] = {OIDOID};
    Datum args[1] = {ObjectIdGetDatum(subid)};
    SPI_connect();
    if (SPI_execute_with_args(
            "SELECT count(*) FROM pg_catalog.pg_stat_subscription WHERE subid = $1 AND pid IS NOT NULL", 1,
            types, args, nullptr, true, 1) != SPI_OK_SELECT)
        elog(ERROR, "idgen_carry_state: could not read pg_stat_subscription");
    bool isnull = false;
    const int64 n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
    SPI_finish();
    return n;
}

// A worker notices a DISABLE only between the transactions it applies; one caught inside a
// transaction (waiting for a lock, or a parallel apply worker with a streamed transaction)
// still commits its rows after the DISABLE, and their ids may be made by the publisher after
// its state is read here. So the state is read only once no worker of the subscription is
// left: a worker between transactions stops within about a second of the DISABLE.
constexpr int kWorkersStopWaitMs = 5000;

static void wait_for_workers_to_stop(Oid subid, const char *name) {
    for (int waited_ms = 0;; waited_ms += 50) {
        const int64 running = running_workers(subid);
        if (running == 0) return;
        if (waited_ms >= kWorkersStopWaitMs)
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("idgen_carry_state: subscription \"%s\" is disabled, but its workers are still "
                            "applying (%lld)",
                            name, static_cast<long long>(running)),
                     errdetail(
                         "A worker stops at the end of the transaction it applies; rows it commits after the "
                         "state is read would not be covered."),
                     errhint("Run it again once SELECT count(pid) FROM pg_stat_subscription WHERE subname = "
                             "%s returns 0.",
                             quote_literal_cstr(name))));
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 50, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}

static void record_guard(Oid subid, int64_t publisher_node, GuardState state, const char *what) {
    guard_row_or_refuse(subid, Guard{state, publisher_node}, 0, what);
    guards_changed();
}

}  // namespace

// (subscription name, conninfo text DEFAULT NULL, database name DEFAULT NULL) -> void: takes a
// publisher's state over by hand: the subscription's (disabled, so that no more rows arrive) from
// `conninfo` or its own; with no such subscription, from `conninfo` alone. A subscription of
// another database is named with `database`: the state taken over is the server's, and this
// database's guard row records it.
Datum idgen_carry_state(PG_FUNCTION_ARGS) {
    const NamedSubscription s = find_subscription("idgen_carry_state", fcinfo, 0, 2);
    const char *name = NameStr(*PG_GETARG_NAME(0));
    if (s.sub == nullptr && PG_ARGISNULL(1))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                        errmsg("idgen_carry_state: subscription \"%s\" does not exist", name),
                        errhint("Give the publisher's conninfo as the second argument, or the subscription's "
                                "database as database => '...'.")));
    if (s.sub != nullptr && s.sub->enabled)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("idgen_carry_state: subscription \"%s\" is enabled", name),
                 errdetail("Rows taken after the state is read would not be covered."),
                 errhint("ALTER SUBSCRIPTION %s DISABLE; first, in its database.", quote_identifier(name))));
    if (s.sub != nullptr) wait_for_workers_to_stop(s.subid, name);
    const char *conninfo = !PG_ARGISNULL(1) ? text_to_cstring(PG_GETARG_TEXT_PP(1)) : s.sub->conninfo;
    PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
    if (!read_publisher(conninfo, true, false, p))
        ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE), errmsg("idgen_carry_state: %s", p->error)));
    take_over(*p);
    if (s.sub != nullptr) record_guard(s.subid, p->node_id, GuardState::carried, "idgen_carry_state()");
    PG_RETURN_VOID();
}

// (subscription name, database name DEFAULT NULL) -> void: declares that the subscription's
// publisher made no retrospective ids to take into account.
Datum idgen_forget_subscription(PG_FUNCTION_ARGS) {
    const NamedSubscription s = find_subscription("idgen_forget_subscription", fcinfo, 0, 1);
    if (s.sub == nullptr)
        ereport(ERROR,
                (errcode(ERRCODE_UNDEFINED_OBJECT),
                 errmsg("idgen_forget_subscription: subscription \"%s\" does not exist",
                        NameStr(*PG_GETARG_NAME(0))),
                 errhint("Name the database of a subscription of another database: database => '...'.")));
    record_guard(s.subid, -1, GuardState::forgotten, "idgen_forget_subscription()");
    PG_RETURN_VOID();
}
