// The simulator's input parsers: what they read, and errors that name the line and the field.
#include <gtest/gtest.h>

#include <map>

#include "sim/hostlist.hpp"
#include "sim/sacct_trace.hpp"
#include "sim/slurm_conf.hpp"
#include "sim/swf_map.hpp"
#include "sim/swf_trace.hpp"
#include "sim/time_text.hpp"

namespace shareq::sim {
namespace {

std::string first_error(const std::vector<InputError>& errors) {
  return errors.empty() ? "" : errors.front().to_string();
}

TEST(Hostlist, RangesListsAndPadding) {
  const auto names = expand_hostlist("p4n[1-3],gpu[08-10,12],solo,r[1-2]n[1-2]");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names.value(),
            (std::vector<std::string>{"p4n1", "p4n2", "p4n3", "gpu08", "gpu09", "gpu10", "gpu12",
                                      "solo", "r1n1", "r1n2", "r2n1", "r2n2"}));
}

TEST(Hostlist, BadListsSayWhy) {
  EXPECT_NE(expand_hostlist("n[1-").error().message.find("without"), std::string::npos);
  EXPECT_NE(expand_hostlist("n[4-2]").error().message.find("ends below"), std::string::npos);
  EXPECT_NE(expand_hostlist("n[a-b]").error().message.find("N-M"), std::string::npos);
  EXPECT_NE(expand_hostlist("n1,,n2").error().message.find("empty"), std::string::npos);
  EXPECT_FALSE(expand_hostlist("n[1-999999999]").ok());
  EXPECT_EQ(expand_hostlist("n[1-3],m[1-3]", 5).error().message,
            "\"n[1-3],m[1-3]\" has more than 5 names");
  EXPECT_EQ(expand_hostlist("n[1-5]", 5).value().size(), 5u);
}

TEST(SlurmConf, NodesGpusAndPartitions) {
  const auto parsed = parse_slurm_conf(
      "ClusterName=x\nNodeName=DEFAULT Gres=gpu:8\nNodeName=p5n[1-2]\n"
      "NodeName=p4n[1-2] Gres=gpu:a100:4(S:0-1),gpu:v100:2,mps:100 # mixed\n"
      "PartitionName=p5 Nodes=p5n[1-2] Default=YES\nPartitionName=all Nodes=ALL\n",
      "slurm.conf");
  ASSERT_TRUE(parsed.value) << first_error(parsed.errors);
  const SlurmCluster& c = *parsed.value;
  ASSERT_EQ(c.nodes.size(), 4u);
  EXPECT_EQ(c.nodes[0].gpus, 8);
  EXPECT_EQ(c.nodes[2].name, "p4n1");
  EXPECT_EQ(c.nodes[2].gpus, 6);
  EXPECT_EQ(c.find_partition("p5")->nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.find_partition("all")->nodes.size(), 4u);
}

TEST(SlurmConf, ErrorsNameLineAndKey) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"NodeName=n1 Gres=gpu:x\n", "slurm.conf:1: Gres: in \"gpu:x\""},
           {"NodeName=n1\nNodeName=n1\n", "slurm.conf:2: NodeName: node \"n1\" is defined twice"},
           {"NodeName=n1\nPartitionName=p Nodes=n2\n", "slurm.conf:2: Nodes: node \"n2\""},
           {"NodeName=n[1-\n", "slurm.conf:1: NodeName: \"[\" without"},
           {"NodeName=n1\nPartitionName=p Nodes=n1\nPartitionName=p Nodes=n1\n",
            "slurm.conf:3: PartitionName: partition \"p\" is defined twice"}}) {
    const auto parsed = parse_slurm_conf(text, "slurm.conf");
    EXPECT_FALSE(parsed.value);
    EXPECT_EQ(first_error(parsed.errors).rfind(expected, 0), 0u) << first_error(parsed.errors);
  }
}

