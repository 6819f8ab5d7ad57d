// The node-choice rule of node_choice.hpp.
#include "core/registry/node_choice.hpp"

#include <algorithm>
#include <cstdlib>

namespace idgen::registry {

std::vector<bool> taken_node_ids(const std::vector<KeyValue> &keys, const std::string &identity,
                                 const std::vector<std::string> &undeleted, int32_t live) {
    std::vector<bool> taken(static_cast<size_t>(live > 0 ? live : 0), false);
    for (const KeyValue &kv : keys) {
        const long n = strtol(kv.key.c_str() + kv.key.rfind('/') + 1, nullptr, 10);
        const bool lost_answer =
            kv.value == identity && std::find(undeleted.begin(), undeleted.end(), kv.key) == undeleted.end();
        if (n >= 0 && n < live && !lost_answer) taken[static_cast<size_t>(n)] = true;
    }
    return taken;
}

}  // namespace idgen::registry
