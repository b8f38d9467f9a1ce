"""smelt as a torch.compile backend:

    import torch, smelt.torch
    fast = torch.compile(model, backend=smelt.torch.backend)
    with torch.no_grad():
        y = fast(x)

How: TorchDynamo hands the backend an FX GraphModule and example inputs. The
module is exported to ONNX with torch.onnx.export (its TorchScript exporter,
dynamo=False: quicker than the dynamo exporter, and the GraphModule is already
traced; the dynamo exporter where that one fails), loaded with smelt.load, compiled for the host, and run on the tensors'
memory (CPU tensors become numpy arrays without a copy, and the outputs come
back the same way).

Where smelt cannot take the graph — autograd (smelt has no backward), tensors
off the CPU, symbolic shapes, dtypes smelt lacks, an ONNX op the importer does
not support, an export failure — the backend logs the reason on the
"smelt.torch" logger (WARNING) and returns the GraphModule to run eagerly.

This module imports without torch; torch is imported when the backend is called.
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from typing import Any, Callable, Sequence

import smelt

log = logging.getLogger("smelt.torch")

__all__ = ["backend", "Unsupported"]


class Unsupported(Exception):
    """Why a graph stays with PyTorch (logged; the graph then runs eagerly)."""


def backend(gm: Any, example_inputs: Sequence[Any], *, threads: int = 0) -> Callable[..., Any]:
    """A torch.compile backend: returns a callable running `gm` compiled by smelt,
    or `gm.forward` (eager PyTorch) with the reason logged where smelt cannot run it.

    threads: host threads the compiled program uses (0: every core); pass it with
    functools.partial(smelt.torch.backend, threads=1).
    """
    try:
        return _SmeltModule(gm, example_inputs, threads)
    except (Unsupported, smelt.Error) as reason:
        log.warning("smelt.torch: running the graph eagerly: %s", reason)
        return gm.forward


# torch dtype name → the numpy dtype smelt exchanges it as (bf16: its bits as uint16).
_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "int32": "i32", "int64": "i64",
           "bool": "bool"}


class _SmeltModule:
    """One FX graph compiled by smelt; called with the graph's tensors, returns its outputs."""

    def __init__(self, gm: Any, example_inputs: Sequence[Any], threads: int) -> None:
        import torch

        for i, x in enumerate(example_inputs):
            if not isinstance(x, torch.Tensor):
                raise Unsupported(f"input {i} is a {type(x).__name__}, not a tensor (symbolic shapes?)")
            if x.device.type != "cpu":
                raise Unsupported(f"input {i} is on {x.device}; smelt.torch runs on the CPU")
            if str(x.dtype).removeprefix("torch.") not in _DTYPES:
                raise Unsupported(f"input {i} has dtype {x.dtype}, which smelt does not have")
        if torch.is_grad_enabled() and any(x.requires_grad for x in example_inputs):
            raise Unsupported("gradients are enabled and an input requires grad: smelt has no backward "
                              "(run under torch.no_grad() or torch.inference_mode())")

        outputs = _output_node(gm).args[0]
        self._single_output = not isinstance(outputs, (tuple, list))
        self._container = None if self._single_output else type(outputs)

        names = [f"input{i}" for i in range(len(example_inputs))]
        with tempfile.TemporaryDirectory(prefix="smelt-torch-") as folder:
            path = os.path.join(folder, "graph.onnx")
            _export(torch, gm, tuple(example_inputs), path, names)
            graph = smelt.load(path)
        # The exporter drops inputs the graph does not use: pass only the ones it kept.
        self._used = [names.index(name) for name in graph.input_names]
        expected_outputs = 1 if self._single_output else len(outputs)
        if len(graph.outputs) != expected_outputs:
            raise Unsupported(f"the ONNX graph has {len(graph.outputs)} outputs, the FX graph {expected_outputs}")
        self.program = smelt.compile(graph, threads=threads)
        log.info("smelt.torch: compiled %d FX nodes into %d kernel(s)", len(gm.graph.nodes),
                 len(self.program.kernels))

    def __call__(self, *args: Any) -> Any:
        import torch

        arrays = [_to_numpy(args[i]) for i in self._used]
        outs = self.program(*arrays)
        if self._single_output:
            return _to_torch(outs, torch)
        if len(self.program.output_names) == 1:
            outs = (outs,)
        return self._container(_to_torch(o, torch) for o in outs)


def _export(torch: Any, gm: Any, args: tuple, path: str, names: list) -> None:
    """The TorchScript exporter first (deprecated since PyTorch 2.9, but quick: the
    module is already a traced graph), then the torch.export-based one."""
    failures = []
    for dynamo in (False, True):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                torch.onnx.export(gm, args, path, input_names=names, dynamo=dynamo)
            return
        except Exception as error:  # the exporters raise many types; all mean "cannot export"
            failures.append(f"torch.onnx.export(dynamo={dynamo}) failed: {type(error).__name__}: {error}")
    raise Unsupported("; ".join(failures))


def _output_node(gm: Any) -> Any:
    for node in reversed(gm.graph.nodes):
        if node.op == "output":
            return node
    raise Unsupported("the FX graph has no output node")


def _to_numpy(t: Any) -> Any:
    import torch

    t = t.detach()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: smelt takes the bits as uint16
        return t.view(torch.uint16).numpy()
    return t.numpy()


def _to_torch(array: Any, torch: Any) -> Any:
    tensor = torch.from_numpy(array)
    if array.dtype.name == "uint16":  # only bf16 outputs come back as uint16
        return tensor.view(torch.bfloat16)
    return tensor
