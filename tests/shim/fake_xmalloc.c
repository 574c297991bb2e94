/*
 * Fakes of the libslurmfull allocator functions the shim helpers call (xstrdup, slurm_xrecalloc,
 * slurm_xfree), on top of CMocka's test_malloc/test_free so that a test fails on a leak or a
 * foreign free. Each block keeps its size in a header, as Slurm's xmalloc does, so that
 * slurm_xrecalloc can zero the new tail.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fake_xmalloc.h"

typedef struct {
  size_t size;
} header_t;

static void* block_alloc(size_t size) {
  header_t* h = test_calloc(1, sizeof(header_t) + size);
  h->size = size;
  return h + 1;
}

static header_t* header_of(void* p) { return (header_t*)p - 1; }

void* fake_xmalloc(size_t size) { return block_alloc(size); }

char* xstrdup(const char* str) {
  if (str == NULL) return NULL;
  size_t n = strlen(str) + 1;
  char* copy = block_alloc(n);
  memcpy(copy, str, n);
  return copy;
}

void* slurm_xrecalloc(void** item, size_t count, size_t size, bool clear, bool try_,
                      const char* file, int line, const char* func) {
  (void)clear;
  (void)try_;
  (void)file;
  (void)line;
  (void)func;
  size_t new_size = count * size;
  void* fresh = block_alloc(new_size);
  if (*item != NULL) {
    size_t old = header_of(*item)->size;
    memcpy(fresh, *item, old < new_size ? old : new_size);
    test_free(header_of(*item));
  }
  *item = fresh;
  return fresh;
}

void slurm_xfree(void** item) {
  if (item != NULL && *item != NULL) {
    test_free(header_of(*item));
    *item = NULL;
  }
}

char** fake_env(const char* const* entries) {
  size_t n = 0;
  while (entries[n] != NULL) n++;
  char** env = block_alloc((n + 1) * sizeof(char*));
  for (size_t i = 0; i < n; i++) env[i] = xstrdup(entries[i]);
  return env;
}

void fake_env_free(char** env, uint32_t size) {
  if (env == NULL) return;
  for (uint32_t i = 0; i < size; i++) slurm_xfree((void**)&env[i]);
  slurm_xfree((void**)&env);
}
