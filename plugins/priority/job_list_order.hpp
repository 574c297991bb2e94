// Slurm's job list kept in the order in which its schedulers sort the pending jobs.
//
// Every main and backfill pass builds its queue by walking job_list and then sorts it
// (sort_job_queue2: higher priority first, then earlier submission, then lower job id) with
// glibc's merge sort, which needs about half the comparisons when its input is already in order.
// With the stock plugins most pending jobs share a priority, so submission order, which is list
// order, is already sorted order. shareq's priorities mean something (tier, share,
// --share-priority; 100 distinct values in the benchmark), and the queue arrived shuffled: with
// 5,000 pending jobs, 55,000 comparisons per pass against stock's 30,000, the largest part of the
// difference between the two main passes (uprobe counts, perf, docs/benchmarks.md). After each
// ranking, priority/shareq therefore puts job_list in that order when it is not already. Only
// the order of the list changes: Slurm finds jobs by id through its hash table, sorts its queues
// itself, and `scontrol show jobs` lists pending jobs highest priority first.
#pragma once

namespace shareq::priority {

// Sorts job_list (pending jobs first, highest priority, then earliest submission, then lowest
// job id; other jobs after them, in any order) unless it is sorted already, which a walk of the
// list tells. Returns true when it sorted. Precondition: the job write lock is held.
bool order_job_list();

}  // namespace shareq::priority
