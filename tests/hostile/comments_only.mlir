// Nothing but comments and blank lines.

   
// jax-donate-opt prints an empty module, as mlir-opt does.
#loc = loc("unused.py":1:1)
