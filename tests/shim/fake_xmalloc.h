/* Test helpers over the fake Slurm allocator (fake_xmalloc.c), for C and C++ tests. */
#ifndef SHAREQ_FAKE_XMALLOC_H
#define SHAREQ_FAKE_XMALLOC_H

/* NOLINTBEGIN(modernize-deprecated-headers): a C header. */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

char* xstrdup(const char* str);
void slurm_xfree(void** item);
void* fake_xmalloc(size_t size);

/* An xmalloc'd, NULL-terminated copy of a NULL-terminated list of "NAME=VALUE" strings. */
char** fake_env(const char* const* entries);
/* Frees an array made by fake_env or grown by the shim. */
void fake_env_free(char** env, uint32_t size);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-deprecated-headers) */
#endif
