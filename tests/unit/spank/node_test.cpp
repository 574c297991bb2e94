// The SPANK plugin's node side (plugins/spank/node.hpp), Slurm-free: job prolog and epilog on a
// temporary ImageCacheDir with a directory image store. The layout checks (root-owned
// directories, chown to the job's user) need root, as on a node; the tests skip otherwise.
#include "node.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cache_fixture.hpp"
#include "test_configs.hpp"
#include "warm/node_files.hpp"

namespace shareq::spank_plugin::node {
namespace {

using imagecache::testing::Bytes;
using imagecache::testing::HttpStore;
using imagecache::testing::List;
using imagecache::testing::Mode;
using imagecache::testing::ReadFile;
using imagecache::testing::Store;
using imagecache::testing::TempDir;
using imagecache::testing::WriteFile;
namespace fs = std::filesystem;

constexpr uint32_t kUid = 4242;
constexpr uint32_t kGid = 4343;
constexpr int64_t kNow = 1'000'000;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Polls `done` every 10 ms for at most `within`; whether it became true.
bool PollFor(std::chrono::milliseconds within, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class NodeSide : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the node side runs as root (root-owned layout, chown)";
    digest_ = store_.put("img", Bytes(10'000, 1));
    other_digest_ = store_.put("other", Bytes(5'000, 2));
    config_ =
        testing::must_parse(std::string(testing::kFamiliesOnlyConf) + "ImageStore=" + store_.dir() +
                            "\nImageCacheDir=" + tmp_.path() + "/%n/images\n");
  }

  [[nodiscard]] JobFacts Job(uint32_t id, const std::string& image = "",
                             const std::string& warm = "", int64_t keep_alive = 0) const {
    JobFacts f;
    f.job_id = id;
    f.uid = kUid;
    f.gid = kGid;
    f.node = "n1";
    f.image = image;
    f.warm_name = warm;
    f.keep_alive_s = keep_alive;
    return f;
  }

  Prepared Prolog(const JobFacts& job, int64_t now = kNow) {
    job_prolog(config_, job, now, log_);
    auto prepared = read_prepared(config_, job.node, job.job_id);
    EXPECT_TRUE(prepared.has_value()) << "the prolog left nothing for job " << job.job_id;
    return prepared.value_or(Prepared{});
  }
  void Epilog(const JobFacts& job, int64_t now = kNow) { job_epilog(config_, job, now, log_); }

  [[nodiscard]] std::string Root() const { return tmp_.path() + "/n1"; }
  [[nodiscard]] std::string Warm(const std::string& name) const { return Root() + "/warm/" + name; }
  [[nodiscard]] std::string State(const std::string& name) const {
    return ReadFile(Warm(name) + ".state");
  }
  [[nodiscard]] std::vector<std::string> Holders(const std::string& digest) const {
    return imagecache::testing::List(Root() + "/images/pins/" + digest);
  }
  [[nodiscard]] std::string Trash() const { return Root() + "/warm/.trash"; }
  // Whether some directory in the trash holds `file`.
  [[nodiscard]] bool TrashHolds(const std::string& file) const {
    for (const std::string& entry : List(Trash())) {
      std::string path = Trash();
      path.append("/").append(entry).append("/").append(file);
      if (Exists(path)) return true;
    }
    return false;
  }
  // Whether ROOT/warm/.lock can be taken now (and is let go at once).
  [[nodiscard]] bool WarmLockFree() const {
    const int fd = ::open((Root() + "/warm/.lock").c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return free;
  }
  // The kernel's boot id; "" where the kernel does not give one.
  static std::string KernelBootId() {
    std::string boot = ReadFile("/proc/sys/kernel/random/boot_id");
    while (!boot.empty() && boot.back() == '\n') boot.pop_back();
    return boot;
  }
  // This boot, as the node side names it (the boot id, "+", when PID 1 started).
  static std::string ThisBoot() {
    return warm::node_boot(KernelBootId(), warm::init_start_ticks(ReadFile("/proc/1/stat")));
  }
  // As if the node had rebooted since the outcomes of `jobs` were written: they and the mark
  // name an earlier boot (`earlier`).
  void Reboot(const std::vector<uint32_t>& jobs,
              const std::string& earlier = "an-earlier-boot") const {
    WriteFile(Root() + "/jobs/.boot", earlier + "\n");
    for (const uint32_t id : jobs) {
      const std::string outcome = Root() + "/jobs/" + std::to_string(id);
      std::string text = ReadFile(outcome);
      const size_t at = text.find("boot=" + ThisBoot() + "\n");
      ASSERT_NE(at, std::string::npos) << outcome << " names no boot: " << text;
      WriteFile(outcome, text.replace(at, 5 + ThisBoot().size(), "boot=" + earlier));
    }
  }
  [[nodiscard]] bool Logged(const std::string& part) const {
    for (const auto& line : lines_) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }

  TempDir tmp_;
  Store store_{tmp_.path() + "/store"};
  Config config_;
  std::string digest_;
  std::string other_digest_;
  std::vector<std::string> lines_;
  LogFn log_ = [this](const std::string& line) { lines_.push_back(line); };
};

TEST_F(NodeSide, NodeNameIsSubstitutedInTheCacheDirectory) {
  EXPECT_EQ(node_cache_dir(config_, "p4n2"), tmp_.path() + "/p4n2/images");
}

TEST_F(NodeSide, PrologWithoutImageOrWarmDirectoryPreparesNothingAndFailsNothing) {
  const Prepared p = Prolog(Job(1));
  EXPECT_EQ(p.image_path, "");
  EXPECT_EQ(p.warm_dir, "");
  EXPECT_EQ(p.error, "");
}

TEST_F(NodeSide, PrologCachesTheImageAndPinsItForTheJob) {
  const Prepared p = Prolog(Job(2, "img"));
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.digest, digest_);
  EXPECT_EQ(p.image_path, Root() + "/images/sha256/" + digest_);
  EXPECT_EQ(ReadFile(p.image_path), Bytes(10'000, 1));
  EXPECT_EQ(Mode(p.image_path), 0444u);
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-2"});
  EXPECT_TRUE(Logged("job 2: image img fetched"));

  const Prepared again = Prolog(Job(3, "img"));
  EXPECT_EQ(again.image_path, p.image_path);
  EXPECT_TRUE(Logged("job 3: image img already cached"));
}

// ImageCacheMetricsFile (with %n) set: the prolog counts the job's image request, the epilog
// refreshes the gauges after unpinning; without the key no file is written.
TEST_F(NodeSide, TheNodeMetricsFileCountsEachImageRequestAndFollowsThePins) {
  const std::string prom = Root() + "/shareq.prom";
  Prolog(Job(20, "img"));
  EXPECT_FALSE(Exists(prom)) << "no ImageCacheMetricsFile, no metrics file";
  config_.image_cache_metrics_file = tmp_.path() + "/%n/shareq.prom";
  Prolog(Job(21, "img"));      // a hit
  Prolog(Job(22, "missing"));  // a failure
  std::string text = ReadFile(prom);
  for (const std::string line :
       {"shareq_image_cache_hits_total 1\n",
        "shareq_image_cache_fetches_total{result=\"failure\"} 1\n",
        "shareq_image_cache_fetches_total{result=\"success\"} 0\n",
        "shareq_image_cache_bytes 10000\n", "shareq_image_cache_images 1\n",
        "shareq_image_cache_pinned_images 1\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing " << line << "in\n" << text;
  }
  Epilog(Job(20, "img"));
  Epilog(Job(21, "img"));
  text = ReadFile(prom);
  EXPECT_NE(text.find("shareq_image_cache_pinned_images 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("shareq_image_cache_hits_total 1\n"), std::string::npos) << text;
}

TEST_F(NodeSide, AFetchIsCountedWithItsBytes) {
  config_.image_cache_metrics_file = tmp_.path() + "/%n/shareq.prom";
  Prolog(Job(23, "other"));
  const std::string text = ReadFile(Root() + "/shareq.prom");
  EXPECT_NE(text.find("shareq_image_cache_fetches_total{result=\"success\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("shareq_image_cache_fetched_bytes_total 5000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("shareq_image_cache_fetch_seconds_count 1\n"), std::string::npos) << text;
}

TEST_F(NodeSide, AMetricsFileThatCannotBeWrittenIsLoggedAndTheJobGoesOn) {
  config_.image_cache_metrics_file = tmp_.path() + "/no-such-dir/shareq.prom";
  const Prepared p = Prolog(Job(24, "img"));
  EXPECT_EQ(p.error, "");
  EXPECT_TRUE(Logged("prolog: image cache metrics not written: ImageCacheMetricsFile: "));
}

TEST_F(NodeSide, ABadImageNameFailsTheJobWithAMessageNamingIt) {
  const Prepared p = Prolog(Job(4, "../etc/passwd"));
  EXPECT_NE(p.error.find("image ../etc/passwd: "), std::string::npos) << p.error;
  EXPECT_EQ(p.image_path, "");
}

TEST_F(NodeSide, AnUnknownImageFailsTheJobWithAMessageNamingIt) {
  const Prepared p = Prolog(Job(5, "missing"));
  EXPECT_NE(p.error.find("image missing: "), std::string::npos) << p.error;
  EXPECT_EQ(imagecache::testing::List(Root() + "/images/sha256"), std::vector<std::string>{});
}

TEST_F(NodeSide, APinnedDigestOtherThanThePublishedOneFailsTheJob) {
  const Prepared p = Prolog(Job(6, "img@sha256:" + other_digest_));
  EXPECT_NE(p.error.find("image img: pinned digest sha256:" + other_digest_), std::string::npos)
      << p.error;
  EXPECT_EQ(p.image_path, "");
}

TEST_F(NodeSide, APinnedDigestThatMatchesIsServed) {
  const Prepared p = Prolog(Job(7, "img@sha256:" + digest_));
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.digest, digest_);
}

TEST_F(NodeSide, WarmDirectoryIsCreatedPrivateToTheJobsUserAndMarkedInUse) {
  const Prepared p = Prolog(Job(8, "img", "warm-8", 300));
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.warm_dir, Warm("warm-8"));
  struct stat st {};
  ASSERT_EQ(::lstat(p.warm_dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, kUid);
  EXPECT_EQ(st.st_gid, kGid);
  EXPECT_EQ(State("warm-8"), "inuse 8 " + digest_ + "\n");
  // The layout around it stays root's.
  EXPECT_EQ(Mode(Root() + "/warm"), 0755u);
  EXPECT_EQ(Mode(Root() + "/jobs/8"), 0600u);
}

// A new warm directory comes into ROOT/warm by a rename, already its user's: ROOT/warm never
// holds one that root owns (as it did between a mkdir there and the chown), and nothing of its
// making is left in the trash.
TEST_F(NodeSide, ANewWarmDirectoryArrivesAlreadyItsUsers) {
  Prolog(Job(80));  // the layout
  const int events = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(events, 0) << std::strerror(errno);
  ASSERT_GE(::inotify_add_watch(events, (Root() + "/warm").c_str(), IN_CREATE | IN_MOVED_TO), 0);
  const Prepared p = Prolog(Job(81, "", "warm-81", 60));
  ASSERT_EQ(p.error, "");
  std::vector<uint32_t> masks;  // of the events naming warm-81
  alignas(struct inotify_event) char buffer[4096];
  for (ssize_t got; (got = ::read(events, buffer, sizeof buffer)) > 0;) {
    for (ssize_t at = 0; at < got;) {
      const auto* event = reinterpret_cast<const struct inotify_event*>(buffer + at);
      if (event->len > 0 && std::string(event->name) == "warm-81") masks.push_back(event->mask);
      at += static_cast<ssize_t>(sizeof(struct inotify_event) + event->len);
    }
  }
  ::close(events);
  ASSERT_EQ(masks.size(), 1u);
  EXPECT_TRUE(masks[0] & IN_MOVED_TO) << "warm-81 was made in ROOT/warm, not moved there";
  struct stat st {};
  ASSERT_EQ(::lstat(Warm("warm-81").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kUid);
  EXPECT_EQ(List(Trash()), std::vector<std::string>{});
}

// What a hook killed while making a warm directory left is not in the way of the next.
TEST_F(NodeSide, AWarmDirectoryHalfMadeByAKilledHookIsMadeAgain) {
  Prolog(Job(82));
  fs::create_directories(Trash() + "/.new-warm-83");
  const Prepared p = Prolog(Job(83, "", "warm-83", 60));
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.warm_dir, Warm("warm-83"));
  EXPECT_EQ(List(Trash()), std::vector<std::string>{});
}

// ... and one of a pool no job comes back to is removed by the next hook's sweep.
TEST_F(NodeSide, AStagingDirectoryAKilledHookLeftIsRemovedByTheNextSweep) {
  Prolog(Job(84));
  fs::create_directories(Trash() + "/.new-warm-85");
  Epilog(Job(84));
  EXPECT_EQ(List(Trash()), std::vector<std::string>{});
}

TEST_F(NodeSide, EpilogKeepsTheWarmDirectoryPinsTheImageAndTheNextJobReopensIt) {
  Prolog(Job(9, "img", "warm-9", 300));
  WriteFile(Warm("warm-9") + "/checkpoint", "step 100");
  Epilog(Job(9, "img", "warm-9", 300));
  EXPECT_EQ(State("warm-9"), "until " + std::to_string(kNow + 300) + " " + digest_ + "\n");
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"warm-9"});  // job-9 unpinned
  EXPECT_FALSE(Exists(Root() + "/jobs/9"));

  const Prepared next = Prolog(Job(10, "img", "warm-9"), kNow + 100);
  ASSERT_EQ(next.error, "");
  EXPECT_EQ(next.warm_dir, Warm("warm-9"));
  EXPECT_EQ(ReadFile(Warm("warm-9") + "/checkpoint"), "step 100");
  EXPECT_EQ(State("warm-9"), "inuse 10 " + digest_ + "\n");
}

// After slurmctld restarted in the middle of a job's start, the warm directory the job's
// environment names at its epilog can differ from the one its prolog opened: the epilog releases
// the one the job had, and leaves the other (in use by another job here) as it is.
TEST_F(NodeSide, AnEpilogReleasesTheWarmDirectoryItsPrologOpenedNotTheOneItsEnvironmentNames) {
  Prolog(Job(11, "img", "warm-11", 300));
  Prolog(Job(20, "img", "warm-20", 300));
  Epilog(Job(20, "img", "warm-11", 300));
  EXPECT_EQ(State("warm-20"), "until " + std::to_string(kNow + 300) + " " + digest_ + "\n");
  EXPECT_EQ(State("warm-11"), "inuse 11 " + digest_ + "\n");
  EXPECT_EQ(Holders(digest_), (std::vector<std::string>{"job-11", "warm-20"}));
  EXPECT_TRUE(
      Logged("its prolog opened warm directory warm-20, its environment now names warm-11"));
}

// Two jobs given one pool's directory (Slurm's crash window): the first to end does not take it
// from the one still in it, nor pin its image for a pool it no longer has.
TEST_F(NodeSide, AnEpilogLeavesAWarmDirectoryAnotherJobTookSince) {
  Prolog(Job(21, "img", "warm-21", 300));
  Prolog(Job(22, "img", "warm-21", 300));
  Epilog(Job(21, "img", "warm-21", 300));
  EXPECT_EQ(State("warm-21"), "inuse 22 " + digest_ + "\n");
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-22"});
  EXPECT_TRUE(Logged("epilog: job 21: warm directory warm-21 is no longer this job's (inuse 22)"));

  Epilog(Job(22, "img", "warm-21", 300));
  EXPECT_EQ(State("warm-21"), "until " + std::to_string(kNow + 300) + " " + digest_ + "\n");
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"warm-21"});
}

// A pool's directory reopened for a job of another image: the pool no longer keeps the first
// image (no state file names it any more, so nothing else would ever unpin it).
TEST_F(NodeSide, AWarmDirectoryReopenedForAnotherImageLetsTheOldImageGo) {
  Prolog(Job(23, "img", "warm-23", 300));
  Epilog(Job(23, "img", "warm-23", 300));
  ASSERT_EQ(Holders(digest_), std::vector<std::string>{"warm-23"});

  Prolog(Job(24, "other", "warm-23", 300), kNow + 10);
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{});
  EXPECT_EQ(Holders(other_digest_), std::vector<std::string>{"job-24"});
  Epilog(Job(24, "other", "warm-23", 300), kNow + 20);
  EXPECT_EQ(Holders(other_digest_), std::vector<std::string>{"warm-23"});
}

// The same for a directory left "inuse" by a job whose end was never recorded, reopened before
// a sweep took it.
TEST_F(NodeSide, AnOrphanedWarmDirectoryReopenedForAnotherImageLetsTheOldImageGo) {
  Prolog(Job(25, "img", "warm-25", 300));
  Epilog(Job(25, "img", "warm-25", 300));
  Prolog(Job(26, "img", "warm-25", 300));
  ASSERT_EQ(::unlink((Root() + "/jobs/26").c_str()), 0);  // as if its epilog had given up

  Prolog(Job(27, "other", "warm-25", 300), kNow + 10);
  EXPECT_EQ(State("warm-25"), "inuse 27 " + other_digest_ + "\n");
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-26"});  // the pool's pin gone
}

// A hook killed between the warm lock and its unpins leaves a pool pin that no warm directory's
// state names: its sweep had taken the directory (state gone), or its prolog had reopened the
// directory for another image. No eviction could take that image. The next hook releases such
// pins, and only those: a pool's pin of the image its state names, and the jobs' pins, stay.
TEST_F(NodeSide, APoolPinNoWarmDirectoryStateNamesIsReleasedByTheNextHook) {
  Prolog(Job(80, "img", "warm-80", 300));
  Epilog(Job(80, "img", "warm-80", 300));
  Prolog(Job(81, "img", "warm-81", 300));
  Epilog(Job(81, "img", "warm-81", 300));
  ASSERT_EQ(Holders(digest_), (std::vector<std::string>{"warm-80", "warm-81"}));
  // A prolog killed after it reopened warm-81 for another image, before it let img go.
  Prolog(Job(82, "other", "warm-81", 300), kNow + 10);
  WriteFile(Root() + "/images/pins/" + digest_ + "/warm-81", "");
  // A sweep killed after it moved warm-80 into the trash, before it unpinned its image.
  ASSERT_EQ(::rename(Warm("warm-80").c_str(), (Trash() + "/warm-80.killed").c_str()), 0);
  ASSERT_EQ(::unlink((Warm("warm-80") + ".state").c_str()), 0);
  ASSERT_EQ(Holders(digest_), (std::vector<std::string>{"warm-80", "warm-81"}));

  Prolog(Job(83, "img"), kNow + 20);
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-83"});
  EXPECT_TRUE(Logged("prolog: image " + digest_ +
                     " was still pinned by warm directory warm-80, which has no state: "
                     "pin released"));
  EXPECT_TRUE(Logged("prolog: image " + digest_ +
                     " was still pinned by warm directory warm-81, which names " + other_digest_ +
                     ": pin released"));

  // The epilog does the same; the pool pin it takes itself is its directory state's image.
  Epilog(Job(82, "other", "warm-81", 300), kNow + 30);
  WriteFile(Root() + "/images/pins/" + digest_ + "/warm-82", "");
  lines_.clear();
  Epilog(Job(84), kNow + 40);
  EXPECT_EQ(Holders(other_digest_), std::vector<std::string>{"warm-81"});
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-83"});
  EXPECT_TRUE(Logged("epilog: image " + digest_ +
                     " was still pinned by warm directory warm-82, which has no state: "
                     "pin released"));
  // Released once: the next hook finds nothing to say.
  lines_.clear();
  Prolog(Job(85), kNow + 50);
  EXPECT_FALSE(Logged("was still pinned"));
}

TEST_F(NodeSide, AnEpilogReleasesThePinOfAPrologKilledBeforeItRecordedTheImage) {
  Prolog(Job(90, "img"));
  ASSERT_EQ(Holders(digest_), std::vector<std::string>{"job-90"});
  // Job 91's prolog pinned the image and was killed before it wrote the job's outcome; job 92's
  // prolog is on its way (pinned, no outcome yet).
  WriteFile(Root() + "/images/pins/" + digest_ + "/job-91", "");
  WriteFile(Root() + "/images/pins/" + digest_ + "/job-92", "");

  lines_.clear();
  Epilog(Job(91, "img"), kNow + 10);
  EXPECT_EQ(Holders(digest_), (std::vector<std::string>{"job-90", "job-92"}));
  EXPECT_TRUE(Logged("epilog: image " + digest_ +
                     " was still pinned by job 91, whose prolog ended before it recorded it: "
                     "pin released"));
  // A prolog releases no job's pin: it cannot tell a killed prolog's from one on its way.
  lines_.clear();
  Prolog(Job(93), kNow + 20);
  EXPECT_EQ(Holders(digest_), (std::vector<std::string>{"job-90", "job-92"}));
  EXPECT_FALSE(Logged("was still pinned"));
}

TEST_F(NodeSide, EpilogWithoutKeepAliveRemovesTheWarmDirectoryAndUnpinsEverything) {
  Prolog(Job(11, "img", "warm-11"));
  WriteFile(Warm("warm-11") + "/data", "x");
  Epilog(Job(11, "img", "warm-11", 0));
  EXPECT_FALSE(Exists(Warm("warm-11")));
  EXPECT_FALSE(Exists(Warm("warm-11") + ".state"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{});
}

TEST_F(NodeSide, SweepRemovesExpiredWarmDirectoriesOnTimeAndUnpinsTheirImages) {
  Prolog(Job(12, "img", "warm-12", 300));
  WriteFile(Warm("warm-12") + "/data", "x");
  Epilog(Job(12, "img", "warm-12", 300));

  Prolog(Job(13), kNow + 299);  // a second before the deadline: still warm
  EXPECT_TRUE(Exists(Warm("warm-12") + "/data"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"warm-12"});

  Epilog(Job(13), kNow + 300);
  EXPECT_FALSE(Exists(Warm("warm-12")));
  EXPECT_FALSE(Exists(Warm("warm-12") + ".state"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{});
  EXPECT_TRUE(Logged("warm directory warm-12 expired: removed, image unpinned"));
}

TEST_F(NodeSide, SweepNeverRemovesTheDirectoryOfTheJobStartingNorOneInUse) {
  Prolog(Job(14, "img", "warm-14", 10));
  Epilog(Job(14, "img", "warm-14", 10));
  Prolog(Job(15, "", "warm-15", 10));  // in use, no deadline
  // Expired, but the starting job reuses it: kept.
  const Prepared p = Prolog(Job(16, "img", "warm-14"), kNow + 1000);
  EXPECT_EQ(p.error, "");
  EXPECT_TRUE(Exists(Warm("warm-14")));
  EXPECT_TRUE(Exists(Warm("warm-15")));
}

TEST_F(NodeSide, APoolSlurmctldEndedEarlyGoesAtTheNextPrologNotAtItsDeadline) {
  Prolog(Job(30, "img", "warm-30", 3600));
  WriteFile(Warm("warm-30") + "/data", "x");
  Epilog(Job(30, "img", "warm-30", 3600));
  Prolog(Job(31, "", "warm-31", 3600));
  Epilog(Job(31, "", "warm-31", 3600));

  // A job that took the nodes in prefer mode: slurmctld names the pools it ended.
  JobFacts taker = Job(32);
  taker.warm_ended = {"warm-30"};
  Prolog(taker, kNow + 60);
  EXPECT_FALSE(Exists(Warm("warm-30")));
  EXPECT_FALSE(Exists(Warm("warm-30") + ".state"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{});
  EXPECT_TRUE(Logged("warm directory warm-30 ended early in slurmctld: removed, image unpinned"));
  EXPECT_TRUE(Exists(Warm("warm-31"))) << "a pool slurmctld did not name stays to its deadline";
}

TEST_F(NodeSide, AnEndedPoolThatAJobStillUsesIsKept) {
  Prolog(Job(33, "", "warm-33", 60));  // in use
  JobFacts other = Job(34);
  other.warm_ended = {"warm-33"};
  Prolog(other);
  Epilog(other);
  EXPECT_TRUE(Exists(Warm("warm-33")));
}

// A store that sends just fast enough never trips the stall limit: ImageFetchTimeout ends the
// prolog's fetch, and the job fails the way it does for a missing image (its tasks get the
// error), with nothing left in the cache.
TEST_F(NodeSide, AnImageNotCachedWithinImageFetchTimeoutFailsTheJobAndLeavesNothing) {
  const std::string big = store_.put("big", Bytes(2 << 20, 3));  // about 100 s at 20 KiB/s
  HttpStore server(store_.dir(), tmp_.path() + "/served.log");
  ASSERT_NE(server.port(), 0) << "the test HTTP server did not start";
  config_ = testing::must_parse(
      std::string(testing::kFamiliesOnlyConf) + "ImageStore=" + server.url("trickle") +
      "\nImageCacheDir=" + tmp_.path() + "/%n/images\nImageFetchTimeout=2\n");
  const auto start = std::chrono::steady_clock::now();
  const Prepared p = Prolog(Job(50, "big"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30))
      << "the prolog waited on the store past its limit";
  EXPECT_NE(p.error.find("image big: fetching " + server.url("trickle") + "/big failed: "),
            std::string::npos)
      << p.error;
  EXPECT_TRUE(p.error.ends_with("; not cached within ImageFetchTimeout (2 s)")) << p.error;
  EXPECT_EQ(p.image_path, "");
  EXPECT_TRUE(Logged("prolog: job 50: image big: fetching "));
  EXPECT_TRUE(Logged("; not cached within ImageFetchTimeout (2 s)"));
  EXPECT_EQ(List(Root() + "/images/sha256"), std::vector<std::string>{}) << "a partial image";
  EXPECT_EQ(Holders(big), std::vector<std::string>{});
}

// Under the warm lock the sweep only moves an expired directory into the trash; unpinning its
// image (which waits while another job fetches that image) and removing its files (a user's
// million files) come after the lock, so they hold up no other prolog or epilog of the node.
TEST_F(NodeSide, TheSweepWaitsForNothingUnderTheWarmLock) {
  Prolog(Job(40, "img", "warm-40", 300));
  WriteFile(Warm("warm-40") + "/data", "x");
  Epilog(Job(40, "img", "warm-40", 300));
  ASSERT_EQ(Holders(digest_), std::vector<std::string>{"warm-40"});
  // Another job fetching the image holds its lock.
  Result<imagecache::fs::FileLock> taken =
      imagecache::fs::FileLock::acquire(Root() + "/images/locks/" + digest_ + ".lock", 10'000);
  ASSERT_TRUE(taken) << taken.error().to_string();
  std::optional<imagecache::fs::FileLock> image_lock(std::move(taken).value());
  std::thread epilog([&] { Epilog(Job(41), kNow + 300); });
  // While that epilog waits for the image's lock: the directory has left warm/, its files are
  // still in the trash (not removed yet) and the warm lock is free.
  const bool lock_free_meanwhile = PollFor(std::chrono::seconds(20), [&] {
    return !Exists(Warm("warm-40")) && TrashHolds("data") && WarmLockFree();
  });
  image_lock.reset();
  epilog.join();
  EXPECT_TRUE(lock_free_meanwhile)
      << "the warm lock was held while removing the directory or waiting for the image's lock";
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{});
  EXPECT_TRUE(Logged("warm directory warm-40 expired: removed, image unpinned"));
  EXPECT_EQ(List(Trash()), std::vector<std::string>{});
  EXPECT_FALSE(Exists(Warm("warm-40") + ".state"));
}

// An epilog that could not take the warm lock (a hook stuck on it) cannot mark the warm
// directory as ended; the outcome it removes was the only record that the job runs, so the next
// hook's sweep takes the directory and the pool's pin rather than leave them for good.
TEST_F(NodeSide, ADirectoryWhoseEpilogGaveUpOnTheWarmLockGoesAtTheNextSweep) {
  Prolog(Job(70, "img", "warm-70", 300));
  Prolog(Job(71, "", "warm-71", 300));  // runs on: its directory stays
  {
    Result<imagecache::fs::FileLock> stuck =
        imagecache::fs::FileLock::acquire(Root() + "/warm/.lock", 10'000);
    ASSERT_TRUE(stuck) << stuck.error().to_string();
    job_epilog(config_, Job(70, "img", "warm-70", 300), kNow, log_, std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(Logged("epilog: job 70: "));
  EXPECT_TRUE(
      Logged("; warm directory warm-70 not released: while still in use by this job, the "
             "next hook's sweep takes it"));
  EXPECT_EQ(State("warm-70"), "inuse 70 " + digest_ + "\n");
  EXPECT_FALSE(Exists(Root() + "/jobs/70"));

  Prolog(Job(72), kNow + 1);
  EXPECT_FALSE(Exists(Warm("warm-70")));
  EXPECT_FALSE(Exists(Warm("warm-70") + ".state"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{});
  EXPECT_TRUE(
      Logged("warm directory warm-70 left in use by job 70, which no longer runs on this "
             "node (its end was never recorded): removed, image unpinned"));
  EXPECT_EQ(State("warm-71"), "inuse 71 \n");
}

// A reboot ends every job on the node without an epilog. The first hook after it forgets their
// outcomes and unpins their pins before it pins anything: a job requeued onto the node under
// the same id keeps the pin its own prolog takes, and its warm directory.
TEST_F(NodeSide, AfterARebootTheJobsItEndedLoseTheirOutcomesAndPins) {
  if (ThisBoot().empty()) GTEST_SKIP() << "no /proc/sys/kernel/random/boot_id here";
  Prolog(Job(60, "img", "warm-60", 300));
  Prolog(Job(61, "img", "warm-61", 300));
  ASSERT_EQ(ReadFile(Root() + "/jobs/.boot"), ThisBoot() + "\n");
  Reboot({60, 61});

  const Prepared requeued = Prolog(Job(61, "img", "warm-61", 300), kNow + 60);
  EXPECT_EQ(requeued.error, "");
  EXPECT_EQ(requeued.warm_dir, Warm("warm-61"));
  EXPECT_TRUE(
      Logged("prolog: the node rebooted: forgot 2 job(s) that ended with the earlier boot"));
  EXPECT_FALSE(Exists(Root() + "/jobs/60"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-61"});
  EXPECT_FALSE(Exists(Warm("warm-60")));
  EXPECT_TRUE(
      Logged("warm directory warm-60 left in use by job 60, which no longer runs on this "
             "node (its end was never recorded): removed, image unpinned"));
  EXPECT_EQ(State("warm-61"), "inuse 61 " + digest_ + "\n");
  EXPECT_EQ(ReadFile(Root() + "/jobs/.boot"), ThisBoot() + "\n");
}

// A slurmd in a container that restarts keeps the host's boot id, but PID 1 is a new one: the
// jobs the restart ended are forgotten as after a reboot.
TEST_F(NodeSide, AContainerRestartIsAReboot) {
  if (ThisBoot().find('+') == std::string::npos) GTEST_SKIP() << "no boot id or PID 1 here";
  Prolog(Job(70, "img", "warm-70", 300));
  Reboot({70}, ThisBoot() + "9");  // the same boot id, another PID 1
  Prolog(Job(71), kNow + 10);
  EXPECT_TRUE(
      Logged("prolog: the node rebooted: forgot 1 job(s) that ended with the earlier boot"));
  EXPECT_FALSE(Exists(Root() + "/jobs/70"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{});
  EXPECT_EQ(ReadFile(Root() + "/jobs/.boot"), ThisBoot() + "\n");
}

// Outcomes and a mark that name the boot id alone (shareq before PID 1's start counted) are of
// this boot when the id is this boot's: an upgrade forgets no job that may still run.
TEST_F(NodeSide, MarksOfTheBootIdAloneForgetNothingOfThisBoot) {
  if (ThisBoot().find('+') == std::string::npos) GTEST_SKIP() << "no boot id or PID 1 here";
  Prolog(Job(72, "img", "warm-72", 300));
  Reboot({72}, KernelBootId());
  Prolog(Job(73), kNow + 10);
  EXPECT_FALSE(Logged("rebooted"));
  EXPECT_TRUE(Exists(Root() + "/jobs/72"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-72"});
  EXPECT_EQ(State("warm-72"), "inuse 72 " + digest_ + "\n");
  EXPECT_EQ(ReadFile(Root() + "/jobs/.boot"), ThisBoot() + "\n");  // in this boot's words now
}

// A prolog that could not take the warm lock after a reboot (a hook stuck on it) leaves the
// check to a later hook; its own outcome, written in this boot before the mark, is kept then.
TEST_F(NodeSide, AnOutcomeOfThisBootWrittenBeforeTheCheckIsKept) {
  if (ThisBoot().empty()) GTEST_SKIP() << "no /proc/sys/kernel/random/boot_id here";
  Prolog(Job(64, "img", "warm-64", 300));
  Reboot({64});
  {
    Result<imagecache::fs::FileLock> stuck =
        imagecache::fs::FileLock::acquire(Root() + "/warm/.lock", 10'000);
    ASSERT_TRUE(stuck) << stuck.error().to_string();
    job_prolog(config_, Job(65, "img"), kNow, log_, std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(Logged("prolog: jobs of an earlier boot not looked for: "));
  ASSERT_TRUE(Exists(Root() + "/jobs/65"));

  Epilog(Job(66));
  EXPECT_TRUE(
      Logged("epilog: the node rebooted: forgot 1 job(s) that ended with the earlier boot"));
  EXPECT_FALSE(Exists(Root() + "/jobs/64"));
  EXPECT_TRUE(Exists(Root() + "/jobs/65")) << "a job of this boot lost its outcome";
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-65"});
  EXPECT_FALSE(Exists(Warm("warm-64")));
}

// A node whose outcomes carry no boot mark (shareq before the mark) forgets nothing: its jobs
// may still be running.
TEST_F(NodeSide, WithoutABootMarkNoOutcomeIsForgotten) {
  if (ThisBoot().empty()) GTEST_SKIP() << "no /proc/sys/kernel/random/boot_id here";
  Prolog(Job(62, "img", "warm-62", 300));
  ASSERT_EQ(::unlink((Root() + "/jobs/.boot").c_str()), 0);

  Epilog(Job(63));
  EXPECT_TRUE(Exists(Root() + "/jobs/62"));
  EXPECT_EQ(Holders(digest_), std::vector<std::string>{"job-62"});
  EXPECT_EQ(State("warm-62"), "inuse 62 " + digest_ + "\n");
  EXPECT_FALSE(Logged("rebooted"));
  EXPECT_EQ(ReadFile(Root() + "/jobs/.boot"), ThisBoot() + "\n");
}

TEST_F(NodeSide, WhatAKilledHookLeftInTheTrashIsRemovedByTheNextOne) {
  Prolog(Job(42));
  fs::create_directories(Trash() + "/warm-7.999.1.0/sub");
  WriteFile(Trash() + "/warm-7.999.1.0/sub/file", "x");
  Epilog(Job(42));
  EXPECT_EQ(List(Trash()), std::vector<std::string>{});
}

TEST(SplitWarmNames, KeepsOnlyWarmDirectoryNames) {
  EXPECT_EQ(split_warm_names("warm-1,warm-22"), (std::vector<std::string>{"warm-1", "warm-22"}));
  EXPECT_EQ(split_warm_names(""), std::vector<std::string>{});
  EXPECT_EQ(split_warm_names("warm-1,,../x,warm-,warm-3"),
            (std::vector<std::string>{"warm-1", "warm-3"}));
}

TEST_F(NodeSide, SweepNeverRemovesADirectoryNotNamedWarmN) {
  Prolog(Job(17));
  for (const std::string name : {"warm-x", "cache", "warm-", "warm-1/../x"}) {
    fs::create_directories(Root() + "/warm/" + name);
    WriteFile(Root() + "/warm/" + name + "/keep", "keep");
    WriteFile(Root() + "/warm/" + name + ".state", "until 0\n");
  }
  Epilog(Job(17), kNow + 1'000'000);
  for (const std::string name : {"warm-x", "cache", "warm-", "warm-1/../x"}) {
    EXPECT_EQ(ReadFile(Root() + "/warm/" + name + "/keep"), "keep") << name;
  }
}

TEST_F(NodeSide, AnExpiredWarmDirectoryIsRemovedWithoutFollowingTheUsersLinks) {
  const std::string outside = tmp_.path() + "/outside";
  fs::create_directory(outside);
  WriteFile(outside + "/precious", "keep");
  Prolog(Job(18, "", "warm-18", 5));
  fs::create_directory_symlink(outside, Warm("warm-18") + "/link");
  Epilog(Job(18, "", "warm-18", 5));
  Epilog(Job(19), kNow + 10);
  EXPECT_FALSE(Exists(Warm("warm-18")));
  EXPECT_EQ(ReadFile(outside + "/precious"), "keep");
}

TEST_F(NodeSide, AWarmDirectoryOwnedBySomeoneElseIsNotHandedToTheJob) {
  Prolog(Job(20, "", "warm-20", 60));
  ASSERT_EQ(::chown(Warm("warm-20").c_str(), kUid + 1, kGid), 0);
  const Prepared p = Prolog(Job(21, "", "warm-20"));
  EXPECT_NE(p.error.find("warm directory warm-20 exists but is not the job user's directory"),
            std::string::npos)
      << p.error;
  EXPECT_EQ(p.warm_dir, "");
}

TEST_F(NodeSide, RefusesAWarmRootThatRootDoesNotOwn) {
  Prolog(Job(22));
  ASSERT_EQ(::chown((Root() + "/warm").c_str(), kUid, kGid), 0);
  job_prolog(config_, Job(23, "img", "warm-23"), kNow, log_);
  EXPECT_FALSE(read_prepared(config_, "n1", 23).has_value());
  EXPECT_FALSE(Exists(Warm("warm-23")));
  EXPECT_TRUE(Logged(Root() + "/warm is not a root-owned directory; refusing to use it"));
}

TEST_F(NodeSide, NothingPreparedForAJobThePrologNeverSaw) {
  EXPECT_FALSE(read_prepared(config_, "n1", 999).has_value());
}

}  // namespace
}  // namespace shareq::spank_plugin::node
