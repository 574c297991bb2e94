/* Test helpers over the fake Slurm allocator (fake_xmalloc.c). */
#ifndef SHAREQ_FAKE_XMALLOC_H
#define SHAREQ_FAKE_XMALLOC_H

#include <stddef.h>
#include <stdint.h>

char* xstrdup(const char* str);
void slurm_xfree(void** item);
void* fake_xmalloc(size_t size);

/* An xmalloc'd, NULL-terminated copy of a NULL-terminated list of "NAME=VALUE" strings. */
char** fake_env(const char* const* entries);
/* Frees an array made by fake_env or grown by the shim. */
void fake_env_free(char** env, uint32_t size);

#endif