TEST(SlurmConf, NodesAndPartitionListsAreBounded) {
  // Two lines of 60,000 nodes: the second passes kMaxSimNodes, and the third is not expanded.
  auto parsed =
      parse_slurm_conf("NodeName=a[1-60000]\nNodeName=b[1-60000]\nNodeName=c[1-5]\n", "slurm.conf");
  EXPECT_FALSE(parsed.value);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].to_string(),
            "slurm.conf:2: NodeName: more than 100000 nodes in all; the simulator takes at most "
            "100000");

  // 11 partitions of all 100,000 nodes list 1,100,000.
  std::string text = "NodeName=n[1-100000]\n";
  for (int i = 1; i <= 11; ++i) text += "PartitionName=p" + std::to_string(i) + " Nodes=ALL\n";
  parsed = parse_slurm_conf(text, "slurm.conf");
  EXPECT_FALSE(parsed.value);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].to_string().rfind(
                "slurm.conf:12: Nodes: the partitions list more than 1000000 nodes in all", 0),
            0u)
      << parsed.errors[0].to_string();

  // Within both bounds: 100,000 nodes, 10 partitions of all of them.
  text.erase(text.rfind("PartitionName=p11"));
  parsed = parse_slurm_conf(text, "slurm.conf");
  ASSERT_TRUE(parsed.value) << first_error(parsed.errors);
  EXPECT_EQ(parsed.value->nodes.size(), 100'000u);
}

TEST(SlurmConf, APartitionListingANodeTwiceHasItOnce) {
  const auto parsed = parse_slurm_conf(
      "NodeName=g[1-2] Gres=gpu:4\nPartitionName=gpu Nodes=g1,g1,g[1-2]\n", "slurm.conf");
  ASSERT_TRUE(parsed.value) << first_error(parsed.errors);
  EXPECT_EQ(parsed.value->find_partition("gpu")->nodes, (std::vector<int>{0, 1}));
}

TEST(SlurmConf, NoNodesIsAnError) {
  for (const char* text :
       {"", "ClusterName=x\nPartitionName=p\n", "NodeName=DEFAULT Gres=gpu:4\n"}) {
    const auto parsed = parse_slurm_conf(text, "slurm.conf");
    EXPECT_FALSE(parsed.value) << text;
    EXPECT_EQ(first_error(parsed.errors),
              "slurm.conf: NodeName: slurm.conf defines no NodeName lines; the simulator needs "
              "the nodes (NodeName=LIST Gres=gpu:N), in the file or a file it Includes");
  }
  // Another error is said alone.
  const auto bad = parse_slurm_conf("NodeName=n[1-\n", "slurm.conf");
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].field, "NodeName");
  EXPECT_EQ(bad.errors[0].line, 1);
}

// Files by name, for Include; the paths each call asked for in `asked`.
struct FakeFiles {
  std::map<std::string, std::string> files;
  std::vector<std::string> asked;
  IncludeReader reader() {
    return [this](const std::string& path) -> std::variant<std::string, InputError> {
      asked.push_back(path);
      const auto found = files.find(path);
      if (found == files.end()) return InputError{path, 0, "", "cannot read: No such file"};
      return found->second;
    };
  }
};

TEST(SlurmConf, IncludeReadsTheFileInPlaceAsSlurmDoes) {
  FakeFiles fake;
  fake.files["/etc/slurm/nodes.conf"] = "NodeName=n[1-2]\n";
  fake.files["/etc/slurm/sub/parts.conf"] = "include more.conf\n";
  fake.files["/etc/slurm/sub/more.conf"] = "PartitionName=p Nodes=ALL\n";
  fake.files["/etc/slurm/c1.conf"] = "NodeName=m1 Gres=gpu:2\n";
  fake.files["/abs.conf"] = "";  // empty: allowed
  const auto parsed = parse_slurm_conf(
      "NodeName=DEFAULT Gres=gpu:8\nInclude nodes.conf   # relative: beside slurm.conf\n"
      "ClusterName=C1\nInclude %c.conf\nINCLUDE\tsub/parts.conf\nInclude /abs.conf\n",
      "/etc/slurm/slurm.conf", {}, fake.reader());
  ASSERT_TRUE(parsed.value) << first_error(parsed.errors);
  EXPECT_EQ(fake.asked, (std::vector<std::string>{"/etc/slurm/nodes.conf", "/etc/slurm/c1.conf",
                                                  "/etc/slurm/sub/parts.conf",
                                                  "/etc/slurm/sub/more.conf", "/abs.conf"}));
  const SlurmCluster& c = *parsed.value;
  ASSERT_EQ(c.nodes.size(), 3u);
  EXPECT_EQ(c.nodes[0].gpus, 8);  // NodeName=DEFAULT before the Include holds in it
  EXPECT_EQ(c.nodes[2].name, "m1");
  EXPECT_EQ(c.find_partition("p")->nodes.size(), 3u);  // ALL after the nodes included
  // A glob is a file name (Slurm expands none).
  const auto glob =
      parse_slurm_conf("Include conf.d/*.conf\n", "/etc/slurm/slurm.conf", {}, fake.reader());
  EXPECT_EQ(first_error(glob.errors),
            "/etc/slurm/slurm.conf:1: Include: /etc/slurm/conf.d/*.conf: cannot read: No such "
            "file");
}

