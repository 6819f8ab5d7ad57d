// The wait for synchronous standbys that every durable step of idgen ends with (the horizon, the
// lease counters, a carried copy of the state): a record the standbys have not confirmed must
// not let an id out, or a failover to one of them could hand the id out again.
#pragma once

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/xlogdefs.h"
}

namespace idgen::pg {

// Waits, as a commit would under the session's synchronous_commit, until the synchronous
// standbys confirm WAL up to `lsn`. Raises 57014 when the wait was canceled before they did,
// so that no id that depends on the record is handed out. Returns whether the record may count
// as confirmed for every session: true with no synchronous standby configured, or once they
// flushed it; false when this session's synchronous_commit (local, off, remote_write) asked for
// less than a flush - its own ids may go, but shared state must not be published on its word,
// or sessions that wait would hand out ids the standbys never confirmed. Call with no LWLock
// held.
bool wait_for_sync_standbys(XLogRecPtr lsn, const char *what);

}  // namespace idgen::pg
