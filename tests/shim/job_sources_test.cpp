// One job through both record sources. shareq reads a Slurm job in two places: slurmctld's
// job_record_t in the controller plugins (plugins/ctld/slurm_jobs.cpp: running_record,
// pending_record, and the running-jobs registry behind running_snapshot) and libslurm's
// slurm_job_info_t in the tool (tools/slurm_job_info.cpp: job_info_of, then
// tools/cluster_state.cpp: job_record_of). Both must hand policy/job_record.hpp the same
// JobRecord, or `shareq why` explains decisions the plugins did not make.
//
// Each case builds one job as slurmctld holds it: job_submit/shareq's own admission
// (shareq_admit) writes its account and AdminComment tag, then its details, partitions (a
// part_ptr_list behind Slurm's list API for a multi-partition request), allocated nodes (node
// list and bitmap), TRES request and allocation (counts and the formatted strings). The same
// record then goes through a model of what slurmctld's pack_job() (src/slurmctld/job_mgr.c,
// 22.05) packs for it and libslurm unpacks into slurm_job_info_t. Both translations run, and the
// JobRecords and the policy views (as_pending / as_running, and for running jobs the registry's
// snapshot) are compared field by field, and against the values the job must get.
#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "cluster_state.hpp"
#include "fake_xmalloc.h"
#include "fake_ctld_log.hpp"
#include "policy/job_record.hpp"
#include "slurm_job_info.hpp"
#include "slurm_jobs.hpp"
#include "slurmctld_headers.hpp"
#include "submit_shim.h"
#include "submit_shim_internal.hpp"
#include "two_family_conf.h"

namespace policy = shareq::policy;

// ---- Slurm's functions that slurm_jobs.cpp calls, and the controller view's log -------------

namespace {

// The TRES table: Slurm's eight fixed TRES, then gres/gpu (AccountingStorageTRES=gres/gpu).
constexpr int kGpuPos = TRES_ARRAY_TOTAL_CNT;
constexpr int kTresCount = kGpuPos + 1;
const char* const kTresNames[kTresCount] = {"cpu",     "mem",  "energy", "node",    "billing",
                                            "fs/disk", "vmem", "pages",  "gres/gpu"};

}  // namespace

struct xlist {
  std::vector<void*> items;
};
struct listIterator {
  xlist* list;
  size_t next;
};

extern "C" {

int assoc_mgr_find_tres_pos(slurmdb_tres_rec_t* rec, bool locked) {
  (void)locked;
  const bool gpu = rec != nullptr && rec->type != nullptr && rec->name != nullptr &&
                   std::string(rec->type) == "gres" && std::string(rec->name) == "gpu";
  return gpu ? kGpuPos : -1;
}

list_itr_t* list_iterator_create(list_t* l) { return new listIterator{l, 0}; }
void* list_next(list_itr_t* i) {
  return i->next < i->list->items.size() ? i->list->items[i->next++] : nullptr;
}
void list_iterator_destroy(list_itr_t* i) { delete i; }

}  // extern "C"

namespace {

// ---- the cluster -----------------------------------------------------------------------------

constexpr const char* kConf = SHAREQ_TWO_FAMILY_CONF;

constexpr time_t kSubmit = 1'700'000'000;
constexpr time_t kStart = 1'700'000'600;

// Partitions: p4 (32-CPU nodes n1..n4), p5 (64-CPU GPU nodes g1..g4, 8 GPUs each), debug.
struct Partition {
  const char* name;
  uint32_t max_cpu_cnt;
};
constexpr Partition kPartitions[] = {{"p4", 32}, {"p5", 64}, {"debug", 32}};
const char* const kNodeNames[] = {"n1", "n2", "n3", "n4", "g1", "g2", "g3", "g4"};

class Cluster {
 public:
  Cluster() {
    char* errors = nullptr;
    conf_ = shareq_conf_parse(kConf, "shareq.conf", &errors);
    if (conf_ == nullptr) fail_msg("bad shareq.conf: %s", errors != nullptr ? errors : "?");
    config_ = std::make_shared<const shareq::ctld::LoadedConfig>(
        shareq::ctld::LoadedConfig{*conf_, policy::Policy::compile(conf_->config), 1});
    for (const Partition& p : kPartitions) {
      auto record = std::make_unique<part_record_t>();
      record->name = const_cast<char*>(p.name);
      record->max_cpu_cnt = p.max_cpu_cnt;
      record->max_core_cnt = p.max_cpu_cnt;
      parts_.push_back(std::move(record));
    }
  }
  ~Cluster() { shareq_conf_free(conf_); }
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  [[nodiscard]] const shareq_conf_t* conf() const { return conf_; }
  [[nodiscard]] const std::shared_ptr<const shareq::ctld::LoadedConfig>& config() const {
    return config_;
  }
  [[nodiscard]] const policy::Policy& policy() const { return config_->policy; }
  [[nodiscard]] part_record_t* part(const std::string& name) const {
    for (const auto& p : parts_) {
      if (name == p->name) return p.get();
    }
    fail_msg("no partition %s", name.c_str());
    return nullptr;
  }

