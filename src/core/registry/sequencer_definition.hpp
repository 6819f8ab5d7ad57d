// A Snowflake sequencer's definition as a cluster keeps it, one key per name (sequencer/<name>,
// node_holder.hpp's layout) holding {"definition": {...}, "state": "active" | "destroyed"}, and
// the rules for it, every write a compare-and-swap of the value read:
// - registering: the cluster has this definition active, or gets it; another definition active
//   is a conflict; a destroyed one is defined anew only by a create (snowflake_create), since a
//   server that merely uses the name must not bring back what another server dropped;
// - destroying (snowflake_drop, at commit): only the definition that was dropped, so that a
//   drop which reaches the registry after another server dropped the name and created it
//   anew leaves the new definition alone;
// - watching: a definition destroyed, or destroyed and defined otherwise, elsewhere is gone
//   for this server, which then gives its node id back.
// Definitions compare as JSON values (the order of keys does not matter), since each server
// writes its own canonical text.
#pragma once

#include <string>

#include "core/registry/registry_store.hpp"

namespace idgen::registry {

enum class Registered { ok, conflict, destroyed, failed };

struct RegisterResult {
    Registered outcome;
    std::string detail;  // conflict: the definition the cluster has; failed: what failed ("" when
                         // the registry did not answer: the store's own error says why)
};

// Registers `definition` (JSON text) under key; `create`: a destroyed definition may be defined
// anew. A swap that lost to another server's write is tried again, three times in all.
RegisterResult register_definition(RegistryStore &store, const std::string &key,
                                   const std::string &definition, bool create);

// Marks the definition under key destroyed if it is `dropped` (JSON text; "" for whichever is
// there) and active. True when done or when there was nothing of it to destroy; false when the
// registry did not answer or the value changed meanwhile (then: again next round).
bool destroy_definition(RegistryStore &store, const std::string &key, const std::string &dropped);

// Whether the value stored under a definition's key (as a range read returns it) no longer
// holds `ours` (JSON text) active: destroyed, defined otherwise, or unreadable.
bool definition_gone(const std::string &stored, const std::string &ours);

}  // namespace idgen::registry
