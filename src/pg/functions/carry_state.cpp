// idgen_carry_state and idgen_forget_subscription: the ways out of a subscription's guard by
// hand (subscription_guard.hpp), for a publisher DROP SUBSCRIPTION cannot reach or one that made
// no retrospective ids.
#include "core/backfill/move_guard.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/moves/publisher_state.hpp"
#include "pg/moves/subscription_guard.hpp"

extern "C" {
#include "catalog/pg_subscription.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/wait_event.h"
}

using namespace idgen::pg;
using idgen::backfill::Guard;
using idgen::backfill::GuardState;

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
    take_over_publisher(*p);
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
