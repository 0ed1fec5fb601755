/* test_platform.c: the operating-system layer of platform.h against what POSIX says directly: the
 * CPU count against sysconf, the executable's path against argv[0], data sync on a file and on a
 * bad descriptor, a file time set with utimensat read back to the nanosecond, and the AArch64
 * feature bits against the CRC32C dispatch (cpu.h). */
#include "check.h"
#include "cpu.h"
#include "hyrax.h"
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static void test_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int got = hx_platform_cpus();
    CHECK(got >= 1, "cpus %d", got);
    CHECK(n < 1 || got == n, "cpus %d, sysconf says %ld", got, n);
}

static void test_exe_path(const char *argv0)
{
    char buf[PATH_MAX], want[PATH_MAX], small[4] = "xyz";
    int rc = hx_platform_exe_path(buf, sizeof buf);
#ifdef __linux__
    CHECK(rc == 0, "exe path: %d", rc);
#endif
    if (rc == 0) {
        CHECK(realpath(argv0, want) != NULL, "realpath %s", argv0);
        CHECK(!strcmp(buf, want), "exe path %s, argv[0] is %s", buf, want);
    } else {
        CHECK(rc == HX_ENOTFOUND && buf[0] == 0, "exe path: %d", rc);
    }
    CHECK(hx_platform_exe_path(small, sizeof small) == HX_ENOTFOUND && small[0] == 0,
          "a path that does not fit is not found, and the buffer is empty");
}

static void test_sync_and_mtime(void)
{
    char path[] = "/tmp/hxi_platform_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    CHECK(write(fd, "data", 4) == 4, "write");
    CHECK(hxi_platform_datasync(fd) == 0, "datasync: %s", strerror(errno));
    struct timespec times[2] = {{1234567890, 123456789}, {1234567890, 987654321}};
    CHECK(futimens(fd, times) == 0, "futimens: %s", strerror(errno));
    struct stat st;
    CHECK(fstat(fd, &st) == 0, "fstat");
    int64_t ns = hxi_platform_mtime_ns(&st);
    /* file systems keep at least microseconds; every one hyrax runs on here keeps nanoseconds */
    CHECK(ns == 1234567890987654321 || ns == 1234567890987654000, "mtime %lld ns",
          (long long)ns);
    close(fd);
    unlink(path);
    errno = 0;
    CHECK(hxi_platform_datasync(-1) == -1 && errno == EBADF, "datasync on a bad fd: errno %d", errno);
}

static void test_arm_features(void)
{
    unsigned f = hxi_platform_arm_features();
#if defined(__aarch64__)
    CHECK(hxi_cpu_has_crc32c() == !!(f & HX_ARM_CRC32), "CRC32C dispatch follows HWCAP_CRC32");
    printf("aarch64 features: crc32 %s\n", f & HX_ARM_CRC32 ? "yes" : "no");
#else
    CHECK(f == 0, "AArch64 features %#x on another architecture", f);
#endif
}

int main(int argc, char **argv)
{
    (void)argc;
    test_cpus();
    test_exe_path(argv[0]);
    test_sync_and_mtime();
    test_arm_features();
    return check_report("test_platform");
}
