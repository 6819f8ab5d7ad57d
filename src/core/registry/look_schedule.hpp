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
// failed (etcd did not answer its reads, or the lease went during it) is tried again a second
// later; a claim that etcd did not answer during a look waits for the next one. Changes bring a
// look on at most every kMinGapNs, so a burst of them (a rolling restart) costs a few looks a
// second, not one per round of the worker.
//
// Why no change is missed: the worker reads the watch's news only at the start of a round,
// before the look of that round. A change the look's reads did not see happened after them, so
// etcd reports it after them too, and the worker reads that report in a later round: heard()
// comes after looked() and brings the next look forward (to kMinGapNs after the last at the
// latest). (Reports of changes the look did see cost one look more, no harm.)
//
// Nothing here keeps ids apart - a node id is a key that one lease holds at a time; a late look
// only delays a waiting sequencer's attach or a destroy's reach.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/registry/watch_stream.hpp"

namespace idgen::registry {

class LookSchedule {
public:
    static constexpr int64_t kPollNs = 1000000000;     // without a watch, and after a failed look
    static constexpr int64_t kSafetyNs = 10000000000;  // with a watch up
    static constexpr int64_t kMinGapNs = 250000000;    // between looks that changes bring on

    // What the watch said since the last call. Confirmed: look now. A change: look now, or
    // kMinGapNs after the last look. Ended (or could not start): look now, then poll. A watch
    // that etcd confirms and cancels in one breath (refused) never counts as up. Returns true when
    // a watch that was up ended (worth a line in the log; a watch that cannot start is not).
    bool heard(const WatchNews &news, int64_t now_ns) noexcept {
        if (news.ended) {
            const bool was_up = watching_;
            if (was_up) next_ns_ = now_ns;
            watching_ = false;
            return was_up;
        }
        if (news.created) {
            watching_ = true;
            next_ns_ = now_ns;
        }
        if (news.changed) next_ns_ = std::min(next_ns_, std::max(now_ns, last_ns_ + kMinGapNs));
        return false;
    }

    bool due(int64_t now_ns) const noexcept { return now_ns >= next_ns_; }
    // A look ended at now_ns; ok: every read of it was answered and the lease held throughout.
    void looked(int64_t now_ns, bool ok) noexcept {
        last_ns_ = now_ns;
        next_ns_ = now_ns + (watching_ && ok ? kSafetyNs : kPollNs);
    }

    bool watching() const noexcept { return watching_; }

private:
    bool watching_ = false;
    int64_t next_ns_ = 0;           // the first look at once
    int64_t last_ns_ = -kMinGapNs;  // when the last look ended
};

}  // namespace idgen::registry