 private:
  shareq_conf_t* conf_ = nullptr;
  std::shared_ptr<const shareq::ctld::LoadedConfig> config_;
  std::vector<std::unique_ptr<part_record_t>> parts_;
};

// ---- one job as slurmctld holds it -------------------------------------------------------------

struct JobSpec {
  uint32_t id = 0;
  uint32_t state = JOB_PENDING;         // JOB_PENDING, JOB_RUNNING or JOB_SUSPENDED
  const char* account = nullptr;        // -A as given (nullptr: the user's default, "prodexp1")
  std::vector<std::string> flags;       // the forwarded flags ("SHAREQ_SHARE=ProdExp2", ...)
  std::vector<std::string> partitions;  // -p, in the user's order
  std::string runs_in;                  // started jobs: the partition it was started in
  uint32_t min_nodes = 1;               // -N
  uint32_t num_tasks = 1;               // -n
  uint64_t gpus_per_node = 0;           // --gres=gpu:N
  std::vector<int> nodes;               // started jobs: indexes into kNodeNames
  time_t expected_start = 0;            // pending: backfill's estimate (0: none yet)
  std::string warm_word;                // a word warm_pools.cpp appends to the AdminComment
  uint16_t restarts = 0;                // Slurm's restart_cnt (requeues)
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

// assoc_mgr_make_tres_str_from_array(..., TRES_STR_CONVERT_UNITS): "cpu=2,mem=8G,node=1,..."
std::string tres_fmt(const uint64_t* counts) {
  std::string out;
  for (int i = 0; i < kTresCount; ++i) {
    if (counts[i] == 0) continue;
    if (!out.empty()) out += ',';
    out.append(kTresNames[i]).append("=");
    if (i != TRES_ARRAY_MEM) {
      out.append(std::to_string(counts[i]));
    } else if (counts[i] % 1024 == 0) {  // megabytes
      out.append(std::to_string(counts[i] / 1024)).append("G");
    } else {
      out.append(std::to_string(counts[i])).append("M");
    }
  }
  return out;
}

class SlurmJob {
 public:
  SlurmJob(const Cluster& cluster, const JobSpec& spec) : spec_(spec) {
    job_.job_id = spec.id;
    job_.user_id = 1000;
    job_.job_state = spec.state;
    job_.restart_cnt = spec.restarts;
    job_.priority = 1'000'000 + spec.id;  // what priority/shareq set; the policy ignores it
    job_.details = &details_;
    details_.submit_time = kSubmit + spec.id;
    details_.min_nodes = spec.min_nodes;
    details_.max_nodes = 0;
    details_.num_tasks = spec.num_tasks;
    details_.min_cpus = spec.num_tasks;
    details_.cpus_per_task = 1;
    admit(cluster);
    place(cluster);
    set_tres();
  }
  ~SlurmJob() {
    slurm_xfree(reinterpret_cast<void**>(&job_.account));
    slurm_xfree(reinterpret_cast<void**>(&job_.admin_comment));
    fake_env_free(job_.spank_job_env, job_.spank_job_env_size);
  }
  SlurmJob(const SlurmJob&) = delete;
  SlurmJob& operator=(const SlurmJob&) = delete;

  job_record_t* record() { return &job_; }

