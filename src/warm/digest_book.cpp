#include "warm/digest_book.hpp"

#include <algorithm>

namespace shareq::warm {

DigestBook::Entry& DigestBook::entry(const std::string& name, int64_t now) {
  auto found = entries_.find(name);
  if (found == entries_.end()) {
    if (entries_.size() >= limits_.max_images) {
      // Forget the least recently used image that is not being asked about.
      auto oldest = entries_.end();
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->second.asking_since) continue;
        if (oldest == entries_.end() || it->second.last_used < oldest->second.last_used) {
          oldest = it;
        }
      }
      if (oldest != entries_.end()) entries_.erase(oldest);
    }
    found = entries_.emplace(name, Entry{}).first;
  }
  found->second.last_used = std::max(found->second.last_used, now);
  return found->second;
}

bool DigestBook::retry_due(const Entry& e, int64_t now) const {
  return !e.asking_since && now - e.latest->answered_at >= limits_.retry_after_s;
}

DigestVerdict DigestBook::verdict(const ImageRef& image, int64_t submitted_at, int64_t now) {
  Entry& e = entry(image.name, now);
  DigestVerdict v;
  const std::string again = "; asking again every " + std::to_string(limits_.retry_after_s) + " s";
  if (e.latest && e.latest->asked_at >= submitted_at) {
    const DigestAnswer& a = *e.latest;
    if (!a.problem.empty()) {
      v.wait_reason = "waiting for its image: " + a.problem + again;
      v.ask = retry_due(e, now);
    } else if (image.sha256 && *image.sha256 != a.digest) {
      v.wait_reason = "waiting for image " + image.name +
                      ": its pinned digest sha256:" + *image.sha256 +
                      " is not the one the store publishes (sha256:" + a.digest + ")" + again;
      v.ask = retry_due(e, now);
    } else {
      v.digest = a.digest;
    }
    return v;
  }
  if (e.asking_since && *e.asking_since >= submitted_at) {
    v.wait_reason = "waiting for the image store to publish the digest of image " + image.name +
                    " (asked " + std::to_string(now - *e.asking_since) + " s ago)";
    return v;
  }
  // No answer yet that is as new as the job. A question older than the job still in flight is
  // left to finish; the next look asks again.
  v.wait_reason = "waiting for the image store to publish the digest of image " + image.name;
  v.ask = !e.asking_since;
  return v;
}

void DigestBook::asking(const std::string& name, int64_t now) {
  entry(name, now).asking_since = now;
}

void DigestBook::not_asked(const std::string& name) {
  const auto found = entries_.find(name);
  if (found != entries_.end()) found->second.asking_since.reset();
}

void DigestBook::answered(const std::string& name, DigestAnswer answer) {
  Entry& e = entry(name, answer.answered_at);
  e.asking_since.reset();
  e.latest = std::move(answer);
}

}  // namespace shareq::warm
