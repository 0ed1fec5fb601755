/* platform.h: the operating-system calls hyrax needs that POSIX does not give in one portable
 * form (CPU count, huge-page advice, the executable's path, data sync, file times, change
 * notification, CPU features only the kernel reports or grants). Linux is the tuned path; every
 * other POSIX system gets a fallback under #ifdef in platform.c, so porting (macOS) touches this
 * file only. No policy here: callers decide how many threads, which paths, which kernels. */
#ifndef HX_PLATFORM_H
#define HX_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* hx_platform_cpus, the online CPUs, and hx_platform_exe_path, the executable's path, are public
 * (hyrax.h "Memory and machine"). */

/* Advises the kernel to back [p, p + len) with transparent huge pages (p 2 MiB aligned). Only
 * advice: does nothing where the system has no such call. */
void hxi_platform_huge_pages(void *p, size_t len);

/* The mmap flag that maps a file's pages at the call rather than at their first touch (Linux
 * MAP_POPULATE), or 0 where the system has none. */
int hxi_platform_map_prefault(void);

/* Absolute path of the shared library holding hyrax's code (an installed libhyrax.so) into buf:
 * 0, or HX_ENOTFOUND when the code is linked into the executable or the system does not tell. */
int hxi_platform_lib_path(char *buf, size_t cap);

/* Makes fd's data durable (fdatasync on Linux, fsync elsewhere): 0, or -1 with errno set. */
int hxi_platform_datasync(int fd);

/* A stat's modification time in nanoseconds since the epoch. */
int64_t hxi_platform_mtime_ns(const struct stat *st);
/* Its status-change time (ctime: set by the kernel at every write, rename or chmod), ns. */
int64_t hxi_platform_ctime_ns(const struct stat *st);

/* AArch64 features that user space learns from the kernel (HWCAP), as HX_ARM_* bits; 0 on other
 * architectures and on systems that do not report them. */
enum { HX_ARM_CRC32 = 1 << 0 };
unsigned hxi_platform_arm_features(void);

/* Asks the kernel to let this process use the AMX tile data registers (Linux: arch_prctl
 * ARCH_REQ_XCOMP_PERM for XTILEDATA; a process that uses them unasked gets SIGILL): whether it
 * did; false where there is no such call. Call only where CPUID reports AMX. */
bool hxi_platform_amx_permit(void);

/* === Change notification (serve --watch) ===
 * A notifier of changes inside folders: inotify on Linux. Elsewhere there is none and callers poll
 * the folders instead (src/server/watch.c). Close the descriptor with close(). */

/* The notifier's descriptor (non-blocking, for poll()), or HX_ENOTFOUND where the system has none
 * or refuses one (inotify instance limit). */
int hxi_platform_notify_open(void);

/* Watches the folder `path` (not its subfolders) for entries created, deleted, moved in or out,
 * or written: the watch's id (>= 0); HX_ERANGE when the system's watch limit is reached (Linux
 * fs.inotify.max_user_watches); HX_EIO otherwise (errno kept). */
int hxi_platform_notify_add(int fd, const char *path);

enum {
    HX_NOTIFY_DIR = 1,       /* the entry is a folder */
    HX_NOTIFY_OVERFLOW = 2,  /* the kernel dropped events: everything may have changed */
    HX_NOTIFY_GONE = 4,      /* the watched folder itself was deleted or moved away */
};
/* Reads the events waiting on fd without blocking and calls fn(ctx, watch id, entry name, HX_NOTIFY_*
 * flags) for each (name "" for an event of the watched folder itself; watch id -1 with
 * HX_NOTIFY_OVERFLOW). Returns the number of events read, or HX_EIO. */
int hxi_platform_notify_read(int fd, void (*fn)(void *ctx, int wd, const char *name, unsigned flags), void *ctx);

#endif
