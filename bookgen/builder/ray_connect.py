"""Starting or joining Ray for a build, quietly, and failing in one line.

Two ways in:

* no ``--address``: an embedded local Ray on this machine's cores, secured
  with a token of its own (token authentication, without Ray's notice that
  it turned it on, and without writing a token file);
* ``--address``: a running cluster.  Before ``ray.init`` gets it (which
  retries a wrong address for minutes), the address is probed: a TCP
  connection, an HTTP/2 greeting (Ray speaks gRPC), then a GCS client that
  also tells a missing token apart.  Each probe is bounded, so a wrong
  address fails in seconds.  A ``ray://`` address (Ray Client) also needs
  ``grpc`` here and a client server on the head, which Ray opens only where
  ``ray[client]`` is installed: the ``cluster`` extra.

Ray's own log lines (its C++ core writes them straight to file descriptor 2)
go to a log file unless ``verbose``; when something fails, the one-line error
names that file, and the file is kept only then.  Every failure is a
``RayStartError``.  A Ctrl-C or SIGTERM during the start stays the caller's
(``interrupts``): Ray's own handlers would exit at once, leaving Ray processes behind.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
import tempfile
from contextlib import contextmanager, suppress

from solver.errors import C4Error

BOOKGEN_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # builder's parent

PROBE_SECONDS = 5.0
# A Ray Client head forks a server for each client, and that child sometimes dies at
# once (a gRPC race in Ray's proxier: ray-project/ray#63202): a new attempt gets a new one.
CLIENT_ATTEMPTS = 4
CLUSTER_HELP = "see 'On a multi-node Ray cluster' in the README"
CLUSTER_EXTRA = "pip install 'c4book[cluster]'"  # Ray Client and the Jobs API
# An HTTP/2 client's opening bytes and an empty SETTINGS frame: a gRPC server
# answers with a SETTINGS frame (type 4) of its own.
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_SETTINGS_FRAME = 4


class RayStartError(C4Error, RuntimeError):
    """Ray could not be started here, or the cluster at ``--address`` not joined."""


def connect(address: str | None, workers: int | None, *, verbose: bool = False) -> bool:
    """Make sure Ray is up; returns True when this call started it (and owns it)."""
    import ray

    if ray.is_initialized():
        return False
    if address in (None, "local"):
        start_local(workers, verbose=verbose)
    else:
        join_cluster(address, verbose=verbose)
    return True


def start_local(workers: int | None, *, verbose: bool = False) -> None:
    """A fresh embedded Ray, never a cluster that happens to run on this machine."""
    import ray

    _secure_local_ray()
    with _starting(verbose) as log:
        try:
            ray.init(
                address="local",
                num_cpus=workers or os.cpu_count(),
                include_dashboard=False,
                log_to_driver=verbose,
                logging_level="INFO" if verbose else "ERROR",  # type: ignore[arg-type]  # Ray takes a level's name too
            )
        except Exception as error:  # noqa: BLE001 - whatever Ray raises, one RayStartError
            raise RayStartError(
                f"could not start Ray on this machine: {_first_line(error)}; check free space "
                f"and permissions in {os.environ.get('RAY_TMPDIR') or tempfile.gettempdir()} "
                "and that `ray status` shows no broken Ray here, then retry"
                f"{_log_hint(log, verbose)}"
            ) from None


def join_cluster(address: str, *, verbose: bool = False) -> None:
    """Join the running cluster at ``address`` ('auto', HOST:PORT or ray://HOST:PORT)."""
    import ray

    import solver

    from .cluster import check_address

    target = _resolve(check_address(address))
    why = _no_answer(target)
    if target.startswith("ray://"):
        _check_client(address, target, why)
    elif why:
        raise _no_cluster(address, why)
    else:
        _check_gcs(address, target, verbose)
    for attempt in range(1, CLIENT_ATTEMPTS + 1):
        with _starting(verbose) as log:
            try:
                # Ship our own code to the cluster: workers read nothing from local files.
                # As folders: Ray Client pickles the runtime env, and a module will not pickle.
                ray.init(
                    address=target,
                    log_to_driver=verbose,
                    logging_level="INFO" if verbose else "ERROR",  # type: ignore[arg-type]  # Ray takes a level's name too
                    runtime_env={
                        "py_modules": [
                            os.path.dirname(solver.__file__),  # (an __init__.py)
                            BOOKGEN_FOLDER,
                        ]
                    },
                )
            except Exception as error:  # noqa: BLE001 - whatever Ray raises, one RayStartError
                if attempt < CLIENT_ATTEMPTS and _client_server_crashed(target, error):
                    continue
                raise _join_error(address, error, log, verbose) from None
            else:
                return


# -- the embedded Ray ----------------------------------------------------------


def _secure_local_ray() -> None:
    """Token authentication for the local Ray, with a token known to this build only.

    Ray turns token authentication on by itself for a local Ray, but then
    warns about it on every start and writes ``~/.ray/auth_token``.  Asking
    for it explicitly silences the warning; an in-memory token (inherited by
    Ray's processes through the environment) keeps the home directory clean.
    A user's own ``RAY_AUTH_MODE=disabled``, and a user's own token, are respected.
    """
    mode = os.environ.setdefault("RAY_AUTH_MODE", "token")
    if mode.lower() != "token":
        return
    if not _token_available():
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    _reload_ray_auth_config()


def _token_available() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.expanduser("~/.ray/auth_token")
    return os.path.isfile(path)


def _reload_ray_auth_config() -> None:
    """Ray caches its config and token in C++; make it see the environment now."""
    try:
        from ray._raylet import (  # type: ignore[attr-defined]  # Ray's stubs omit them
            AuthenticationTokenLoader,
            Config,
        )

        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()
    except (ImportError, AttributeError):  # another Ray version: it reads them at start
        pass


# -- probing a cluster address -----------------------------------------------


def _resolve(address: str) -> str:
    """'auto' becomes the address of the cluster running on this machine."""
    if address != "auto":
        return address
    from ray._private.services import canonicalize_bootstrap_address

    try:
        found = canonicalize_bootstrap_address("auto")
    except Exception:  # noqa: BLE001 - no address found, said below
        found = None
    if not found:
        raise RayStartError(
            "no Ray cluster runs on this machine (--address auto); start one "
            f"with `ray start --head`, or pass --address HEAD_IP:6379 ({CLUSTER_HELP})"
        )
    return found


def _host_port(target: str) -> tuple[str, int]:
    host, _, port = target.removeprefix("ray://").rpartition(":")
    return host.strip("[]"), int(port)


def _no_cluster(address: str, why: str) -> RayStartError:
    start = "`ray start --head`"
    if address.startswith("ray://"):
        start += (
            f" on a head with the cluster extra ({CLUSTER_EXTRA}: without it Ray "
            "opens no Ray Client server)"
        )
    return RayStartError(
        f"no Ray cluster answers at {address} ({why}); start one with "
        f"{start}, or check the address ({CLUSTER_HELP})"
    )


def _no_answer(target: str) -> str | None:
    """Why nothing at ``target`` greets like a gRPC server (None: something does);
    within seconds."""
    host, port = _host_port(target)
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS) as sock:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return None  # a TLS handshake would come first: leave the rest to Ray
            sock.settimeout(PROBE_SECONDS)
            sock.sendall(_HTTP2_PREFACE)
            header = _read_exactly(sock, 9)
    except socket.gaierror:
        return f"unknown host {host!r}"
    except TimeoutError:
        return f"no answer within {PROBE_SECONDS:.0f} s"
    except ConnectionRefusedError:
        return "connection refused"
    except OSError as error:
        return error.strerror or str(error)
    if len(header) < 9 or header[3] != _SETTINGS_FRAME:
        return "something else listens on that port"
    return None


