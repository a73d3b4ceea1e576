"""The ``jax-donate-opt`` command's first module: for a large input it forks the text route's
child, which reads the model from the text and plans (:func:`.text_route.start_early`), before
importing the driver, whose xDSL imports take 0.3 s, then runs :func:`.driver.console_main`. The imports run with the garbage collector paused, and
what they built is frozen out of later collections (``gc.freeze``)."""

from __future__ import annotations

import gc
import sys
from typing import NoReturn


def main() -> NoReturn:
    gc.disable()
    from jax_use_donated.opt import text_route

    text_route.start_early(sys.argv[1:])
    from jax_use_donated.opt.driver import console_main

    gc.freeze()
    gc.enable()
    console_main()


if __name__ == "__main__":
    main()
