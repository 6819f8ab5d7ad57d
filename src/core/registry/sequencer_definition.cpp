// The rules for a sequencer's definition in a cluster: see sequencer_definition.hpp.
#include "core/registry/sequencer_definition.hpp"

#include <nlohmann/json.hpp>

namespace idgen::registry {
namespace {

using nlohmann::json;

json stored_value(const json &definition, const char *state) {
    return json{{"definition", definition}, {"state", state}};
}
bool is_destroyed(const json &value) {
    if (!value.is_object()) return false;
    const auto state = value.find("state");
    return state != value.end() && state->is_string() && *state == "destroyed";
}
bool holds(const json &value, const json &definition) {
    if (!value.is_object()) return false;
    const auto d = value.find("definition");
    return d != value.end() && *d == definition;
}

}  // namespace

RegisterResult register_definition(RegistryStore &store, const std::string &key,
                                   const std::string &definition_text, bool create) {
    const json definition = json::parse(definition_text, nullptr, false);
    if (definition.is_discarded()) return {Registered::failed, "bad definition " + definition_text};
    const std::string active = stored_value(definition, "active").dump();
    for (int attempt = 0; attempt < 3; attempt++) {
        bool found = false;
        std::string current;
        if (!store.get(key, &found, &current)) return {Registered::failed, ""};
        if (found) {
            const json cur = json::parse(current, nullptr, false);
            if (!is_destroyed(cur)) {
                if (holds(cur, definition)) return {Registered::ok, ""};
                const bool readable = cur.is_object() && cur.contains("definition");
                return {Registered::conflict, readable ? cur.at("definition").dump() : current};
            }
            if (!create) return {Registered::destroyed, ""};
        }
        bool done = false;
        std::string seen;
        if (!store.swap(key, current, !found, active, &done, &seen)) return {Registered::failed, ""};
        if (done) return {Registered::ok, ""};
    }
    return {Registered::failed, "the definition kept changing in the registry"};
}

bool destroy_definition(RegistryStore &store, const std::string &key, const std::string &dropped) {
    bool found = false;
    std::string current;
    if (!store.get(key, &found, &current)) return false;
    const json cur = json::parse(current, nullptr, false);
    const bool readable = cur.is_object() && cur.contains("definition");
    const bool ours = dropped.empty() || holds(cur, json::parse(dropped, nullptr, false));
    if (found && ours && readable && !is_destroyed(cur)) {
        bool done = false;
        std::string seen;
        if (!store.swap(key, current, false, stored_value(cur.at("definition"), "destroyed").dump(), &done,
                        &seen))
            return false;
        if (!done) return false;  // changed meanwhile: again next round
    }
    return true;
}

bool definition_gone(const std::string &stored, const std::string &ours) {
    const json cur = json::parse(stored, nullptr, false);
    return is_destroyed(cur) || !holds(cur, json::parse(ours, nullptr, false));
}

}  // namespace idgen::registry
