// What the list of etcd endpoints (idgen.registry) may hold, checked before a server starts with
// it: client URLs separated by commas, each http:// or https:// followed by a host (and port);
// spaces around a URL and a trailing '/' are ignored, as the client ignores them. An empty list
// means no cluster mode. A list that parses to nothing, or a URL that is not one, is refused.
#pragma once

namespace idgen::registry {

// nullptr when `text` is a valid list, else what is wrong with it (a fixed message).
const char *endpoints_problem(const char *text) noexcept;

}  // namespace idgen::registry
