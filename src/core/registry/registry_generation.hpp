// How a server notices that the registry forgot (etcd restored from a snapshot, rebuilt empty, a
// new etcd cluster behind the same endpoints, the cluster's keys deleted), and how the cluster
// comes back from it.
//
// The registry's key `generation` names the registry's life: a random token, written once by the
// first server (create-if-absent). Every server remembers durably (in its data directory) the
// token it works under and the highest revision etcd has shown it, and writes that record before
// it uses anything a write of its own made (a node id claimed, a horizon published, a batch of
// namespaces handed to a backend). At each look it reads the key again:
// - the key gone, or the revision lower than the one remembered: etcd lost writes this server
//   saw (a snapshot holds no write made after it; an empty etcd starts its revisions again);
// - the key reads "forgotten <episode>": another server noticed.
// A server that noticed writes "forgotten <episode>" (a new random episode) so that the others
// notice at their next look, even those that lost nothing of their own. From then on no server
// issues anything that depends on the registry (its node ids are withdrawn, no batch is served)
// and each brings what it knows durably back into the registry (its namespace counters, and a
// floor above every id it issued: `floor`), then marks itself seeded (`seeded/<episode>/...`).
// The way out is one command, run once every server of the cluster shows the episode seeded:
// it turns "forgotten <episode>" into the token <episode>, and every server that seeded joins it,
// its generators raised above the floor before it claims a node id again. A server that finds a
// token it never worked under (it was away during a rebuild, or etcd was emptied and a server
// without a record made a new generation) notices too: only a rebuild that every server seeded
// for brings back what each of them knows.
//
// What it cannot notice at once: a server whose every write predates a snapshot that etcd is
// restored to notices nothing of its own, and a server without a record (new, or its data
// directory replaced) that finds etcd empty makes a new generation; both learn of the loss from
// the other servers at their next look (a second), and issue only until then.
#pragma once

#include <cstdint>
#include <string>

namespace idgen::registry {

// What a server remembers, durably, of the registry it works with.
struct Remembered {
    std::string token;     // the generation it works under ("" before its first)
    std::string episode;   // the forgotten episode it waits in and seeded for ("" when none)
    int64_t revision = 0;  // the highest revision etcd showed it under `token`
};

enum class Verdict {
    create,     // no generation yet and none remembered: make one
    join,       // a generation to work under (new to this server, or rebuilt with it)
    same,       // the generation it works under, nothing lost
    noticed,    // this server sees a loss: mark the registry forgotten
    forgotten,  // the registry is marked forgotten (episode): seed, and wait in it
};

struct Judgement {
    Verdict verdict;
    std::string episode;  // forgotten: the episode
    std::string reason;   // noticed: why, for the operator
};

// The revisions etcd's key-value answers showed a server (each answer is linearizable, so its
// revision is at least that of every answer before it, unless etcd forgot). A revision below the
// highest one is kept until the next look takes it: once etcd went back, the writes of the
// servers still working with it carry its revision up again, and a look a moment later would
// find it past the remembered one and notice nothing (two servers under load write more than a
// round's worth of revisions within the second between two looks).
struct Revisions {
    int64_t last = 0;         // the last answer's
    int64_t highest = 0;      // the highest since start (the remembered one, at first)
    int64_t lowest_back = 0;  // the lowest below `highest` since the last look (0: none)

    void start(int64_t from) {
        highest = from;
        lowest_back = 0;
    }
    void saw(int64_t revision) {
        last = revision;
        if (revision >= highest)
            highest = revision;
        else if (lowest_back == 0 || revision < lowest_back)
            lowest_back = revision;
    }
    bool went_back() const { return lowest_back != 0; }
    // The revision a look judges by: the lowest seen below the highest since the last look, else
    // the last; the look takes it.
    int64_t take_for_look() {
        const int64_t r = lowest_back != 0 ? lowest_back : last;
        lowest_back = 0;
        return r;
    }
};

// The judgement of a generation key read at `revision` (found, value) by a server that
// remembers `mine`.
Judgement judge_generation(const Remembered &mine, bool found, const std::string &value, int64_t revision);

// The key's value while the registry is forgotten, and its episode back from it.
std::string forgotten_value(const std::string &episode);
bool forgotten_episode(const std::string &value, std::string *episode);

}  // namespace idgen::registry
