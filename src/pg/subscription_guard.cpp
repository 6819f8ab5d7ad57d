// The guards of subscriptions and the state taken over from their publishers
// (subscription_guard.hpp): the event trigger, idgen_carry_state, idgen_forget_subscription,
// and the check every retrospective draw makes.
#include "subscription_guard.hpp"

#include <cstdlib>
#include <initializer_list>
#include <cstring>

#include "../core/atomic_word.hpp"
#include "../core/move_guard.hpp"
#include "carried_state.hpp"
#include "settings.hpp"
#include "postgres_api.hpp"

extern "C" {
#include "catalog/pg_subscription.h"
#include "commands/event_trigger.h"
#include "common/hashfn.h"
#include "libpq-fe.h"
#include "nodes/parsenodes.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
}

namespace idgen::pg {

using backfill::Guard;
using backfill::GuardState;

static int32_t name_hash(const char *name) {
    return static_cast<int32_t>(hash_bytes(reinterpret_cast<const unsigned char *>(name), static_cast<int>(strlen(name))));
}

static Guard guard_of(const CarriedRow &row) {
    return Guard{static_cast<GuardState>(row.bound), row.value,
                 SearchSysCacheExists1(SUBSCRIPTIONOID, ObjectIdGetDatum(static_cast<Oid>(row.key)))};
}

static void guards_changed(SharedState *s) {
    if (s != nullptr) idgen::atomic_fetch_add(&s->guard_generation, 1);
}

// ---- The check ---------------------------------------------------------------------------------
// A backend looks at its database's guards again whenever the shared generation moved (a guard
// was written anywhere), and on every draw while some guard blocks something: a subscription
// dropped in another session is seen at once, without a write to announce it.

static uint64_t seen_generation = UINT64_MAX;
static bool some_guard_blocks = true;

void refuse_while_guarded(SharedState *s, backfill::LeaseKind kind, const char *what) {
    const uint64_t generation = idgen::atomic_load(&s->guard_generation);
    if (generation == seen_generation && !some_guard_blocks) return;
    CarriedRow rows[kLeaseSpaces];
    const int n = read_guard_rows(rows, kLeaseSpaces);
    bool any = false;
    const CarriedRow *blocking = nullptr;
    for (int i = 0; i < n; i++) {
        const Guard g = guard_of(rows[i]);
        if (backfill::guard_spent(g)) {
            free_guard_row(rows[i].key);
            continue;
        }
        for (backfill::LeaseKind k : {backfill::LeaseKind::uuid_auto, backfill::LeaseKind::uuid_given,
                                      backfill::LeaseKind::snowflake, backfill::LeaseKind::uuid_v7})
            any = any || backfill::guard_blocks(g, k, node_id);
        if (blocking == nullptr && backfill::guard_blocks(g, kind, node_id)) blocking = &rows[i];
    }
    seen_generation = generation;
    some_guard_blocks = any;
    if (blocking == nullptr) return;
    const Oid subid = static_cast<Oid>(blocking->key);
    char *name = get_subscription_name(subid, true);
    if (name != nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: this database takes rows from subscription \"%s\", whose publisher's "
                               "retrospective ids idgen has not taken into account", what, name),
                        errdetail("%s", blocking->value >= 0
                                            ? "The publisher's retrospective ids may equal this server's until its state is taken over."
                                            : "The publisher's idgen.node_id is unknown (or equal to this server's), so its retrospective ids may equal this server's."),
                        errhint("Backfill on the publisher, or drop the subscription when the move is done: DROP "
                                "SUBSCRIPTION takes the publisher's state over. See the README, Logical replication.")));
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("%s: a subscription of this database was dropped before idgen could take its "
                           "publisher's state over", what),
                    errdetail("The publisher's retrospective ids may equal this server's."),
                    errhint("SELECT idgen_carry_state('subscription name', 'publisher conninfo'); or, when "
                            "the publisher made no retrospective ids, SELECT idgen_forget_subscription('subscription name');")));
}

// ---- Reading the publisher ---------------------------------------------------------------------

struct PublisherState {
    bool ok;
    char error[256];
    int64_t node_id;  // -1: none
    int rows;
    CarriedRow row[kLeaseSpaces + 1];
};

static bool fail(PublisherState *p, const char *what, PGconn *conn) {
    snprintf(p->error, sizeof p->error, "%s: %s", what, conn != nullptr ? PQerrorMessage(conn) : "");
    char *nl = strchr(p->error, '\n');
    if (nl != nullptr) *nl = '\0';
    if (conn != nullptr) PQfinish(conn);
    return false;
}

