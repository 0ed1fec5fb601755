"""
Compute and verify file checksums.

Usage: checksum.py FILE
"""

__version__ = "2.1.0"
__tool_type__ = "python"
__executor_id__ = "python_runtime"
__category__ = "integrity"

import hashlib


def compute_checksum(path):
    """Return the SHA-256 digest of a file as hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def verify_checksum(path, expected):
    """Compare a file's digest with an expected one."""
    return compute_checksum(path) == expected
