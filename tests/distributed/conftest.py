"""One LocalCluster (2 worker processes, 1 thread each, loopback) for every distributed
test module."""

import pytest


@pytest.fixture(scope="session")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()