TEST(SlurmConf, IncludeErrorsNameTheFileAndLine) {
  FakeFiles fake;
  fake.files["a.conf"] = "# a\nInclude b.conf\n";
  fake.files["b.conf"] = "NodeName=n1\nInclude ./a.conf\n";
  fake.files["bad.conf"] = "NodeName=n1 Gres=gpu:x\n";
  fake.files["self.conf"] = "Include self.conf\n";
  fake.files["big.conf"] = std::string(200, '#');
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"Include a.conf\n",
            "b.conf:2: Include: \"./a.conf\" is already being read (slurm.conf includes a.conf "
            "includes b.conf): an Include cycle"},
           {"Include self.conf\n",
            "self.conf:1: Include: \"self.conf\" is already being read (slurm.conf includes "
            "self.conf): an Include cycle"},
           {"NodeName=n0\nInclude bad.conf\n", "bad.conf:1: Gres: in \"gpu:x\""},
           {"Include missing.conf\n",
            "slurm.conf:1: Include: missing.conf: cannot read: No such file"},
           {"Include\n", "slurm.conf:1: Include: needs a file; allowed: Include PATH"},
           {"Include a.conf b.conf\n",
            "slurm.conf:1: Include: takes one file, \"b.conf\" follows it; allowed: Include PATH"},
           {"Include %c.conf\n",
            "slurm.conf:1: Include: \"%c.conf\": %c is the ClusterName, and no ClusterName line "
            "comes first"},
           {"Include big.conf\n",
            "slurm.conf:1: Include: with \"big.conf\" the slurm.conf and its included files are "
            "larger than 100 bytes in all (the limit for a slurm.conf)"}}) {
    SlurmConfLimits limits;
    limits.bytes = 100;
    const auto parsed = parse_slurm_conf(text, "slurm.conf", limits, fake.reader());
    EXPECT_FALSE(parsed.value);
    EXPECT_EQ(first_error(parsed.errors).rfind(expected, 0), 0u) << first_error(parsed.errors);
  }
  // Nested deeper than include_depth: 1.conf includes 2.conf includes ...
  for (int i = 1; i <= 10; ++i) {
    fake.files[std::to_string(i) + ".conf"] = "Include " + std::to_string(i + 1) + ".conf\n";
  }
  SlurmConfLimits limits;
  limits.include_depth = 3;
  const auto deep = parse_slurm_conf("Include 1.conf\n", "slurm.conf", limits, fake.reader());
  EXPECT_EQ(first_error(deep.errors),
            "3.conf:1: Include: \"4.conf\" would be included 4 deep; allowed: Include nested at "
            "most 3 deep");
  // Without a reader (the parser alone), an Include is an error, not ignored.
  EXPECT_EQ(first_error(parse_slurm_conf("Include n.conf\n", "slurm.conf").errors),
            "slurm.conf:1: Include: \"n.conf\": no file is read here");
}

