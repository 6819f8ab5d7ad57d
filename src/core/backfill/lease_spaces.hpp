// The id spaces of retrospective ids and the table that counts their leased namespaces, as
// plain data, with the pure logic over them: finding (or claiming) a space's cell, raising a
// space's durable offset bound and state, and the skip after a failover. The server keeps the
// table in shared memory and in its lease file (src/pg/leases/backfill_leases.hpp, which also says
// what the counters mean for safety); it takes the lock, this code only computes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backfill/backfill_pool.hpp"

namespace idgen::backfill {

// Kinds 1 and 2 are version-1 UUID spaces counted under the mapping of 0.6.0 and before,
// which skipped the live clock sequence of the server that made them; they are read (lease
// files, WAL, carried rows of older versions) but never written: from_skipping_mapping turns
// them into kinds 5 and 6, the fixed mapping of uuid_v1_backfill.hpp.
enum class LeaseKind : uint32_t {
    free = 0,
    uuid_auto_skipping_live = 1,
    uuid_given_skipping_live = 2,
    snowflake = 3,
    uuid_v7 = 4,
    uuid_auto = 5,
    uuid_given = 6,
};

// Whether the ids of spaces of `kind` carry the server's own node id (uuid_v1_at(ts)'s automatic
// nodes, uuid_v7_at): ids of servers with distinct node ids can never be equal, whatever their
// counters, and cluster mode counts them per node id.
inline bool carries_server_node(LeaseKind kind) noexcept {
    return kind == LeaseKind::uuid_auto || kind == LeaseKind::uuid_v7;
}

// One id space: automatic UUID nodes, one given UUID node, one Snowflake sequencer name of one
// database, the version-7 namespaces. The layout is that of the lease file (format 1 and 2).
struct LeaseSpace {
    LeaseKind kind;
    uint32_t database;  // Snowflake: the sequencer's database; otherwise 0
    uint64_t key;       // given UUID node, or a hash of the sequencer name; otherwise 0

    bool operator==(const LeaseSpace &o) const {
        return kind == o.kind && database == o.database && key == o.key;
    }
};

// The space as the pool names it: kind and database in one word, the key in the other.
inline SpaceId space_id(const LeaseSpace &space) noexcept {
    return SpaceId{static_cast<uint64_t>(space.kind) << 32 | space.database, space.key};
}

constexpr int kLeaseSpaces = 64;

// The bound of a space whose namespaces were leased by 0.4.0, which kept no bound: its offsets
// may be anywhere, so its namespaces are never recycled.
constexpr uint32_t kBoundUnknown = UINT32_MAX;

// What is durable of one space.
struct LeaseState {
    uint64_t next;   // the next namespace number never handed out
    uint32_t bound;  // every offset handed out in any namespace of the space is below it
    uint32_t step;   // how far the bound moves at a time (0 before the first draw)
};

struct LeaseTable {
    struct Cell {
        LeaseSpace space;
        LeaseState state;
    } cells[kLeaseSpaces];
};

// The cell of `space` among `cells` (any cell type with a `space` member; a cell of kind free
// is unused): the one holding it, else the first unused one, zeroed and given the space; nullptr
// when every cell holds another space. Cells are never freed, so a space keeps its cell.
template <class Cell, size_t N>
Cell *cell_of(Cell (&cells)[N], const LeaseSpace &space) noexcept {
    Cell *free_cell = nullptr;
    for (Cell &c : cells) {
        if (c.space == space) return &c;
        if (free_cell == nullptr && c.space.kind == LeaseKind::free) free_cell = &c;
    }
    if (free_cell != nullptr) {
        *free_cell = Cell{};
        free_cell->space = space;
    }
    return free_cell;
}

// The cell of `space` without claiming one; nullptr when it has none.
template <class Cell, size_t N>
const Cell *find_cell(const Cell (&cells)[N], const LeaseSpace &space) noexcept {
    for (const Cell &c : cells)
        if (c.space == space) return &c;
    return nullptr;
}

// Whether the namespaces counted in `state` may be handed out again above its bound.
inline bool recyclable(const LeaseState &state) noexcept {
    return state.step > 0 && state.bound != kBoundUnknown;
}

// Whether `state` must be raised (durably) before an id at `offset` is handed out: its bound
// does not cover the offset yet, or it has none.
inline bool bound_needed(const LeaseState &state, uint64_t offset) noexcept {
    return state.bound <= offset || state.step == 0;
}

// Raises `state` to cover `offset`: its bound one `step` past the offset (never lowered), its
// step `step`. Call when bound_needed.
void raise_bound(LeaseState *state, uint64_t offset, uint32_t step) noexcept;

// Whether each field of `had` is at least that of `state`.
inline bool covers(const LeaseState &had, const LeaseState &state) noexcept {
    return had.next >= state.next && had.bound >= state.bound && had.step >= state.step;
}

// Raises each field of `state` to at least that of `to`; false when it already covered `to`
// (nothing changed).
bool raise_state(LeaseState *state, const LeaseState &to) noexcept;

// A space counted under the skipping mapping, as the same space under the fixed one, with a
// state that covers every UUID made under the old one; any other space unchanged. The old
// mapping used, for the live clock sequence L of whichever server leased (unknown here, and
// different on each server the counters passed through):
// - given node: namespace i was clock sequence i below L, i + 1 from L up. Namespaces below
//   `next` so used clock sequences up to `next` (never above); the fixed mapping's namespace j
//   is clock sequence j, so fresh namespaces start at next + 1. A recycled namespace j below
//   that starts its offsets at the bound, above every offset any old namespace used.
// - automatic node: the namespace (the node) is the same in both; offset o was tick o / 16,383
//   and clock sequence c or c + 1 (c = o % 16,383), which the fixed mapping calls offset o or
//   o + 1. Every old offset was below the bound, so every old UUID's fixed offset is at most the
//   bound: raising the bound by one keeps recycled namespaces above them all. Fresh namespaces
//   (from `next`) were never used.
void from_skipping_mapping(LeaseSpace *space, LeaseState *state) noexcept;

// One cell per space: cells that hold the same space (possible once from_skipping_mapping has
// turned old kinds into new ones that a table also held: a standby of an older version replays
// records of a newer primary) are merged into the first, each field the larger, and the others
// freed.
void merge_same_spaces(LeaseTable *table) noexcept;

// After a failover with a margin: every space skips one namespace (the one the old primary may
// have leased in WAL that never arrived) and moves its known bound one step (the step it may
// have taken). False when the table holds no space.
bool skip_lost(LeaseTable *table) noexcept;

}  // namespace idgen::backfill
