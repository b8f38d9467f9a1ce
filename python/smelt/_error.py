"""smelt.Error: the one exception class of the smelt package."""

from __future__ import annotations


class Error(Exception):
    """An error smelt reports: a bad graph or model file, a shape mismatch, inputs
    that do not fit a program, a target that cannot run here, ...

    Attributes:
        kind: what went wrong, one word: the C++ smelt::Error's kind (error/error.h):
            'parse' (a .sg file), 'import' / 'unsupported' (an ONNX model), 'rule',
            'rule_application', 'shape', 'input' (arrays given to a program),
            'device_unavailable', 'device', 'lower', 'memory_limit', 'work_limit', 'input_file',
            'interpret', 'extract_input'; or 'invalid_argument' / 'error' for other
            failures (an unknown option value, an unreadable profile).
        message: the message without the position.
        file, line, col: where in a file the error is (line and column count
            from 1), or None where it has no position.

    str(error) is "FILE:LINE:COL: message" where there is a position, else the message.
    """

    def __init__(self, message: str, kind: str = "error", file: str | None = None,
                 line: int | None = None, col: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.file = file
        self.line = line
        self.col = col

    def __str__(self) -> str:
        if self.file is not None and self.line is not None:
            return f"{self.file}:{self.line}:{self.col}: {self.message}"
        return self.message

    def __reduce__(self):  # picklable with its attributes (multiprocessing)
        return (type(self), (self.message, self.kind, self.file, self.line, self.col))
