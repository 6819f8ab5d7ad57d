// Reading a publisher's idgen and taking its state over (publisher_state.hpp), for DROP
// SUBSCRIPTION and idgen_carry_state.
#include "pg/moves/publisher_state.hpp"

#include <cstdlib>
#include <cstring>

#include "pg/boundary/postgres_api.hpp"
#include "pg/moves/publisher_connection.hpp"
#include "pg/moves/subscription_guard.hpp"

extern "C" {
#include "libpq-fe.h"
}

namespace idgen::pg {

static bool fail(PublisherState *p, const char *what, const char *why, PGconn *conn) {
    // "what: why", cut to the buffer where longer.
    strlcpy(p->error, what, sizeof p->error);
    strlcat(p->error, ": ", sizeof p->error);
    strlcat(p->error, why, sizeof p->error);
    char *nl = strchr(p->error, '\n');
    if (nl != nullptr) *nl = '\0';
    finish_connection(conn);
    return false;
}

// Whether the connection string itself gives a password, as PostgreSQL requires of a subscription
// that must use one (walrcv_check_conninfo): one found in the server's own .pgpass would not do.
static bool conninfo_has_password(const char *conninfo) {
    PQconninfoOption *options = PQconninfoParse(conninfo, nullptr);
    bool found = false;
    for (PQconninfoOption *o = options; o != nullptr && o->keyword != nullptr; o++)
        if (strcmp(o->keyword, "password") == 0 && o->val != nullptr && o->val[0] != '\0') found = true;
    PQconninfoFree(options);
    return found;
}

bool read_publisher(const char *conninfo, bool with_rows, bool password_required, PublisherState *p) {
    *p = PublisherState{};
    p->node_id = -1;
    if (password_required && !conninfo_has_password(conninfo)) {
        snprintf(p->error, sizeof p->error,
                 "the connection string gives no password (required for subscriptions not owned by a "
                 "superuser)");
        return false;
    }
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

void take_over_publisher(const PublisherState &p) {
    // The gate alone: taking rows over only raises state, so the adoptions still pending (the
    // end of an archive recovery, this database's carried rows) may follow at the first
    // generator call; the rows of this database are adopted before they are overwritten
    // (adopt_carried_state_once, first in every write of the rows).
    SharedState *s = require_shared_state("taking over the publisher's idgen state");
    const bool into_rows = idgen_installed();
    for (int i = 0; i < p.rows; i++)
        take_over_row(s, p.row[i], into_rows, "taking over the publisher's idgen state");
}

}  // namespace idgen::pg