 private:
  // job_submit/shareq at submission: the account becomes the share, the AdminComment its tag.
  void admit(const Cluster& cluster) {
    std::vector<const char*> env;
    for (const std::string& flag : spec_.flags) env.push_back(flag.c_str());
    env.push_back(nullptr);
    job_.spank_job_env = fake_env(env.data());
    job_.spank_job_env_size = static_cast<uint32_t>(spec_.flags.size());
    job_.account = xstrdup(spec_.account != nullptr ? spec_.account : "prodexp1");
    const std::string partitions = joined(spec_.partitions);
    shareq_admission_t admission = {job_.account, partitions.c_str(), "p4", false, true, nullptr};
    shareq_job_fields_t fields = {&job_.account, &job_.admin_comment, &job_.spank_job_env,
                                  &job_.spank_job_env_size, nullptr};
    char* err = nullptr;
    const int rc = shareq_admit(cluster.conf(), &admission, &fields, &err);
    if (rc != SLURM_SUCCESS) fail_msg("job %u refused: %s", spec_.id, err != nullptr ? err : "?");
    if (!spec_.warm_word.empty()) {
      // As warm_pools.cpp's append_admin_word: one more word after the tag.
      const std::string text = std::string(job_.admin_comment) + " " + spec_.warm_word;
      slurm_xfree(reinterpret_cast<void**>(&job_.admin_comment));
      job_.admin_comment = xstrdup(text.c_str());
    }
  }

  // Partitions (part_ptr, part_ptr_list, the partition string) and, once started, the nodes.
  void place(const Cluster& cluster) {
    for (const std::string& name : spec_.partitions) parts_.items.push_back(cluster.part(name));
    if (spec_.partitions.size() > 1) job_.part_ptr_list = &parts_;
    const bool started = spec_.state != JOB_PENDING;
    job_.part_ptr = cluster.part(started ? spec_.runs_in : spec_.partitions.front());
    // Pending: as requested; started (_rebuild_part_name_list): the one it runs in first.
    std::vector<std::string> names = spec_.partitions;
    if (started) {
      names.erase(std::remove(names.begin(), names.end(), spec_.runs_in), names.end());
      names.insert(names.begin(), spec_.runs_in);
    }
    partition_ = joined(names);
    job_.partition = partition_.data();
    if (!started) {
      job_.start_time = spec_.expected_start;
      return;
    }
    std::vector<std::string> hosts;
    for (int i : spec_.nodes) {
      hosts.emplace_back(kNodeNames[i]);
      bits_ |= bitstr_t{1} << i;  // a fake bitmap: bit i of the first word is node i
    }
    nodes_ = joined(hosts);
    job_.nodes = nodes_.data();
    job_.node_bitmap = &bits_;
    job_.node_cnt = static_cast<uint32_t>(spec_.nodes.size());
    job_.total_nodes = job_.node_cnt;  // select_nodes(): total_nodes = node_cnt
    job_.start_time = kStart + spec_.id;
  }

  // job_set_req_tres(), and for a started job job_set_alloc_tres(); gres counts per node times
  // the node count, as gres_ctld_set_job_tres_cnt.
  void set_tres() {
    const uint64_t nodes = job_.node_cnt != 0 ? job_.node_cnt : details_.min_nodes;
    req_[TRES_ARRAY_CPU] = details_.min_cpus;
    req_[TRES_ARRAY_MEM] = 4096ULL * details_.min_cpus;
    req_[TRES_ARRAY_NODE] = nodes;
    req_[TRES_ARRAY_BILLING] = details_.min_cpus;
    req_[kGpuPos] = spec_.gpus_per_node * nodes;
    job_.tres_req_cnt = req_;
    req_fmt_ = tres_fmt(req_);
    job_.tres_fmt_req_str = req_fmt_.data();
    if (spec_.state == JOB_PENDING) return;
    std::copy(std::begin(req_), std::end(req_), std::begin(alloc_));
    job_.tres_alloc_cnt = alloc_;
    alloc_fmt_ = tres_fmt(alloc_);
    job_.tres_fmt_alloc_str = alloc_fmt_.data();
  }