TEST(SlurmConf, SchedulerParametersOnSlurmsDefaults) {
  const auto defaults = parse_slurm_conf("NodeName=n1 Gres=gpu:4\n", "slurm.conf");
  ASSERT_TRUE(defaults.value);
  EXPECT_EQ(defaults.value->scheduler.sched_interval_s, 60);
  EXPECT_EQ(defaults.value->scheduler.batch_sched_delay_s, 3);
  EXPECT_EQ(defaults.value->scheduler.bf_interval_s, 30);
  EXPECT_EQ(defaults.value->scheduler.default_queue_depth, 100);
  EXPECT_TRUE(defaults.value->scheduler.backfill);
  const auto parsed = parse_slurm_conf(
      "NodeName=n1 "
      "Gres=gpu:4\nSchedulerType=sched/builtin\nschedulerparameters=Partition_Job_Depth=4,"
      "preempt_send_user_signal,sched_interval=5,partition_job_depth=9,bf_min_prio_reserve="
      "1073741824,bf_max_job_test=50,default_queue_depth=7,batch_sched_delay=0\n",
      "slurm.conf");
  ASSERT_TRUE(parsed.value) << first_error(parsed.errors);
  const SchedulerParams& p = parsed.value->scheduler;
  EXPECT_FALSE(p.backfill);
  EXPECT_EQ(p.partition_job_depth, 4);  // the first occurrence, as Slurm reads it
  EXPECT_EQ(p.sched_interval_s, 5);
  EXPECT_EQ(p.bf_min_prio_reserve, 1073741824);
  EXPECT_EQ(p.bf_max_job_test, 50);
  EXPECT_EQ(p.default_queue_depth, 7);
  EXPECT_EQ(p.batch_sched_delay_s, 0);
  // Slurm takes any batch_sched_delay an int holds that is not negative (job_scheduler.c).
  const auto longest = parse_slurm_conf(
      "NodeName=n1 Gres=gpu:4\nSchedulerParameters=batch_sched_delay=2147483647\n", "slurm.conf");
  ASSERT_TRUE(longest.value) << first_error(longest.errors);
  EXPECT_EQ(longest.value->scheduler.batch_sched_delay_s, 2147483647);
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"SchedulerParameters=bf_interval=0\n",
            "slurm.conf:1: SchedulerParameters bf_interval: \"0\" is out of range; allowed: -1 (no "
            "backfill pass) or 1..10800"},
           {"SchedulerParameters=sched_interval=5s\n",
            "slurm.conf:1: SchedulerParameters sched_interval: \"5s\""},
           {"SchedulerParameters=bf_min_prio_reserve=4294967296\n",
            "slurm.conf:1: SchedulerParameters bf_min_prio_reserve: "},
           {"SchedulerParameters=batch_sched_delay=2147483648\n",
            "slurm.conf:1: SchedulerParameters batch_sched_delay: 2147483648 is out of range; "
            "allowed: 0..2147483647"},
           {"SchedulerType=sched/wiki\n",
            "slurm.conf:1: SchedulerType: \"sched/wiki\" is not simulated; allowed: "
            "sched/backfill, sched/builtin"}}) {
    const auto bad = parse_slurm_conf(text, "slurm.conf");
    EXPECT_FALSE(bad.value);
    EXPECT_EQ(first_error(bad.errors).rfind(expected, 0), 0u) << first_error(bad.errors);
  }
}

TEST(SlurmConf, PriorityPeriodsAsSlurmReadsThem) {
  const auto defaults = parse_slurm_conf("NodeName=n1 Gres=gpu:4\n", "slurm.conf");
  ASSERT_TRUE(defaults.value);
  EXPECT_EQ(defaults.value->priority_calc_period_s, 300);
  EXPECT_EQ(defaults.value->decay_half_life_s, 7 * 86400);
  const auto set = parse_slurm_conf(
      "NodeName=n1\nPriorityDecayHalfLife=1-0\nPriorityCalcPeriod=1\n", "slurm.conf");
  ASSERT_TRUE(set.value) << first_error(set.errors);
  EXPECT_EQ(set.value->decay_half_life_s, 86400);
  EXPECT_EQ(set.value->priority_calc_period_s, 60);
  const auto bad = parse_slurm_conf("PriorityDecayHalfLife=7d\n", "slurm.conf");
  EXPECT_FALSE(bad.value);
  EXPECT_EQ(first_error(bad.errors),
            "slurm.conf:1: PriorityDecayHalfLife: \"7d\" is not a duration; allowed: MINUTES, "
            "MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS[:MINUTES[:SECONDS]]");
}

