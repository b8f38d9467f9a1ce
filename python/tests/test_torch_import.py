"""smelt.torch imports without torch: torch is imported when the backend runs."""

import subprocess
import sys


def test_smelt_torch_imports_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"  # makes `import torch` fail
            "import smelt.torch\n"
            "assert callable(smelt.torch.backend)\n"
            "try:\n    import torch\nexcept ImportError:\n    print('no torch')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "no torch"
