"""``bookgen.builder.ray_connect``: Ray that will not start, addresses where no cluster answers,
a cluster that wants a token, and a quiet, token-secured embedded Ray.

Every failure is provoked for real: a port nobody listens on, a port held by a
plain socket, a temp dir Ray cannot use, a real token-protected cluster.
"""

import glob
import os
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from conftest import SMALL_ROOT, c4book_command, serving

FAIL_WITHIN = 30  # seconds: the bound for a wrong --address


def c4book_build(db: str, *extra: str, env: dict | None = None, timeout: float = 120):
    """``c4book build`` in this environment changed by ``env`` (None removes a variable)."""
    args = [
        *c4book_command(),
        "build",
        "--root",
        SMALL_ROOT,
        "--db",
        db,
        "--no-progress",
        "--table-log2",
        "18",
        *extra,
    ]
    changed = {**os.environ, **(env or {})}
    started = time.monotonic()
    result = subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={k: v for k, v in changed.items() if v is not None},
    )
    return result, time.monotonic() - started


def one_line_error(result) -> str:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("c4book build: error: "), lines[0]
    return lines[0]


def book_state(path: str) -> tuple[list, list, dict]:
    """Rows, segments (a sealed ply's blob) and metadata, as stored."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT * FROM positions ORDER BY key").fetchall()
        segments = conn.execute("SELECT * FROM segments ORDER BY id").fetchall()
        meta = dict(conn.execute("SELECT name, value FROM meta"))
    return rows, segments, meta


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_nothing_listening_at_the_address(tmp_path):
    port = free_port()
    db = str(tmp_path / "new.db")
    result, seconds = c4book_build(db, "--ply", "10", "--address", f"127.0.0.1:{port}")
    line = one_line_error(result)
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in line
    assert "ray start --head" in line and "README" in line
    assert seconds < FAIL_WITHIN
    assert not os.path.exists(db)


def test_a_port_held_by_something_else(small_book_copy):
    before = book_state(small_book_copy)
    with socket.socket() as server:  # accepts connections, never speaks gRPC
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = f"127.0.0.1:{server.getsockname()[1]}"
        result, seconds = c4book_build(small_book_copy, "--ply", "13", "--address", address)
    line = one_line_error(result)
    assert f"no Ray cluster answers at {address}" in line and "ray start --head" in line
    assert seconds < FAIL_WITHIN
    assert book_state(small_book_copy) == before  # rows, segments, metadata, lock row included


def test_ray_that_cannot_start_is_one_line_and_leaves_the_book(small_book_copy, tmp_path):
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("Ray wants a directory here\n")
    env = {"RAY_TMPDIR": str(not_a_dir)}
    before = book_state(small_book_copy)
    result, _ = c4book_build(small_book_copy, "--ply", "13", env=env)
    line = one_line_error(result)
    assert "could not start Ray on this machine" in line and str(not_a_dir) in line
    assert book_state(small_book_copy) == before

    new = str(tmp_path / "new.db")
    result, _ = c4book_build(new, "--ply", "10", env=env)
    assert "could not start Ray" in one_line_error(result)
    assert not os.path.exists(new)  # a book this run would have made is not left behind


def run_python(code: str, env: dict | None = None, timeout: float = 120):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_embedded_ray_is_quiet_and_wants_a_token(tmp_path):
    # A clean environment: no auth settings, and a home without ~/.ray/auth_token.
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    env["HOME"] = str(tmp_path)
    with serving(
        """
            import sys, ray
            from bookgen.builder.ray_connect import connect
            assert connect(None, 1)
            assert ray.get(ray.remote(lambda: 6 * 7).remote()) == 42
            print(ray.get_runtime_context().gcs_address, flush=True)
            sys.stdin.read()
            ray.shutdown()
            """,
        env,
    ) as local:
        # Without the token, the embedded Ray's GCS turns a client away.
        probe = run_python(
            f"""
            from ray._raylet import GcsClient
            try:
                GcsClient(address={local.first_line!r})
            except Exception as error:
                print(type(error).__name__, error)
        """,
            env=env,
            timeout=60,
        )
        assert "InvalidAuthToken" in probe.stdout, probe.stdout + probe.stderr
    assert local.returncode == 0, local.stderr
    assert local.stderr.strip() == ""  # not a word from Ray: no token notice, no warnings
    assert not (tmp_path / ".ray").exists()  # and no token file written


def without_ray_auth(home) -> dict:
    """No Ray auth settings (this process's Ray set RAY_AUTH_MODE), and a home
    without ~/.ray/auth_token."""
    return {**{k: None for k in os.environ if k.startswith("RAY_AUTH")}, "HOME": str(home)}


def test_a_local_build_prints_nothing_from_ray(tmp_path):
    env = without_ray_auth(tmp_path)
    result, _ = c4book_build(
        str(tmp_path / "quiet.db"), "--ply", "9", "--workers", "1", env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("book "), result.stderr  # the summary, and only it
    assert "Token" not in result.stderr and "WARNING" not in result.stderr
    ray_home = tmp_path / ".ray"
    assert not ray_home.exists(), sorted(p.name for p in ray_home.rglob("*"))


@contextmanager
def ray_head(**head_args):
    """A real one-node Ray cluster that requires a token, in its own process, started
    with ``head_args`` too: its GCS address and token."""
    token = "c4book-test-" + os.urandom(8).hex()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}
    with serving(
        f"""
            import sys
            from ray.cluster_utils import Cluster
            cluster = Cluster(initialize_head=True, head_node_args={{
                "num_cpus": 1, "include_dashboard": False, **{head_args!r}}})
            print(cluster.address, flush=True)
            sys.stdin.read()
            cluster.shutdown()
            """,
        env,
    ) as head:
        yield head.first_line, token


@pytest.fixture(scope="module")
def token_cluster():
    with ray_head() as head:
        yield head


def test_a_cluster_wanting_a_token_says_so(token_cluster, tmp_path):
    address, _ = token_cluster
    # No RAY_AUTH_* variable, nor ~/.ray/auth_token.
    env = {k: None for k in os.environ if k.startswith("RAY_AUTH")} | {"HOME": str(tmp_path)}
    db = str(tmp_path / "new.db")
    result, took = c4book_build(db, "--ply", "9", "--address", address, env=env)
    line = one_line_error(result)
    assert f"the Ray cluster at {address} requires a token" in line
    assert "RAY_AUTH_MODE=token" in line and "README" in line
    assert took < FAIL_WITHIN
    assert not os.path.exists(db)

    env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="not-the-token")
    result, _ = c4book_build(db, "--ply", "9", "--address", address, env=env)
    assert "refused this machine's token" in one_line_error(result)


def test_with_the_token_the_build_runs_on_the_cluster(token_cluster, tmp_path):
    address, token = token_cluster
    db = str(tmp_path / "joined.db")
    result, _ = c4book_build(
        db,
        "--ply",
        "9",
        "--address",
        address,
        env={"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "searched 6 frontier positions" in result.stderr
    assert "WARNING" not in result.stderr and "rpc_client" not in result.stderr


@pytest.mark.slow  # (about a minute in CI; test_driver grows a 6x5 book on local Ray)
def test_a_book_of_another_board_builds_on_the_cluster(token_cluster, tmp_path, six_by_five):
    """``--board 6x5`` with ``--address``: the cluster's workers load and run the 6x5
    kernels, and the book equals a local build's, entry by entry."""
    from conftest import open_store

    address, token = token_cluster
    db = str(tmp_path / "six-remote.db")
    args = [
        *c4book_command(),
        "build",
        "--board",
        "6x5",
        "--ply",
        "5",
        "--db",
        db,
        "--no-progress",
        "--table-log2",
        "18",
        "--address",
        address,
    ]
    result = subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token},
    )
    assert result.returncode == 0, result.stderr
    assert "6x5 board" in result.stderr and "searched 1,128 frontier positions" in result.stderr
    remote, local = open_store(db), open_store(six_by_five)
    try:
        assert remote.board is local.board
        for ply in range(6):
            got, expected = remote.entries_at(ply), local.entries_at(ply)
            assert got.keys.tolist() == expected.keys.tolist(), ply
            assert got.scores.tolist() == expected.scores.tolist(), ply
    finally:
        remote.close()
        local.close()


