// The registry's saved form: round trips and every kind of malformed input.
#include <gtest/gtest.h>

#include "warm/state_format.hpp"
#include "warm_builders.hpp"

namespace shareq::warm::testing {
namespace {

WarmPoolRegistry Busy() {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"n1", "n2"}), 100);
  MakePool(registry, Ended(2).user("bob o'neil").account("acc,=%").image("").nodes({"n 3"}), 100);
  MakePool(registry, Ended(3).nodes({"n4", "n5"}), 100);
  EXPECT_TRUE(registry.claim(3, Pending(4), 150));
  MakePool(registry, Ended(5).nodes({"n6", "n7"}), 100);
  EXPECT_TRUE(registry.claim(4, Pending(6), 150));
  registry.on_job_end(Ended(6).nodes({"n6", "n7"}).keep(60), EndCause::Completed, 200);
  registry.terminate(1, "admin");
  return registry;
}

TEST(StateFormat, RoundTripKeepsEveryPool) {
  const WarmPoolRegistry registry = Busy();
  const std::string text = format_registry(registry);
  const Result<WarmPoolRegistry> back = parse_registry(text, Settings());
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value().pools(), registry.pools());
  EXPECT_EQ(back.value().next_id(), registry.next_id());
  EXPECT_EQ(back.value().ended_early(), registry.ended_early());
  EXPECT_FALSE(registry.ended_early().empty()) << "pool 1 ended early";
  EXPECT_EQ(format_registry(back.value()), text);
}

TEST(StateFormat, KeepsTheDirectoriesOfPoolsThatEndedEarly) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(7).nodes({"n1", "n 2"}), 100);
  registry.terminate(1, "admin");
  const std::string text = format_registry(registry);
  EXPECT_EQ(text,
            "shareq-warm-pools 2\nnext-id 2\n"
            "ended node=n%202 name=warm-7 until=1000\n"
            "ended node=n1 name=warm-7 until=1000\nend\n");
  Result<WarmPoolRegistry> back = parse_registry(text, Settings());
  ASSERT_TRUE(back) << back.error().to_string();
  WarmPoolRegistry restored = std::move(back).value();
  EXPECT_EQ(restored.take_ended_early({"n1"}, 500), std::vector<std::string>{"warm-7"});
}

TEST(StateFormat, ReadsVersionOneFiles) {
  const Result<WarmPoolRegistry> parsed = parse_registry(
      "shareq-warm-pools 1\nnext-id 2\n"
      "pool id=1 status=available created=100 expires=1000 origin=7 reused= user=alice uid=1 "
      "account=a partition=p4 image= nodes=n1 match=user dir=/w/wp-1\nend\n",
      Settings());
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed.value().pools().size(), 1u);
  EXPECT_TRUE(parsed.value().ended_early().empty());
}

TEST(StateFormat, EmptyRegistry) {
  const WarmPoolRegistry registry(Settings());
  EXPECT_EQ(format_registry(registry), "shareq-warm-pools 2\nnext-id 1\nend\n");
  EXPECT_TRUE(parse_registry("shareq-warm-pools 1\nnext-id 1\nend", Settings()));
}

TEST(StateFormat, ExactText) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(7).user("a b"), 100);
  EXPECT_EQ(format_registry(registry),
            "shareq-warm-pools 2\nnext-id 2\n"
            "pool id=1 status=available created=100 expires=1000 origin=7 reused= user=a%20b "
            "uid=1001 account=prodexp1 partition=p4 image=" +
                kImageA +
                " nodes=n1,n2 match=image,account,user,partition,nodes "
                "dir=/var/lib/shareq/warm/wp-1\nend\n");
}

const std::string kPool =
    "pool id=1 status=available created=100 expires=1000 origin=7 reused= user=alice uid=1 "
    "account=a partition=p4 image= nodes=n1 match=user dir=/w/wp-1";

const std::string kEnded = "ended node=n1 name=warm-7 until=1000";

