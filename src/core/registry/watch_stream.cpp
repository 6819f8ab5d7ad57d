// etcd's watch stream over the JSON gateway, read message by message: see watch_stream.hpp.
#include "core/registry/watch_stream.hpp"

#include <nlohmann/json.hpp>

namespace idgen::registry {
namespace {

using nlohmann::json;

bool flag(const json &j, const char *name) {
    const auto it = j.find(name);
    return it != j.end() && it->is_boolean() && it->get<bool>();
}

// A compaction is sent as a non-zero compact_revision (an int64, a string through the gateway).
bool compacted(const json &result) {
    const auto it = result.find("compact_revision");
    if (it == result.end()) return false;
    if (it->is_string())
        return !it->get_ref<const std::string &>().empty() && it->get_ref<const std::string &>() != "0";
    return it->is_number() && it->get<double>() != 0;
}

std::string text_of(const json &j, const char *name) {
    const auto it = j.find(name);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void end(WatchNews *news, const std::string &why) {
    news->ended = true;
    if (news->error.empty()) news->error = why;
}

}  // namespace

void WatchStream::feed(const char *data, size_t size, WatchNews *news) {
    if (over_) return;
    pending_.append(data, size);
    size_t start = 0;
    for (size_t nl; !over_ && (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
        message(pending_.substr(start, nl - start), news);
    pending_.erase(0, start);
    if (!over_ && pending_.size() > kMaxLine) {
        over_ = true;
        end(news, "a watch message longer than " + std::to_string(kMaxLine) + " bytes");
    }
}

void WatchStream::message(const std::string &line, WatchNews *news) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // a blank line between messages
    const json m = json::parse(line, nullptr, false);
    const auto result = m.is_object() ? m.find("result") : m.end();
    if (!m.is_object() || m.contains("error") || result == m.end() || !result->is_object()) {
        over_ = true;
        const auto error = m.is_object() ? m.find("error") : m.end();
        end(news, error != m.end() && error->is_object() && !text_of(*error, "message").empty()
                      ? "watch: " + text_of(*error, "message")
                      : "watch: an unreadable message: " + line.substr(0, 200));
        return;
    }
    if (flag(*result, "created")) news->created = true;
    const auto events = result->find("events");
    if (events != result->end() && events->is_array() && !events->empty()) news->changed = true;
    if (flag(*result, "canceled") || compacted(*result)) {
        over_ = true;
        const std::string reason = text_of(*result, "cancel_reason");
        end(news, "watch canceled by etcd" + (reason.empty() ? std::string() : ": " + reason));
    }
}

}  // namespace idgen::registry
