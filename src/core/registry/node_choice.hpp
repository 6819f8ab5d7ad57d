// Which node ids of a pool a server may try to claim, judged from the keys the registry holds
// under the pool's prefix (one key per node id, ".../<n>", its value the holder's identity).
// Claiming is then a create that succeeds only where no key exists, so a wrong "free" costs a
// round trip, never a node id held twice - except for the two keys of our own identity that the
// registry still holds while we hold nothing there, which the create would accept as ours:
// - a claim whose answer was lost after the registry applied it: ours, and free to us (else the
//   node id stays taken, by nobody, until our lease ends);
// - a node id we gave back whose delete failed (`undeleted`, deleted again each round): taken.
//   Claimed again, the round's delete would then remove the key of a node id we hold, and
//   another server could claim it while we still hand out ids under it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/registry/key_value.hpp"

namespace idgen::registry {

// For node ids 0 .. live - 1 of the pool whose keys are `keys`: whether each is taken, for a
// server of `identity` that holds none of the pool and gave back the keys `undeleted`. A key
// whose last segment is not a number counts as node id 0's (taken rather than guessed free).
std::vector<bool> taken_node_ids(const std::vector<KeyValue> &keys, const std::string &identity,
                                 const std::vector<std::string> &undeleted, int32_t live);

}  // namespace idgen::registry