// The first error of a slurm.conf (named slurm.conf) that must be refused.
std::string slurm_conf_refused(const std::string& text) {
  const auto parsed = parse_slurm_conf(text, "slurm.conf");
  EXPECT_FALSE(parsed.value) << text;
  return first_error(parsed.errors);
}

TEST(SlurmConf, MultifactorWeightsAndMaxAgeForTheStockBaseline) {
  const auto defaults = parse_slurm_conf("NodeName=n1 Gres=gpu:4\n", "slurm.conf");
  ASSERT_TRUE(defaults.value);
  EXPECT_EQ(defaults.value->weight_fairshare, 0u);
  EXPECT_EQ(defaults.value->weight_age, 0u);
  EXPECT_EQ(defaults.value->max_age_s, 7 * 86400);
  const auto set = parse_slurm_conf(
      "NodeName=n1\nPriorityWeightFairshare=10000\nPriorityWeightAge=4294967295\n"
      "PriorityMaxAge=1-0\n",
      "slurm.conf");
  ASSERT_TRUE(set.value) << first_error(set.errors);
  EXPECT_EQ(set.value->weight_fairshare, 10000u);
  EXPECT_EQ(set.value->weight_age, 4294967295u);
  EXPECT_EQ(set.value->max_age_s, 86400);
  EXPECT_EQ(slurm_conf_refused("NodeName=n1\nPriorityWeightAge=4294967296\n"),
            "slurm.conf:2: PriorityWeightAge: 4294967296 is out of range; allowed: whole numbers, "
            "0..4294967295");
  const std::string word = slurm_conf_refused("PriorityWeightFairshare=high\n");
  EXPECT_NE(word.find("PriorityWeightFairshare: \"high\""), std::string::npos) << word;
  EXPECT_NE(slurm_conf_refused("PriorityMaxAge=7d\n").find("PriorityMaxAge"), std::string::npos);
}

TEST(SlurmConf, RequeueHoldIsCredExpirePlusOne) {
  // job_mgr.c gives a requeued job a BeginTime of cred_expire + 1 s; cred_expire is AuthInfo's.
  EXPECT_EQ(parse_slurm_conf("NodeName=n1 Gres=gpu:4\n", "slurm.conf").value->requeue_hold_s, 121);
  const auto set = parse_slurm_conf(
      "NodeName=n1\nAuthInfo=socket=/run/munge/munge.socket.2,cred_expire=10\n", "slurm.conf");
  ASSERT_TRUE(set.value) << first_error(set.errors);
  EXPECT_EQ(set.value->requeue_hold_s, 11);
  EXPECT_EQ(
      parse_slurm_conf("NodeName=n1\nAuthInfo=socket=/x\n", "slurm.conf").value->requeue_hold_s,
      121);
  EXPECT_EQ(slurm_conf_refused("AuthInfo=cred_expire=4\n"),
            "slurm.conf:1: AuthInfo cred_expire: \"4\" is out of range; allowed: whole seconds, "
            "5..2147483647");
  const std::string bad = slurm_conf_refused("# c\nAuthInfo=cred_expire=10s\n");
  EXPECT_EQ(bad.rfind("slurm.conf:2: AuthInfo cred_expire: \"10s\"", 0), 0u) << bad;
}

TEST(Time, SlurmMinutesAsTimeStr2minsReadsThem) {
  EXPECT_EQ(parse_slurm_minutes("5"), 300);
  EXPECT_EQ(parse_slurm_minutes("0"), 0);
  EXPECT_EQ(parse_slurm_minutes("2:30"), 180);  // minutes:seconds, rounded up to minutes
  EXPECT_EQ(parse_slurm_minutes("1:00:00"), 3600);
  EXPECT_EQ(parse_slurm_minutes("7-0"), 7 * 86400);
  EXPECT_EQ(parse_slurm_minutes("1-2:03"), 86400 + 2 * 3600 + 180);
  EXPECT_EQ(parse_slurm_minutes("1-2:03:01"), 86400 + 2 * 3600 + 240);
  for (const char* bad :
       {"", "x", "1-", "-1", "1-24", "1:60", "1:2:3:4", "1-2:3:4:5", "100001-0"}) {
    EXPECT_FALSE(parse_slurm_minutes(bad)) << bad;
  }
}

