"""Where the float kernels run: a :class:`Device`, parsed once at a boundary (the command
line, :func:`exact.solve`, :meth:`exact.dp.store.Store.solve`) and passed whole below it.

The device owns what differs between the CPU kernels and a GPU's (:mod:`exact.cuda`):
how an objective is wrapped for the float level loop (:meth:`Device.wrap`), what a store
records as a level's writer (:meth:`Device.record`), and whether the values it writes are
the CPU kernels' bits (:attr:`Device.bit_exact`: a GPU may contract a multiply and an add
into one operation, so a store checks its levels within their radii instead).  A level a
store already holds says the same through :func:`recorded_bit_exact`.  Nothing below the
boundary compares a device's name.

>>> Device.parse("cuda+cpu").host_cores, Device.parse("cpu").bit_exact
(True, True)
>>> Device.parse("tpu")
Traceback (most recent call last):
    ...
exact.errors.GopsInputError: device must be one of cpu, cuda, cuda+cpu, got 'tpu'
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

from exact.errors import GopsInputError

__all__ = [
    "BACKENDS",
    "CPU",
    "CUDA_EXTRA",
    "DEVICES",
    "NAMES",
    "Device",
    "cuda_extra_installed",
    "recorded_bit_exact",
]

#: The backends a level can be written by: the CPU kernels, a CUDA GPU, numba's simulator.
BACKENDS = ("cpu", "cuda", "cuda-simulator")
#: How to install numba-cuda, the ``cuda`` extra: from PyPI, or in a clone of the project.
CUDA_EXTRA = "pip install 'gops-exact[cuda]' (in a clone: pip install -e '.[cuda]')"


def cuda_extra_installed() -> bool:
    """Whether numba-cuda (the ``cuda`` extra) is installed; numba's own CUDA target, which
    numba-cuda replaces, imports without it but finds no GPU."""
    try:
        importlib.metadata.distribution("numba-cuda")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@dataclass(frozen=True)
class Device:
    """One place the float kernels run: the CPU cores, a CUDA GPU, or both."""

    name: str
    #: Whether a CUDA GPU solves (some of) each chunk (exact.cuda).
    gpu: bool
    #: Whether the CPU cores solve the rest of each chunk beside the GPU.
    host_cores: bool

    @classmethod
    def parse(cls, device: str | Device) -> Device:
        """The device named ``device`` (one of :data:`NAMES`); one-line GopsInputError."""
        if isinstance(device, Device):
            return device
        for known in DEVICES:
            if known.name == device:
                return known
        raise GopsInputError(f"device must be one of {', '.join(NAMES)}, got {device!r}")

    @property
    def bit_exact(self) -> bool:
        """Whether every level it writes holds the CPU kernels' bits."""
        return not self.gpu

    def wrap(self, objective, exact_arithmetic: bool = False):
        """The objective whose chunks the float level loop runs on this device: itself on
        the CPU, else its device wrapper (exact.cuda.driver.DeviceObjective); one-line
        GopsInputError for rational arithmetic on a GPU, or no GPU."""
        if not self.gpu:
            return objective
        if exact_arithmetic:
            raise GopsInputError("the cuda device solves in float arithmetic only")
        try:  # imported here: numba's CUDA target is an optional extra, 0.2 s to import
            from exact.cuda import driver  # noqa: PLC0415
        except ImportError as exc:
            raise GopsInputError(
                f"no CUDA GPU found: numba's CUDA target cannot be imported ({exc}); " + CUDA_EXTRA
            ) from None
        try:
            driver.require_gpu()
        except GopsInputError as exc:
            if cuda_extra_installed():
                raise
            raise GopsInputError(f"{exc}; the cuda extra is not installed: {CUDA_EXTRA}") from None
        return driver.DeviceObjective(objective, host_cores=self.host_cores)

    def record(self) -> dict:
        """What a store records as the writer of the levels this device solves:
        {"backend": "cpu"}, or {"backend": "cuda" | "cuda-simulator", "device": the
        GPU's name} (the name only where numba reports one: not under the simulator),
        after :meth:`wrap` accepted the device."""
        if not self.gpu:
            return {"backend": CPU.name}
        from exact.cuda import driver  # noqa: PLC0415 - loaded already by wrap

        info = {"backend": driver.backend()}
        try:
            name = driver.cuda.get_current_device().name
        except Exception:  # noqa: BLE001 - the simulator has no device to name
            return info
        info["device"] = name.decode() if isinstance(name, bytes) else str(name)
        return info

    def __str__(self) -> str:
        return self.name


CPU = Device("cpu", gpu=False, host_cores=False)
#: Every device, in the order --device lists them.
DEVICES = (CPU, Device("cuda", gpu=True, host_cores=False), Device("cuda+cpu", True, True))
NAMES = tuple(d.name for d in DEVICES)


def recorded_bit_exact(writer: dict) -> bool:
    """Whether a level (or a solve) recorded as written by ``writer`` ({"backend": ...},
    a store's manifest entry) holds the CPU kernels' bits."""
    return writer.get("backend", CPU.name) == CPU.name
