#include "sim/sacct_trace.hpp"

#include <array>
#include <optional>

#include "result.hpp"
#include "sim/time_text.hpp"
#include "text.hpp"

namespace shareq::sim {
namespace {

enum Column {
  kJobId,
  kAccount,
  kPartition,
  kSubmit,
  kStart,
  kEnd,
  kElapsed,
  kAllocTres,
  kReqTres,
  kNNodes,
  kState,
  kAdminComment,
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "JobID",   "Account",   "Partition", "Submit", "Start", "End",
    "Elapsed", "AllocTRES", "ReqTRES",   "NNodes", "State", "AdminComment"};
constexpr int kMissing = -1;

using Header = std::array<int, kColumnCount>;  // column -> field index, or kMissing

// The GPUs of a TRES list: gres/gpu=N, else the sum of gres/gpu:TYPE=N; nullopt when it names
// none. Error (no field; the caller names the column): a GPU count that is not 0..1000000000.
// Other items are not read (mem=4G has a unit).
Result<std::optional<int64_t>> tres_gpus(std::string_view tres) {
  std::optional<int64_t> plain, typed;
  for (std::string_view item : text::split(tres, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = item.substr(0, eq), count = item.substr(eq + 1);
    const bool is_typed = key.size() > 9 && text::iequals(key.substr(0, 9), "gres/gpu:");
    if (!is_typed && !text::iequals(key, "gres/gpu")) continue;
    const auto value = text::parse_decimal(count, 1'000'000'000);
    if (value.status != text::NumberStatus::Ok) {
      return Error{"", "in " + text::quote(item) + ": " +
                           text::number_message(count, value, "gres/gpu=N with N 0..1000000000")};
    }
    const auto n = static_cast<int64_t>(value.value);
    if (is_typed) typed = typed.value_or(0) + n;
    if (!is_typed) plain = n;
  }
  return plain ? plain : typed;
}

// The value of shareq's priority=N in an AdminComment ("shareq:share=a,priority=80,..."): the key
// after the start, a ':' or a ','; nullopt when there is none.
std::optional<std::string_view> comment_priority(std::string_view comment) {
  constexpr std::string_view kKey = "priority=";
  for (size_t at = comment.find(kKey); at != std::string_view::npos;
       at = comment.find(kKey, at + 1)) {
    if (at > 0 && comment[at - 1] != ',' && comment[at - 1] != ':') continue;
    const std::string_view value = comment.substr(at + kKey.size());
    return value.substr(0, value.find(','));
  }
  return std::nullopt;
}

class Reader {
 public:
  explicit Reader(std::string_view file) : file_(file) {}

  bool header(std::string_view line) {
    header_.fill(kMissing);
    const auto names = text::split(line, '|');
    for (size_t i = 0; i < names.size(); ++i) {
      for (size_t c = 0; c < kColumnCount; ++c) {
        if (text::iequals(names[i], kColumnNames[c])) header_[c] = static_cast<int>(i);
      }
    }
    return check_header();
  }

  void row(std::string_view line, int number) {
    if (line.empty()) return;
    fields_ = text::split(line, '|');
    if (fields_.size() < width_) {
      return error(number, "",
                   "has " + std::to_string(fields_.size()) + " fields, the header " +
                       std::to_string(width_));
    }
    line_ = number;
    job();
  }

  Parsed<Trace> finish() {
    Parsed<Trace> out;
    out.errors = std::move(errors_);
    if (out.errors.empty()) out.value = std::move(trace_);
    return out;
  }

  void error(int line, std::string field, std::string message) {
    if (errors_.size() < kMaxInputErrors) {
      errors_.push_back({std::string(file_), line, std::move(field), std::move(message)});
    }
  }

 private:
  bool check_header() {
    std::vector<std::string> missing;
    for (Column c : {kJobId, kAccount, kPartition, kSubmit}) {
      if (header_[c] == kMissing) missing.emplace_back(kColumnNames[c]);
    }
    if (header_[kElapsed] == kMissing &&
        (header_[kStart] == kMissing || header_[kEnd] == kMissing)) {
      missing.emplace_back("Elapsed (or Start and End)");
    }
    if (header_[kAllocTres] == kMissing && header_[kReqTres] == kMissing) {
      missing.emplace_back("AllocTRES or ReqTRES");
    }
    if (!missing.empty()) {
      error(1, "header",
            "missing " + text::join(missing) +
                "; needed: JobID|Account|Partition|Submit|Elapsed|AllocTRES "
                "(sacct --parsable2 -o ...), see shareq(1)");
      return false;
    }
    for (int index : header_) width_ = std::max(width_, static_cast<size_t>(index + 1));
    return true;
  }

  std::string_view field(Column c) const {
    return header_[c] == kMissing ? std::string_view() : fields_[header_[c]];
  }

  bool never_ran() const {
    const std::string_view start = field(kStart), state = field(kState);
    return start == "Unknown" || start == "None" ||
           (state.size() >= 7 && text::iequals(state.substr(0, 7), "PENDING"));
  }

  void job() {
    const std::string_view id = field(kJobId);
    if (id.find('.') != std::string_view::npos) return trace_.skip("job step");
    if (never_ran()) return trace_.skip("never ran");
    TraceJob job;
    job.id = std::string(id);
    job.line = line_;
    if (!share_and_partitions(job) || !times(job)) return;
    if (job.run_s <= 0) return trace_.skip("never ran");
    if (!gpus(job)) return;
    if (job.gpus <= 0) return trace_.skip("no GPUs");
    if (!nodes(job) || !priority(job)) return;
    trace_.jobs.push_back(std::move(job));
  }

  bool share_and_partitions(TraceJob& job) {
    job.share = std::string(field(kAccount));
    if (job.share.empty()) return fail("Account", "is empty; the account is the job's share");
    for (std::string_view p : text::split(field(kPartition), ',')) {
      if (p.empty())
        return fail("Partition",
                    text::quote(field(kPartition)) + " is not a partition list (p5 or p5,p4)");
      job.partitions.emplace_back(p);
    }
    return true;
  }

  bool times(TraceJob& job) {
    const auto submit = parse_timestamp(field(kSubmit));
    if (!submit) return fail("Submit", bad_time(field(kSubmit)));
    job.submit = *submit;
    if (header_[kElapsed] != kMissing) {
      const auto elapsed = parse_elapsed(field(kElapsed));
      if (!elapsed) {
        return fail("Elapsed", text::quote(field(kElapsed)) +
                                   " is not a duration; allowed: [D-]HH:MM:SS or MM:SS");
      }
      job.run_s = *elapsed;
      return true;
    }
    const auto start = parse_timestamp(field(kStart)), end = parse_timestamp(field(kEnd));
    if (!start) return fail("Start", bad_time(field(kStart)));
    if (!end) return fail("End", bad_time(field(kEnd)));
    if (*end < *start) {
      return fail("End", text::quote(field(kEnd)) + " is before Start " +
                             text::quote(field(kStart)) + "; allowed: Start or later");
    }
    job.run_s = *end - *start;
    return true;
  }

  // AllocTRES's GPUs, else ReqTRES's (either may name none: 0).
  bool gpus(TraceJob& job) {
    std::optional<int64_t> gpus;
    for (Column c : {kAllocTres, kReqTres}) {
      if (gpus || header_[c] == kMissing) continue;
      const auto parsed = tres_gpus(field(c));
      if (!parsed) return fail(std::string(kColumnNames[c]), parsed.error().message);
      gpus = parsed.value();
    }
    job.gpus = gpus.value_or(0);
    return true;
  }

  bool nodes(TraceJob& job) {
    const std::string_view value = field(kNNodes);
    if (value.empty()) return true;  // no column, or no value: as few nodes as hold the GPUs
    const auto nodes = text::parse_decimal(value, 1'000'000);
    if (nodes.status != text::NumberStatus::Ok || nodes.value == 0) {
      return fail("NNodes", text::number_message(value, nodes, "1..1000000"));
    }
    job.nodes = static_cast<int64_t>(nodes.value);
    return true;
  }

  // AdminComment's priority=N (--share-priority); none without one.
  bool priority(TraceJob& job) {
    const auto value = comment_priority(field(kAdminComment));
    if (!value) return true;
    const auto parsed = text::parse_decimal(*value, 99);
    if (parsed.status != text::NumberStatus::Ok) {
      return fail("AdminComment priority", text::number_message(*value, parsed, "0..99"));
    }
    job.priority = static_cast<int>(parsed.value);
    return true;
  }

  static std::string bad_time(std::string_view value) {
    return text::quote(value) + " is not a time; allowed: YYYY-MM-DDTHH:MM:SS";
  }

  bool fail(std::string field, std::string message) {
    error(line_, std::move(field), std::move(message));
    return false;
  }

  std::string_view file_;
  Header header_{};
  size_t width_ = 0;
  std::vector<std::string_view> fields_;
  int line_ = 0;
  Trace trace_;
  std::vector<InputError> errors_;
};

}  // namespace

Parsed<Trace> parse_sacct_trace(std::string_view text, std::string_view file) {
  Reader reader(file);
  const auto lines = split_lines(text);
  if (lines.empty()) {
    reader.error(0, "header", "the trace is empty; it needs sacct --parsable2's header line");
    return reader.finish();
  }
  if (!reader.header(lines[0])) return reader.finish();
  for (size_t i = 1; i < lines.size(); ++i) reader.row(lines[i], static_cast<int>(i + 1));
  return reader.finish();
}

}  // namespace shareq::sim
