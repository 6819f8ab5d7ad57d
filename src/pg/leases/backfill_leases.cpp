// The retrospective ids' slice of shared memory and its lease table. Leasing namespaces: find or add the
// space's cell, write the table with the number advanced (file, then WAL: the order state_wal.hpp argues),
// wait for synchronous standbys, then hand the number out.
#include "pg/leases/backfill_leases.hpp"

#include <cstring>

#include "pg/durability/durable_record.hpp"
#include "pg/durability/standby_wait.hpp"
#include "pg/wal/state_wal.hpp"

extern "C" {
#include "storage/shmem.h"
}

namespace idgen::pg {

static const char kLeaseFile[] = "idgen.leases";
static const uint32_t kLeaseMagic = 0x1D6E4C32;    // "idgen leases", format 2 (with offset bounds)
static const uint32_t kLeaseMagicV1 = 0x1D6E4C31;  // format 1 (0.4.0): the counters alone
static_assert(sizeof(LeaseTable) <= kMaxRecordPayload, "the lease table must fit one durable record");

struct LeaseTableV1 {
    struct Cell {
        LeaseSpace space;
        uint64_t next;
    } cells[kLeaseSpaces];
};

bool load_leases(LeaseTable *table, LeaseRuntime *runtime) {
    RecordRead r = read_record(kLeaseFile, kLeaseMagic, table, sizeof *table);
    if (r == RecordRead::unreadable) {  // 0.4.0's file: the same counters, no bound yet
        LeaseTableV1 v1;
        r = read_record(kLeaseFile, kLeaseMagicV1, &v1, sizeof v1);
        if (r == RecordRead::ok)
            for (int i = 0; i < kLeaseSpaces; i++)
                table->cells[i] =
                    LeaseTable::Cell{v1.cells[i].space, LeaseState{v1.cells[i].next, kBoundUnknown, 1}};
    }
    // Spaces counted under an older mapping are taken over once (written back on the next lease).
    for (LeaseTable::Cell &c : table->cells) backfill::from_skipping_mapping(&c.space, &c.state);
    backfill::merge_same_spaces(table);
    // Everything leased so far may be recycled, once a bound is known.
    for (int i = 0; i < kLeaseSpaces; i++) {
        const LeaseState &st = table->cells[i].state;
        runtime[i] = LeaseRuntime{0, backfill::recyclable(st) ? st.next : 0, InvalidXLogRecPtr};
    }
    return r != RecordRead::unreadable;
}

static void refuse_unreadable(const BackfillShared *s, const char *what) {
    if (s->leases_unreadable)
        ereport(ERROR,
                (errcode(ERRCODE_DATA_CORRUPTED),
                 errmsg("idgen lease file \"%s\" in the data directory is unreadable", kLeaseFile),
                 errdetail("Without it idgen cannot know which namespaces %s handed out before.", what),
                 errhint("Restore it from a backup of this data directory and restart.")));
}

// Writes the table with one cell changed (file, then WAL) and makes it the shared one. Under
// lease_lock; returns the end of the WAL record (InvalidXLogRecPtr when `log` is false).
static XLogRecPtr write_cell_locked(BackfillShared *s, LeaseTable *next_table, const LeaseTable::Cell &cell,
                                    bool log) {
    write_record(kLeaseFile, kLeaseMagic, next_table, sizeof *next_table);  // durable before use
    s->leases = *next_table;
    if (!log) return InvalidXLogRecPtr;
    const XLogRecPtr end = log_lease(cell.space, cell.state);
    s->lease_runtime[&cell - next_table->cells].record_end = end;
    return end;
}

// The cell of `space` in a copy of the table, or ERROR 53400 (lease_lock is released first).
static LeaseTable::Cell *cell_or_error(BackfillShared *s, LeaseTable *next_table, const LeaseSpace &space,
                                       const char *what) {
    LeaseTable::Cell *cell = backfill::cell_of(next_table->cells, space);
    if (cell == nullptr) {
        LWLockRelease(s->lease_lock);
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("%s: idgen's lease table is full (%d id spaces)", what, kLeaseSpaces),
                        errdetail("Each given node of uuid_v1_at and each Snowflake sequencer name used "
                                  "with snowflake_at takes one entry, for good.")));
    }
    return cell;
}

bool lease_namespace(BackfillShared *s, const LeaseSpace &space, uint64_t limit, const char *what,
                     uint64_t *ns) {
    refuse_unreadable(s, what);
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    LeaseTable next_table = s->leases;
    LeaseTable::Cell *cell = cell_or_error(s, &next_table, space, what);
    if (cell->state.next >= limit) {
        LWLockRelease(s->lease_lock);
        return false;
    }
    *ns = cell->state.next++;
    const XLogRecPtr lsn = write_cell_locked(s, &next_table, *cell, true);
    LWLockRelease(s->lease_lock);
    // The number is taken for good either way; it is handed out only once confirmed.
    wait_for_sync_standbys(lsn, what);
    return true;
}

void raise_space_used_up(uint64_t limit, const char *what) {
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("%s: no namespace left in this id space (all %llu are used)", what,
                           static_cast<unsigned long long>(limit)),
                    errdetail("A namespace is never handed out twice, so no more ids can be made "
                              "here without risking a duplicate.")));
    pg_unreachable();
}

