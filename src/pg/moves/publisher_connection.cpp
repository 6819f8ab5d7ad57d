// An interruptible libpq connection of a backend: see publisher_connection.hpp.
#include "pg/moves/publisher_connection.hpp"

#include <cstdio>

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/wait_event.h"
}

namespace idgen::pg {

void finish_connection(PGconn *conn) {
    if (conn == nullptr) return;
    PQfinish(conn);
    ReleaseExternalFD();
}

// Waits until the socket is ready for `events` (WL_SOCKET_READABLE or WL_SOCKET_WRITEABLE), the
// latch is set, or the deadline passes. Pending interrupts are served here: one that raises an
// ERROR (a cancel, a statement timeout, a terminate) closes the connection and clears `held` (a
// result kept so far, or nullptr) on its way out; most return (a ProcSignalBarrier that any DROP
// DATABASE on the server sends, a memory-context report, a client-connection check), and the
// caller goes on with both, so neither may be freed before it is known which. False when the
// deadline passed.
static bool wait_for_socket(PGconn *conn, int events, TimestampTz deadline, PGresult *held) {
    const long left_ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
    if (left_ms <= 0) return false;
    const int rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
                                     PQsocket(conn), left_ms, PG_WAIT_EXTENSION);
    if (rc & WL_LATCH_SET) ResetLatch(MyLatch);
    PG_TRY();
    { CHECK_FOR_INTERRUPTS(); }
    PG_CATCH();
    {
        PQclear(held);
        finish_connection(conn);
        PG_RE_THROW();
    }
    PG_END_TRY();
    return true;
}

PGconn *connect_interruptibly(const char *const *keys, const char *const *values, int timeout_ms, char *error,
                              size_t error_size) {
    if (!AcquireExternalFD()) {
        snprintf(error, error_size, "no file descriptor left for a connection");
        return nullptr;
    }
    PGconn *conn = PQconnectStartParams(keys, values, 1);
    if (conn == nullptr || PQstatus(conn) == CONNECTION_BAD) {
        snprintf(error, error_size, "%s", conn != nullptr ? PQerrorMessage(conn) : "out of memory");
        finish_connection(conn);
        if (conn == nullptr) ReleaseExternalFD();
        return nullptr;
    }
    const TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
    for (PostgresPollingStatusType poll = PGRES_POLLING_WRITING; poll != PGRES_POLLING_OK;) {
        if (poll == PGRES_POLLING_FAILED ||
            !wait_for_socket(conn, poll == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE,
                             deadline, nullptr)) {
            snprintf(error, error_size, "%s",
                     poll == PGRES_POLLING_FAILED ? PQerrorMessage(conn) : "timed out");
            finish_connection(conn);
            return nullptr;
        }
        poll = PQconnectPoll(conn);
    }
    return conn;
}

PGresult *exec_interruptibly(PGconn *conn, const char *query, int timeout_ms) {
    if (!PQsendQuery(conn, query)) return nullptr;
    const TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
    PGresult *last = nullptr;  // the last result (one query: one), kept until libpq says it is done
    for (;;) {
        while (PQisBusy(conn)) {
            if (!wait_for_socket(conn, WL_SOCKET_READABLE, deadline, last) || !PQconsumeInput(conn)) {
                PQclear(last);
                return nullptr;
            }
        }
        PGresult *r = PQgetResult(conn);
        if (r == nullptr) return last;
        PQclear(last);
        last = r;
    }
}

}  // namespace idgen::pg
