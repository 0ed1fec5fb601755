/* error.c: the hx_error helpers and the names of the HX_E* codes (include/hyrax.h).
 * Owns nothing else; modules fill errors through hx_error_set and never print. */
#include "hyrax.h"

#include <stdarg.h>
#include <stdio.h>

const char *hx_strerror(int code)
{
    switch (code) {
    case HX_OK: return "success";
    case HX_ENOMEM: return "out of memory";
    case HX_EIO: return "input/output error";
    case HX_EINVAL: return "invalid argument";
    case HX_EFORMAT: return "bad format";
    case HX_EVERSION: return "unsupported format version";
    case HX_ECHECKSUM: return "checksum mismatch";
    case HX_ETRUNCATED: return "truncated input";
    case HX_ERANGE: return "value out of range";
    case HX_ENOTFOUND: return "not found";
    case HX_EBUSY: return "resource busy";
    case HX_EPARSE: return "parse error";
    case HX_EDEPTH: return "nesting too deep";
    case HX_EUTF8: return "invalid UTF-8";
    case HX_ECANCELED: return "canceled";
    case HX_EPERM: return "not permitted";
    case HX_ECHANGED: return "changed underneath the reader";
    default: return "unknown error";
    }
}

int hx_error_set(hx_error *err, int code, int64_t offset, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->offset = offset;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}
