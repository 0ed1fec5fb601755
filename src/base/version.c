/* version.c: hx_version, the library's version (hyrax.h HX_VERSION_*): the one version string that
 * `hyrax --version`, MCP's serverInfo and HTTP's /health report. */
#include "hyrax.h"

const char *hx_version(void)
{
    return HX_VERSION_STRING;
}