# -- ray:// (Ray Client): the cluster extra ----------------------------------------------


def has_ray_client() -> bool:
    try:
        import grpc  # noqa: F401
    except ImportError:
        return False
    return True


def usual_gcs_port_free() -> bool:
    from ray._private.ray_constants import DEFAULT_PORT

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", DEFAULT_PORT)) != 0


@pytest.mark.skipif(has_ray_client(), reason="Ray Client (the cluster extra) is installed here")
def test_ray_client_missing_here_names_the_extra(token_cluster, tmp_path):
    """``pip install -e .`` brings no grpc: a ray:// address where a gRPC server answers
    is refused at once, naming the extra."""
    address = f"ray://{token_cluster[0]}"
    result, seconds = c4book_build(str(tmp_path / "new.db"), "--ply", "9", "--address", address)
    line = one_line_error(result)
    assert f"--address {address} needs Ray Client, which this Python lacks" in line
    assert "grpc" in line and "pip install 'c4book[cluster]'" in line
    assert seconds < FAIL_WITHIN


def test_a_head_without_a_client_server_is_told_from_no_cluster(tmp_path):
    """A head started without ray[client] opens no client server at 10001: the error says
    that a head answers, and which extra it lacks, not that no cluster runs."""
    from ray._private.ray_constants import DEFAULT_PORT

    if not usual_gcs_port_free():
        pytest.skip(f"port {DEFAULT_PORT} is taken on this machine")
    client = f"ray://127.0.0.1:{free_port()}"
    result, _ = c4book_build(str(tmp_path / "none.db"), "--ply", "9", "--address", client)
    line = one_line_error(result)
    assert f"no Ray cluster answers at {client} (connection refused)" in line
    assert "pip install 'c4book[cluster]'" in line and "opens no Ray Client server" in line

    with ray_head(gcs_server_port=DEFAULT_PORT):
        result, seconds = c4book_build(str(tmp_path / "head.db"), "--ply", "9", "--address", client)
    line = one_line_error(result)
    assert (
        f"a Ray head answers at 127.0.0.1:{DEFAULT_PORT}, but no Ray Client server at "
        f"{client} (connection refused)" in line
    )
    assert "pip install 'c4book[cluster]'" in line and "ray start --head" in line
    assert seconds < FAIL_WITHIN


