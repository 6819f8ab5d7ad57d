// The subscription statements of every database, watched by a ProcessUtility hook
// (subscription_statements.hpp; the whole mechanism in subscription_guard.hpp): CREATE and ALTER
// SUBSCRIPTION read the publisher and write its guard, DROP SUBSCRIPTION takes its state over, and
// SECURITY LABEL FOR idgen finds idgen's label provider registered.
#include "pg/moves/subscription_statements.hpp"

#include <cstring>

#include "core/backfill/move_guard.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/moves/carried_state.hpp"
#include "pg/moves/publisher_state.hpp"
#include "pg/moves/subscription_guard.hpp"

extern "C" {
#include "catalog/pg_subscription.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

namespace idgen::pg {

using backfill::Guard;
using backfill::GuardState;

static bool connects(const CreateSubscriptionStmt *stmt) {
    ListCell *lc;
    foreach (lc, stmt->options) {
        DefElem *opt = lfirst_node(DefElem, lc);
        if (strcmp(opt->defname, "connect") == 0) return defGetBoolean(opt);
    }
    return true;
}

// idgen reads the publisher with the subscription's connection string under the rule PostgreSQL
// applies to the subscription's own connections (pg_compat.hpp): never more than it allows. (A
// stricter rule broke Citus's shard moves: their subscriptions belong to a role made superuser
// and then demoted, with password_required off, and the DROP that ends the move failed.)
static bool password_required(const Subscription *sub) {
    return subscription_needs_password(IDGEN_SUBSCRIPTION_PASSWORD_REQUIRED(sub), superuser_arg(sub->owner));
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
    // Read before PostgreSQL has checked the statement: a role that is no superuser needs a
    // password whatever the statement says, since only a superuser may turn password_required
    // off (and on 15, only a superuser may create a subscription at all).
    creating.read = read_publisher(stmt->conninfo, false, !superuser(), &creating.p);
    if (creating.read) refuse_same_node(creating.p, "CREATE SUBSCRIPTION");
}

static void subscription_created(const CreateSubscriptionStmt *stmt) {
    if (idgen_installed() && connects(stmt)) {
        const Oid subid = get_subscription_oid(stmt->subname, false);
        if (!creating.read) notice_unknown_publisher(creating.p);
        const Guard g = guard_of_publisher(creating.p, creating.read);
        // A full table is no reason to fail a statement that has made the publisher's slot:
        // without a row the subscription is guarded as one whose publisher is unknown.
        if (write_guard_row(subid, g.publisher_node, static_cast<int32_t>(g.state), 0, "CREATE SUBSCRIPTION"))
            publish_guard(subid, g);
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
            const bool read = read_publisher(sub->conninfo, false, password_required(sub), p);
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
                        MemoryContextStrdup(TopMemoryContext, stmt->subname), password_required(sub),
                        backfill::drop_takes_over(g, brought_rows)};
}

static void subscription_dropped() {
    if (!OidIsValid(dropping.subid)) return;
    if (dropping.takes_over) {
        PublisherState *p = static_cast<PublisherState *>(palloc(sizeof(PublisherState)));
        if (read_publisher(dropping.conninfo, true, dropping.password_required, p)) {
            take_over_publisher(*p);
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
    else if (IsA(stmt, SecLabelStmt))
        admit_guard_label_statement(castNode(SecLabelStmt, stmt));
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
