// Fallback to a compatible family: `Family=p5 ... Fallback=p4,p4de`, `FallbackDelay`.
//
// A job submitted to a family with Fallback= families also lists their partitions
// (job_submit/shareq, fallback_partitions() in submission.hpp), and its tag names the family it
// was submitted to (home=). Of its requests (one per family, job_record.hpp):
//  - the one in its home family is always open;
//  - one in a fallback family opens once the job has been eligible for FallbackDelay seconds
//    (eligible: Slurm's begin time, i.e. its submission, its --begin, or the requeue that put it
//    back in the queue; it is kept in slurmctld's state, so a restart does not start the delay
//    again), or at once when the job's last run ended by a node or prolog failure.
// A request that is not open yet is left out of PendingJob::requests, so the ordering and
// decide() treat the job as a job of its home family alone; it is kept in PendingJob::later with
// the instant it opens, for the words a user sees. Once open, the job is a job of its share in
// the fallback family like any other: that family's quota, limits, reclaim and ranking.
#pragma once

#include <optional>
#include <string>

#include "policy/decision.hpp"
#include "policy/jobs.hpp"
#include "policy/policy.hpp"

namespace shareq::policy {

// When the requests of a job eligible since `eligible_time` open in its fallback families.
Time fallback_opens_at(const Policy& policy, Time eligible_time, bool after_failure);

// The first instant one of the job's fallback requests opens; nullopt when none waits.
std::optional<Time> next_fallback_at(const PendingJob& job);

// What a waiting job adds to its reason while a fallback request is closed, e.g. "; may start in
// family p4 in 2m 10s (FallbackDelay=300s)"; "" when none is.
std::string fallback_note(const Policy& policy, const PendingJob& job, Time now);

// What holds a job in its home family, from that family's decision, in words without "shareq: ".
std::string held_at_home(const Decision& home);

// The SystemComment of a job that started in fallback family `to`, e.g. "shareq: fell back from
// p5 to p4 after 312 s: family p5: at capacity (32/32 gres/gpu)".
std::string fallback_comment(const Policy& policy, FamilyId home, FamilyId to, int64_t waited_s,
                             const Decision& home_decision);

}  // namespace shareq::policy
