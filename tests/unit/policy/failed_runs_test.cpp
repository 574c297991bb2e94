// Failed runs (failed_runs.hpp): which ended runs are failures, their AdminComment words, the hold
// after MaxFallbackRequeues, and the words a user reads.
#include "policy/failed_runs.hpp"

#include <gtest/gtest.h>

#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

EndedRunNode Node(const std::string& name) { return EndedRunNode{name, false, false, "", 0}; }

EndedRunNode Drained(const std::string& name, const std::string& reason, Time at) {
  return EndedRunNode{name, false, true, reason, at};
}

TEST(FailedRuns, ANodeFailNamesTheNodesThatAreDown) {
  EndedRun run{true, false, 100, 1, {Node("p5n1"), Node("p5n3")}};
  run.nodes[1].down = true;
  EXPECT_EQ(failure_of(run), (FailedRun{RunFailure::NodeFail, {"p5n3"}, 1}));
}

TEST(FailedRuns, ANodeFailWithNoNodeDownNamesAllOfTheRunsNodes) {
  const EndedRun run{true, false, 100, 2, {Node("p5n1"), Node("p5n2")}};
  EXPECT_EQ(failure_of(run), (FailedRun{RunFailure::NodeFail, {"p5n1", "p5n2"}, 2}));
}

TEST(FailedRuns, ARequeueIsAPrologFailureOnlyOnceANodeIsDrainedForItsProlog) {
  EndedRun run{false, false, 100, 1, {Node("p5n4")}};
  EXPECT_FALSE(failure_of(run)) << "not drained (yet): an admin's requeue, or too early to say";
  run.nodes[0] = Drained("p5n4", "Prolog error", 101);
  EXPECT_EQ(failure_of(run), (FailedRun{RunFailure::Prolog, {"p5n4"}, 1}));
  run.nodes[0] = Drained("p5n4", "shareq: hardware: 7 GPUs found, family p5 expects 8", 100);
  EXPECT_EQ(failure_of(run), (FailedRun{RunFailure::Prolog, {"p5n4"}, 1}));
}

TEST(FailedRuns, APreemptedRunIsNoPrologFailure) {
  const std::string comment = "shareq:share=a shareq-preempted:reclaim,by:7,run:100";
  EXPECT_TRUE(preempted_in_run(comment, 100));
  EXPECT_FALSE(preempted_in_run(comment, 10));
  EXPECT_FALSE(preempted_in_run(comment, 1000));
  EndedRun run{false, true, 100, 1, {Drained("p5n4", "Prolog error", 101)}};
  EXPECT_FALSE(failure_of(run));
}

TEST(FailedRuns, ADrainForAnotherReasonOrFromBeforeTheRunIsNoPrologFailure) {
  EXPECT_FALSE(failure_of(EndedRun{false, false, 100, 1, {Drained("p5n4", "maintenance", 150)}}));
  EXPECT_FALSE(failure_of(EndedRun{false, false, 100, 1, {Drained("p5n4", "Prolog error", 99)}}));
  EndedRun down{false, false, 100, 1, {Node("p5n4")}};
  down.nodes[0].down = true;
  EXPECT_FALSE(failure_of(down)) << "a requeue is no NODE_FAIL";
}

TEST(FailedRuns, WordsRoundTripThroughTheAdminComment) {
  const FailedRun first{RunFailure::NodeFail, {"p5n3"}, 1};
  const FailedRun second{RunFailure::Prolog, {"p4n1", "p4n2"}, 2};
  EXPECT_EQ(failed_run_word(first), "shareq-failed:node_fail,nodes:p5n3,requeue:1");
  EXPECT_EQ(failed_run_word(second), "shareq-failed:prolog,nodes:p4n1+p4n2,requeue:2");
  const std::string comment = "shareq:share=a,priority=50 shareq-start:cold,at:5 " +
                              failed_run_word(first) + " " + failed_run_word(second);
  EXPECT_EQ(failed_runs(comment), (std::vector<FailedRun>{first, second}));
  EXPECT_EQ(failure_before(comment, 2), second);
  EXPECT_EQ(failure_before(comment, 1), first);
  EXPECT_FALSE(failure_before(comment, 3));
  EXPECT_FALSE(failure_before(comment, 0));
}

TEST(FailedRuns, WordsThatDoNotDecodeAreSkipped) {
  for (const char* bad :
       {"shareq-failed:", "shareq-failed:node_fail", "shareq-failed:melted,nodes:a,requeue:1",
        "shareq-failed:node_fail,nodes:a,requeue:x", "shareq-failed:node_fail,nodes:a,requeue:-1",
        "shareq-failed:node_fail,nodes:a++b,requeue:1", "shareq-failed:prolog,node:a,requeue:1",
        "shareq-failed:prolog,nodes:a,requeue:1,extra"}) {
    EXPECT_TRUE(failed_runs(bad).empty()) << bad;
  }
}

TEST(FailedRuns, AJobIsHeldOnceItFailedMoreThanMaxFallbackRequeuesTimes) {
  Policy p = Cluster().family("p5", Unit::Gpu, 16).share("a", "p5", 8).build();
  p.max_fallback_requeues = 1;
  EXPECT_FALSE(held_after_failures(p, 0));
  EXPECT_FALSE(held_after_failures(p, 1));
  EXPECT_TRUE(held_after_failures(p, 2));
  p.max_fallback_requeues = 0;
  EXPECT_TRUE(held_after_failures(p, 1)) << "0: held at the first failure";
}

TEST(FailedRuns, WhatAUserReads) {
  Policy p = Cluster()
                 .family("p5", Unit::Gpu, 16)
                 .family("p4", Unit::Node, 4)
                 .share("a", "p5", 8)
                 .share("a", "p4", 2)
                 .build();
  p.max_fallback_requeues = 1;
  const FailedRun node{RunFailure::NodeFail, {"p5n3"}, 1};
  const FailedRun prolog{RunFailure::Prolog, {"p4n1"}, 2};
  EXPECT_EQ(fallback_after_failure_comment(p, 0, 1, node),
            "shareq: fell back from p5 to p4 after node p5n3 failed (NODE_FAIL)");
  EXPECT_EQ(fallback_after_failure_comment(p, 0, 1, prolog),
            "shareq: fell back from p5 to p4 after its prolog failed on p4n1");
  EXPECT_EQ(held_after_failures_reason(p, {node, prolog}, 42),
            "shareq: held after 2 failed runs (MaxFallbackRequeues=1): node p5n3 failed "
            "(NODE_FAIL); its prolog failed on p4n1; scontrol release 42 runs it again");
}

TEST(FailedRuns, TheFailedNodesAreExcludedButNotOnesTheJobAskedForByName) {
  const FailedRun run{RunFailure::NodeFail, {"p5n1", "p5n3"}, 1};
  EXPECT_EQ(nodes_to_exclude(run, {}), (std::vector<std::string>{"p5n1", "p5n3"}));
  EXPECT_EQ(nodes_to_exclude(run, {"p5n3"}), (std::vector<std::string>{"p5n1"}));
  EXPECT_TRUE(nodes_to_exclude(run, {"p5n1", "p5n3"}).empty());
}

TEST(FailedRuns, AFailureMayBecomeKnownUpToAMinuteAfterTheRunEnded) {
  EXPECT_TRUE(failure_still_possible(1000, 1000));
  EXPECT_TRUE(failure_still_possible(1000, 1000 + kFailureKnownWithin));
  EXPECT_FALSE(failure_still_possible(1000, 1001 + kFailureKnownWithin));
}

}  // namespace
}  // namespace shareq::policy::testing
