// The word through which the registry worker tells the generators which node id a server holds
// for a pool (its own, or a Snowflake sequencer's): one atomic 64-bit value, so a generator reads
// state and node id together, with a change count that every change moves. A generator reads
// the word before it draws and again after its checks, and hands the id out only if the word did
// not change: a node id given back or lost is never used by a draw that saw the change, even if
// the same node id comes back later (the count differs; 2^24 changes before it wraps, far more
// than can happen between a generator's two reads).
#pragma once

#include <cstdint>

namespace idgen::registry {

enum class ClaimState : uint32_t {
    pending = 0,    // not known to the worker yet, or being registered
    attached = 1,   // holds `node`
    detached = 2,   // holds no node id: none free, the lease lost, or given back
    destroyed = 3,  // the sequencer was dropped somewhere in the cluster
};

// Change count (bits 40..63), state (32..39), node id (0..31).
struct ClaimWord {
    uint64_t raw;
    ClaimState state() const noexcept { return static_cast<ClaimState>((raw >> 32) & 0xFF); }
    int32_t node() const noexcept { return static_cast<int32_t>(raw & 0xFFFFFFFF); }
    // The word after prev that says (s, node).
    static ClaimWord next(ClaimWord prev, ClaimState s, int32_t node) noexcept {
        return ClaimWord{((prev.raw >> 40) + 1) << 40 | uint64_t(uint32_t(s)) << 32 | uint32_t(node)};
    }
};

}  // namespace idgen::registry