  JobSpec spec_;
  job_record_t job_{};
  job_details_t details_{};
  xlist parts_;
  std::string partition_;
  std::string nodes_;
  bitstr_t bits_ = 0;
  uint64_t req_[kTresCount] = {};
  uint64_t alloc_[kTresCount] = {};
  std::string req_fmt_;
  std::string alloc_fmt_;
};

// ---- the same job as libslurm returns it -----------------------------------------------------

// What slurm_load_jobs() returns for `job`: the fields shareq reads, as 22.05's pack_job() and
// _pack_default_job_details() (src/slurmctld/job_mgr.c) pack them and
// _unpack_job_info_members() unpacks them. Strings point into the job record.
slurm_job_info_t libslurm_view(const job_record_t& job) {
  slurm_job_info_t info{};
  const job_details_t* details = job.details;
  info.job_id = job.job_id;
  info.user_id = job.user_id;
  info.job_state = job.job_state;
  info.priority = job.priority;
  info.submit_time = details != nullptr ? details->submit_time : 0;
  const time_t now = time(nullptr);
  const time_t begin = details != nullptr ? details->begin_time : 0;
  if ((job.job_state & JOB_STATE_BASE) > JOB_PENDING) {
    info.start_time = job.start_time;  // the actual start, in the past
  } else if (job.start_time != 0) {
    info.start_time = std::max(job.start_time, now);  // expected, never in the past
  } else if (begin > now) {
    info.start_time = begin;
  }
  info.eligible_time = begin;  // packed as the "earliest possible begin time"
  info.restart_cnt = job.restart_cnt;
  info.nodes = job.nodes;
  const bool pending = (job.job_state & JOB_STATE_BASE) == JOB_PENDING;
  info.partition = !pending && job.part_ptr != nullptr ? job.part_ptr->name : job.partition;
  info.account = job.account;
  info.admin_comment = job.admin_comment;
  info.system_comment = job.system_comment;
  // num_nodes: the first that applies of the allocation, the state file's guess, the task
  // count over the nodes' CPUs (no --ntasks-per-node, --cpus-per-task or --ntasks-per-core here).
  if ((job.job_state & JOB_COMPLETING) != 0 && job.node_cnt != 0) {
    info.num_nodes = job.node_cnt;
  } else if (job.total_nodes != 0) {
    info.num_nodes = job.total_nodes;
  } else if (job.node_cnt_wag != 0) {
    info.num_nodes = job.node_cnt_wag;
  } else if (details != nullptr) {
    const uint32_t max_cpu_cnt =
        job.part_ptr != nullptr && job.part_ptr->max_cpu_cnt != 0 ? job.part_ptr->max_cpu_cnt : 1;
    info.num_nodes =
        std::max((details->num_tasks + max_cpu_cnt - 1) / max_cpu_cnt, details->min_nodes);
  }
  info.tres_req_str = job.tres_fmt_req_str;
  info.tres_alloc_str = job.tres_fmt_alloc_str;
  return info;
}

// ---- comparing -------------------------------------------------------------------------------

std::string text(const std::string& s) { return "\"" + s + "\""; }
std::string text(const std::vector<std::string>& v) { return "[" + joined(v) + "]"; }
std::string text(const std::vector<policy::FamilyRequest>& v) {
  std::string out;
  for (const auto& r : v) {
    out += (out.empty() ? "" : ",") + std::to_string(r.family) + ":" + std::to_string(r.amount);
  }
  return "[" + out + "]";
}
std::string text(const std::vector<policy::LaterRequest>& v) {
  std::string out;
  for (const auto& r : v) {
    out += (out.empty() ? "" : ",") + std::to_string(r.family) + ":" + std::to_string(r.amount) +
           "@" + std::to_string(r.opens_at);
  }
  return "[" + out + "]";
}
std::string text(const std::optional<uint64_t>& v) {
  return v ? std::to_string(*v) : std::string("none");
}
std::string text(const std::optional<policy::FamilyId>& v) {
  return v ? std::to_string(*v) : std::string("none");
}
template <typename T>
std::string text(const T& v) {
  return std::to_string(v);
}

// Collects every field on which the two sources disagree, then fails naming them all.
class Comparison {
 public:
  explicit Comparison(std::string what) : what_(std::move(what)) {}
  template <typename T>
  void field(const char* name, const T& ctld, const T& tool) {
    if (ctld == tool) return;
    diffs_ += "\n  " + std::string(name) + ": slurmctld " + text(ctld) + ", tool " + text(tool);
  }
  void check() const {
    if (!diffs_.empty()) {
      fail_msg("%s: the two record sources disagree:%s", what_.c_str(), diffs_.c_str());
    }
  }

