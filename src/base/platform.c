/* platform.c: the operating-system specific calls of platform.h, each with its Linux form and a
 * POSIX fallback. Owns no state; must not decide policy (thread counts, search paths) or read
 * CPUID (cpu.c does, the instruction is the same on every system). */
#include "platform.h"
#include "hyrax.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#endif

#ifdef __APPLE__
#include <mach-o/dyld.h>
#include <stdlib.h>
#endif

#if defined(__linux__) && defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#define HX_ARCH_REQ_XCOMP_PERM 0x1023   /* asm/prctl.h, Linux 5.16 */
#define HX_XFEATURE_XTILEDATA 18
#endif

int hx_platform_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

int hxi_platform_map_prefault(void)
{
#ifdef MAP_POPULATE
    return MAP_POPULATE;
#else
    return 0;
#endif
}

void hxi_platform_huge_pages(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#else
    (void)p, (void)len;
#endif
}

int hx_platform_exe_path(char *buf, size_t cap)
{
#ifdef __linux__
    ssize_t n = cap > 1 ? readlink("/proc/self/exe", buf, cap - 1) : -1;
    if (n > 0 && (size_t)n < cap - 1) {
        buf[n] = 0;
        return 0;
    }
#elif defined(__APPLE__)
    char tmp[PATH_MAX];
    uint32_t size = sizeof tmp;
    if (cap >= PATH_MAX && _NSGetExecutablePath(tmp, &size) == 0 && realpath(tmp, buf))
        return 0;
#else
    (void)cap;
#endif
    if (cap)
        buf[0] = 0;
    return HX_ENOTFOUND;
}

int hxi_platform_lib_path(char *buf, size_t cap)
{
    Dl_info info;
    char exe[PATH_MAX];
    if (cap && dladdr((void *)hxi_platform_lib_path, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
        strlen(info.dli_fname) < cap && !(hx_platform_exe_path(exe, sizeof exe) == 0 && !strcmp(exe, info.dli_fname))) {
        strcpy(buf, info.dli_fname);
        return 0;
    }
    if (cap)
        buf[0] = 0;
    return HX_ENOTFOUND;
}

int hxi_platform_datasync(int fd)
{
#ifdef __linux__
    return fdatasync(fd);
#else
    return fsync(fd);
#endif
}

/* A stat time field: Darwin names it st_Xtimespec, POSIX.1-2008 st_Xtim. */
#ifdef __APPLE__
#define STAT_TIME(st, x) ((st)->st_##x##timespec)
#else
#define STAT_TIME(st, x) ((st)->st_##x##tim)
#endif

static int64_t timespec_ns(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int64_t hxi_platform_mtime_ns(const struct stat *st)
{
    return timespec_ns(STAT_TIME(st, m));
}

int64_t hxi_platform_ctime_ns(const struct stat *st)
{
    return timespec_ns(STAT_TIME(st, c));
}

unsigned hxi_platform_arm_features(void)
{
    unsigned f = 0;
#if defined(__linux__) && defined(__aarch64__)
    unsigned long hw = getauxval(AT_HWCAP);
    if (hw & HWCAP_CRC32)
        f |= HX_ARM_CRC32;
#endif
    return f;
}

bool hxi_platform_amx_permit(void)
{
#if defined(__linux__) && defined(__x86_64__)
    return syscall(SYS_arch_prctl, HX_ARCH_REQ_XCOMP_PERM, HX_XFEATURE_XTILEDATA) == 0;
#else
    return false;
#endif
}

/* === Change notification === */

#ifdef __linux__
int hxi_platform_notify_open(void)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    return fd < 0 ? HX_ENOTFOUND : fd;
}

int hxi_platform_notify_add(int fd, const char *path)
{
    int wd = inotify_add_watch(fd, path, IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
                                             IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR |
                                             IN_DONT_FOLLOW);
    if (wd >= 0)
        return wd;
    return errno == ENOSPC ? HX_ERANGE : HX_EIO;
}

int hxi_platform_notify_read(int fd, void (*fn)(void *ctx, int wd, const char *name, unsigned flags), void *ctx)
{
    /* aligned as the kernel's records are */
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    int count = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return count;
        if (n <= 0)
            return HX_EIO;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)(void *)p;
            if ((size_t)(buf + n - p) < sizeof *e || (size_t)(buf + n - p) < sizeof *e + e->len)
                return HX_EIO;   /* the kernel writes whole records; anything else is not inotify */
            unsigned flags = (e->mask & IN_ISDIR ? HX_NOTIFY_DIR : 0) | (e->mask & IN_Q_OVERFLOW ? HX_NOTIFY_OVERFLOW : 0) |
                             (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) ? HX_NOTIFY_GONE : 0);
            fn(ctx, e->wd, e->len ? e->name : "", flags);
            count++;
            p += sizeof *e + e->len;
        }
    }
}
#else
int hxi_platform_notify_open(void)
{
    return HX_ENOTFOUND;
}

int hxi_platform_notify_add(int fd, const char *path)
{
    (void)fd, (void)path;
    return HX_EIO;
}

int hxi_platform_notify_read(int fd, void (*fn)(void *ctx, int wd, const char *name, unsigned flags), void *ctx)
{
    (void)fd, (void)fn, (void)ctx;
    return HX_EIO;
}
#endif
