/* platform.h: the operating-system calls hyrax needs that POSIX does not give in one portable
 * form (CPU count, huge-page advice, the executable's path, data sync, file times, CPU features
 * only the kernel reports). Linux is the tuned path; every other POSIX system gets a fallback
 * under #ifdef in platform.c, so porting (macOS) touches this file only. No policy here: callers
 * decide how many threads, which paths, which kernels. */
#ifndef HX_PLATFORM_H
#define HX_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Online CPUs, at least 1. */
int hx_platform_cpus(void);

/* Advises the kernel to back [p, p + len) with transparent huge pages (p 2 MiB aligned). Only
 * advice: does nothing where the system has no such call. */
void hx_platform_huge_pages(void *p, size_t len);

/* Absolute path of the running executable into buf (cap bytes): 0, or HX_ENOTFOUND when the
 * system does not tell (or the path does not fit). */
int hx_platform_exe_path(char *buf, size_t cap);

/* Makes fd's data durable (fdatasync on Linux, fsync elsewhere): 0, or -1 with errno set. */
int hx_platform_datasync(int fd);

/* A stat's modification time in nanoseconds since the epoch. */
int64_t hx_platform_mtime_ns(const struct stat *st);

/* AArch64 features that user space learns from the kernel (HWCAP), as HX_ARM_* bits; 0 on other
 * architectures and on systems that do not report them. */
enum { HX_ARM_CRC32 = 1 << 0 };
unsigned hx_platform_arm_features(void);

#endif
