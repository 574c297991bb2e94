/*
 * The decayed-usage state file of priority/shareq, in StateSaveLocation/shareq_usage:
 *
 *   # shareq decayed usage: SHARE FAMILY UNIT_SECONDS
 *   version=1
 *   last_ran=1700000000
 *   prodexp1 p4 7200.5
 *
 * (the text's format and parser: src/usage_format.hpp, in the core). Written atomically
 * (PATH.new, fsync, rename). A file that is missing, truncated or malformed in any way is
 * refused as a whole, with the line at fault; the caller then starts from zero.
 * C interface for the CMocka tests; strings it returns are xmalloc'd.
 */
#ifndef SHAREQ_USAGE_FILE_H
#define SHAREQ_USAGE_FILE_H

/* NOLINTBEGIN(modernize-deprecated-headers,modernize-use-using): a C header. */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shareq_usage_entry {
  const char* share;
  const char* family;
  double value;
} shareq_usage_entry_t;

/* 0 on success; -1 and *err (xmalloc'd sentence naming the path) on failure. */
int shareq_usage_write(const char* path, int64_t last_ran, const shareq_usage_entry_t* entries,
                       size_t count, char** err);

typedef struct shareq_usage_file shareq_usage_file_t;
/* NULL and *err on a missing or bad file. */
shareq_usage_file_t* shareq_usage_read(const char* path, char** err);
int64_t shareq_usage_last_ran(const shareq_usage_file_t* file);
size_t shareq_usage_count(const shareq_usage_file_t* file);
shareq_usage_entry_t shareq_usage_get(const shareq_usage_file_t* file, size_t i);
void shareq_usage_free(shareq_usage_file_t* file);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-deprecated-headers,modernize-use-using) */
#endif /* SHAREQ_USAGE_FILE_H */
