"""
smelt's C++ core (nanobind); use the package `smelt`, which re-exports it.
"""

from collections.abc import Sequence
import os


class Tensor:
    """
    One value of a Graph: an input, a constant or an op's result. Python operators + - * / (with tensors or numbers: a number becomes a `full` of the tensor's shape and dtype), unary -, and @ (matmul) add ops to the tensor's graph.
    """

    @property
    def shape(self) -> tuple:
        """The shape, a tuple of ints."""

    @property
    def dtype(self) -> str:
        """The element type: 'f32', 'f16', 'bf16', 'i32', 'i64' or 'bool'."""

    @property
    def name(self) -> str:
        """The value's name in the graph ('' where it has none)."""

    @property
    def op(self) -> str:
        """The op that makes the value ('input', 'add', ...)."""

    def __repr__(self) -> str: ...

    def __add__(self, arg: object, /) -> Tensor: ...

    def __radd__(self, arg: object, /) -> Tensor: ...

    def __sub__(self, arg: object, /) -> Tensor: ...

    def __rsub__(self, arg: object, /) -> Tensor: ...

    def __mul__(self, arg: object, /) -> Tensor: ...

    def __rmul__(self, arg: object, /) -> Tensor: ...

    def __truediv__(self, arg: object, /) -> Tensor: ...

    def __rtruediv__(self, arg: object, /) -> Tensor: ...

    def __neg__(self) -> Tensor: ...

    def __matmul__(self, arg: Tensor, /) -> Tensor: ...

class Graph:
    """
    A tensor graph, built op by op as with C++'s ir::Builder (every op is shape-checked as it is added; a mismatch raises smelt.Error of kind 'shape'), or loaded with smelt.load / smelt.parse. str(graph) is its .sg text.
    """

    def __init__(self, name: str = '') -> None:
        """A new, empty graph."""

    @property
    def name(self) -> str: ...

    @name.setter
    def name(self, arg: str, /) -> None: ...

    @property
    def source(self) -> str:
        """
        The file the graph was loaded from ('' for a graph built or parsed in Python).
        """

    def input(self, name: str, dtype: object, shape: Sequence[int]) -> Tensor:
        """
        Adds a graph input. dtype: 'f32', 'f16', 'bf16', 'i32', 'i64', 'bool' or a numpy dtype.
        """

    def constant(self, values: object, dtype: object = 'f32', shape: Sequence[int] | None = None) -> Tensor:
        """
        A literal: a number (a scalar, rank 0) or a nested sequence / numpy array (row-major; `shape` defaults to the array's).
        """

    def full(self, shape: Sequence[int], value: float, dtype: object = 'f32') -> Tensor:
        """A tensor of one value."""

    def iota(self, shape: Sequence[int], axis: int, dtype: object = 'i32') -> Tensor:
        """A tensor whose elements are their index along `axis`."""

    def output(self, *args) -> None:
        """Marks tensors as graph outputs, in order."""

    @property
    def inputs(self) -> list:
        """The input tensors, in order."""

    @property
    def outputs(self) -> list:
        """The output tensors, in order."""

    @property
    def input_names(self) -> list[str]: ...

    @property
    def output_names(self) -> list[str]:
        """Output names: the value's name, or 'output<i>' where it has none."""

    def __len__(self) -> int:
        """The number of values (ops) in the graph."""

    def __str__(self) -> str: ...

    def __repr__(self) -> str: ...

def neg(x: Tensor) -> Tensor:
    """Elementwise neg (docs/ops.md); adds the op to x's graph."""

def exp(x: Tensor) -> Tensor:
    """Elementwise exp (docs/ops.md); adds the op to x's graph."""

def exp2(x: Tensor) -> Tensor:
    """Elementwise exp2 (docs/ops.md); adds the op to x's graph."""

def log(x: Tensor) -> Tensor:
    """Elementwise log (docs/ops.md); adds the op to x's graph."""