// Connects to the publisher with `conninfo` (10 s to answer) and reads its idgen.node_id and,
// when `with_rows`, its reserved_state. libpq's objects are gone before anything can raise an
// ERROR here: the caller acts on the copy.
static bool read_publisher(const char *conninfo, bool with_rows, PublisherState *p) {
    *p = PublisherState{};
    p->node_id = -1;
    const char *keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
    const char *values[] = {conninfo, "10", "idgen", nullptr};
    PGconn *conn = PQconnectdbParams(keys, values, 1);
    if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) return fail(p, "could not connect to the publisher", conn);
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
        p->ok = true;
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
    p->ok = true;
    return true;
}

// Takes the publisher's rows over: every generator raised above its horizon, every lease
// counter above its own (as a restore of its dump would).
static void take_over(SharedState *s, const PublisherState &p) {
    for (int i = 0; i < p.rows; i++) take_over_row(s, p.row[i], "taking over the publisher's idgen state");
}

// ---- Finding a guard by the subscription's name ------------------------------------------------
// An existing subscription by its oid; a dropped one by the hash of its name, among guards
// whose subscription is gone.

// The first guard row that `match` accepts.
template <typename Match>
static bool find_guard_row(Match match, CarriedRow *out) {
    CarriedRow rows[kLeaseSpaces];
    const int n = read_guard_rows(rows, kLeaseSpaces);
    for (int i = 0; i < n; i++)
        if (match(rows[i])) {
            *out = rows[i];
            return true;
        }
    return false;
}

static bool find_guard_of(Oid subid, CarriedRow *out) {
    return find_guard_row([&](const CarriedRow &r) { return r.key == static_cast<int64_t>(subid); }, out);
}

static bool find_guard(const char *name, CarriedRow *out) {
    const Oid subid = get_subscription_oid(name, true);
    if (OidIsValid(subid)) return find_guard_of(subid, out);
    return find_guard_row(
        [&](const CarriedRow &r) { return r.step == name_hash(name) && !guard_of(r).subscription_exists; }, out);
}

// ---- The event trigger -------------------------------------------------------------------------
// DROP SUBSCRIPTION: the conninfo is read at ddl_command_start (the subscription is still in
// the catalog) and used at ddl_command_end (its workers have stopped and its slot is dropped,
// so no more rows can arrive from before the state is read).

static Oid dropping_subid = InvalidOid;
static char *dropping_conninfo = nullptr;
static char *dropping_name = nullptr;

static void subscription_created(SharedState *s, const CreateSubscriptionStmt *stmt) {
    const Oid subid = get_subscription_oid(stmt->subname, false);
    PublisherState p;
    if (!read_publisher(stmt->conninfo, false, &p))
        ereport(NOTICE, (errmsg("idgen: %s; the publisher's idgen.node_id is unknown", p.error),
                         errdetail("Retrospective ids wait in this database until the subscription is dropped.")));
    write_guard_row(subid, p.node_id, static_cast<int32_t>(GuardState::awaiting), name_hash(stmt->subname),
                    "CREATE SUBSCRIPTION");
    guards_changed(s);
}

static void forget_dropping() {
    if (dropping_conninfo != nullptr) pfree(dropping_conninfo);
    if (dropping_name != nullptr) pfree(dropping_name);
    dropping_subid = InvalidOid;
    dropping_conninfo = dropping_name = nullptr;
}

static void subscription_dropping(const DropSubscriptionStmt *stmt) {
    forget_dropping();  // left by a DROP SUBSCRIPTION that failed after its start
    const Oid subid = get_subscription_oid(stmt->subname, true);
    if (!OidIsValid(subid)) return;
    Subscription *sub = GetSubscription(subid, false);
    dropping_subid = subid;
    dropping_conninfo = MemoryContextStrdup(TopMemoryContext, sub->conninfo);
    dropping_name = MemoryContextStrdup(TopMemoryContext, stmt->subname);
}

