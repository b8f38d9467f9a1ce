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

Where smelt cannot take the graph's inputs — autograd (smelt has no backward),
tensors off the CPU, symbolic shapes, dtypes smelt lacks — the backend logs the
reason on the "smelt.torch" logger (WARNING) and returns the GraphModule to run
eagerly. Where it cannot take some of its ops (an ONNX op the importer does not
support, an export failure), it falls back op by op: each op is tried alone
(exported and loaded), the ops smelt takes are grouped into the largest
partitions torch.fx's CapabilityBasedPartitioner finds, each compiled by smelt
on its first call, and the others run eagerly, each named in the log with why.

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
        _check_inputs(example_inputs)
    except Unsupported as reason:
        log.warning("smelt.torch: running the graph eagerly: %s", reason)
        return gm.forward
    try:
        return _SmeltModule(gm, example_inputs, threads)
    except (Unsupported, smelt.Error) as reason:
        return _op_by_op(gm, example_inputs, threads, reason)


# torch dtype name → the numpy dtype smelt exchanges it as (bf16: its bits as uint16).
_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "int32": "i32", "int64": "i64",
           "bool": "bool"}


class _SmeltModule:
    """One FX graph compiled by smelt; called with the graph's tensors, returns its outputs."""

    def __init__(self, gm: Any, example_inputs: Sequence[Any], threads: int) -> None:
        import torch

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


def _check_inputs(example_inputs: Sequence[Any]) -> None:
    """Raises Unsupported where smelt cannot take the graph's inputs at all."""
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


def _op_by_op(gm: Any, example_inputs: Sequence[Any], threads: int, reason: Exception) -> Callable[..., Any]:
    """The graph with the ops smelt takes grouped into partitions compiled by smelt
    (on their first call) and the others run by PyTorch; gm.forward where none is taken."""
    import torch
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    from torch.fx.passes.shape_prop import ShapeProp

    try:
        ShapeProp(gm).propagate(*example_inputs)  # every node's shape and dtype, for trying it alone
    except Exception as error:  # noqa: BLE001 - any failure means: no shapes, no partitions
        log.warning("smelt.torch: running the graph eagerly: %s (and its shapes are unknown: %s)", reason, error)
        return gm.forward
    support = _op_support(torch)
    partitioner = CapabilityBasedPartitioner(gm, support, allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    if not partitions:
        log.warning("smelt.torch: running the graph eagerly: %s", reason)
        return gm.forward
    fused = partitioner.fuse_partitions(partitions)
    for name, child in list(fused.named_children()):
        if name.startswith("fused_"):
            setattr(fused, name, _compile_on_first_call(torch, child, threads))
    eager = ", ".join(f"{op} ({why})" for op, why in support.refused.items())
    log.warning("smelt.torch: the whole graph does not compile (%s); op by op: %d partition(s) in smelt, "
                "eagerly: %s", reason, len(partitions), eager)
    return fused.forward


def _op_support(torch: Any) -> Any:
    """Which FX nodes smelt takes, for CapabilityBasedPartitioner: each op exported
    and loaded alone, once per (op, arguments, operand shapes and dtypes); its
    `refused` names the others with the reason."""
    from torch.fx.passes.operator_support import OperatorSupportBase

    class OpSupport(OperatorSupportBase):
        def __init__(self) -> None:
            super().__init__()
            self.known: dict = {}
            self.refused: dict = {}

        def is_node_supported(self, submodules: Any, node: Any) -> bool:
            if node.op not in ("call_function", "call_method"):
                return False
            if not hasattr(node.meta.get("tensor_meta"), "shape"):  # no tensor result, or several
                return False
            operands: list = []
            torch.fx.map_arg((node.args, node.kwargs), operands.append)
            if any(not hasattr(a.meta.get("tensor_meta"), "shape") for a in operands):
                return False
            key = (node.op, str(node.target), repr(node.args), repr(node.kwargs),
                   tuple((tuple(a.meta["tensor_meta"].shape), a.meta["tensor_meta"].dtype) for a in operands))
            if key not in self.known:
                why = _why_not_alone(torch, node, operands)
                self.known[key] = why is None
                if why is not None:
                    self.refused[getattr(node.target, "__name__", str(node.target))] = why
            return self.known[key]

    return OpSupport()


def _why_not_alone(torch: Any, node: Any, operands: list) -> str | None:
    """None where smelt loads `node` exported alone (zeros of its operands' shapes), else why not."""
    graph = torch.fx.Graph()
    placeholders = {a: graph.placeholder(f"operand{i}") for i, a in enumerate(operands)}
    args, kwargs = torch.fx.map_arg((node.args, node.kwargs), lambda a: placeholders[a])
    make = graph.call_function if node.op == "call_function" else graph.call_method
    graph.output(make(node.target, args, kwargs))
    alone = torch.fx.GraphModule(torch.nn.Module(), graph)
    examples = tuple(torch.zeros(tuple(a.meta["tensor_meta"].shape), dtype=a.meta["tensor_meta"].dtype)
                     for a in operands)
    try:
        with tempfile.TemporaryDirectory(prefix="smelt-torch-") as folder:
            path = os.path.join(folder, "op.onnx")
            _export(torch, alone, examples, path, [f"input{i}" for i in range(len(examples))])
            smelt.load(path)
        return None
    except (Unsupported, smelt.Error) as why:
        return str(why).splitlines()[0][:200]


def _compile_on_first_call(torch: Any, module: Any, threads: int) -> Any:
    """A partition compiled by smelt on its first call, with that call's tensors;
    run by PyTorch if smelt cannot compile it after all. A torch.nn.Module, since
    it replaces a child module of the partitioned GraphModule."""

    class CompileOnFirstCall(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.partition = module
            self._run: Callable[..., Any] | None = None

        def forward(self, *args: Any) -> Any:
            if self._run is None:
                try:
                    self._run = _SmeltModule(self.partition, args, threads)
                except (Unsupported, smelt.Error) as reason:
                    log.warning("smelt.torch: a partition runs eagerly: %s", reason)
                    self._run = self.partition
            return self._run(*args)

    return CompileOnFirstCall()


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
