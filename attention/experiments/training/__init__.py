"""§4: a small attention model trained in NumPy (hand-written backward pass) on a task
that needs two lookups at once, in four head layouts."""
