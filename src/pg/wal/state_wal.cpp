// The records of idgen's resource manager, their redo, and the synchronous-standby wait.
#include "pg/wal/state_wal.hpp"

#include "pg/shared_memory/shared_state.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/lwlock.h"
}

namespace idgen::pg {

static const uint8 kHorizonInfo = 0x00;
static const uint8 kLeaseInfo = 0x10;

struct HorizonRecord {
    int64_t horizon_unix_us;
};

struct LeaseRecord {
    LeaseSpace space;
    LeaseState state;
};

static XLogRecPtr log_record(uint8 info, const void *data, uint32 size) {
    PreventCommandDuringRecovery("idgen");
    XLogBeginInsert();
    XLogRegisterData(static_cast<char *>(const_cast<void *>(data)), size);
    const XLogRecPtr end = XLogInsert(kStateRmgrId, info);
    XLogFlush(end);
    return end;
}

XLogRecPtr log_horizon(int64_t horizon_unix_us) {
    const HorizonRecord r{horizon_unix_us};
    return log_record(kHorizonInfo, &r, sizeof r);
}

XLogRecPtr log_lease(const LeaseSpace &space, const LeaseState &state) {
    const LeaseRecord r{space, state};
    return log_record(kLeaseInfo, &r, sizeof r);
}

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

static void state_redo(XLogReaderState *record) {
    SharedState *s = shared_state_or_null();
    const uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
    const char *data = XLogRecGetData(record);
    if (s == nullptr) return;  // cannot happen: the resource manager is registered while preloading
    if (info == kHorizonInfo) {
        HorizonRecord r;
        memcpy(&r, data, sizeof r);
        apply_horizon(s, r.horizon_unix_us);
    } else if (info == kLeaseInfo) {
        LeaseRecord r;
        memcpy(&r, data, sizeof r);
        apply_lease(s, r.space, r.state);
    } else {
        elog(PANIC, "idgen redo: unknown record info %u", info);
    }
}

static void state_desc(StringInfo buf, XLogReaderState *record) {
    const uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
    const char *data = XLogRecGetData(record);
    if (info == kHorizonInfo) {
        HorizonRecord r;
        memcpy(&r, data, sizeof r);
        appendStringInfo(buf, "horizon %lld us", static_cast<long long>(r.horizon_unix_us));
    } else if (info == kLeaseInfo) {
        LeaseRecord r;
        memcpy(&r, data, sizeof r);
        appendStringInfo(buf, "lease space %u/%u/%llu next %llu bound %u step %u",
                         static_cast<unsigned>(r.space.kind), r.space.database,
                         static_cast<unsigned long long>(r.space.key),
                         static_cast<unsigned long long>(r.state.next), r.state.bound, r.state.step);
    }
}

static const char *state_identify(uint8 info) {
    switch (info & ~XLR_INFO_MASK) {
        case kHorizonInfo:
            return "HORIZON";
        case kLeaseInfo:
            return "LEASE";
    }
    return nullptr;
}

// At the end of redo. After archive recovery (a promoted standby, a restored backup) the WAL
// this server replayed may lack the last records of the server it takes over from: the margin
// of idgen.failover_margin covers them (see adopt_after_archive_recovery; it acts only when
// the server started in archive recovery).
static void state_cleanup() {
    SharedState *s = shared_state_or_null();
    if (s != nullptr) adopt_after_archive_recovery(s);
}

static IDGEN_RMGR_CONST RmgrData state_rmgr = {
    "idgen", state_redo, state_desc, state_identify, nullptr, state_cleanup, nullptr, nullptr,
};

void register_state_rmgr() {
    RegisterCustomRmgr(kStateRmgrId, &state_rmgr);
}

}  // namespace idgen::pg
