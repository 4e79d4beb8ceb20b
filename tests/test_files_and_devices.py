"""Files the command line reads and writes that are not plain files: devices, FIFOs, stdout.

The atomic writer (exact/atomic.py) renames only over a regular file: standard output
(``-o -``, ``/dev/stdout``) and character devices (``/dev/null``, ``/dev/full``) are
written straight to, FIFOs and other special files are refused in one line; an existing
certificate is overwritten only with --force.  The readers (``gops check``, ``python -m
certificates``, ``gops audit --certificate``) refuse a FIFO instead of blocking on it, and
still read a pipe handed to them on standard input.

These tests may run as root: every test that names a device guards ``os.replace`` so that
no version of the writer can rename a file over a device, and checks the device afterwards.
"""

import os
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner

from exact.cli import main
from exact.errors import GopsInputError

#: A hung reader is killed after this many seconds (a FIFO with no writer blocks forever);
#: a process that only starts Python and imports the CLI took over 10 s on a 2-core
#: machine running four solves beside the tests.
HANG_S = 30
NOT_REGULAR = "is not a regular file"


def run(*args, **kwargs):
    """(exit code, stdout, stderr) of ``gops ARGS`` in this process."""
    result = CliRunner().invoke(main, [str(a) for a in args], **kwargs)
    return result.exit_code, result.stdout_bytes, result.stderr


def run_process(*argv, timeout=HANG_S, **kwargs):
    """(exit code, stdout bytes, stderr text) of a separate process, killed after ``timeout``."""
    p = subprocess.run([str(a) for a in argv], capture_output=True, timeout=timeout, **kwargs)
    return p.returncode, p.stdout, p.stderr.decode()


GOPS = [sys.executable, "-m", "exact.cli"]
CHECKER = [sys.executable, "-m", "certificates"]


def assert_one_line(code, err, fragment):
    assert code == 2, err
    assert err.startswith("gops: error: ") and err.count("\n") == 1, err
    assert fragment in err, err


@pytest.fixture
def no_rename_over_devices(monkeypatch):
    """os.replace refuses any destination under /dev (a wrong writer fails, not the host)."""
    real = os.replace

    def guarded(src, dst, *args, **kwargs):
        if os.path.abspath(dst).startswith("/dev/"):
            raise AssertionError(f"renamed over the device {dst}")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", guarded)
    yield
    for device in ("/dev/null", "/dev/full"):
        if os.path.lexists(device):
            assert stat.S_ISCHR(os.stat(device).st_mode), device
        assert not os.path.lexists(device + ".tmp")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.cert"
    os.mkfifo(path)
    yield path
    assert stat.S_ISFIFO(os.lstat(path).st_mode)  # still a FIFO: nothing renamed over it


@pytest.fixture(scope="module")
def cert2(tmp_path_factory):
    """A valid N = 2 certificate."""
    path = tmp_path_factory.mktemp("cert") / "g2.cert"
    assert run("certify", "2", "-o", path, "--quiet")[0] == 0
    return path


# -- 4. the atomic writer renames over regular files only ------------------------------------


def test_atomic_file_refuses_a_fifo(fifo):
    from exact.atomic import atomic_file

    with pytest.raises(GopsInputError, match=f"{fifo} {NOT_REGULAR}"), atomic_file(fifo) as fh:
        fh.write(b"x")
    assert list(fifo.parent.iterdir()) == [fifo]  # no temporary file left


def test_atomic_file_writes_dev_null_directly(no_rename_over_devices):
    from exact.atomic import atomic_file

    with atomic_file("/dev/null") as fh:
        fh.write(b"nothing")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_certify_to_dev_full_is_one_line(no_rename_over_devices):
    code, out, err = run("certify", "2", "-o", "/dev/full", "--quiet")
    assert_one_line(code, err, "No space left on device: /dev/full")


def test_certify_to_dev_null(no_rename_over_devices):
    code, out, err = run("certify", "2", "-o", "/dev/null", "--quiet")
    assert code == 0, err
    assert out.startswith(b"wrote /dev/null: N=2")


@pytest.mark.parametrize("target", ["-", "/dev/stdout"])
def test_certify_to_stdout(target, tmp_path, monkeypatch, no_rename_over_devices):
    monkeypatch.chdir(tmp_path)  # a wrong writer would leave a file named "-" here
    code, out, err = run("certify", "2", "-o", target, "--quiet")
    assert code == 0, err
    assert f"wrote {target}: N=2" in err  # the summary leaves stdout to the certificate
    copy = tmp_path / "copy.cert"
    copy.write_bytes(out)
    code, verdict, err = run("check", copy, "--quiet")
    assert code == 0 and verdict.startswith(b"valid: N=2"), err
    assert list(tmp_path.iterdir()) == [copy]


