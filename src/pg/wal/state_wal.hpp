// Folder src/pg/wal: the WAL resource manager.
//
// idgen's custom WAL resource manager (this folder owns it: inserting records here, their
// description in describe.cpp, their layouts in src/core/records/state_records.hpp): the durable state that
// protects uniqueness (horizon moves and namespace leases) travels in WAL, so a standby, a crash restart and
// a point-in-time recovery replay it, and a promoted standby resumes above everything the old primary issued
// that its WAL reached.
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

#include "core/backfill/lease_spaces.hpp"

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "access/xlogdefs.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
}

namespace idgen::pg {

constexpr int kStateRmgrId = 172;

// What replaying a record does, given by the subsystems that own the state (the caller that
// lists them, module.cpp): this layer reads records and hands them on, and knows nothing of
// shared memory. Each runs in the startup process during recovery.
struct StateRedo {
    void (*horizon)(int64_t horizon_unix_us);
    void (*lease)(const backfill::LeaseSpace &space, const backfill::LeaseState &state);
    void (*end_of_redo)();
};

// Registers the resource manager; call from _PG_init while preloading.
void register_state_rmgr(const StateRedo &redo);

// Inserts a record and flushes WAL up to it; returns the record's end. Call with the file
// already durable (see above). Raises 25006 during recovery.
XLogRecPtr log_horizon(int64_t horizon_unix_us);
XLogRecPtr log_lease(const backfill::LeaseSpace &space, const backfill::LeaseState &state);

// The resource manager's rm_desc and rm_identify (describe.cpp): what pg_walinspect and
// pg_waldump show of a record.
void describe_state_record(StringInfo buf, XLogReaderState *record);
const char *identify_state_record(uint8 info);

}  // namespace idgen::pg
