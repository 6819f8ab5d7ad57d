// The synchronous-standby wait of idgen's durable steps (standby_wait.hpp).
#include "pg/durability/standby_wait.hpp"

extern "C" {
#include "access/xact.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/lwlock.h"
}

namespace idgen::pg {

bool wait_for_sync_standbys(XLogRecPtr lsn, const char *what) {
    if (max_wal_senders == 0 || SyncRepStandbyNames == nullptr || SyncRepStandbyNames[0] == '\0') return true;
    if (!SyncRepRequested()) return false;
    SyncRepWaitForLSN(lsn, false);
    // SyncRepWaitForLSN returns with only a WARNING when the wait is canceled, since for a
    // commit it is too late to undo anything. For an id it is not: check that the standbys
    // really confirmed the record, with the mode SyncRepWaitForLSN(lsn, false) waits for.
    // (Right after synchronous_standby_names is first set, before the checkpointer has taken
    // it in, SyncRepWaitForLSN does not wait and this check raises 57014 spuriously: an error,
    // never a duplicate.)
    const bool write_only = synchronous_commit == SYNCHRONOUS_COMMIT_REMOTE_WRITE;
    const int mode = write_only ? SYNC_REP_WAIT_WRITE : SYNC_REP_WAIT_FLUSH;
    LWLockAcquire(SyncRepLock, LW_SHARED);
    const XLogRecPtr confirmed = WalSndCtl->lsn[mode];
    LWLockRelease(SyncRepLock);
    if (confirmed < lsn)
        ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED),
                        errmsg("%s: canceled while waiting for synchronous standbys", what),
                        errdetail("The WAL record that covers the next id was not yet confirmed by the "
                                  "synchronous standbys, so no id was handed out.")));
    return !write_only;
}

}  // namespace idgen::pg