def test_certify_dash_in_a_process_writes_stdout(tmp_path):
    code, out, err = run_process(
        *GOPS, "certify", "2", "-o", "-", "--quiet", cwd=tmp_path, timeout=120
    )
    assert code == 0, err
    assert b"GOPS-CERTIFICATE" in out[:40] and "wrote -: N=2" in err
    assert list(tmp_path.iterdir()) == []  # no file named "-"
    code, verdict, err = run_process(*CHECKER, "/dev/stdin", "--quiet", input=out)
    assert code == 0 and verdict.startswith(b"valid: N=2"), err


def test_certify_to_a_fifo_is_refused(fifo):
    code, out, err = run_process(*GOPS, "certify", "2", "-o", fifo, "--quiet", timeout=120)
    assert_one_line(code, err, f"{fifo} {NOT_REGULAR}")


def test_certify_to_a_directory_is_refused(tmp_path):
    code, out, err = run("certify", "2", "-o", tmp_path, "--quiet")
    assert_one_line(code, err, "is a directory")
    assert list(tmp_path.iterdir()) == []


def test_certify_refuses_to_overwrite_without_force(tmp_path):
    target = tmp_path / "g2.cert"
    target.write_bytes(b"precious")
    code, out, err = run("certify", "2", "-o", target, "--quiet")
    assert_one_line(code, err, f"{target} exists; pass --force to overwrite it")
    assert target.read_bytes() == b"precious"
    code, out, err = run("certify", "2", "-o", target, "--quiet", "--force")
    assert code == 0, err
    assert run("check", target, "--quiet")[0] == 0
    assert sorted(tmp_path.iterdir()) == [target]


def test_certify_bounds_refuses_to_overwrite_without_force(tmp_path):
    target = tmp_path / "b2.cert"
    target.write_bytes(b"precious")
    code, out, err = run("certify", "2", "--bounds", "-o", target, "--quiet")
    assert_one_line(code, err, "exists; pass --force")
    assert target.read_bytes() == b"precious"


def test_certify_names_the_users_path_not_the_temporary_file(tmp_path):
    target = tmp_path / "missing" / "x.cert"
    code, out, err = run("certify", "2", "-o", target, "--quiet")
    assert_one_line(code, err, f"No such file or directory: {target}")
    assert ".tmp" not in err


def test_reproduce_refuses_a_fifo(fifo):
    code, out, err = run_process(*GOPS, "reproduce", "-o", fifo, "--force", timeout=120)
    assert_one_line(code, err, f"{fifo} {NOT_REGULAR}")


# -- 5. the readers refuse a FIFO instead of blocking; a pipe on stdin still works -----------


def test_check_a_fifo_does_not_hang(fifo):
    code, out, err = run_process(*GOPS, "check", fifo, "--quiet")
    assert_one_line(code, err, f"{fifo} {NOT_REGULAR}")
    assert out == b""


def test_checker_a_fifo_does_not_hang(fifo):
    code, out, err = run_process(*CHECKER, fifo, "--quiet")
    assert code == 2, err
    assert out.decode().startswith("unreadable: ") and NOT_REGULAR in out.decode()


def test_checker_api_refuses_a_fifo(fifo):
    # In a child process: the old reader blocks on the open.
    code, out, err = run_process(
        sys.executable,
        "-c",
        "import sys; from certificates import check; "
        "v = check(sys.argv[1]); print(v.code, v.message)",
        fifo,
    )
    assert code == 0, err
    assert out.decode().startswith(f"2 unreadable: {fifo} {NOT_REGULAR}")


def test_audit_certificate_fifo_does_not_hang(fifo):
    code, out, err = run_process(*GOPS, "audit", "2", "--certificate", fifo, "--quiet")
    assert_one_line(code, err, f"{fifo} {NOT_REGULAR}")


def test_checker_refuses_a_terminal_like_device():
    # /dev/zero never ends and is not a certificate anyone handed on stdin.
    code, out, err = run_process(*CHECKER, "/dev/zero", "--quiet", stdin=subprocess.DEVNULL)
    assert code == 2 and NOT_REGULAR in out.decode(), (out, err)


def test_check_reads_a_pipe_on_stdin(cert2):
    data = cert2.read_bytes()
    for argv in ([*GOPS, "check"], CHECKER):
        code, out, err = run_process(*argv, "/dev/stdin", "--quiet", input=data)
        assert code == 0 and out.startswith(b"valid: N=2"), err


def test_check_a_directory_is_one_line(tmp_path):
    code, out, err = run("check", tmp_path, "--quiet")
    assert code == 2 and "Traceback" not in err
    assert err.count("\n") == 1 and "directory" in err, err


def test_audit_certificate_regular_file_still_works(cert2):
    code, out, err = run("audit", "2", "--certificate", cert2, "--quiet")
    assert code == 0, err
    assert out.startswith(b"audit of 2-card GOPS")
