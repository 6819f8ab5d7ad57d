// Runs of clock positions for idgen.ordering = 'session': a session takes a run of
// positions from a shared LogicalClock with one atomic add and hands them out itself, so that
// under load the shared word's cache line moves once per run instead of once per id.
//
// What each ordering guarantees of positions (every generator, both modes; a generator whose
// values do not sort by position, such as locality UUIDs, keeps only uniqueness and the order of
// its time field):
// - unique: a position is taken by exactly one atomic add, so by exactly one session;
// - strictly increasing within a session: a run's positions go up, and the next run is taken
//   later from a word that only rises, so it lies above every position taken before;
// - 'strict' (no run, one atomic add per id): every id is greater than every id handed out
//   before it was asked for, server-wide;
// - 'session' (runs): every id is greater than every id whose millisecond (its time field) ended
//   before it was asked for. A run's position is handed out only while the wall clock is not past
//   the position's millisecond (`tick`), so an id's millisecond is never before the wall
//   clock's when it is handed out; an id asked for after another id's millisecond ended is
//   therefore in a later millisecond, and the time field is the id's most significant part.
//   Within one millisecond, ids of different sessions interleave in no particular order, and
//   an id's time below the millisecond may be earlier than the wall clock when it is handed out
//   (its run was taken earlier in that millisecond). When the wall clock steps back, the caller
//   drops its run if the clock is behind the latest millisecond any session has seen (the
//   server keeps that mark), so that a run of an earlier millisecond cannot come back to life.
// A run left over when its millisecond passes is dropped (those positions are never used), and
// a run taken before the clocks were raised (adopting a moved database's state) is dropped when
// the caller's epoch changes (see drop_if_raised). The run's size adapts: it doubles, up to
// kMaxRun, each time a run is used up within its millisecond, stays when one is used up after
// it, and halves each time one is dropped with positions left, so a session that draws about
// once per millisecond or less takes one position at a time (as 'strict' does) and wastes none.
#pragma once

#include <cstdint>

#include "core/clocks/logical_clock.hpp"

namespace idgen {

constexpr uint64_t kMaxRun = 64;

// One session's run; plain memory of that session, never shared.
struct PositionRun {
    uint64_t start = 0;     // the first position of the run (taken with one atomic add)
    uint64_t next = 0;      // the next position to hand out; next == end: empty
    uint64_t end = 0;       // one past the run's last position
    uint64_t tick_end = 0;  // the first position of the tick after next's (no division per id)
    uint64_t size = 1;      // how many positions the next run takes (1 .. kMaxRun)
    uint64_t epoch = 0;     // the caller's epoch when the run was taken (drop_if_raised)
};

// Empties the run: the next draw takes a new one, of one position.
void drop_run(PositionRun *run) noexcept;

// Empties the run (drop_run) if `epoch` differs from the one it was taken under, and records
// `epoch`. The caller's epoch is a shared word that changes after every raise of the clocks
// that may pass positions held in runs, read before the draw: a run taken after the caller read
// the changed epoch was taken after the raise.
void drop_if_raised(PositionRun *run, uint64_t epoch) noexcept;

// What draw_in_run did: the draw, and whether it took a new run for it (then the run is
// [run->start, run->end) and the position is run->start).
struct RunDraw {
    Draw draw;
    bool refilled;
};

// Draws one position as draw() does, from the run while it is usable: not empty, its next
// position at most `limit` and in a tick (`tick` positions, the generator's millisecond) not
// before the tick of `floor`. Otherwise takes a new run of run->size positions (clipped to
// `limit` and `max_position`) with one atomic add and hands out its first. A position past
// `limit` in the run is kept for later (outcome ahead).
RunDraw draw_in_run(LogicalClock *clock, PositionRun *run, uint64_t floor, uint64_t limit,
                    uint64_t max_position, uint64_t tick) noexcept;

// draw_in_run with `run`, or draw() (one atomic add per id) when `run` is nullptr: the
// generators' one entry to their clock.
Draw draw_ordered(LogicalClock *clock, PositionRun *run, uint64_t floor, uint64_t limit,
                  uint64_t max_position, uint64_t tick) noexcept;

}  // namespace idgen