TEST(Time, TimestampsAndElapsed) {
  EXPECT_EQ(parse_timestamp("1970-01-02T00:00:01"), 86401);
  EXPECT_EQ(parse_timestamp("2024-03-01T00:00:00").value() -
                parse_timestamp("2024-02-28T00:00:00").value(),
            2 * 86400);
  EXPECT_FALSE(parse_timestamp("2023-02-29T00:00:00"));
  EXPECT_FALSE(parse_timestamp("Unknown"));
  EXPECT_EQ(parse_elapsed("1-02:03:04"), 86400 + 2 * 3600 + 3 * 60 + 4);
  EXPECT_EQ(parse_elapsed("05:06"), 306);
  EXPECT_FALSE(parse_elapsed("1-05:06"));
  EXPECT_FALSE(parse_elapsed("xx"));
}

constexpr const char* kSacctHeader =
    "JobID|Account|Partition|Submit|Start|End|Elapsed|AllocTRES|NNodes|State|AdminComment\n";

TEST(SacctTrace, ReadsJobsSkipsStepsAndNeverRan) {
  const std::string text =
      std::string(kSacctHeader) +
      "10|ProdExp1|p5,p4|2024-01-01T00:00:00|2024-01-01T00:00:05|2024-01-01T01:00:05|01:00:00|"
      "cpu=8,gres/gpu=8,node=1|1|COMPLETED|shareq:share=prodexp1,priority=80\n"
      "10.batch|ProdExp1|p5|2024-01-01T00:00:00|x|x|01:00:00|cpu=8|1|COMPLETED|\n"
      "11|research|p5|2024-01-01T00:00:10|Unknown|Unknown|00:00:00||0|CANCELLED by 0|\n"
      "12|research|p5|2024-01-01T00:00:20|2024-01-01T00:00:20|2024-01-01T00:00:30|00:00:10|"
      "gres/gpu:a100=2,gres/gpu:v100=2|2|TIMEOUT|\n";
  const auto parsed = parse_sacct_trace(text, "t.sacct");
  ASSERT_TRUE(parsed.value) << first_error(parsed.errors);
  const Trace& t = *parsed.value;
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].share, "ProdExp1");
  EXPECT_EQ(t.jobs[0].partitions, (std::vector<std::string>{"p5", "p4"}));
  EXPECT_EQ(t.jobs[0].run_s, 3600);
  EXPECT_EQ(t.jobs[0].gpus, 8);
  EXPECT_EQ(t.jobs[0].priority, 80);
  EXPECT_EQ(t.jobs[1].gpus, 4);
  EXPECT_EQ(t.jobs[1].nodes, 2);
  EXPECT_EQ(t.jobs[1].submit - t.jobs[0].submit, 20);
  ASSERT_EQ(t.skipped.size(), 2u);
  EXPECT_EQ(t.skipped[0].reason, "job step");
}

TEST(SacctTrace, ErrorsNameLineAndField) {
  const auto missing = parse_sacct_trace("JobID|Account|Submit\n", "t");
  EXPECT_NE(first_error(missing.errors).find("t:1: header: missing Partition"), std::string::npos)
      << first_error(missing.errors);
  const auto bad_time = parse_sacct_trace(
      std::string(kSacctHeader) + "1|a|p|yesterday|x|x|00:01|gres/gpu=1|1|COMPLETED|\n", "t");
  EXPECT_EQ(first_error(bad_time.errors),
            "t:2: Submit: \"yesterday\" is not a time; allowed: YYYY-MM-DDTHH:MM:SS");
  const auto bad_elapsed = parse_sacct_trace(
      std::string(kSacctHeader) + "1|a|p|2024-01-01T00:00:00|x|x|soon|gres/gpu=1|1||\n", "t");
  EXPECT_NE(first_error(bad_elapsed.errors).find("t:2: Elapsed:"), std::string::npos);
  const auto short_row = parse_sacct_trace(std::string(kSacctHeader) + "1|a\n", "t");
  EXPECT_NE(first_error(short_row.errors).find("t:2: has 2 fields"), std::string::npos);
}

