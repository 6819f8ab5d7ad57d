// A backend's libpq connection to another server (the publisher of a subscription) that a cancel,
// statement_timeout or the postmaster's death ends at once: libpq is only ever asked what it can
// do without blocking, and every wait is on the latch and the socket (WaitLatchOrSocket, then
// CHECK_FOR_INTERRUPTS), so a DROP SUBSCRIPTION against a publisher that took the connection and
// never answers can be cancelled. The socket counts as an external file descriptor
// (AcquireExternalFD), as PostgreSQL's own libpq users count theirs. (PostgreSQL 16 has
// libpq-be-fe-helpers.h for this; 15 has not.)
//
// An ERROR raised while waiting (the cancel) closes the connection on its way out: nothing of
// libpq outlives the longjmp. An interrupt that raises nothing (a ProcSignalBarrier) leaves the
// connection open and the wait goes on.
#pragma once

#include <cstddef>

extern "C" {
#include "libpq-fe.h"
}

namespace idgen::pg {

// Connects with libpq's keywords and values within timeout_ms; nullptr, with the reason in
// `error`, when it could not (no descriptor left, refused, timed out).
PGconn *connect_interruptibly(const char *const *keys, const char *const *values, int timeout_ms, char *error,
                              size_t error_size);
// Sends `query` and returns its result within timeout_ms (nullptr when it timed out or the
// connection broke; PQerrorMessage says why). The caller PQclears it.
PGresult *exec_interruptibly(PGconn *conn, const char *query, int timeout_ms);
// Closes the connection and gives its descriptor back.
void finish_connection(PGconn *conn);

}  // namespace idgen::pg
