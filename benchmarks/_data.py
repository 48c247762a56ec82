"""Where the benchmark scripts find the public data sets: the workspace's shared data
folder next to the repository (``../shared/data``, as the developers' guide lays it
out), or a folder named by an environment variable. Nothing is downloaded."""

import os

#: the shared data folder beside the repository
SHARED_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                           "shared", "data")


def data_folder(name, env=None):
    """The folder of data set ``name``: the environment variable ``env`` when it names
    a folder, else ``SHARED_DATA/name`` when it exists, else None. O(1)."""
    for d in (os.environ.get(env) if env else None, os.path.join(SHARED_DATA, name)):
        if d and os.path.isdir(d):
            return d
    return None