def _check_client(address: str, target: str, why: str | None) -> None:
    """A ``ray://`` address: a client server answers there, and this Python has Ray
    Client.  Where none answers, a head answering at the GCS's usual port is a cluster
    started without the extra, which opens no client server: said apart from no cluster."""
    from ray._private.ray_constants import DEFAULT_PORT

    try:
        import grpc  # noqa: F401  (what Ray Client needs, and ``pip install -e .`` lacks)

        missing = None
    except ImportError as error:
        missing = error
    if why:
        host, _ = _host_port(target)
        head = f"{host}:{DEFAULT_PORT}"
        if _no_answer(head) is not None:
            raise _no_cluster(address, why)
        where = "the head node" + (" and here" if missing else "")
        raise RayStartError(
            f"a Ray head answers at {head}, but no Ray Client server at {address} ({why}): "
            f"Ray opens one only where ray[client] is installed; on {where} run "
            f"{CLUSTER_EXTRA}, then restart the head (`ray stop`, `ray start --head`), or "
            f"run the build on a node of the cluster with --address {head} ({CLUSTER_HELP})"
        )
    if missing is not None:
        raise RayStartError(
            f"--address {address} needs Ray Client, which this Python lacks "
            f"({missing}): {CLUSTER_EXTRA} ({CLUSTER_HELP})"
        )


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _check_gcs(address: str, target: str, verbose: bool) -> None:
    """Ask the cluster's GCS for its id: fails at once on a missing or wrong token."""
    from ray._private.authentication.authentication_token_setup import AUTH_MODE_ENV_VAR

    if os.environ.get(AUTH_MODE_ENV_VAR, "").lower() == "token" and not _token_available():
        raise RayStartError(
            f"RAY_AUTH_MODE=token but no Ray token here to join {address}: "
            "copy the head node's ~/.ray/auth_token or set RAY_AUTH_TOKEN "
            f"({CLUSTER_HELP})"
        )
    try:
        from ray._raylet import GcsClient  # type: ignore[attr-defined]  # Ray's stubs omit it
    except ImportError:
        return
    with _ray_output(verbose) as log:
        try:
            GcsClient(address=target)
        except Exception as error:  # noqa: BLE001 - whatever Ray raises, one RayStartError
            raise _join_error(address, error, log, verbose) from None


