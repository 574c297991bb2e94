// shareq-exporter: Prometheus metrics of shareq. One thread reads slurmctld, slurmdbd and
// shareq.conf once per --min-interval and renders one snapshot; libmicrohttpd's thread answers
// every scrape with that snapshot, so a scrape storm costs Slurm nothing more. The counters are
// saved in --state-dir after each round (temporary file, then rename).
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>
#include <pthread.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "accounting_client.hpp"
#include "cluster_state.hpp"
#include "config_path.hpp"
#include "counter_state_file.hpp"
#include "exporter_options.hpp"
#include "gauges.hpp"
#include "http_server.hpp"
#include "slurm_client.hpp"
#include "snapshot.hpp"
#include "warm_extra.hpp"

namespace shareq::exporter {
namespace {

void log(const std::string& line) { std::cerr << "shareq-exporter: " << line << std::endl; }

int64_t now_s() { return static_cast<int64_t>(std::time(nullptr)); }

class CounterStore {
 public:
  explicit CounterStore(std::string dir) : path_(std::move(dir) + "/counters.state") {}

  // The saved counters; a missing file is a fresh start, a damaged one is set aside (a reset
  // of every counter, which Prometheus's rate() absorbs) and logged.
  [[nodiscard]] CounterState load() const {
    std::ifstream in(path_);
    if (!in) {
      log("no " + path_ + ": counting from now on");
      return {};
    }
    std::stringstream text;
    text << in.rdbuf();
    Result<CounterState> parsed = parse_counter_state(text.str());
    if (parsed) return std::move(parsed).value();
    const std::string aside = path_ + ".bad-" + std::to_string(now_s());
    std::rename(path_.c_str(), aside.c_str());
    log(path_ + ": " + parsed.error().to_string() + "; set aside as " + aside +
        ", counters start again from 0");
    return {};
  }

  // Empty on success, else the reason.
  [[nodiscard]] std::string save(const CounterState& state) const {
    const std::string temp = path_ + ".tmp";
    {
      std::ofstream out(temp, std::ios::trunc);
      out << format_counter_state(state);
      out.flush();
      if (!out) return "cannot write " + temp;
    }
    if (std::rename(temp.c_str(), path_.c_str()) != 0) return "cannot rename " + temp;
    return {};
  }

 private:
  std::string path_;
};

class Exporter {
 public:
  Exporter(ExporterOptions options, CounterState counters)
      : options_(std::move(options)), counters_(std::move(counters)) {}

  std::string snapshot() const {
    const std::scoped_lock lock(mutex_);
    return text_;
  }

  // One round of reads; publishes its snapshot.
  void round(const CounterStore& store) {
    Round result;
    const std::string path = options_.config.value_or(tool::default_config_path());
    ParseResult parsed = load_config_file(path);
    if (!parsed.config) {
      result.error =
          path + ": " +
          (parsed.errors.empty() ? std::string("cannot load") : parsed.errors.front().to_string());
    } else {
      read_slurm(*parsed.config, result);
      if (const std::string saved = store.save(counters_); !saved.empty() && result.error.empty()) {
        result.error = saved;
      }
    }
    if (!result.error.empty() && result.error != last_error_) log(result.error);
    last_error_ = result.error;
    const std::string text = metrics_text(result, counters_);
    const std::scoped_lock lock(mutex_);
    text_ = text;
  }

 private:
  void read_slurm(const Config& config, Round& result) {
    Result<tool::ClusterData> data = tool::load_cluster_data();
    if (data) {
      std::vector<tool::NodeInfo> nodes = data.value().nodes;
      const tool::ClusterState state(config, std::move(data).value());
      const tool::WarmPools pools = tool::collect_pools(nodes);
      result.gauges = gauge_metrics(state, pools, nodes);
      if (cluster_.empty()) {
        if (Result<std::string> name = load_cluster_name()) cluster_ = name.value();
      }
    } else {
      result.error = data.error().to_string();
    }
    if (cluster_.empty()) return;  // counting needs the cluster's name, from slurmctld
    const policy::Policy policy = policy::Policy::compile(config);
    const int64_t now = now_s();
    Result<std::vector<JobRun>> runs =
        load_job_runs(cluster_, query_start(counters_, now, kDefaultLookback), now);
    if (!runs) {
      if (result.error.empty()) result.error = runs.error().to_string();
      return;
    }
    count_runs(counters_, policy, runs.value(), now);
  }

  ExporterOptions options_;
  CounterState counters_;
  std::string cluster_;
  std::string last_error_;
  mutable std::mutex mutex_;
  std::string text_;
};

int run(const std::vector<std::string>& args) {
  Result<ExporterOptions> parsed = parse_exporter_options(args);
  if (!parsed) {
    std::cerr << "shareq-exporter: " << parsed.error().to_string() << "\n" << exporter_usage();
    return 2;
  }
  const ExporterOptions& options = parsed.value();
  if (options.help) {
    std::cout << exporter_usage();
    return 0;
  }
  if (options.version) {
    std::cout << "shareq-exporter " << SHAREQ_VERSION << "\n";
    return 0;
  }
  // SIGTERM and SIGINT go to sigwait below, in no other thread.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  const CounterStore store(options.state_dir);
  Exporter exporter(options, store.load());
  exporter.round(store);  // the first snapshot before the first scrape
  auto server = HttpServer::start(options.listen_host, options.listen_port,
                                  [&exporter] { return exporter.snapshot(); });
  if (!server) {
    log(server.error().to_string());
    return 1;
  }
  log("listening on " + options.listen_host + ":" + std::to_string(options.listen_port) +
      ", a round of reads every " + std::to_string(options.min_interval_s) + " s");

  std::mutex wake_mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread refresher([&] {
    std::unique_lock lock(wake_mutex);
    while (!wake.wait_for(lock, std::chrono::seconds(options.min_interval_s),
                          [&] { return stopping; })) {
      lock.unlock();
      exporter.round(store);
      lock.lock();
    }
  });
  int signal = 0;
  sigwait(&stop_signals, &signal);
  {
    const std::scoped_lock lock(wake_mutex);
    stopping = true;
  }
  wake.notify_all();
  refresher.join();
  log("stopped by signal " + std::to_string(signal));
  return 0;
}

}  // namespace
}  // namespace shareq::exporter

int main(int argc, char** argv) {
  try {
    return shareq::exporter::run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "shareq-exporter: " << e.what() << "\n";
    return 1;
  }
}