def log2(x: Tensor) -> Tensor:
    """Elementwise log2 (docs/ops.md); adds the op to x's graph."""

def sin(x: Tensor) -> Tensor:
    """Elementwise sin (docs/ops.md); adds the op to x's graph."""

def cos(x: Tensor) -> Tensor:
    """Elementwise cos (docs/ops.md); adds the op to x's graph."""

def tanh(x: Tensor) -> Tensor:
    """Elementwise tanh (docs/ops.md); adds the op to x's graph."""

def sqrt(x: Tensor) -> Tensor:
    """Elementwise sqrt (docs/ops.md); adds the op to x's graph."""

def rsqrt(x: Tensor) -> Tensor:
    """Elementwise rsqrt (docs/ops.md); adds the op to x's graph."""

def recip(x: Tensor) -> Tensor:
    """Elementwise recip (docs/ops.md); adds the op to x's graph."""

def abs(x: Tensor) -> Tensor:
    """Elementwise abs (docs/ops.md); adds the op to x's graph."""

def relu(x: Tensor) -> Tensor:
    """Elementwise relu (docs/ops.md); adds the op to x's graph."""

def sigmoid(x: Tensor) -> Tensor:
    """Elementwise sigmoid (docs/ops.md); adds the op to x's graph."""

def gelu(x: Tensor) -> Tensor:
    """Elementwise gelu (docs/ops.md); adds the op to x's graph."""

def erf(x: Tensor) -> Tensor:
    """Elementwise erf (docs/ops.md); adds the op to x's graph."""

def add(a: Tensor, b: object) -> Tensor:
    """
    Elementwise add of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def sub(a: Tensor, b: object) -> Tensor:
    """
    Elementwise sub of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def mul(a: Tensor, b: object) -> Tensor:
    """
    Elementwise mul of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def div(a: Tensor, b: object) -> Tensor:
    """
    Elementwise div of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def max(a: Tensor, b: object) -> Tensor:
    """
    Elementwise max of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def min(a: Tensor, b: object) -> Tensor:
    """
    Elementwise min of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def pow(a: Tensor, b: object) -> Tensor:
    """
    Elementwise pow of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def lt(a: Tensor, b: object) -> Tensor:
    """
    Elementwise lt of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def le(a: Tensor, b: object) -> Tensor:
    """
    Elementwise le of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def eq(a: Tensor, b: object) -> Tensor:
    """
    Elementwise eq of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).
    """

def where(cond: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """Elementwise cond ? a : b (cond is bool)."""

def cast(x: Tensor, dtype: object) -> Tensor:
    """Converts x's elements to `dtype`."""

def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    """Same elements, row-major, in a new shape (one -1 is inferred)."""

def permute(x: Tensor, perm: Sequence[int]) -> Tensor:
    """Axes reordered: result axis i is x's perm[i]."""

def slice_axis(x: Tensor, axis: int, start: int, stop: int, step: int = 1) -> Tensor:
    """x[start:stop:step] along one axis; the other axes whole."""

def slice(x: Tensor, start: Sequence[int], stop: Sequence[int], step: Sequence[int]) -> Tensor:
    """x[start:stop:step] with one entry per axis."""

def pad(x: Tensor, lo: Sequence[int], hi: Sequence[int], value: float = 0.0) -> Tensor:
    """x padded with `value`: lo / hi elements before / after on each axis."""

def broadcast(x: Tensor, shape: Sequence[int]) -> Tensor:
    """x repeated along size-1 or new leading axes to `shape` (numpy rules)."""

def concat(xs: Sequence[Tensor], axis: int) -> Tensor:
    """Tensors joined along `axis`."""

def reduce_sum(x: Tensor, axes: Sequence[int], keepdims: bool = False) -> Tensor:
    """Sum over `axes`."""

def reduce_max(x: Tensor, axes: Sequence[int], keepdims: bool = False) -> Tensor:
    """Maximum over `axes`."""