 private:
  std::string what_;
  std::string diffs_;
};

void compare_records(const policy::JobRecord& ctld, const policy::JobRecord& tool) {
  Comparison c("job " + std::to_string(ctld.id) + "'s JobRecord");
  c.field("id", ctld.id, tool.id);
  c.field("account", ctld.account, tool.account);
  c.field("partitions", ctld.partitions, tool.partitions);
  c.field("nodes", ctld.nodes, tool.nodes);
  c.field("gpus", ctld.gpus, tool.gpus);
  c.field("admin_comment", ctld.admin_comment, tool.admin_comment);
  c.field("submit_time", ctld.submit_time, tool.submit_time);
  c.field("start_time", ctld.start_time, tool.start_time);
  c.field("eligible_time", ctld.eligible_time, tool.eligible_time);
  c.field("restarts", ctld.restarts, tool.restarts);
  c.check();
}

void compare_running(uint32_t id, const std::optional<policy::RunningJob>& ctld,
                     const std::optional<policy::RunningJob>& tool, const char* source) {
  if (ctld.has_value() != tool.has_value()) {
    fail_msg("job %u: as_running: %s %s, tool %s", id, source, ctld ? "governed" : "not governed",
             tool ? "governed" : "not governed");
  }
  if (!ctld) return;
  Comparison c("job " + std::to_string(id) + "'s RunningJob (" + source + ")");
  c.field("id", ctld->id, tool->id);
  c.field("share", ctld->share, tool->share);
  c.field("family", ctld->family, tool->family);
  c.field("amount", ctld->amount, tool->amount);
  c.field("priority", ctld->priority, tool->priority);
  c.field("start_time", ctld->start_time, tool->start_time);
  c.check();
}

void compare_pending(uint32_t id, const std::optional<policy::PendingJob>& ctld,
                     const std::optional<policy::PendingJob>& tool) {
  if (ctld.has_value() != tool.has_value()) {
    fail_msg("job %u: as_pending: slurmctld %s, tool %s", id, ctld ? "governed" : "not governed",
             tool ? "governed" : "not governed");
  }
  if (!ctld) return;
  Comparison c("job " + std::to_string(id) + "'s PendingJob");
  c.field("id", ctld->id, tool->id);
  c.field("share", ctld->share, tool->share);
  c.field("priority", ctld->priority, tool->priority);
  c.field("submit_time", ctld->submit_time, tool->submit_time);
  c.field("requests", ctld->requests, tool->requests);
  c.field("eligible", ctld->eligible, tool->eligible);
  c.field("reserved_pool", ctld->reserved_pool, tool->reserved_pool);
  c.field("awaiting_victims", ctld->awaiting_victims, tool->awaiting_victims);
  c.field("victims_running", ctld->victims_running, tool->victims_running);
  c.field("home", ctld->home, tool->home);
  c.field("later", ctld->later, tool->later);
  c.check();
}

// The instant both sources' views are taken at.
constexpr policy::Time kNow = 2'000'000'000;

// Both sources' records and views of one job.
struct Views {
  policy::JobRecord ctld;
  policy::JobRecord tool;
  std::optional<policy::RunningJob> running;  // started jobs (slurmctld's, equal to the tool's)
  std::optional<policy::PendingJob> pending;  // pending jobs (likewise)
};

// Runs both translations of `job` (and, for a started job, the registry's), compares them field
// by field, and returns them for the case's own expectations.
Views translate_both(const Cluster& cluster, SlurmJob& slurm) {
  job_record_t* job = slurm.record();
  const bool pending = (job->job_state & JOB_STATE_BASE) == JOB_PENDING;
  const slurm_job_info_t info = libslurm_view(*job);
  const shareq::tool::JobInfo tool_info = shareq::tool::job_info_of(info);
  Views v;
  v.ctld = pending ? shareq::ctld::pending_record(job) : shareq::ctld::running_record(job);
  v.tool = shareq::tool::job_record_of(tool_info);
  compare_records(v.ctld, v.tool);
  const policy::Policy& policy = cluster.policy();
  if (pending) {
    assert_int_equal(static_cast<int>(tool_info.state),
                     static_cast<int>(shareq::tool::JobState::Pending));
    v.pending = policy::as_pending(policy, v.ctld, kNow);
    compare_pending(job->job_id, v.pending, policy::as_pending(policy, v.tool, kNow));
    // slurmctld's own entry point for a pending job says the same.
    compare_pending(job->job_id, v.pending,
                    shareq::ctld::pending_job(*cluster.config(), job, kNow));
    return v;
  }
  assert_true(tool_info.state == shareq::tool::JobState::Running ||
              tool_info.state == shareq::tool::JobState::Suspended);
  v.running = policy::as_running(policy, v.ctld);
  compare_running(job->job_id, v.running, policy::as_running(policy, v.tool), "slurmctld");
  // What the controller decides on: the registry's copy, in the running snapshot.
  shareq::ctld::job_allocated(job);
  const auto snapshot = shareq::ctld::running_snapshot(cluster.config());
  const policy::RunningJob* registered = snapshot->find(job->job_id);
  compare_running(
      job->job_id,
      registered != nullptr ? std::optional<policy::RunningJob>(*registered) : std::nullopt,
      policy::as_running(policy, v.tool), "slurmctld's registry");
  shareq::ctld::job_released(job);
  if (!fake_ctld_lines().empty())
    fail_msg("the controller view logged:\n%s", fake_ctld_lines().c_str());
  return v;
}

policy::ShareId share(const Cluster& cluster, const char* name) {
  const auto id = cluster.policy().share_id(name);
  if (!id) fail_msg("no share %s", name);
  return *id;
}

policy::FamilyId family(const Cluster& cluster, const char* partition) {
  const auto id = cluster.policy().family_of_partition(partition);
  if (!id) fail_msg("no family for %s", partition);
  return *id;
}

// ---- the cases -------------------------------------------------------------------------------

int setup(void** state) {
  *state = new Cluster;
  fake_ctld_lines().clear();
  return 0;
}

int teardown(void** state) {
  delete static_cast<Cluster*>(*state);
  return 0;
}

// A pending GPU job asking for a GPU family, a partition in no family and a node family, in that
// order, with backfill's expected start already set, requeued twice.
void pending_multi_partition_gpu_job(void** state) {
  const Cluster& cluster = *static_cast<Cluster*>(*state);
  JobSpec spec;
  spec.id = 101;
  spec.account = "research";
  spec.flags = {"SHAREQ_SHARE=ProdExp2", "SHAREQ_SHARE_PRIORITY=80", "SHAREQ_IMAGE=llama-train",
                "SHAREQ_KEEP_ALIVE=900"};
  spec.partitions = {"p5", "debug", "p4"};
  spec.min_nodes = 2;
  spec.restarts = 2;  // requeued twice: both sources read the restart count
  spec.num_tasks = 2;
  spec.gpus_per_node = 8;
  spec.expected_start = time(nullptr) + 3600;
  SlurmJob job(cluster, spec);
  assert_string_equal(job.record()->admin_comment,
                      "shareq:share=prodexp2,priority=80,keep_alive=900,image=llama-train");
  const Views v = translate_both(cluster, job);
  assert_true((v.ctld.partitions == std::vector<std::string>{"p5", "debug", "p4"}));
  assert_true(v.pending.has_value());
  assert_int_equal(v.pending->share, share(cluster, "prodexp2"));
  assert_int_equal(v.pending->priority, 80);
  assert_int_equal(v.pending->submit_time, kSubmit + 101);
  // The GPU family counts GPUs, the node family nodes; debug is skipped.
  assert_true(
      (v.pending->requests == std::vector<policy::FamilyRequest>{{family(cluster, "p5"), 16},
                                                                 {family(cluster, "p4"), 2}}));
}

// A running GPU job, started in p5 out of a request for p4 and p5, its AdminComment carrying a
// warm-pool word after the tag.
void running_gpu_job_from_a_multi_partition_request(void** state) {
  const Cluster& cluster = *static_cast<Cluster*>(*state);
  JobSpec spec;
  spec.id = 102;
  spec.state = JOB_RUNNING;
  spec.account = "prodexp2";
  spec.flags = {"SHAREQ_SHARE_PRIORITY=20"};
  spec.partitions = {"p4", "p5"};
  spec.runs_in = "p5";
  spec.min_nodes = 2;
  spec.num_tasks = 16;
  spec.gpus_per_node = 8;
  spec.nodes = {4, 5};  // g1, g2
  spec.warm_word = "shareq-warm-start:wp-3";
  SlurmJob job(cluster, spec);
  assert_string_equal(job.record()->admin_comment,
                      "shareq:share=prodexp2,priority=20,keep_alive=0 shareq-warm-start:wp-3");
  assert_string_equal(job.record()->tres_fmt_alloc_str,
                      "cpu=16,mem=64G,node=2,billing=16,gres/gpu=16");
  const Views v = translate_both(cluster, job);
  assert_true((v.ctld.partitions == std::vector<std::string>{"p5"}));
  assert_true(v.running.has_value());
  assert_int_equal(v.running->share, share(cluster, "prodexp2"));
  assert_int_equal(v.running->family, family(cluster, "p5"));
  assert_int_equal(v.running->amount, 16);
  assert_int_equal(v.running->priority, 20);
  assert_int_equal(v.running->start_time, kStart + 102);
}

// A suspended job in the node family, submitted with -A only (DefaultPriority in its tag).
void suspended_node_job(void** state) {
  const Cluster& cluster = *static_cast<Cluster*>(*state);
  JobSpec spec;
  spec.id = 103;
  spec.state = JOB_SUSPENDED;
  spec.account = "ProdExp1";
  spec.partitions = {"p4"};
  spec.runs_in = "p4";
  spec.min_nodes = 3;
  spec.num_tasks = 96;
  spec.nodes = {0, 1, 2};
  SlurmJob job(cluster, spec);
  const Views v = translate_both(cluster, job);
  // job_submit/shareq keeps the account as given (slurmctld lower-cases it itself, after the
  // plugin); the share comes from the tag.
  assert_string_equal(v.ctld.account.c_str(), "ProdExp1");
  assert_true(v.running.has_value());
  assert_int_equal(v.running->share, share(cluster, "prodexp1"));
  assert_int_equal(v.running->family, family(cluster, "p4"));
  assert_int_equal(v.running->amount, 3);
  assert_int_equal(v.running->priority, 50);
}

// A pending job in the node family whose task count needs more nodes than its -N: slurmctld
// packs num_nodes from the task count (64 tasks over 32-CPU nodes: 2), while its TRES request,
// which the controller counts, says 1.
void pending_job_whose_tasks_need_more_nodes_than_asked(void** state) {
  const Cluster& cluster = *static_cast<Cluster*>(*state);
  JobSpec spec;
  spec.id = 104;
  spec.account = "prodexp1";
  spec.partitions = {"p4"};
  spec.min_nodes = 1;
  spec.num_tasks = 64;
  SlurmJob job(cluster, spec);
  assert_int_equal(libslurm_view(*job.record()).num_nodes, 2);
  const Views v = translate_both(cluster, job);
  assert_true(v.pending.has_value());
  assert_true(
      (v.pending->requests == std::vector<policy::FamilyRequest>{{family(cluster, "p4"), 1}}));
}

// A job in no family: no tag, and neither source lets the policy govern it.
void job_in_no_family(void** state) {
  const Cluster& cluster = *static_cast<Cluster*>(*state);
  JobSpec spec;
  spec.id = 105;
  spec.partitions = {"debug"};
  SlurmJob job(cluster, spec);
  assert_null(job.record()->admin_comment);
  const Views v = translate_both(cluster, job);
  assert_false(v.pending.has_value());
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(pending_multi_partition_gpu_job, setup, teardown),
      cmocka_unit_test_setup_teardown(running_gpu_job_from_a_multi_partition_request, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(suspended_node_job, setup, teardown),
      cmocka_unit_test_setup_teardown(pending_job_whose_tasks_need_more_nodes_than_asked, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(job_in_no_family, setup, teardown),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