bool recycle_namespace(BackfillShared *s, const LeaseSpace &space, uint64_t *ns, uint32_t *start) {
    bool found = false;
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    if (const LeaseTable::Cell *cell = backfill::find_cell(s->leases.cells, space)) {
        LeaseRuntime &r = s->lease_runtime[cell - s->leases.cells];
        if (r.next < r.end && cell->state.bound != kBoundUnknown) {
            *ns = r.next++;
            *start = cell->state.bound;
            found = true;
        }
    }
    LWLockRelease(s->lease_lock);
    return found;
}

uint32_t ensure_lease_bound(BackfillShared *s, const LeaseSpace &space, uint64_t offset, uint32_t step,
                            const char *what) {
    refuse_unreadable(s, what);
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    LeaseTable next_table = s->leases;
    LeaseTable::Cell *cell = cell_or_error(s, &next_table, space, what);
    if (backfill::bound_needed(cell->state, offset)) {
        backfill::raise_bound(&cell->state, offset, step);
        write_cell_locked(s, &next_table, *cell, true);
    }
    const LeaseState state = cell->state;
    // The bound may have been raised by another session whose wait for the synchronous
    // standbys has not ended (or was canceled): wait for the space's last record here too.
    const XLogRecPtr lsn = s->lease_runtime[cell - next_table.cells].record_end;
    LWLockRelease(s->lease_lock);
    if (lsn != InvalidXLogRecPtr) wait_for_sync_standbys(lsn, what);
    return state.bound;
}

LeaseTable lease_table(BackfillShared *s) {
    LWLockAcquire(s->lease_lock, LW_SHARED);
    const LeaseTable table = s->leases;
    LWLockRelease(s->lease_lock);
    return table;
}

LeaseState lease_state(BackfillShared *s, const LeaseSpace &space) {
    LWLockAcquire(s->lease_lock, LW_SHARED);
    const LeaseTable::Cell *cell = backfill::find_cell(s->leases.cells, space);
    const LeaseState st = cell != nullptr ? cell->state : LeaseState{0, 0, 0};
    LWLockRelease(s->lease_lock);
    return st;
}

// Raises the space's state to `to` (file, then WAL when `log`); the end of the record, or
// InvalidXLogRecPtr when nothing was written. A full table is left alone: leasing refuses.
static XLogRecPtr raise_lease_locked(BackfillShared *s, LeaseSpace space, LeaseState to, bool log,
                                     bool recyclable) {
    backfill::from_skipping_mapping(&space, &to);  // WAL or rows of an older version
    // Over an unreadable file nothing is written: a file holding only this space would read as
    // complete after a restart and let the other spaces lease their namespaces again.
    if (s->leases_unreadable) return InvalidXLogRecPtr;
    LeaseTable next_table = s->leases;
    LeaseTable::Cell *cell = backfill::cell_of(next_table.cells, space);
    if (cell == nullptr || !backfill::raise_state(&cell->state, to)) return InvalidXLogRecPtr;
    if (recyclable && backfill::recyclable(cell->state))
        s->lease_runtime[cell - next_table.cells].end = cell->state.next;
    return write_cell_locked(s, &next_table, *cell, log);
}

void apply_lease(BackfillShared *s, const LeaseSpace &space, const LeaseState &to) {
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    raise_lease_locked(s, space, to, false, true);
    LWLockRelease(s->lease_lock);
}

// A running server adopting a moved database's state: the namespaces the other cluster
// leased are not made recyclable (this server may already hold namespaces of the space).
void raise_lease(BackfillShared *s, const LeaseSpace &space, const LeaseState &to) {
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    const XLogRecPtr lsn = raise_lease_locked(s, space, to, true, false);
    LWLockRelease(s->lease_lock);
    if (lsn != InvalidXLogRecPtr) wait_for_sync_standbys(lsn, "idgen");
}

void skip_lost_leases(BackfillShared *s) {
    if (s->leases_unreadable) return;  // see raise_lease_locked
    LWLockAcquire(s->lease_lock, LW_EXCLUSIVE);
    LeaseTable next_table = s->leases;
    if (backfill::skip_lost(&next_table)) {
        write_record(kLeaseFile, kLeaseMagic, &next_table, sizeof next_table);
        s->leases = next_table;
    }
    LWLockRelease(s->lease_lock);
}

// ---- The slice (backfill_shared.hpp): most of its start is reading the lease file.

static BackfillShared *slice = nullptr;

Size backfill_shared_size() {
    return sizeof(BackfillShared);
}

void start_backfill_shared(LWLock *lease_lock, LWLock *pool_lock) {
    bool found = false;
    slice = static_cast<BackfillShared *>(ShmemInitStruct("idgen backfill", sizeof(BackfillShared), &found));
    if (found) return;
    memset(static_cast<void *>(slice), 0, sizeof(BackfillShared));  // plain data (trivially copyable)
    slice->lease_lock = lease_lock;
    slice->pool_lock = pool_lock;
    backfill::pool_init(slice->pool.slots, kPoolSlots);
    ConditionVariableInit(&slice->parked);
    slice->leases_unreadable = !load_leases(&slice->leases, slice->lease_runtime);
    if (slice->leases_unreadable)
        ereport(WARNING, (errmsg("idgen lease file \"idgen.leases\" is unreadable; "
                                 "retrospective ids are disabled")));
}

BackfillShared *backfill_shared() {
    return slice;
}

}  // namespace idgen::pg