def matmul(a: Tensor, b: Tensor) -> Tensor:
    """
    Matrix product over the last two axes; leading (batch) axes broadcast numpy-style.
    """

def conv(x: Tensor, w: Tensor, strides: Sequence[int] = [], dilations: Sequence[int] = [], lo: Sequence[int] = [], hi: Sequence[int] = [], groups: int = 1) -> Tensor:
    """
    Convolution of x [N, C, spatial...] (1 to 3 spatial axes) with w [M, C / groups, kernel...]: one stride, dilation and zero padding before (lo) / after (hi) per spatial axis (empty: 1, 1, 0, 0).
    """

def load(path: str | os.PathLike) -> Graph:
    """
    Loads a graph from a .sg file or an ONNX model (.onnx). Raises smelt.Error: kind 'parse' with .file/.line/.col for a bad .sg file; 'import' or 'unsupported' for an ONNX model smelt cannot read.
    """

def parse(text: str, filename: str = '<string>') -> Graph:
    """Parses .sg text (errors name `filename`:line:col)."""

def random_inputs(graph: Graph, seed: int = 0) -> list[object]:
    """
    One random array per graph input (floats in [-1, 1), integers in [-8, 8]), reproducible from `seed`.
    """

def reference(graph: Graph, inputs: object) -> list[object]:
    """
    Runs the graph with smelt's reference interpreter (the oracle every compiled path is checked against). inputs: a sequence in graph order or a dict by input name. Returns the outputs, a list of numpy arrays in graph order.
    """

def reference_with_error_scales(graph: Graph, inputs: object) -> tuple:
    """
    The reference outputs and each element's error scale (float32 arrays of the outputs' shapes): how far an honest compiled run may be from it, in units of the dtype's relative tolerance (docs/testing.md). Returns (outputs, scales); pass an output's scale to smelt.compare.
    """

def compare(got: object, want: object, scale: object | None = None, dtype: object | None = None, rtol: object | None = None, atol: float = 0.0) -> dict:
    """
    smelt's one comparison rule (ir/tensor_compare.h), element by element: |want - got| <= atol + rtol * max(|want|, scale), rtol the dtype's (smelt.default_tolerance) unless given; non-finite elements must match exactly; an infinite scale leaves the element unchecked. `scale`: the output's error scale from smelt.reference_with_error_scales (None: each element's own |want|). `dtype`: needed for bf16 (its arrays are uint16 bits). Returns a dict: ok, max_abs_error, rtol, atol, worst_element (its index, or None), worst_error, worst_bound, worst_scale, failed_elements, unchecked_elements (as `smelt run --check --json` writes them), and message.
    """

def default_tolerance(dtype: object) -> float:
    """
    The relative tolerance smelt checks compiled outputs with, per element (smelt.compare): 1e-4 for f32, 1e-2 for f16, 2e-2 for bf16, 0 for integers and bool.
    """

class Limits:
    """How long the optimizer may search (defaults: smelt's)."""

    def __init__(self) -> None: ...

    @property
    def iterations(self) -> int:
        """Saturation iterations."""

    @iterations.setter
    def iterations(self, arg: int, /) -> None: ...

    @property
    def nodes(self) -> int:
        """E-nodes in the e-graph."""

    @nodes.setter
    def nodes(self, arg: int, /) -> None: ...

    @property
    def saturation_s(self) -> float:
        """Seconds of saturation."""

    @saturation_s.setter
    def saturation_s(self, arg: float, /) -> None: ...

    @property
    def extraction_evaluations(self) -> int:
        """
        Programs the extraction may cost, all parts together (its work budget; 0: no limit).
        """

    @extraction_evaluations.setter
    def extraction_evaluations(self, arg: int, /) -> None: ...

    @property
    def extraction_s(self) -> float:
        """
        Seconds the extraction may search: a safety net behind extraction_evaluations.
        """

    @extraction_s.setter
    def extraction_s(self, arg: float, /) -> None: ...

    @property
    def index_proofs_s(self) -> float:
        """Seconds of Z3 proofs of simplified index maps."""

    @index_proofs_s.setter
    def index_proofs_s(self, arg: float, /) -> None: ...

