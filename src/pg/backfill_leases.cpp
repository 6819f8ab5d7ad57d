// Leasing namespaces from the durable table: find or add the space's cell, write the table with
// the number advanced (file, then WAL: the order state_wal.hpp argues), wait for synchronous
// standbys, then hand the number out.
#include "backfill_leases.hpp"

#include "durable_record.hpp"
#include "shared_state.hpp"
#include "state_wal.hpp"

namespace idgen::pg {

static const char kLeaseFile[] = "idgen.leases";
static const uint32_t kLeaseMagic = 0x1D6E4C31;  // "idgen leases", format 1
static_assert(sizeof(LeaseTable) <= kMaxRecordPayload, "the lease table must fit one durable record");

bool load_leases(LeaseTable *table) {
    return read_record(kLeaseFile, kLeaseMagic, table, sizeof *table) != RecordRead::unreadable;
}

static LeaseTable::Cell *cell_of(LeaseTable *table, const LeaseSpace &space) {
    LeaseTable::Cell *free_cell = nullptr;
    for (LeaseTable::Cell &c : table->cells) {
        if (c.space == space) return &c;
        if (free_cell == nullptr && c.space.kind == LeaseKind::free) free_cell = &c;
    }
    if (free_cell != nullptr) free_cell->space = space;  // next is 0 in a free cell
    return free_cell;
}

uint64_t lease_namespace(SharedState *s, const LeaseSpace &space, uint64_t limit, const char *what) {
    if (s->leases_unreadable)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("idgen lease file \"%s\" in the data directory is unreadable", kLeaseFile),
                        errdetail("Without it idgen cannot know which namespaces %s handed out before.", what),
                        errhint("Restore it from a backup of this data directory and restart.")));
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    LeaseTable next_table = s->leases;
    LeaseTable::Cell *cell = cell_of(&next_table, space);
    if (cell == nullptr) {
        LWLockRelease(s->lease_lock);
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("%s: idgen's lease table is full (%d id spaces)", what, kLeaseSpaces),
                        errdetail("Each given node of uuid_v1_at and each Snowflake sequencer name used "
                                  "with snowflake_at takes one entry, for good.")));
    }
    const uint64_t lease = cell->next;
    if (lease >= limit) {
        LWLockRelease(s->lease_lock);
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("%s: no namespace left in this id space (all %llu are used)", what,
                               static_cast<unsigned long long>(limit)),
                        errdetail("A namespace is never handed out twice, so no more ids can be made "
                                  "here without risking a duplicate.")));
    }
    cell->next = lease + 1;
    write_record(kLeaseFile, kLeaseMagic, &next_table, sizeof next_table);  // durable before use
    s->leases = next_table;
    const XLogRecPtr lsn = log_lease(space, lease + 1);
    LWLockRelease(s->lease_lock);
    // The number is taken for good either way; it is handed out only once confirmed.
    wait_for_sync_standbys(lsn, what);
    return lease;
}

bool lease_left(SharedState *s, const LeaseSpace &space, uint64_t limit) {
    uint64_t next = 0;
    LWLockAcquire(s->lease_lock, LW_SHARED);
    for (const LeaseTable::Cell &c : s->leases.cells)
        if (c.space == space) next = c.next;
    LWLockRelease(s->lease_lock);
    return next < limit;
}

// Raises the space's counter to `next` (file, then WAL when `log`); the end of the record, or
// InvalidXLogRecPtr when nothing was written.
static XLogRecPtr raise_lease_locked(SharedState *s, const LeaseSpace &space, uint64_t next, bool log) {
    LeaseTable next_table = s->leases;
    LeaseTable::Cell *cell = cell_of(&next_table, space);
    if (cell == nullptr || cell->next >= next) return InvalidXLogRecPtr;  // full: leasing refuses
    cell->next = next;
    write_record(kLeaseFile, kLeaseMagic, &next_table, sizeof next_table);
    s->leases = next_table;
    return log ? log_lease(space, next) : InvalidXLogRecPtr;
}

void apply_lease(SharedState *s, const LeaseSpace &space, uint64_t next) {
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    raise_lease_locked(s, space, next, false);
    LWLockRelease(s->lease_lock);
}

void raise_lease(SharedState *s, const LeaseSpace &space, uint64_t next) {
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    const XLogRecPtr lsn = raise_lease_locked(s, space, next, true);
    LWLockRelease(s->lease_lock);
    if (lsn != InvalidXLogRecPtr) wait_for_sync_standbys(lsn, "idgen");
}

void skip_lost_leases(SharedState *s) {
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    LeaseTable next_table = s->leases;
    bool any = false;
    for (LeaseTable::Cell &c : next_table.cells) {
        if (c.space.kind == LeaseKind::free) continue;
        c.next++;
        any = true;
    }
    if (any) {
        write_record(kLeaseFile, kLeaseMagic, &next_table, sizeof next_table);
        s->leases = next_table;
    }
    LWLockRelease(s->lease_lock);
}

}  // namespace idgen::pg
