// etcd's watch as its JSON gateway streams it: one long HTTP response to POST /v3/watch, each
// message a JSON object on a line of its own - {"result": {...}} (the watch created, events,
// canceled, compacted) or {"error": {...}}. WatchStream takes the bytes as they arrive, in any
// pieces, and says what the complete messages among them mean for the registry worker: the
// watch is confirmed, something under it changed, or the stream is over (an error, a cancel, a
// compaction, a message it cannot read, or a line too long to be one). A stream over is
// not read further; a new one starts from a fresh WatchStream (reset()).
#pragma once

#include <cstddef>
#include <string>

namespace idgen::registry {

struct WatchNews {
    bool created = false;  // etcd confirmed the watch
    bool changed = false;  // at least one event (a put or a delete under the watched range)
    bool ended = false;    // the stream is over; error says why
    std::string error;
};

class WatchStream {
public:
    static constexpr size_t kMaxLine = 4u << 20;  // far above any message the registry's keys make

    // Adds `size` bytes of the response; what the messages they complete say goes into *news
    // (fields only set, never cleared: one news may gather several feeds).
    void feed(const char *data, size_t size, WatchNews *news);
    void reset() {
        pending_.clear();
        over_ = false;
    }

private:
    void message(const std::string &line, WatchNews *news);

    std::string pending_;  // the start of a message whose line has not ended yet
    bool over_ = false;
};

}  // namespace idgen::registry
