// Retrospective version-1 UUIDs (seed 000): the UUID whose time is exactly a given microsecond,
// made unique by the namespace a session leased. A microsecond has only ten 100 ns ticks, so
// the clock sequence and the node carry the rest:
// - automatic node (uuid_v1_at(ts)): a namespace is one node 03:nn:nn:ll:ll:ll, where the
//   first octet marks a locally administered multicast address (never a network card's),
//   nn the server's idgen.node_id (13 bits) and ll the lease (27 bits); inside it every clock
//   sequence but the live generator's, times ten ticks: 163,830 UUIDs per microsecond.
// - given node (uuid_v1_at(ts, node)): a namespace is one clock sequence of that node (never
//   the live generator's): ten UUIDs per microsecond.
// Offsets are laid out tick-major (then clock sequence), so within one namespace the UUIDs of
// one microsecond sort in the order they were made (PostgreSQL compares time_low first).
// Live uuid_v1() UUIDs always carry the live clock sequence, which no namespace contains.
#pragma once

#include <cstdint>

#include "status.hpp"
#include "uuid.hpp"

namespace idgen::uuid_v1::backfill {

constexpr uint64_t kNodePrefix = 0x03;  // first octet of automatic nodes
constexpr int kLeaseBits = 27;
constexpr int kNodeIdBits = 13;
constexpr uint64_t kClockSeqs = 16383;  // all 16,384 but the live generator's
constexpr uint64_t kAutoNamespaces = uint64_t{1} << kLeaseBits;
constexpr uint64_t kAutoPerNamespace = 10 * kClockSeqs;
constexpr uint64_t kGivenNamespaces = kClockSeqs;
constexpr uint64_t kGivenPerNamespace = 10;

// Nodes whose first octet is kNodePrefix belong to the automatic namespaces.
bool reserved_node(uint64_t node) noexcept;

// Errc::invalid_parameter when `node` is reserved (the check make_given makes; its caller makes
// it first, before it leases a namespace for the node).
Status check_given_node(uint64_t node) noexcept;

// Errc::timestamp_out_of_range unless some UUID of the microsecond fits the 60-bit time.
Status check_time(int64_t unix_us) noexcept;

// The UUID at `offset` of automatic namespace `lease` of node id `node_id`.
Status make_auto(int64_t unix_us, int32_t node_id, uint64_t lease, uint64_t offset,
                 int32_t live_clock_seq, Uuid *out) noexcept;

// The UUID at `offset` of namespace `lease` (a clock sequence) of the given node.
Status make_given(int64_t unix_us, uint64_t node, uint64_t lease, uint64_t offset,
                  int32_t live_clock_seq, Uuid *out) noexcept;

}  // namespace idgen::uuid_v1::backfill
