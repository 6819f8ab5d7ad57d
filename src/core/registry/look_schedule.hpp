// When the registry worker looks at the cluster again: at the definitions (destroyed or defined
// otherwise elsewhere), for a free node id for each sequencer it waits on, and at how many
// servers there are. A look is a few range reads; what it finds is acted on by the worker.
//
// Without a watch it looks every second. With a watch on the node and sequencer keys up (etcd
// confirmed it), it looks when the watch reports a change, and at once when the watch is
// confirmed or lost: the watch reports only changes after its creation, so the look after the
// confirmation sees what came before, and the look after a loss sees what the dead stream may
// have missed. A look every kSafetyNs besides bounds what a watch that stays up but goes
// quiet could hide (a member cut off from its peers that still holds the connection). A look that
// failed (etcd did not answer) is tried again a second later.
//
// Why no change is missed: the worker reads the watch's news only at the start of a round,
// before the look of that round. A change the look's reads did not see happened after them, so
// etcd reports it after them too, and the worker reads that report in a later round: changed()
// comes after looked() and brings the next look forward. (Reports of changes the look did see
// cost one look more, no harm.)
//
// Nothing here keeps ids apart - a node id is a key that one lease holds at a time; a late look
// only delays a waiting sequencer's attach or a destroy's reach.
#pragma once

#include <cstdint>

namespace idgen::registry {

class LookSchedule {
public:
    static constexpr int64_t kPollNs = 1000000000;     // without a watch, and after a failed look
    static constexpr int64_t kSafetyNs = 10000000000;  // with a watch up

    // The watch is confirmed (created) / lost (ended, failed, not started): look now.
    void watch_up(int64_t now_ns) noexcept {
        watching_ = true;
        next_ns_ = now_ns;
    }
    void watch_down(int64_t now_ns) noexcept {
        if (!watching_) return;
        watching_ = false;
        next_ns_ = now_ns;
    }
    // The watch reported a change: look now.
    void changed(int64_t now_ns) noexcept { next_ns_ = now_ns; }

    bool due(int64_t now_ns) const noexcept { return now_ns >= next_ns_; }
    // A look ended at now_ns; ok: every read of it was answered.
    void looked(int64_t now_ns, bool ok) noexcept { next_ns_ = now_ns + (watching_ && ok ? kSafetyNs : kPollNs); }

    bool watching() const noexcept { return watching_; }

private:
    bool watching_ = false;
    int64_t next_ns_ = 0;  // the first look at once
};

}  // namespace idgen::registry