static void subscription_dropped(SharedState *s) {
    if (!OidIsValid(dropping_subid)) return;
    const Oid subid = dropping_subid;
    const char *conninfo = dropping_conninfo, *name = dropping_name;
    CarriedRow g;
    if (find_guard_of(subid, &g) && static_cast<GuardState>(g.bound) == GuardState::forgotten) {
        free_guard_row(subid);  // nothing to take over, by the administrator's word
        guards_changed(s);
        forget_dropping();
        return;
    }
    PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
    if (read_publisher(conninfo, true, p)) {
        if (s != nullptr) take_over(s, *p);
        write_guard_row(subid, p->node_id, static_cast<int32_t>(GuardState::carried), name_hash(name),
                        "DROP SUBSCRIPTION");
    } else {
        // Also for a subscription made before idgen guarded subscriptions (no row yet).
        const bool guarded = find_guard_of(subid, &g);
        write_guard_row(subid, guarded ? g.value : -1, static_cast<int32_t>(GuardState::awaiting), name_hash(name),
                        "DROP SUBSCRIPTION");
        ereport(WARNING, (errmsg("idgen: %s", p->error),
                          errdetail("The publisher's retrospective ids are not taken into account: retrospective "
                                    "ids wait in this database."),
                          errhint("SELECT idgen_carry_state('%s', 'publisher conninfo'); or, when the publisher made "
                                  "no retrospective ids, SELECT idgen_forget_subscription('%s');",
                                  name, name)));
    }
    guards_changed(s);
    forget_dropping();
}

}  // namespace idgen::pg

using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_subscription_event);
PG_FUNCTION_INFO_V1(idgen_carry_state);
PG_FUNCTION_INFO_V1(idgen_forget_subscription);
}

Datum idgen_subscription_event(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_EVENT_TRIGGER(fcinfo)) elog(ERROR, "idgen_subscription_event: not called as an event trigger");
    const EventTriggerData *trigger = reinterpret_cast<EventTriggerData *>(fcinfo->context);
    SharedState *s = shared_state_or_null();
    const bool end = strcmp(trigger->event, "ddl_command_end") == 0;
    if (trigger->tag == CMDTAG_CREATE_SUBSCRIPTION && end)
        subscription_created(s, reinterpret_cast<const CreateSubscriptionStmt *>(trigger->parsetree));
    else if (trigger->tag == CMDTAG_DROP_SUBSCRIPTION && !end)
        subscription_dropping(reinterpret_cast<const DropSubscriptionStmt *>(trigger->parsetree));
    else if (trigger->tag == CMDTAG_DROP_SUBSCRIPTION && end)
        subscription_dropped(s);
    PG_RETURN_VOID();
}

// (subscription name, conninfo text DEFAULT NULL) -> void: takes the publisher's state over by
// hand (the subscription's own conninfo when it still exists and none is given).
Datum idgen_carry_state(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("idgen_carry_state: subscription must not be NULL")));
    const char *name = NameStr(*PG_GETARG_NAME(0));
    SharedState *s = require_shared_state("idgen_carry_state()");
    const Oid subid = get_subscription_oid(name, true);
    const char *conninfo = !PG_ARGISNULL(1)       ? text_to_cstring(PG_GETARG_TEXT_PP(1))
                           : OidIsValid(subid) ? GetSubscription(subid, false)->conninfo
                                               : nullptr;
    if (conninfo == nullptr)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("idgen_carry_state: subscription \"%s\" does not exist", name),
                        errhint("Give the publisher's conninfo as the second argument.")));
    PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
    if (!read_publisher(conninfo, true, p))
        ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE), errmsg("idgen_carry_state: %s", p->error)));
    take_over(s, *p);
    CarriedRow g;
    if (find_guard(name, &g)) {
        write_guard_row(g.key, p->node_id, static_cast<int32_t>(GuardState::carried), g.step, "idgen_carry_state()");
        guards_changed(s);
        if (guard_of(g).subscription_exists)
            ereport(NOTICE, (errmsg("idgen: subscription \"%s\" still exists: retrospective ids wait until it is dropped", name)));
    }
    PG_RETURN_VOID();
}

// (subscription name) -> void: declares that the publisher's state needs no taking over.
Datum idgen_forget_subscription(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0)) ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("idgen_forget_subscription: subscription must not be NULL")));
    const char *name = NameStr(*PG_GETARG_NAME(0));
    CarriedRow g;
    if (!find_guard(name, &g))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("idgen_forget_subscription: no guard for subscription \"%s\"", name)));
    write_guard_row(g.key, g.value, static_cast<int32_t>(GuardState::forgotten), g.step, "idgen_forget_subscription()");
    guards_changed(shared_state_or_null());
    PG_RETURN_VOID();
}
