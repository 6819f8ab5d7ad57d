// The judgement of the registry's generation key: the argument is in registry_generation.hpp.
#include "core/registry/registry_generation.hpp"

namespace idgen::registry {

namespace {
const char kForgotten[] = "forgotten ";
}

std::string forgotten_value(const std::string &episode) {
    return kForgotten + episode;
}

bool forgotten_episode(const std::string &value, std::string *episode) {
    const std::string mark = kForgotten;
    if (value.compare(0, mark.size(), mark) != 0 || value.size() == mark.size()) return false;
    *episode = value.substr(mark.size());
    return true;
}

Judgement judge_generation(const Remembered &mine, bool found, const std::string &value, int64_t revision) {
    std::string episode;
    if (found && forgotten_episode(value, &episode)) return {Verdict::forgotten, episode, ""};
    if (!mine.episode.empty()) {  // seeded for an episode: only its own rebuild lets it back
        if (found && value == mine.episode) return {Verdict::join, "", ""};
        if (!found)
            return {Verdict::noticed, "",
                    "etcd lost the registry's generation key again while the cluster waited"};
        return {Verdict::noticed, "", "the registry was rebuilt under a generation this server did not seed"};
    }
    if (mine.token.empty()) return {found ? Verdict::join : Verdict::create, "", ""};
    if (!found)
        return {Verdict::noticed, "",
                "etcd has no generation key any more (emptied, a new etcd cluster behind the same endpoints, "
                "or the cluster's keys deleted)"};
    if (value != mine.token)
        return {
            Verdict::noticed, "",
            "etcd holds a generation this server never worked under (rebuilt while it was away, or made anew "
            "in an emptied etcd)"};
    if (revision < mine.revision)
        return {Verdict::noticed, "",
                "etcd's revision went back from " + std::to_string(mine.revision) + " to " +
                    std::to_string(revision) + " (restored from an earlier snapshot)"};
    return {Verdict::same, "", ""};
}

}  // namespace idgen::registry
