/* platform.c: the operating-system specific calls of platform.h, each with its Linux form and a
 * POSIX fallback. Owns no state; must not decide policy (thread counts, search paths) or read
 * CPUID (cpu.c does, the instruction is the same on every system). */
#include "platform.h"
#include "hyrax.h"

#include <sys/mman.h>
#include <unistd.h>

#if defined(__linux__) && defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

int hx_platform_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

void hx_platform_huge_pages(void *p, size_t len)
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
#else
    (void)cap;
#endif
    if (cap)
        buf[0] = 0;
    return HX_ENOTFOUND;
}

int hx_platform_datasync(int fd)
{
#ifdef __linux__
    return fdatasync(fd);
#else
    return fsync(fd);
#endif
}

int64_t hx_platform_mtime_ns(const struct stat *st)
{
#ifdef __APPLE__
    return (int64_t)st->st_mtimespec.tv_sec * 1000000000 + st->st_mtimespec.tv_nsec;
#else
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
#endif
}

unsigned hx_platform_arm_features(void)
{
    unsigned f = 0;
#if defined(__linux__) && defined(__aarch64__)
    unsigned long hw = getauxval(AT_HWCAP);
    if (hw & HWCAP_CRC32)
        f |= HX_ARM_CRC32;
#endif
    return f;
}
