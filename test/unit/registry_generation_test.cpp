// The judgement of the registry's generation key: every way etcd can forget is noticed by a server
// that saw what was lost, the others follow the mark, and only the episode a server seeded for
// lets it back.
#include <gtest/gtest.h>
#include <string>

#include "core/registry/registry_generation.hpp"

using namespace idgen::registry;

namespace {
Remembered working(const std::string &token, int64_t revision) {
    return Remembered{token, "", revision};
}
}  // namespace

TEST(RegistryGeneration, FirstServerCreatesOthersJoin) {
    EXPECT_EQ(judge_generation(Remembered{}, false, "", 5).verdict, Verdict::create);
    EXPECT_EQ(judge_generation(Remembered{}, true, "a1", 5).verdict, Verdict::join);
}

TEST(RegistryGeneration, NothingLostIsTheSame) {
    EXPECT_EQ(judge_generation(working("a1", 100), true, "a1", 100).verdict, Verdict::same);
    EXPECT_EQ(judge_generation(working("a1", 100), true, "a1", 250).verdict, Verdict::same);
}

TEST(RegistryGeneration, AnEmptiedEtcdIsNoticed) {
    const Judgement j = judge_generation(working("a1", 100), false, "", 3);
    EXPECT_EQ(j.verdict, Verdict::noticed);
    EXPECT_NE(j.reason.find("no generation key"), std::string::npos);
}

TEST(RegistryGeneration, ASnapshotRestoreIsNoticedByItsRevision) {
    const Judgement j = judge_generation(working("a1", 100), true, "a1", 99);
    EXPECT_EQ(j.verdict, Verdict::noticed);
    EXPECT_NE(j.reason.find("from 100 to 99"), std::string::npos);
}

TEST(RegistryGeneration, TheMarkIsFollowedByEveryone) {
    for (const Remembered &mine : {Remembered{}, working("a1", 100), Remembered{"a1", "e7", 100}}) {
        const Judgement j = judge_generation(mine, true, forgotten_value("e7"), 1);
        EXPECT_EQ(j.verdict, Verdict::forgotten);
        EXPECT_EQ(j.episode, "e7");
    }
}

TEST(RegistryGeneration, OnlyTheSeededEpisodeLetsAServerBack) {
    const Remembered seeded{"a1", "e7", 100};
    EXPECT_EQ(judge_generation(seeded, true, "e7", 120).verdict, Verdict::join);
    EXPECT_EQ(judge_generation(seeded, true, "e8", 120).verdict, Verdict::noticed);
    EXPECT_EQ(judge_generation(seeded, false, "", 2).verdict, Verdict::noticed);
}

TEST(RegistryGeneration, AGenerationNeverWorkedUnderIsNoticed) {
    EXPECT_EQ(judge_generation(working("a1", 100), true, "e7", 300).verdict, Verdict::noticed);
}

// etcd restored to revision 90 while the server had seen 100; the writes of the servers still
// working with it carry it to 130 before the next look. The look still notices.
TEST(RegistryGeneration, ARevisionThatWentBackIsNoticedAfterWritesCarriedItPast) {
    Revisions seen;
    seen.start(100);
    seen.saw(100);
    EXPECT_FALSE(seen.went_back());
    seen.saw(90);
    EXPECT_TRUE(seen.went_back());
    for (int64_t r = 91; r <= 130; r++) seen.saw(r);
    EXPECT_TRUE(seen.went_back());
    EXPECT_EQ(seen.highest, 130);
    const int64_t judged = seen.take_for_look();
    EXPECT_EQ(judged, 90);
    EXPECT_EQ(judge_generation(working("a1", 100), true, "a1", judged).verdict, Verdict::noticed);
    // Taken: the next look judges by the last answer again.
    EXPECT_FALSE(seen.went_back());
    EXPECT_EQ(seen.take_for_look(), 130);
}

TEST(RegistryGeneration, RevisionsThatOnlyClimbAreNeverBack) {
    Revisions seen;
    seen.start(100);
    for (int64_t r = 100; r <= 110; r++) seen.saw(r);
    EXPECT_FALSE(seen.went_back());
    EXPECT_EQ(seen.take_for_look(), 110);
    // A new generation starts afresh: what went back before it is forgotten with it.
    seen.saw(50);
    seen.start(50);
    EXPECT_FALSE(seen.went_back());
}

TEST(RegistryGeneration, TheForgottenValueRoundTrips) {
    std::string episode;
    EXPECT_TRUE(forgotten_episode(forgotten_value("e7"), &episode));
    EXPECT_EQ(episode, "e7");
    EXPECT_FALSE(forgotten_episode("forgotten ", &episode));
    EXPECT_FALSE(forgotten_episode("a1", &episode));
}