TEST(SacctTrace, BadFieldsAreErrorsAbsentOnesAreNot) {
  const std::string start = std::string(kSacctHeader) + "1|a|p|2024-01-01T00:00:00|";
  const std::string ran = "2024-01-01T00:00:00|2024-01-01T00:01:00|00:01:00|";
  for (const auto& [row, expected] : std::vector<std::pair<std::string, std::string>>{
           {ran + "cpu=1,gres/gpu=abc|1|COMPLETED|",
            "t:2: AllocTRES: in \"gres/gpu=abc\": \"abc\" is not an integer; allowed: "
            "gres/gpu=N with N 0..1000000000"},
           {ran + "gres/gpu=-4|1|COMPLETED|", R"(t:2: AllocTRES: in "gres/gpu=-4": "-4")"},
           {ran + "gres/gpu:a100=99999999999|1|COMPLETED|",
            "t:2: AllocTRES: in \"gres/gpu:a100=99999999999\": 99999999999 is out of range"},
           {ran + "gres/gpu=2|0|COMPLETED|", "t:2: NNodes: 0 is out of range; allowed: 1..1000000"},
           {ran + "gres/gpu=2|1|COMPLETED|shareq:share=a,priority=150",
            "t:2: AdminComment priority: 150 is out of range; allowed: 0..99"},
           {ran + "gres/gpu=2|1|COMPLETED|priority=x",
            "t:2: AdminComment priority: \"x\" is not an integer; allowed: 0..99"}}) {
    const auto parsed = parse_sacct_trace(start + row + "\n", "t");
    EXPECT_FALSE(parsed.value) << row;
    EXPECT_EQ(first_error(parsed.errors).rfind(expected, 0), 0u) << first_error(parsed.errors);
  }
  // Without Elapsed, the run time is End - Start.
  const auto backwards = parse_sacct_trace(
      "JobID|Account|Partition|Submit|Start|End|AllocTRES\n"
      "1|a|p|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:00:00|gres/gpu=2\n",
      "t");
  EXPECT_EQ(first_error(backwards.errors),
            "t:2: End: \"2024-01-01T00:00:00\" is before Start \"2024-01-01T00:01:00\"; allowed: "
            "Start or later");
  // Absent values stay absent: no gres (no GPUs, skipped), mem with a unit, no NNodes, a comment
  // without priority=, a never-ran row with NNodes 0, End equal to Start (never ran).
  const auto fine = parse_sacct_trace(
      start + ran + "cpu=1,mem=4G|1|COMPLETED|\n" + "2|a|p|2024-01-01T00:00:00|" + ran +
          "gres/gpu=2,mem=4G||COMPLETED|other admin text, share_priority=900\n" +
          "3|a|p|2024-01-01T00:00:00|None|None|00:00:00||0|CANCELLED|\n" +
          "4|a|p|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:00|00:00:00|gres/gpu=1|"
          "0|CANCELLED|\n",
      "t");
  ASSERT_TRUE(fine.value) << first_error(fine.errors);
  ASSERT_EQ(fine.value->jobs.size(), 1u);
  EXPECT_EQ(fine.value->jobs[0].gpus, 2);
  EXPECT_FALSE(fine.value->jobs[0].priority);
}

constexpr const char* kMap =
    "# map\nMap=user:7 Share=alice Priority=80\nMap=group:3 Share=team Partition=p4\n"
    "Default Share=other Partition=p5\n";

TEST(SwfMap, FirstMatchInFileOrderElseDefault) {
  const auto map = parse_swf_map(kMap, "m");
  ASSERT_TRUE(map.value) << first_error(map.errors);
  EXPECT_EQ(map.value->lookup(7, 3, -1).share, "alice");
  EXPECT_EQ(map.value->lookup(7, 3, -1).partition, "p5");
  EXPECT_EQ(map.value->lookup(8, 3, -1).partition, "p4");
  EXPECT_EQ(map.value->lookup(8, 4, -1).share, "other");
}

