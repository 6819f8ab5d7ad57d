// Retrospective version-1 UUIDs: the UUID whose time is exactly a given microsecond, made
// unique by the namespace a session leased. A microsecond has only ten 100 ns ticks, so the
// clock sequence and the node carry the rest:
// - automatic node (uuid_v1_at(ts)): a namespace is one node 03:nn:nn:ll:ll:ll, where the
//   first octet marks a locally administered multicast address (never a network card's),
//   nn the server's idgen.node_id (13 bits) and ll the lease (27 bits); inside it clock
//   sequences 0 .. 16,382 times ten ticks: 163,830 UUIDs per microsecond.
// - given node (uuid_v1_at(ts, node)): namespace i is clock sequence i of that node (0 ..
//   16,382): ten UUIDs per microsecond.
// Offsets are laid out tick-major (then clock sequence), so within one namespace the UUIDs of
// one microsecond sort in the order they were made (PostgreSQL compares time_low first).
//
// Why no two servers meet, whatever moved between them: the mapping from (namespace, offset)
// to fields is fixed: it reads nothing of the server that makes the UUID (not its live clock
// sequence, not its identity file), so two servers that share a space's durable counters (a
// dump, an upgrade, a replica, a subscriber) derive the same fields from the same numbers, and
// the counters alone keep them apart. Live uuid_v1() UUIDs are kept apart by the node: a live
// node is never 03:... (live_random_node; idgen.uuid_node refuses such nodes), and
// uuid_v1_at(ts, node) refuses the server's own live node. Clock sequence 16,383 is used by no
// retrospective UUID.
//
// Until 0.6.0 the mapping skipped the server's live clock sequence (namespace i was clock
// sequence i, or i + 1 from the live one up), which a move does not carry: see
// lease_spaces.hpp for how counters written under that mapping are taken over.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/base/uuid.hpp"

namespace idgen::uuid_v1::backfill {

constexpr uint64_t kNodePrefix = 0x03;  // first octet of automatic nodes
constexpr int kLeaseBits = 27;
constexpr int kNodeIdBits = 13;
constexpr uint64_t kClockSeqs = 16383;  // clock sequences 0 .. 16,382 (16,383 is never used)
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

// The node of live UUIDs for a randomly drawn node: the drawn one, unless it is reserved (one
// draw in 128 is; identity files keep what was drawn), then the same with the locally
// administered bit cleared: always the same answer for the same drawn node, so a server and
// the standbys that copied its identity file agree.
uint64_t live_random_node(uint64_t drawn) noexcept;

// The UUID at `offset` of automatic namespace `lease` of node id `node_id`.
Status make_auto(int64_t unix_us, int32_t node_id, uint64_t lease, uint64_t offset, Uuid *out) noexcept;

// The UUID at `offset` of namespace `lease` (a clock sequence) of the given node.
Status make_given(int64_t unix_us, uint64_t node, uint64_t lease, uint64_t offset, Uuid *out) noexcept;

}  // namespace idgen::uuid_v1::backfill