def _join_error(address: str, error: Exception, log: str | None, verbose: bool) -> RayStartError:
    text = f"{type(error).__name__}: {error}"
    if any(word in text for word in ("Unauthenticated", "InvalidAuthToken", "AuthenticationError")):
        if os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
            return RayStartError(
                f"the Ray cluster at {address} requires a token: export RAY_AUTH_MODE=token "
                f"and give this machine the cluster's token ({CLUSTER_HELP})"
            )
        return RayStartError(
            f"the Ray cluster at {address} refused this machine's token: "
            f"use the head node's token ({CLUSTER_HELP})"
        )
    if "version" in text.lower() and "mismatch" in text.lower():
        return RayStartError(
            f"the Ray cluster at {address} runs another Ray or Python "
            f"version: {_first_line(error)}; install the same versions as "
            f"on the head node{_log_hint(log, verbose)}"
        )
    if "Timed out" in text or "TimedOut" in text:
        return _no_cluster(address, "its GCS does not answer")
    return RayStartError(
        f"could not join the Ray cluster at {address}: {_first_line(error)}"
        f"{_log_hint(log, verbose)}"
    )


# -- around ray.init: its output, the signals, a start cut short --------------


@contextmanager
def _starting(verbose: bool):
    """Around ``ray.init``: Ray's output kept off the terminal (``_ray_output``), the
    caller's signal handlers kept, and a start cut short (a second Ctrl-C, a failure)
    undone, so that no Ray process of it outlives the command."""
    with _ray_output(verbose) as log, _keep_signal_handlers():
        try:
            yield log
        except BaseException:
            _shutdown_quietly()
            raise


@contextmanager
def _keep_signal_handlers():
    """Keep this process's SIGTERM handler through ``ray.init`` and ``ray.shutdown``.

    ``ray.init`` installs Python handlers that exit at once (leaving the Ray
    processes it was starting), and the driver's C++ core one that ``ray.shutdown``
    resets to the default, so that a SIGTERM then kills the driver outright.  A
    process with no handler of its own keeps Ray's.  Without the C++ handler, only
    its stack trace is missing should the driver itself crash.
    """
    import signal

    from ray._private import ray_constants, utils

    install = getattr(utils, "set_sigterm_handler", None)
    if not callable(signal.getsignal(signal.SIGTERM)) or install is None:
        yield
        return
    crash_handler = getattr(ray_constants, "RAY_DISABLE_FAILURE_SIGNAL_HANDLER", False)
    ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = True  # read as the core worker starts
    utils.set_sigterm_handler = lambda handler: None
    try:
        yield
    finally:
        utils.set_sigterm_handler = install
        ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = crash_handler


@contextmanager
def _ray_output(verbose: bool):
    """Send file descriptor 2 to a log file for the duration, unless ``verbose``.

    Yields the log's path (``None`` when verbose).  The log is kept only when
    the error that ends the block names it (``_log_hint``): else no one would
    know it is there.
    """
    if verbose:
        yield None
        return
    sys.stderr.flush()
    fd, path = tempfile.mkstemp(prefix="c4book-ray-", suffix=".log")
    saved = os.dup(2)
    os.dup2(fd, 2)
    os.close(fd)
    named = False
    try:
        yield path
    except BaseException as error:
        named = path in str(error)
        raise
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        if not named:
            os.unlink(path)


def _log_hint(log: str | None, verbose: bool) -> str:
    if verbose:
        return ""
    if log is not None and os.path.exists(log) and os.path.getsize(log):
        return f" (Ray's messages: {log}; or rerun with --verbose)"
    return " (rerun with --verbose for Ray's messages)"


def _client_server_crashed(target: str, error: BaseException) -> bool:
    """Whether a Ray Client head said that the server it started for us died."""
    return target.startswith("ray://") and "Starting Ray client server failed" in str(error)


def _first_line(error: BaseException) -> str:
    """The error's first line; when that line only introduces a traceback sent by the
    cluster (Ray Client's "Initialization failure from server:"), the traceback's
    last line too, which names the cause."""
    lines = [line.strip() for line in (str(error).strip() or type(error).__name__).splitlines()]
    first = lines[0]
    cause = next((line for line in reversed(lines[1:]) if line), None)
    if first.endswith(":") and cause is not None:
        first = f"{first} {cause}"
    return first[:300]


def _shutdown_quietly() -> None:
    """Undo a half-made start, so nothing of it outlives the failed command."""
    import ray

    with suppress(Exception):  # a cleanup after a failure, which is the error to show
        ray.shutdown()
