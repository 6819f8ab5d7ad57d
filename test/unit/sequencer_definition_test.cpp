// The rules for a sequencer's definition in a cluster (sequencer_definition.hpp), through the
// model of the registry (fake_registry.hpp): registering, a conflict, a destroyed definition
// defined anew only by a create, a destroy racing a create on another server, swaps that lose
// to another server's write, and a swap whose answer is lost after it was applied.
#include <gtest/gtest.h>
#include <string>

#include "core/registry/sequencer_definition.hpp"

#include "fake_registry.hpp"

using namespace idgen::registry;
using idgen::registry::fakes::FakeRegistry;

namespace {

const std::string kKey = "/c/sequencer/orders";
const std::string kD1 = R"({"epoch":"2024-01-01","max_nodes":1024})";
const std::string kD1Reordered = R"({"max_nodes":1024,"epoch":"2024-01-01"})";
const std::string kD2 = R"({"epoch":"2024-01-01","max_nodes":512})";

std::string active(const std::string &d) {
    return R"({"definition":)" + d + R"(,"state":"active"})";
}
std::string destroyed(const std::string &d) {
    return R"({"definition":)" + d + R"(,"state":"destroyed"})";
}

TEST(SequencerDefinition, RegisteredOnceThenFoundWhateverTheOrderOfItsKeys) {
    FakeRegistry reg;
    EXPECT_EQ(register_definition(reg, kKey, kD1, false).outcome, Registered::ok);
    EXPECT_FALSE(definition_gone(reg.value_of(kKey), kD1));
    EXPECT_EQ(register_definition(reg, kKey, kD1Reordered, false).outcome, Registered::ok);
    const RegisterResult other = register_definition(reg, kKey, kD2, true);
    EXPECT_EQ(other.outcome, Registered::conflict) << "a create does not replace an active definition";
    EXPECT_FALSE(definition_gone(reg.value_of(kKey), kD1));
    EXPECT_TRUE(definition_gone(reg.value_of(kKey), kD2));
    EXPECT_NE(other.detail.find("1024"), std::string::npos)
        << "the conflict names the definition the cluster has";
}

TEST(SequencerDefinition, ADestroyedDefinitionIsDefinedAnewOnlyByACreate) {
    FakeRegistry reg;
    reg.keys[kKey] = FakeRegistry::Entry{destroyed(kD1), 0};
    EXPECT_TRUE(definition_gone(reg.value_of(kKey), kD1));
    EXPECT_EQ(register_definition(reg, kKey, kD1, false).outcome, Registered::destroyed)
        << "a server that only uses the name does not bring back what another dropped";
    EXPECT_EQ(register_definition(reg, kKey, kD2, true).outcome, Registered::ok);
    EXPECT_FALSE(definition_gone(reg.value_of(kKey), kD2));
}

TEST(SequencerDefinition, ADropThatArrivesAfterTheNameWasDroppedAndCreatedAnewLeavesTheNewDefinition) {
    FakeRegistry reg;
    ASSERT_EQ(register_definition(reg, kKey, kD1, false).outcome, Registered::ok);
    // Server b drops D1 and creates D2 while server a's drop of D1 is still on its way.
    ASSERT_TRUE(destroy_definition(reg, kKey, kD1));
    ASSERT_EQ(register_definition(reg, kKey, kD2, true).outcome, Registered::ok);
    EXPECT_TRUE(destroy_definition(reg, kKey, kD1)) << "a's drop is done: nothing of D1 is left";
    EXPECT_EQ(reg.value_of(kKey), active(kD2)) << "and b's D2 stays";
    EXPECT_TRUE(destroy_definition(reg, kKey, "")) << "a drop of whatever is there";
    EXPECT_EQ(reg.value_of(kKey), destroyed(kD2));
}

TEST(SequencerDefinition, ADestroyWhoseValueChangedMeanwhileWaitsForTheNextRound) {
    FakeRegistry reg;
    ASSERT_EQ(register_definition(reg, kKey, kD1, false).outcome, Registered::ok);
    reg.on_swap = [&] {  // between a's read and a's swap, b drops D1 and creates D2
        reg.keys[kKey] = FakeRegistry::Entry{active(kD2), 0};
        reg.on_swap = nullptr;
    };
    EXPECT_FALSE(destroy_definition(reg, kKey, kD1));
    EXPECT_EQ(reg.value_of(kKey), active(kD2));
    EXPECT_TRUE(destroy_definition(reg, kKey, kD1)) << "next round: D1 is gone, D2 stays";
    EXPECT_EQ(reg.value_of(kKey), active(kD2));
}

TEST(SequencerDefinition, ARegistrationThatLosesASwapReadsAgain) {
    FakeRegistry reg;
    reg.on_swap = [&] {  // b registers the same definition first
        reg.keys[kKey] = FakeRegistry::Entry{active(kD1Reordered), 0};
        reg.on_swap = nullptr;
    };
    EXPECT_EQ(register_definition(reg, kKey, kD1, false).outcome, Registered::ok);
    reg.keys.clear();
    reg.on_swap = [&] {  // b registers another
        reg.keys[kKey] = FakeRegistry::Entry{active(kD2), 0};
        reg.on_swap = nullptr;
    };
    EXPECT_EQ(register_definition(reg, kKey, kD1, false).outcome, Registered::conflict);
    reg.keys.clear();
    int writes = 0;  // every swap loses to another write: churn without end
    reg.on_swap = [&] {
        reg.keys[kKey] = FakeRegistry::Entry{destroyed(R"({"n":)" + std::to_string(writes++) + "}"), 0};
    };
    const RegisterResult gave_up = register_definition(reg, kKey, kD1, true);
    EXPECT_EQ(gave_up.outcome, Registered::failed);
    EXPECT_EQ(gave_up.detail, "the definition kept changing in the registry");
    EXPECT_EQ(writes, 3) << "three tries in all";
}

TEST(SequencerDefinition, ASwapAppliedWhoseAnswerWasLostIsFoundRegisteredNextTime) {
    FakeRegistry reg;
    reg.lose_answer_after(1);  // the read answers; the swap is applied, its answer lost
    const RegisterResult lost = register_definition(reg, kKey, kD1, false);
    EXPECT_EQ(lost.outcome, Registered::failed);
    EXPECT_EQ(lost.detail, "") << "the store's own error says why";
    EXPECT_EQ(register_definition(reg, kKey, kD1, false).outcome, Registered::ok);
    EXPECT_EQ(reg.value_of(kKey), active(kD1));
}

TEST(SequencerDefinition, AnUnreadableValueIsGoneAndAConflict) {
    FakeRegistry reg;
    reg.keys[kKey] = FakeRegistry::Entry{"not json", 0};
    EXPECT_TRUE(definition_gone(reg.value_of(kKey), kD1));
    const RegisterResult r = register_definition(reg, kKey, kD1, true);
    EXPECT_EQ(r.outcome, Registered::conflict);
    EXPECT_EQ(r.detail, "not json");
    EXPECT_TRUE(destroy_definition(reg, kKey, kD1)) << "nothing of D1 to destroy";
    EXPECT_EQ(reg.value_of(kKey), "not json");
}

}  // namespace