std::string File(const std::string& pools, const std::string& next = "2") {
  return "shareq-warm-pools 2\nnext-id " + next + "\n" + pools + "end\n";
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

// Pool `id` on `node`, in use by job 4.
std::string InUse(int id, const std::string& node) {
  const std::string n = std::to_string(id);
  std::string pool = Replace(Replace(kPool, "available", "in-use"), "reused=", "reused=4");
  pool = Replace(Replace(pool, "id=1", "id=" + n), "wp-1", "wp-" + n);
  return Replace(pool, "nodes=n1", "nodes=" + node);
}

struct BadCase {
  const char* name;
  std::string text;
  const char* message_part;
};

TEST(StateFormat, RejectsMalformedInput) {
  const std::vector<BadCase> cases = {
      {"empty", "", "line 1: not a warm-pool state file"},
      {"another version", "shareq-warm-pools 3\nnext-id 1\nend\n", "unsupported version"},
      {"no next-id", "shareq-warm-pools 1\nend\n", "line 2: expected \"next-id N\""},
      {"truncated", File(kPool + "\n").substr(0, 60), "truncated"},
      {"no end", "shareq-warm-pools 1\nnext-id 2\n" + kPool + "\n", "final \"end\""},
      {"stray line", File("hello\n"), "line 3: expected a \"pool\" or \"ended\" line"},
      {"ended: bad name", File(Replace(kEnded, "warm-7", "wp-7") + "\n"),
       "line 3: ended: name: \"wp-7\" is not warm-JOBID"},
      {"ended: job id zero", File(Replace(kEnded, "warm-7", "warm-0") + "\n"), "name:"},
      {"ended: path in name", File(Replace(kEnded, "warm-7", "warm-7/..") + "\n"), "name:"},
      {"ended: no node", File(Replace(kEnded, "node=n1", "node=") + "\n"), "node: empty"},
      {"ended: missing until", File(Replace(kEnded, " until=1000", "") + "\n"), "until: missing"},
      {"ended: bad until", File(Replace(kEnded, "until=1000", "until=soon") + "\n"), "until:"},
      {"ended: pool key", File(kEnded + " uid=1\n"), "ended: unknown key \"uid\""},
      {"ended twice", File(kEnded + "\n" + kEnded + "\n"),
       "line 4: ended: directory warm-7 on node n1 appears twice"},
      {"blank line", File("\n"), "line 3"},
      {"unknown key", File(kPool + " color=red\n"), "unknown key \"color\""},
      {"repeated key", File(kPool + " uid=2\n"), "uid: appears twice"},
      {"missing key", File(Replace(kPool, " uid=1", "") + "\n"), "uid: missing"},
      {"not key=value", File(kPool + " junk\n"), "\"junk\" is not key=value"},
      {"double space", File(Replace(kPool, " uid", "  uid") + "\n"), "not key=value"},
      {"negative time", File(Replace(kPool, "created=100", "created=-1") + "\n"), "created"},
      {"huge uid", File(Replace(kPool, "uid=1", "uid=4294967296") + "\n"), "uid"},
      {"bad status", File(Replace(kPool, "available", "sleeping") + "\n"), "unknown status"},
      {"ended status", File(Replace(kPool, "available", "expired") + "\n"), "ended pool"},
      {"bad digest", File(Replace(kPool, "image=", "image=abc") + "\n"), "image: not 64"},
      {"raw space escape", File(Replace(kPool, "user=alice", "user=al%2") + "\n"), "%-escape"},
      {"bad escape", File(Replace(kPool, "user=alice", "user=al%zz") + "\n"), "bad %-escape"},
      {"raw odd byte", File(Replace(kPool, "user=alice", "user=al\x01") + "\n"), "unexpected"},
      {"no nodes", File(Replace(kPool, "nodes=n1", "nodes=") + "\n"), "has no nodes"},
      {"empty node", File(Replace(kPool, "nodes=n1", "nodes=n1,") + "\n"), "empty name"},
      {"unknown match", File(Replace(kPool, "match=user", "match=color") + "\n"), "unknown field"},
      {"repeated match", File(Replace(kPool, "match=user", "match=user,user") + "\n"), "twice"},
      {"relative dir", File(Replace(kPool, "dir=/w/wp-1", "dir=w/wp-1") + "\n"), "dir:"},
      {"dir of another pool", File(Replace(kPool, "dir=/w/wp-1", "dir=/w/wp-2") + "\n"), "dir:"},
      {"dir escaping", File(Replace(kPool, "dir=/w/wp-1", "dir=/w/../wp-1") + "\n"), "\"..\""},
      {"id not below next-id", File(kPool + "\n", "1"), "not below next-id"},
      {"id zero", File(Replace(kPool, "id=1", "id=0") + "\n"), "id: must be at least 1"},
      {"expires before created", File(Replace(kPool, "expires=1000", "expires=5") + "\n"),
       "expires before"},
      {"in use without a job", File(Replace(kPool, "available", "in-use") + "\n"), "names no job"},
      {"available yet reused", File(Replace(kPool, "reused=", "reused=4") + "\n"),
       "status available"},
      {"node in two pools",
       File(kPool + "\n" + Replace(Replace(kPool, "id=1", "id=2"), "wp-1", "wp-2") + "\n", "3"),
       "node n1 is in two pools"},
      {"node twice", File(Replace(kPool, "nodes=n1", "nodes=n1,n1") + "\n"), "node n1"},
      {"same id twice", File(kPool + "\n" + Replace(kPool, "nodes=n1", "nodes=n2") + "\n"),
       "appears twice"},
      {"job on two pools", File(InUse(1, "n1") + "\n" + InUse(2, "n2") + "\n", "3"),
       "runs on another pool"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Result<WarmPoolRegistry> parsed = parse_registry(c.text, Settings());
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().field, "warm pool state");
    EXPECT_NE(parsed.error().message.find(c.message_part), std::string::npos)
        << parsed.error().message;
  }
}

TEST(StateFormat, AcceptsTheMinimalPoolAndSortsNodes) {
  const Result<WarmPoolRegistry> parsed =
      parse_registry(File(Replace(kPool, "nodes=n1", "nodes=n2,n1") + "\n"), Settings());
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  const WarmPool& pool = parsed.value().pools().at(1);
  EXPECT_EQ(pool.nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(pool.key.user, "alice");
  EXPECT_FALSE(pool.key.image);
}

}  // namespace
}  // namespace shareq::warm::testing
