// Inserting the resource manager's records and replaying them (state_wal.hpp argues the order of
// file and WAL; src/core/records/state_records.hpp holds the layouts and their versions).
#include "pg/wal/state_wal.hpp"

#include "core/records/state_records.hpp"

extern "C" {
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "miscadmin.h"
}

namespace idgen::pg {

static StateRedo redo_handlers;

static XLogRecPtr log_record(uint8 info, const void *data, uint32 size) {
    PreventCommandDuringRecovery("idgen");
    XLogBeginInsert();
    XLogRegisterData(static_cast<char *>(const_cast<void *>(data)), size);
    const XLogRecPtr end = XLogInsert(kStateRmgrId, info);
    XLogFlush(end);
    return end;
}

XLogRecPtr log_horizon(int64_t horizon_unix_us) {
    const records::HorizonRecord r = records::horizon_record(horizon_unix_us);
    return log_record(records::kHorizonInfo, &r, sizeof r);
}

XLogRecPtr log_lease(const backfill::LeaseSpace &space, const backfill::LeaseState &state) {
    const records::LeaseRecord r = records::lease_record(space, state);
    return log_record(records::kLeaseInfo, &r, sizeof r);
}

// A record this version cannot read stops recovery: replaying around it could hand out again
// ids the record protects, and it was written by an idgen newer than this one (or is damaged).
static void state_redo(XLogReaderState *record) {
    const uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
    records::StateRecord r;
    if (records::read_record(info, XLogRecGetData(record), XLogRecGetDataLen(record), &r) !=
        records::Read::ok) {
        char what[128];
        records::describe_record(info, XLogRecGetData(record), XLogRecGetDataLen(record), what, sizeof what);
        ereport(PANIC, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("idgen %s cannot replay a WAL record of resource manager idgen: %s",
                               IDGEN_VERSION, what),
                        errhint("Install the version of idgen that wrote this WAL, or a later one, on "
                                "this server, then start it again.")));
    }
    if (info == records::kHorizonInfo)
        redo_handlers.horizon(r.horizon_unix_us);
    else
        redo_handlers.lease(r.space, r.state);
}

// At the end of redo (see StateRedo): after archive recovery the replayed WAL may lack the last
// records of the server this one takes over from, which the owners of the state make up for.
static void state_cleanup() {
    redo_handlers.end_of_redo();
}

static IDGEN_RMGR_CONST RmgrData state_rmgr = {
    "idgen", state_redo, describe_state_record, identify_state_record, nullptr, state_cleanup,
    nullptr, nullptr,
};

void register_state_rmgr(const StateRedo &redo) {
    redo_handlers = redo;
    RegisterCustomRmgr(kStateRmgrId, &state_rmgr);
}

}  // namespace idgen::pg