TEST(SwfMap, ErrorsNameLineAndField) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"Map=host:1 Share=a\nDefault Share=o Partition=p\n",
            "m:1: Map: \"host:1\" names no field"},
           {"Map=user:x Share=a\nDefault Share=o Partition=p\n", "m:1: Map: \"user:x\": the ID"},
           {"Map=user:1\nDefault Share=o Partition=p\n", "m:1: Share: missing"},
           {"Map=user:1 Share=a Priority=100\nDefault Share=o Partition=p\n",
            "m:1: Priority: 100 is out of range"},
           {"Map=user:1 Share=a Colour=red\nDefault Share=o Partition=p\n",
            "m:1: Colour: unknown key"},
           {"Default Share=o\n", "m:1: Partition: missing"},
           {"Map=user:1 Share=a\n", "m: Default: no Default line"},
           {"Default Share=o Partition=p\nDefault Share=o Partition=p\n", "m:2: Default: a second"},
           {"Map=user:-7 Share=a\nDefault Share=o Partition=p\n",
            "m:1: Map: \"user:-7\": the ID is below -1; allowed: user:ID, group:ID, queue:ID with "
            "ID an integer (-1 and up)"}}) {
    const auto map = parse_swf_map(text, "m");
    EXPECT_FALSE(map.value);
    EXPECT_EQ(first_error(map.errors).rfind(expected, 0), 0u) << first_error(map.errors);
  }
}

TEST(SwfMap, AWrongDefaultLineIsOneError) {
  for (const char* text : {"Default Share=owner\n", "Default Share=o Colour=red\n"}) {
    const auto map = parse_swf_map(text, "m");
    EXPECT_FALSE(map.value);
    ASSERT_EQ(map.errors.size(), 1u) << map.errors.back().to_string();
    EXPECT_EQ(map.errors[0].line, 1);
  }
  const auto minus_one = parse_swf_map("Map=user:-1 Share=a\nDefault Share=o Partition=p\n", "m");
  ASSERT_TRUE(minus_one.value) << first_error(minus_one.errors);
  EXPECT_EQ(minus_one.value->lookup(-1, 0, 0).share, "a");
}

TEST(SwfTrace, FieldsAndSkips) {
  const auto map = parse_swf_map(kMap, "m");
  const std::string text =
      "; header\n"
      "1 0 5 100 4 -1 -1 8 200 -1 1 7 3 -1 -1 1 -1 -1\n"
      "2 10 0 0 2 -1 -1 2 200 -1 0 9 3 -1 -1 1 -1 -1\n"
      "3 20 0 50 2 -1 -1 -1 200 -1 1 9 9 -1 -1 1 -1 -1\n";
  const auto trace = parse_swf_trace(text, "t.swf", *map.value);
  ASSERT_TRUE(trace.value) << first_error(trace.errors);
  ASSERT_EQ(trace.value->jobs.size(), 2u);
  EXPECT_EQ(trace.value->jobs[0].gpus, 8);  // requested (field 8) first
  EXPECT_EQ(trace.value->jobs[0].share, "alice");
  EXPECT_EQ(trace.value->jobs[0].priority, 80);
  EXPECT_EQ(trace.value->jobs[1].gpus, 2);  // allocated (field 5) when 8 is unknown
  EXPECT_EQ(trace.value->jobs[1].share, "other");
  EXPECT_EQ(trace.value->skipped.front().count, 1);
}

TEST(SwfTrace, ErrorsNameLineAndField) {
  const auto map = parse_swf_map(kMap, "m");
  const auto few = parse_swf_trace("1 2 3\n", "t.swf", *map.value);
  EXPECT_EQ(first_error(few.errors),
            "t.swf:1: has 3 fields; an SWF job line has 18, separated by whitespace");
  const auto bad =
      parse_swf_trace("1 0 5 1.5 4 -1 -1 8 200 -1 1 7 3 -1 -1 1 -1 -1\n", "t.swf", *map.value);
  EXPECT_EQ(first_error(bad.errors), "t.swf:1: field 4 (run time): \"1.5\" is not an integer");
}

}  // namespace
}  // namespace shareq::sim
