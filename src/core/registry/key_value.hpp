// A key as the registry (etcd in cluster mode) holds it: what a range read returns, and what
// the registry's rules (node_choice.hpp) judge.
#pragma once

#include <cstdint>
#include <string>

namespace idgen::registry {

struct KeyValue {
    std::string key;
    std::string value;
    int64_t lease = 0;  // the registry lease it lives under (0: none)
};

}  // namespace idgen::registry
