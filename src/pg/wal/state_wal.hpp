// idgen's custom WAL resource manager: the durable state that protects uniqueness (horizon
// moves and namespace leases) travels in WAL, so a standby, a crash restart and a
// point-in-time recovery replay it, and a promoted standby resumes above everything the old
// primary issued that its WAL reached.
//
// Resource manager id 172 ("idgen"): not among the ids the PostgreSQL wiki page
// CustomWALResourceManagers lists as taken (128 is for development, 129-140, 150, 151 and 241
// are taken). Every server that may replay idgen's WAL (standbys, a restored backup, the primary
// itself after a crash) must have idgen in shared_preload_libraries, or replay stops with
// "resource manager with ID 172 not registered".
//
// Why the files stay beside WAL (the checkpoint argument). PostgreSQL 15 has no checkpoint hook
// for extensions, and a record before a checkpoint's redo pointer is never replayed again. So
// every record's effect is also in a file in the data directory, made durable (fsync, durable
// rename) *before* the record is inserted on the primary and *during* redo on a standby:
// - primary: file, then WAL. A checkpoint whose redo pointer is past the record began after the
//   file was durable, so a restart from it reads the file; a base backup taken from such a
//   checkpoint copies the file (pg_basebackup copies unknown files). A checkpoint before the
//   record replays it. A crash between the two leaves a file ahead of WAL, which is safe: no
//   id was handed out under the new state before its record was flushed.
// - standby (and any recovery): redo writes the file durably before it returns, so a
//   restartpoint past the record, which can only be made after the record was replayed,
//   always finds the file up to date.
// Redo only ever moves state forward (horizons up, lease counters up), so replaying a record
// twice, or a record older than the file, changes nothing.
#pragma once

#include <cstdint>

#include "pg/backfill/backfill_leases.hpp"
#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/xlogdefs.h"
}

namespace idgen::pg {

constexpr int kStateRmgrId = 172;

// Registers the resource manager; call from _PG_init while preloading.
void register_state_rmgr();

// Inserts a record and flushes WAL up to it; returns the record's end. Call with the file
// already durable (see above). Raises 25006 during recovery.
XLogRecPtr log_horizon(int64_t horizon_unix_us);
XLogRecPtr log_lease(const LeaseSpace &space, const LeaseState &state);

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