@pytest.mark.slow  # 20 s: a head with a client server; its refusals stay in the default run
@pytest.mark.skipif(not has_ray_client(), reason="needs Ray Client: pip install -e '.[cluster]'")
def test_with_the_cluster_extra_a_ray_client_build_runs(tmp_path):
    port = free_port()
    with ray_head(ray_client_server_port=port) as (_, token):
        result, _ = c4book_build(
            str(tmp_path / "client.db"),
            "--ply",
            "9",
            "--address",
            f"ray://127.0.0.1:{port}",
            env={"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token},
            timeout=300,
        )
    assert result.returncode == 0, result.stderr + client_server_logs()
    assert "searched 6 frontier positions" in result.stderr


def client_server_logs() -> str:
    """The tails of the newest Ray session's client server logs, to tell why a join failed."""
    logs = sorted(glob.glob("/tmp/ray/session_latest/logs/ray_client_server*.err"))
    return "".join(f"\n--- {log}:\n" + Path(log).read_text()[-2000:] for log in logs)


def test_a_failed_join_leaves_no_log_it_does_not_name(token_cluster, tmp_path):
    """Each start sends Ray's output to a /tmp/c4book-ray-*.log: kept only when the error
    names it (a refused token's error does not)."""
    logs = tmp_path / "tmp"
    logs.mkdir()
    env = {k: None for k in os.environ if k.startswith("RAY_AUTH")}
    env.update(
        TMPDIR=str(logs), HOME=str(tmp_path), RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="not-the-token"
    )
    result, _ = c4book_build(
        str(tmp_path / "new.db"), "--ply", "9", "--address", token_cluster[0], env=env
    )
    assert "refused this machine's token" in one_line_error(result)
    assert list(logs.glob("c4book-ray-*")) == []


def test_a_failure_sent_as_a_traceback_is_told_by_its_last_line():
    """Ray Client's refusal is a header line and the server's traceback: the one-line
    error keeps the header and the traceback's last line, which names the cause."""
    from bookgen.builder.ray_connect import _first_line

    error = ConnectionAbortedError(
        "Initialization failure from server:\nTraceback (most recent call last):\n"
        '  File "proxier.py", line 770, in Datapath\n'
        "RuntimeError: Proxy failed to Connect to backend!\n"
    )
    assert _first_line(error) == (
        "Initialization failure from server: RuntimeError: Proxy failed to Connect to backend!"
    )
    assert _first_line(ValueError("one line\nand more")) == "one line"
    assert _first_line(TimeoutError()) == "TimeoutError"


def test_only_a_client_server_that_died_is_started_again():
    """Ray's proxier forks a server per client, which sometimes dies at once (a gRPC
    race, ray-project/ray#63202): the join tries again then, and for nothing else."""
    from bookgen.builder.ray_connect import _client_server_crashed

    died = ConnectionAbortedError(
        "Initialization failure from server:\nRuntimeError: Starting Ray client server "
        "failed. See ray_client_server_23000.err for detailed logs."
    )
    assert _client_server_crashed("ray://10.0.0.1:10001", died)
    assert not _client_server_crashed("10.0.0.1:6379", died)
    assert not _client_server_crashed("ray://10.0.0.1:10001", ConnectionError("refused"))
