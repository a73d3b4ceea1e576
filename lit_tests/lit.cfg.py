# lit configuration for the jax-use-donated FileCheck suite: `lit -v lit_tests`.
# ruff: noqa
import os
import shutil
import sys

import lit.formats

config.name = "jax-use-donated"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["inputs", "lit.cfg.py"]

# The tools of the interpreter running lit (the project's virtualenv).
bin_dir = os.path.dirname(sys.executable)


def tool(name: str) -> str:
    path = os.path.join(bin_dir, name)
    if os.path.exists(path):
        return path
    found = shutil.which(name)
    if found is None:
        lit_config.fatal(f"{name} not found next to {sys.executable} nor on PATH; "
                         "run `pip install -e '.[test]'`")
    return found


python = sys.executable
config.substitutions.append(("%roundtrip-jaxlib",
                             f"{python} -m jax_use_donated.tools.jaxlib_roundtrip"))
config.substitutions.append(("%python", python))
# Whole-word substitutions: never rewrite inside paths or other names.
config.substitutions.append((r"(?<![\w/.-])jax-donate-opt(?![\w-])", tool("jax-donate-opt")))
config.substitutions.append((r"(?<![\w/.-])xdsl-opt(?![\w-])", tool("xdsl-opt")))
config.substitutions.append((r"(?<![\w/.-])filecheck(?![\w-])", tool("filecheck")))

config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
config.environment["PYTHONWARNINGS"] = "default"
# A checkout other than the installed one (a worktree) runs its own code: PYTHONPATH=<it>.
if os.environ.get("PYTHONPATH"):
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
# Keep JAX (used by %roundtrip-jaxlib) quiet and on the CPU.
config.environment["JAX_PLATFORMS"] = "cpu"
config.environment["TF_CPP_MIN_LOG_LEVEL"] = "3"
