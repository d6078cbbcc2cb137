# mypy: ignore-errors
"""Import stubs for SGLang's compiled CUDA-only dependencies.

`install()` puts a meta-path finder in front of sys.meta_path.  Any import of
one of STUBBED (or a submodule of it) gets a permissive module: every
attribute is a permissive stub class, calling one returns a stub instance,
and a stub instance answers any attribute, call, index or iteration.  That is
enough for module-level `from sgl_kernel import foo`, decorators, base
classes and enum-like constants, which is all argument resolution touches.
Nothing here computes anything; a code path that would really run a kernel
gets stub objects back and usually fails later with a TypeError, which the
oracle classifies as a harness error because the innermost frame is in this
file or the exception type is a stub type.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types

STUBBED = {
    "sgl_kernel": "0.4.10",
    "sglang_kernel": "0.4.10",
    "flashinfer": "0.7.2",
    "deep_gemm": "0.2.3",
    "flash_mla": "1.0.0",
    "deep_ep": "0.1.2",
    "flash_attn": "4.0.0",
    "flash_attn_interface": "3.0.0",
    "tilelang": "0.1.12",
    "quack": "0.6.5",
    "cutlass": "4.8.0",
    "humming": "0.1.12",
    "triton_kernels": "0.0.0",
    "nvshmem": "0.0.0",
    "nvshmem4py": "0.0.0",
    "torch_memory_saver": "0.0.9",
    "sgl_flash_mla": "1.0.0",
    "deepseek_recipe": "0.2.0",
    "tml_renderers": "0.1.0",
    "mathdx": "25.6.0",
    "nvmath": "0.0.0",
    "kernels": "0.14.1",
    "outlines": "0.1.11",
    "smg_grpc_servicer": "0.9.0",
}


class StubError(RuntimeError):
    """Raised when a stub would have to produce a real value (a kernel ran)."""


class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _make_class(f"{cls.__qualname__}.{name}", cls.__module__)
        setattr(cls, name, value)
        return value

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __bool__(cls):
        return True

    def __getitem__(cls, item):
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __or__

    def __int__(cls):
        return 0

    def __index__(cls):
        return 0


class _StubBase(metaclass=_StubMeta):
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _make_class(f"{type(self).__qualname__}.{name}", type(self).__module__)

    def __call__(self, *args, **kwargs):
        # Used as a decorator: hand back the decorated function unchanged.
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _StubBase()

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __getitem__(self, item):
        return _StubBase()

    def __bool__(self):
        return False


def _make_class(qualname: str, module: str):
    name = qualname.rsplit(".", 1)[-1]
    cls = _StubMeta(name, (_StubBase,), {"__module__": module, "__qualname__": qualname})
    return cls


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _make_class(name, self.__name__)
        setattr(self, name, value)
        return value


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        mod = _StubModule(spec.name)
        return mod

    def exec_module(self, module):
        top = module.__name__.split(".")[0]
        module.__version__ = STUBBED.get(top, "0.0.0")
        module.__path__ = []  # a package, so any submodule can be imported
        module.__file__ = f"<sglang-oracle stub {module.__name__}>"
        module.__sglang_oracle_stub__ = True


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        top = fullname.split(".")[0]
        if top in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)
        return None


_FINDER = _Finder()


def install(extra=()):
    for name in extra:
        STUBBED.setdefault(name, "0.0.0")
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _patch_metadata()


def _patch_metadata():
    """importlib.metadata.version() answers for stubbed distributions too."""
    import importlib.metadata as md

    if getattr(md.version, "_sglang_oracle", False):
        return
    real_version = md.version
    dist_names = {
        "sgl-kernel": "0.4.10",
        "sgl_kernel": "0.4.10",
        "sglang-kernel": "0.4.10",
        "sglang_kernel": "0.4.10",
        "flashinfer-python": "0.7.2",
        "flashinfer_python": "0.7.2",
        "flashinfer-cubin": "0.7.2",
        "flashinfer_cubin": "0.7.2",
        "flashinfer-jit-cache": "0.7.2",
        "sgl-deep-gemm": "0.2.3.post2",
        "deep-gemm": "0.2.3",
        "flash-attn-4": "4.0.0b18",
        "nvidia-cutlass-dsl": "4.8.0",
        "quack-kernels": "0.6.5",
        "tilelang": "0.1.12",
        "torch_memory_saver": "0.0.9.post1",
        "torch-memory-saver": "0.0.9.post1",
    }

    def version(name):
        try:
            return real_version(name)
        except md.PackageNotFoundError:
            if name in dist_names:
                return dist_names[name]
            raise

    version._sglang_oracle = True
    md.version = version