class Program:
    """
    A compiled graph loaded on its device. Call it with arrays in graph input order (prog(a, b)) or run it with a dict (prog.run({'a': a, 'b': b})). Inputs must have the graph's dtypes and shapes exactly (checked before running; smelt.Error of kind 'input' otherwise) and are read in place when C-contiguous. Runs of one program take turns; the GIL is released while it runs.
    """

    def __call__(self, *args) -> object:
        """
        Runs the program on positional arrays; returns the output array, or a tuple of them where the graph has several outputs.
        """

    def run(self, inputs: object) -> dict:
        """
        Runs the program on a dict of arrays by input name (or a sequence in graph order); returns a dict of output arrays by output name.
        """

    def benchmark(self, reps: int = 10, warmup: int = 1, inputs: object | None = None) -> list[float]:
        """
        Seconds of each of `reps` runs of the kernels after `warmup` untimed runs (inputs copied in once, not timed). inputs: as run() takes them; None: random inputs (seed 0).
        """

    def emit(self, kind: str = 'kernels', target: str | None = None, arch: str = '') -> object:
        """
        The program's code, as `smelt compile --emit` writes it: 'kernels' (readable kernel program), 'llvm' (optimized LLVM IR), 'asm', 'ptx' (for target cuda), 'hsaco' (AMDGPU code object, bytes; for target hip). target: 'host', 'cuda' or 'hip'; None: the program's own, or the one the kind is for.
        """

    def report(self) -> str:
        """
        What `smelt compile --report` prints: the saturation, the extraction, the rules that fired, kernels and predicted times before and after fusion, the index-map proofs and the kernels.
        """

    @property
    def kernels(self) -> list[str]:
        """The names of the kernels that run, in order."""

    @property
    def fusion(self) -> dict:
        """
        The optimizer's facts as `smelt compile --json` gives them (kernels and predicted microseconds before / after, rules fired, e-graph size, stop reason, seconds).
        """

    @property
    def predicted_us(self) -> float:
        """The cost model's time for one run, in microseconds."""

    @property
    def device(self) -> str:
        """The device it runs on, in words."""

    @property
    def target(self) -> str:
        """'host', 'cuda' or 'hip'."""

    @property
    def input_names(self) -> list[str]: ...

    @property
    def output_names(self) -> list[str]: ...

    @property
    def graph(self) -> Graph:
        """A copy of the graph the program computes."""

    def __repr__(self) -> str: ...

def compile(graph: Graph, target: str = 'host', threads: int = 0, profile: str | os.PathLike | None = None, fusion: bool = True, rewrites: bool = True, exact: bool = False, arch: str = '', measure: int = 0, limits: Limits | None = None, unsafe_fp: bool = False) -> Program:
    """
    Fuses `graph` (equality saturation with smelt's proved rules, then the kernels the cost model predicts fastest), lowers it with LLVM for `target` ('host', 'cuda', 'hip') and loads it.

    threads: host threads the program runs on, the caller's included (0: every core).
    profile: a device profile JSON (`smelt calibrate`) to cost kernels with; None: the built-in one for the target (the host's; a GPU's measured on it, by its name, or the nearest shipped).
    fusion: False runs one kernel per op. rewrites: False fuses the graph as given, without saturation. exact: exhaustive extraction on small e-graphs. arch: GPU architecture (sm_80, gfx90a, ...; '' = the device's). measure: time the `measure` best candidates on the host and keep the fastest. limits: smelt.Limits bounding the search; None: smelt's defaults. unsafe_fp: also the rules exact only in real arithmetic (reassociation, batch-norm scales folded into convolution weights): outputs may differ in the last bits, as with fast-math.

    The GIL is released while compiling. Raises smelt.Error (kind 'device_unavailable' where the target cannot run here, 'lower', 'shape', ...).
    """
