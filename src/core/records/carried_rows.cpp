// The rules of the carried rows (carried_rows.hpp says why they live here).
#include "core/records/carried_rows.hpp"

#include <cstring>

#include "core/clocks/horizon.hpp"

namespace idgen::records {

using backfill::LeaseKind;
using backfill::LeaseSpace;
using backfill::LeaseState;

bool is_lease_row(const CarriedRow &row) noexcept {
    return row.slot != kHorizonSlot && row.kind > static_cast<int32_t>(LeaseKind::free);
}

bool is_free_row(const CarriedRow &row) noexcept {
    return row.slot != kHorizonSlot && row.kind == static_cast<int32_t>(LeaseKind::free);
}

bool is_guard_row(const CarriedRow &row, int64_t subid) noexcept {
    return row.slot != kHorizonSlot && row.kind == kGuardKind && row.key == subid;
}

RowLease lease_of(const CarriedRow &row, uint32_t database) noexcept {
    const LeaseKind kind = static_cast<LeaseKind>(row.kind);
    RowLease l{LeaseSpace{kind, kind == LeaseKind::snowflake ? database : 0, static_cast<uint64_t>(row.key)},
               LeaseState{static_cast<uint64_t>(row.value), static_cast<uint32_t>(row.bound),
                          static_cast<uint32_t>(row.step)}};
    backfill::from_skipping_mapping(&l.space, &l.state);
    return l;
}

bool holds_space(const CarriedRow &row, const LeaseSpace &space, uint32_t database) noexcept {
    return is_lease_row(row) && lease_of(row, database).space == space;
}

bool cover_horizon_row(CarriedRow *row, int64_t end_unix_us, int64_t writer, int64_t *covered) noexcept {
    if (row->value >= end_unix_us && row->writer == writer) {
        *covered = row->value;
        return false;
    }
    const int64_t target = saturating_add(end_unix_us, kCarriedReserveUs);
    if (target > row->value) row->value = target;
    row->writer = writer;
    *covered = row->value;
    return true;
}

bool merge_lease_row(CarriedRow *row, const LeaseSpace &space, const LeaseState &state, uint32_t database,
                     int64_t writer, LeaseState *merged) noexcept {
    const CarriedRow before = *row;
    // The row's own state is read before its kind is rewritten: a row of the skipping mapping
    // reads raised. (A bound of 0.4.0's spaces, unknown, is the largest of all.)
    LeaseState now = lease_of(*row, database).state;
    backfill::raise_state(&now, state);
    row->kind = static_cast<int32_t>(space.kind);
    row->key = static_cast<int64_t>(space.key);
    row->value = static_cast<int64_t>(now.next);
    row->bound = static_cast<int32_t>(now.bound);
    row->step = static_cast<int32_t>(now.step);
    row->writer = writer;
    *merged = now;
    return memcmp(&before, row, sizeof before) != 0;  // written only when it moves
}

bool written_elsewhere(const CarriedRow &row, int64_t writer) noexcept {
    return row.writer != 0 && row.writer != writer;
}

bool to_adopt(const CarriedRow &row, int64_t writer) noexcept {
    return is_lease_row(row) || (row.slot == kHorizonSlot && written_elsewhere(row, writer));
}

bool claim_row(CarriedRow *row, int64_t writer) noexcept {
    if (!written_elsewhere(*row, writer)) return false;
    row->writer = writer;
    return true;
}

bool put_guard_row(CarriedRow *row, int64_t subid, int64_t publisher_node, int32_t state, int32_t flags,
                   int64_t writer) noexcept {
    const CarriedRow before = *row;
    const int32_t kept = is_guard_row(*row, subid) ? row->step : 0;
    *row = CarriedRow{row->slot, kGuardKind, subid, publisher_node, writer, state, kept | flags};
    return memcmp(&before, row, sizeof before) != 0;
}

bool free_guard_row(CarriedRow *row, int64_t subid) noexcept {
    if (!is_guard_row(*row, subid)) return false;
    *row = CarriedRow{row->slot, 0, 0, 0, 0, 0, 0};
    return true;
}

}  // namespace idgen::records
