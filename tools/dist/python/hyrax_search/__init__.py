"""hyrax_search: the Python side of the hyrax wheel. The wheel installs the hyrax binary itself
as the `hyrax` script (in the environment's bin folder, as ruff's wheels do); this module finds
it and runs it for `python -m hyrax_search` and the `hyrax-search` command (which `uvx
hyrax-search` runs). Nothing here downloads anything: the binary and its model are in the wheel.
"""
import os
import sys
import sysconfig

__all__ = ["find_hyrax_bin", "main"]


def find_hyrax_bin():
    """The path of the installed hyrax binary; FileNotFoundError naming the folders looked in."""
    exe = "hyrax" + (sysconfig.get_config_var("EXE") or "")
    here = os.path.dirname(os.path.abspath(__file__))
    folders = [
        sysconfig.get_path("scripts"),                                   # this environment
        sysconfig.get_path("scripts", vars={"base": sys.base_prefix}),  # the base Python's
        os.path.join(here, "..", "..", "..", "..", "bin"),              # pip install --prefix
        os.path.join(here, "..", "bin"),                                # pip install --target
        sysconfig.get_path("scripts", sysconfig.get_preferred_scheme("user"))
        if hasattr(sysconfig, "get_preferred_scheme") else None,         # pip install --user
    ]
    for folder in filter(None, folders):
        path = os.path.normpath(os.path.join(folder, exe))
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError("the hyrax binary is not in any of: " + ", ".join(filter(None, folders)))


def main():
    """Replaces this process with the hyrax binary, passing the arguments on."""
    hyrax = find_hyrax_bin()
    os.execv(hyrax, [hyrax, *sys.argv[1:]])
